"""The shared cache's table (CACHE_URL=db://…, the default), made with the other tables so
that `migrate` is the only set-up step. A no-op for Redis or file caches."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("deckbuilder", "0003_deck_format_required")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
