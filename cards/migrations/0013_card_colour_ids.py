"""The card's colour ids on its own row, and in the search index with its words (PostgreSQL).

`cards_card.colour_ids` (bigint[], sorted) copies the card's rows of `cards_card_colours`. Two
statement-level triggers keep it, whoever writes the relation (the ORM, a bulk import, raw
SQL). Django's model does not know the column, so no save can write a stale copy back;
`CardQuerySet` reads it through `cards.models.colour_ids`.

Why: a colour filter was a join or an anti-join per card. On the row, a search with a colour
is one bitmap of the two-column GIN index (the words and the colours), and counting it visits
only the matches; "may this leader use it" is a test on the row. SQLite keeps no such column
and filters through the relation, which is fine for its small pools.
"""

from django.db import migrations

from ._postgresql import on_postgresql

RECOUNT = """
    UPDATE cards_card SET colour_ids = ARRAY(
        SELECT colour_id FROM cards_card_colours
        WHERE card_id = cards_card.id ORDER BY colour_id)
    WHERE id IN (SELECT card_id FROM {rows})
"""
FORWARDS = [
    "ALTER TABLE cards_card ADD COLUMN colour_ids bigint[] NOT NULL DEFAULT '{}'",
    f"""CREATE FUNCTION card_colour_ids_new() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN {RECOUNT.format(rows="new_rows")}; RETURN NULL; END $$""",
    f"""CREATE FUNCTION card_colour_ids_old() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN {RECOUNT.format(rows="old_rows")}; RETURN NULL; END $$""",
    f"""CREATE FUNCTION card_colour_ids_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN {RECOUNT.format(rows="(SELECT card_id FROM old_rows UNION SELECT card_id FROM new_rows) AS moved")};
        RETURN NULL; END $$""",
    """CREATE TRIGGER card_colour_ids_insert AFTER INSERT ON cards_card_colours
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
       EXECUTE FUNCTION card_colour_ids_new()""",
    """CREATE TRIGGER card_colour_ids_delete AFTER DELETE ON cards_card_colours
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
       EXECUTE FUNCTION card_colour_ids_old()""",
    """CREATE TRIGGER card_colour_ids_update AFTER UPDATE ON cards_card_colours
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
       EXECUTE FUNCTION card_colour_ids_moved()""",
    RECOUNT.format(rows="cards_card_colours"),
    "CREATE INDEX card_search_colours_gin ON cards_card USING gin (search_vector, colour_ids)",
    "DROP INDEX card_search_vector_gin",
]
BACKWARDS = [
    "CREATE INDEX card_search_vector_gin ON cards_card USING gin (search_vector)",
    "DROP INDEX card_search_colours_gin",
    "DROP TRIGGER card_colour_ids_insert ON cards_card_colours",
    "DROP TRIGGER card_colour_ids_delete ON cards_card_colours",
    "DROP TRIGGER card_colour_ids_update ON cards_card_colours",
    "DROP FUNCTION card_colour_ids_new()",
    "DROP FUNCTION card_colour_ids_old()",
    "DROP FUNCTION card_colour_ids_moved()",
    "ALTER TABLE cards_card DROP COLUMN colour_ids",
]


class Migration(migrations.Migration):
    dependencies = [("cards", "0012_format_hand_size")]

    operations = [migrations.RunPython(on_postgresql(FORWARDS), on_postgresql(BACKWARDS))]
