"""manage.py export_cards GAME [--format json|csv] [--output FILE]

Writes the game's leaders and cards in the format that import_cards reads (to stdout unless
--output is given; the format defaults to the output file's extension, else JSON).
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cards import importers
from cards.models import Game


class Command(BaseCommand):
    help = "Export a game's cards and leaders as JSON or CSV."

    def add_arguments(self, parser):
        parser.add_argument("game", help="Game slug.")
        parser.add_argument("--format", choices=importers.FORMATS, dest="fmt")
        parser.add_argument("--output", "-o", help="File to write (default: stdout).")

    def handle(self, *args, game, fmt, output, **options):
        found = Game.objects.filter(slug=game).first()
        if found is None:
            raise CommandError(f"Unknown game {game!r}.")
        if fmt is None:
            suffix = Path(output).suffix.lstrip(".").lower() if output else ""
            fmt = suffix if suffix in importers.FORMATS else "json"
        text = importers.export_game(game=found, fmt=fmt)
        if output:
            try:
                Path(output).write_text(text, encoding="utf-8")
            except OSError as e:
                raise CommandError(f"Cannot write {output}: {e.strerror or e}") from None
            self.stderr.write(f"Wrote {found.slug} as {fmt} to {output}.")
        else:
            self.stdout.write(text, ending="")
