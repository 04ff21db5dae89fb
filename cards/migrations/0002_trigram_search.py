"""Trigram indexes for card search on PostgreSQL (SQLite scans; its pools are small).

Django's `icontains` on PostgreSQL is `UPPER(col::text) LIKE UPPER(%s)`, so the indexes are on
exactly that expression.
"""

from django.db import migrations

INDEXES = {
    "card_name_trgm": "UPPER(name::text)",
    "card_text_trgm": "UPPER(text::text)",
}


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, expression in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON cards_card USING gin ({expression} gin_trgm_ops)"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("cards", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
