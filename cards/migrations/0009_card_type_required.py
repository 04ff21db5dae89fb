# Separate from the data migration before it: PostgreSQL cannot alter a table with pending
# foreign-key checks from rows updated in the same transaction.
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0008_formats_and_vocabulary'),
    ]

    operations = [
        migrations.AlterField(
            model_name='card',
            name='type',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='cards', to='cards.cardtype'),
        ),
        migrations.RemoveField(
            model_name='game',
            name='format',
        ),
    ]
