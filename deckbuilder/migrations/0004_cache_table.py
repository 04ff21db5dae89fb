"""The shared cache's table, made with the other tables so that `migrate` is the only set-up step.

`django_cache`, the table of CACHE_URL's default (db://django_cache), is made whatever the cache
settings are when `migrate` runs: a site migrated with CACHE_URL=redis://… or dummy:// that
later falls back to the default finds its table. The tables of other db:// caches configured at
that moment are made too. Both as `createcachetable` makes them: only when missing."""

from django.core.management import call_command
from django.db import migrations

DEFAULT_TABLE = "django_cache"  # deckbuilder.settings.env_cache's default, frozen here


def create_cache_table(apps, schema_editor):
    database = schema_editor.connection.alias
    # Named, the table is made whatever CACHES says; unnamed, those of CACHES' db:// caches.
    call_command("createcachetable", DEFAULT_TABLE, database=database, verbosity=0)
    call_command("createcachetable", database=database, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("deckbuilder", "0003_deck_format_required")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
