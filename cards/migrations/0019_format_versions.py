"""Formats hold dated versions: each format's sections, rules, ban list and notes move into one
version in force from the beginning, named like the format."""

import django.db.models.expressions
from django.db import migrations, models

import cards.models
import cards.text


def to_versions(apps, schema_editor):
    Format = apps.get_model("cards", "Format")
    FormatVersion = apps.get_model("cards", "FormatVersion")
    FormatVersion.objects.bulk_create(
        FormatVersion(
            format=f,
            starts=None,
            name=f.name,
            sections=f.sections,
            rules=f.rules,
            banlist=f.banlist,
            notes=f.notes,
        )
        for f in Format.objects.all()
    )


def from_versions(apps, schema_editor):
    Format = apps.get_model("cards", "Format")
    for f in Format.objects.all():
        first = f.versions.order_by(
            django.db.models.expressions.F("starts").asc(nulls_first=True)
        ).first()
        if first:
            f.sections, f.rules, f.banlist, f.notes = (
                first.sections,
                first.rules,
                first.banlist,
                first.notes,
            )
            f.save()


class Migration(migrations.Migration):
    dependencies = [("cards", "0018_printings_and_faces_share_a_base")]

    operations = [
        migrations.CreateModel(
            name="FormatVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "starts",
                    models.DateField(
                        blank=True,
                        help_text="The first day it judges decks (the site's time zone); empty: "
                        "from the beginning.",
                        null=True,
                        verbose_name="in force from",
                    ),
                ),
                (
                    "name",
                    models.CharField(
                        help_text='e.g. "September 2025 ban list".',
                        max_length=120,
                        validators=[cards.text.one_line],
                    ),
                ),
                (
                    "sections",
                    models.JSONField(
                        default=cards.models._default_sections,
                        help_text='Deck sections in order, e.g. [{"slug": "main", "name": "Main '
                        'deck"}]; cards go to the first when no section is named.',
                    ),
                ),
                (
                    "rules",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text='Deck rules, in order: a list such as [{"rule": "deck_size", '
                        '"deck": "main", "min": 40, "section": "5.3"}]. Rules: leader_required, '
                        "deck_size, copy_limit, section_types, colour_identity, faction_gate, "
                        "loyalty_gate, requires_type, banlist, section_gate, type_limit, "
                        "exclusive_keywords, pool, combination_ban.",
                    ),
                ),
                (
                    "banlist",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text='{"card-slug": most copies allowed}; 0 = banned.',
                    ),
                ),
                (
                    "notes",
                    models.TextField(
                        blank=True, help_text="What the version is; what the site chose."
                    ),
                ),
                (
                    "format",
                    models.ForeignKey(
                        on_delete=models.deletion.CASCADE,
                        related_name="versions",
                        to="cards.format",
                    ),
                ),
            ],
            options={
                "ordering": [
                    "format",
                    django.db.models.expressions.OrderBy(
                        django.db.models.expressions.F("starts"), nulls_first=True
                    ),
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("format", "starts"), name="formatversion_one_a_day"
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("starts__isnull", True)),
                        fields=("format",),
                        name="formatversion_one_from_the_beginning",
                        violation_error_message="Only one version can be in force from the "
                        "beginning.",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("name", ""), _negated=True),
                        name="formatversion_name_not_empty",
                    ),
                ],
            },
        ),
        migrations.RunPython(to_versions, from_versions),
        migrations.RemoveField(model_name="format", name="sections"),
        migrations.RemoveField(model_name="format", name="rules"),
        migrations.RemoveField(model_name="format", name="banlist"),
        migrations.RemoveField(model_name="format", name="notes"),
    ]
