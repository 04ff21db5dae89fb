"""manage.py import_cards FILE [--game SLUG] [--dry-run] [--format csv|json]

Imports a game's cards and leaders (formats: see cards/importers.py). The game comes from the
file (JSON "game", or the CSV `game` column) or from --game; if both are given they must agree.
Every row is checked before anything is written: every bad row is printed as `card row N, field:
reason`, and with any bad row nothing is written and the command fails.
"""

from django.core.management.base import BaseCommand, CommandError

from cards import importers


class Command(BaseCommand):
    help = "Import cards and leaders from a JSON or CSV file (all or nothing)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="Path of a .json or .csv file.")
        parser.add_argument("--game", help="Game slug (needed when the file does not name one).")
        parser.add_argument(
            "--format",
            choices=importers.FORMATS,
            dest="fmt",
            help="File format (default: from the file name's extension).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Validate and report without writing anything."
        )

    def handle(self, *args, file, game, fmt, dry_run, **options):
        try:
            data = importers.read_file(file, fmt=fmt)
            target = importers.resolve_game(file_game=data.game, requested=game)
        except OSError as e:
            raise CommandError(f"Cannot read {file}: {e.strerror or e}") from None
        except importers.ImportFileError as e:
            raise CommandError(str(e)) from None
        report = importers.import_records(game=target, dry_run=dry_run, **data.records())
        for error in report.errors:
            self.stderr.write(str(error))
        if report.errors:
            raise CommandError(f"{len(report.errors)} bad row(s) in {file}; nothing was written.")
        self.stdout.write(f"{target.slug}: {report.summary()}")
