"""manage.py import_rules GAME FILE [--dry-run] [--format STYLE] [--numbering HOW] [--prune]

Makes a rules document (UTF-8, a byte-order mark is fine) the game's rules: comprehensive rules
as published (plain text, PDF-to-text dumps, Markdown conversions), Markdown headings,
reStructuredText titles, ``*** HEADING ***`` lines or short heading lines (cards/rulebook/
has a parser per style). Existing sections are updated in place and keep their anchors;
sections the file no longer has are marked obsolete (``--prune`` deletes them). The reader's
guesses are listed as warnings; a dry run prints the tree and the warnings and writes nothing.
A document that cannot be read fails with the line at fault, and nothing is written.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cards import rulebook, services
from cards.models import Game


class Command(BaseCommand):
    help = "Import a game's rules document into rule sections (all or nothing)."

    def add_arguments(self, parser):
        parser.add_argument("game", help="Game slug, e.g. card-of-gods.")
        parser.add_argument("file", help="Path of the rules document.")
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Print the section tree and the warnings; write nothing.",
        )
        parser.add_argument(
            "--format",
            dest="fmt",
            choices=rulebook.STYLES,
            help="How to read the document (default: detected).",
        )
        parser.add_argument(
            "--numbering",
            choices=rulebook.NUMBERINGS,
            help="document (default): sections keep the numbers the document gives them; "
            "position: number every heading by its place, its text whole as the title.",
        )
        parser.add_argument(
            "--prune",
            action="store_true",
            help="Delete sections the file no longer has (default: keep them, marked obsolete).",
        )

    def handle(self, *args, game, file, dry_run, fmt, numbering, prune, **options):
        target = Game.objects.filter(slug=game).first()
        if target is None:
            known = ", ".join(Game.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"No game {game!r} (known: {known}).")
        try:
            text = rulebook.decode(Path(file).read_bytes())
            report = services.import_rules(
                game=target,
                text=text,
                dry_run=dry_run,
                fmt=fmt,
                numbering=numbering,
                prune=prune,
            )
        except OSError as e:
            raise CommandError(f"Cannot read {file}: {e.strerror or e}") from None
        except rulebook.RulesParseError as e:
            raise CommandError(f"{file}, {e}; nothing was written.") from None
        if dry_run:
            self.stdout.write(report.tree())
        for warning in report.document.warnings:
            self.stderr.write(f"{file}, {warning}")
        self.stdout.write(report.summary() + (" Dry run: nothing was written." if dry_run else ""))
