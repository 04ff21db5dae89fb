# Separate from the data migration before it: PostgreSQL cannot alter a table with pending
# foreign-key checks from rows updated in the same transaction.
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('deckbuilder', '0002_deck_formats_and_sections'),
    ]

    operations = [
        migrations.AlterField(
            model_name='deck',
            name='format',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='decks', to='cards.format'),
        ),
    ]
