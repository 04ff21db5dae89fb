"""Rules search on PostgreSQL: a weighted tsvector of each section (title A, body B, English
stemming), kept by a trigger, GIN-indexed. SQLite keeps the column empty and searches with LIKE
(cards.models.RuleSectionQuerySet.search)."""

import django.contrib.postgres.search
from django.db import migrations

from ._postgresql import on_postgresql

FORWARDS = [
    """CREATE FUNCTION cards_rulesection_search_vector() RETURNS trigger AS $$
       BEGIN
         NEW.search_vector :=
           setweight(to_tsvector('pg_catalog.english', coalesce(NEW.title, '')), 'A') ||
           setweight(to_tsvector('pg_catalog.english', coalesce(NEW.body, '')), 'B');
         RETURN NEW;
       END
       $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER rulesection_search_vector
       BEFORE INSERT OR UPDATE OF title, body ON cards_rulesection
       FOR EACH ROW EXECUTE FUNCTION cards_rulesection_search_vector()""",
    "UPDATE cards_rulesection SET title = title",
    "CREATE INDEX rulesection_search_vector_gin ON cards_rulesection USING gin (search_vector)",
]
BACKWARDS = [
    "DROP INDEX IF EXISTS rulesection_search_vector_gin",
    "DROP TRIGGER IF EXISTS rulesection_search_vector ON cards_rulesection",
    "DROP FUNCTION IF EXISTS cards_rulesection_search_vector()",
]


class Migration(migrations.Migration):
    dependencies = [("cards", "0005_rules_reference")]

    operations = [
        migrations.AddField(
            model_name="rulesection",
            name="search_vector",
            field=django.contrib.postgres.search.SearchVectorField(editable=False, null=True),
        ),
        migrations.RunPython(on_postgresql(FORWARDS), on_postgresql(BACKWARDS)),
    ]
