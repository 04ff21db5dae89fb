"""Card and leader art (cards.art): Art, its renditions, and the art of printings and leaders."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cards", "0019_format_versions"),
    ]

    operations = [
        migrations.AlterField(
            model_name="printing",
            name="image",
            field=models.CharField(
                blank=True,
                help_text="Where the art came from: a URL or an import's path.",
                max_length=500,
            ),
        ),
        migrations.CreateModel(
            name="Art",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "digest",
                    models.CharField(
                        editable=False,
                        help_text="SHA-256 of the original file.",
                        max_length=64,
                        unique=True,
                    ),
                ),
                (
                    "width",
                    models.PositiveIntegerField(
                        editable=False, help_text="Of the original, upright."
                    ),
                ),
                ("height", models.PositiveIntegerField(editable=False)),
                (
                    "fallback",
                    models.CharField(
                        choices=[("jpg", "JPEG"), ("png", "PNG")], editable=False, max_length=4
                    ),
                ),
                (
                    "renditions",
                    models.JSONField(
                        default=list,
                        editable=False,
                        help_text='Each {"size", "width", "height"}, narrowest first.',
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "verbose_name_plural": "art",
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("digest", ""), _negated=True),
                        name="art_digest_not_empty",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("fallback__in", ["jpg", "png"])),
                        name="art_fallback_jpg_or_png",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("height__gte", 1), ("width__gte", 1)),
                        name="art_width_and_height",
                    ),
                ],
            },
        ),
        migrations.AddField(
            model_name="leader",
            name="art",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                help_text="Its picture (cards.art), shown before its printings' art.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="leaders",
                to="cards.art",
            ),
        ),
        migrations.AddField(
            model_name="printing",
            name="art",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                help_text="Its art as stored (cards.art).",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="printings",
                to="cards.art",
            ),
        ),
    ]
