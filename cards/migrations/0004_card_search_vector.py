"""Card search on PostgreSQL: a tsvector of name and text, kept by a trigger, GIN-indexed.

Replaces the trigram indexes of 0002 with word-prefix full-text search: "heal" finds Healing,
and one- or two-letter prefixes still use the index (trigrams need three letters). Counting
broad matches costs about the same either way (see docs/performance.md). SQLite keeps the
column empty and searches with LIKE.
"""

import django.contrib.postgres.search
from django.db import migrations

from ._postgresql import on_postgresql

FORWARDS = [
    "DROP INDEX IF EXISTS card_name_trgm",
    "DROP INDEX IF EXISTS card_text_trgm",
    """CREATE TRIGGER card_search_vector BEFORE INSERT OR UPDATE OF name, text ON cards_card
       FOR EACH ROW EXECUTE FUNCTION
       tsvector_update_trigger(search_vector, 'pg_catalog.simple', name, text)""",
    "UPDATE cards_card SET search_vector = to_tsvector('pg_catalog.simple', "
    "coalesce(name, '') || ' ' || coalesce(text, ''))",
    "CREATE INDEX card_search_vector_gin ON cards_card USING gin (search_vector)",
]
BACKWARDS = [
    "DROP INDEX IF EXISTS card_search_vector_gin",
    "DROP TRIGGER IF EXISTS card_search_vector ON cards_card",
    "CREATE INDEX card_name_trgm ON cards_card USING gin (UPPER(name::text) gin_trgm_ops)",
    "CREATE INDEX card_text_trgm ON cards_card USING gin (UPPER(text::text) gin_trgm_ops)",
]


class Migration(migrations.Migration):
    dependencies = [("cards", "0003_game_format")]

    operations = [
        migrations.AddField(
            model_name="card",
            name="search_vector",
            field=django.contrib.postgres.search.SearchVectorField(editable=False, null=True),
        ),
        migrations.RunPython(on_postgresql(FORWARDS), on_postgresql(BACKWARDS)),
    ]
