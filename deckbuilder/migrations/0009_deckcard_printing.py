"""A deck entry remembers the printing the player named (deck text `4 CMF-058` or
`4 Card Name (CMF-058)`, the API's `"printing"`): the art shown and exported. Existing entries
name none."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("deckbuilder", "0008_default_cache_table")]

    operations = [
        migrations.AddField(
            model_name="deckcard",
            name="printing",
            field=models.CharField(
                blank=True,
                default="",
                help_text="A printing number of the card: its art.",
                max_length=30,
            ),
        ),
    ]
