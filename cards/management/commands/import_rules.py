"""manage.py import_rules GAME FILE [--dry-run] [--format STYLE]

Turns a rules document (UTF-8, a byte-order mark is fine) into the game's rule sections: Markdown
headings, reStructuredText titles, numbered plain text (``207.4. text``), ``*** HEADING ***``
lines or short heading lines (see cards/rules.py for how each style is read). Sections are
matched by number: existing ones are updated in place and keep their anchors; sections of the
game that the file lacks are kept and listed. A dry run prints the tree and writes nothing. A
document that cannot be parsed fails with the line at fault, and nothing is written.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cards import rules
from cards.models import Game


class Command(BaseCommand):
    help = "Import a game's rules document into rule sections (all or nothing)."

    def add_arguments(self, parser):
        parser.add_argument("game", help="Game slug, e.g. card-of-gods.")
        parser.add_argument("file", help="Path of the rules document.")
        parser.add_argument(
            "--dry-run", action="store_true", help="Print the section tree; write nothing."
        )
        parser.add_argument(
            "--format",
            dest="fmt",
            choices=rules.STYLES,
            help="How to read the document (default: detected).",
        )

    def handle(self, *args, game, file, dry_run, fmt, **options):
        target = Game.objects.filter(slug=game).first()
        if target is None:
            known = ", ".join(Game.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"No game {game!r} (known: {known}).")
        try:
            text = rules.decode(Path(file).read_bytes())
            report = rules.import_rules(game=target, text=text, dry_run=dry_run, fmt=fmt)
        except OSError as e:
            raise CommandError(f"Cannot read {file}: {e.strerror or e}") from None
        except rules.RulesParseError as e:
            raise CommandError(f"{file}, {e}; nothing was written.") from None
        if dry_run:
            self.stdout.write(report.tree())
        self.stdout.write(report.summary() + (" Dry run: nothing was written." if dry_run else ""))
