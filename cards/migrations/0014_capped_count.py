"""`capped_count(query, cap, trust_above)` (PostgreSQL): how many rows `query` gives, up to
`cap` + 1, in one statement; when the planner expects more than `trust_above` rows, `cap` + 1
without reading any (cards.pagination: counting a thousand matches of a word search tests
~8,000 rows, ~10 ms at 50,000 cards; asking the planner costs its planning)."""

from django.db import migrations

from ._postgresql import on_postgresql

FORWARDS = [
    """CREATE FUNCTION capped_count(query text, cap integer, trust_above double precision)
       RETURNS integer LANGUAGE plpgsql AS $$
       DECLARE
           plan json;
           found integer;
       BEGIN
           EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
           IF (plan -> 0 -> 'Plan' ->> 'Plan Rows')::double precision > trust_above THEN
               RETURN cap + 1;
           END IF;
           EXECUTE 'SELECT count(*) FROM (' || query || ' LIMIT ' || (cap + 1) || ') counted'
               INTO found;
           RETURN found;
       END $$""",
]
BACKWARDS = ["DROP FUNCTION capped_count(text, integer, double precision)"]


class Migration(migrations.Migration):
    dependencies = [("cards", "0013_card_colour_ids")]

    operations = [migrations.RunPython(on_postgresql(FORWARDS), on_postgresql(BACKWARDS))]
