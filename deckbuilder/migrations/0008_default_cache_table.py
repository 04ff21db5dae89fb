"""The default cache table (`django_cache`, CACHE_URL's default db://django_cache) for sites
that ran 0004_cache_table when it made only the tables CACHES named then: migrated with
CACHE_URL=redis://… or dummy://, they had none, and a later switch to the default answered
500 ("no such table: django_cache"). The same step as 0004's now: only what is missing is
made, so a no-op wherever the tables exist."""

from importlib import import_module

from django.db import migrations

create_cache_table = import_module("deckbuilder.migrations.0004_cache_table").create_cache_table


class Migration(migrations.Migration):
    dependencies = [("deckbuilder", "0007_deck_versions")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
