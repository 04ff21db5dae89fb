"""The default cache table (`django_cache`, CACHE_URL's default db://django_cache) for sites
that ran 0004_cache_table when it made only the tables CACHES named then: migrated with
CACHE_URL=redis://… or dummy://, they had none, and a later switch to the default answered
500 ("no such table: django_cache"). Made as `createcachetable` makes it: only when missing, so
a no-op wherever it exists. Other db:// caches configured now get their tables too."""

from django.core.management import call_command
from django.db import migrations

DEFAULT_TABLE = "django_cache"  # deckbuilder.settings.env_cache's default, frozen here


def create_cache_tables(apps, schema_editor):
    database = schema_editor.connection.alias
    # Named, the table is made whatever CACHES says; unnamed, those of CACHES' db:// caches.
    call_command("createcachetable", DEFAULT_TABLE, database=database, verbosity=0)
    call_command("createcachetable", database=database, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("deckbuilder", "0007_deck_versions")]

    operations = [migrations.RunPython(create_cache_tables, migrations.RunPython.noop)]
