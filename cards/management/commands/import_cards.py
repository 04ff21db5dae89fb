"""manage.py import_cards FILE [--game SLUG] [--dry-run] [--partial] [--format csv|json]
                             [--source exchange|fowsim]

Imports a game's sets, cards and leaders (the exchange file: see cards/importers.py). The game
comes from the file (JSON "game", or the CSV `game` column) or from --game; if both are given
they must agree. Every row is checked before anything is written: every bad row is printed as
`card row N (Name), field: reason`; with any bad row nothing is written and the command fails,
unless --partial: then the good rows are written and the command still fails (exit status 1).

--source fowsim reads the Force of Will community database's files instead (cards.fowsim): its
cards (what the conversion could not map exactly is printed as a note per record), or its ban
list (each of its formats becomes a format of the game: `constructed` with its bans).
"""

from pathlib import Path

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
        parser.add_argument(
            "--partial",
            action="store_true",
            help="Write the good rows and report the bad ones (exit status 1 if any).",
        )
        parser.add_argument(
            "--source",
            choices=importers.SOURCES,
            default="exchange",
            help="What the file is: the exchange file (default) or a fowsim file.",
        )

    def handle(self, *args, file, game, fmt, dry_run, partial, source, **options):
        try:
            if source == "fowsim":
                target = importers.resolve_game(file_game=None, requested=game or "force-of-will")
                document = importers.load_json(Path(file).read_text(encoding="utf-8-sig"))
                if importers.is_fowsim_banlist(document):
                    return self.banlist(target, document, dry_run)
                data = importers.read_fowsim(file, game=target)
            else:
                data = importers.read_file(file, fmt=fmt)
                target = importers.resolve_game(file_game=data.game, requested=game)
        except OSError as e:
            raise CommandError(f"Cannot read {file}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise CommandError(f"{file} is not UTF-8 text.") from None
        except importers.ImportFileError as e:
            raise CommandError(str(e)) from None
        for note in data.warnings:
            self.stdout.write(f"note: {note}")
        report = importers.import_records(
            game=target, dry_run=dry_run, partial=partial, **data.records()
        )
        for error in report.errors:
            self.stderr.write(str(error))
        if report.errors and not report.written:
            raise CommandError(f"{len(report.errors)} bad row(s) in {file}; nothing was written.")
        self.stdout.write(f"{target.slug}: {report.summary()}")
        if report.errors:
            raise CommandError(f"Some rows of {file} were refused (listed above).")

    def banlist(self, game, document, dry_run):
        if dry_run:
            formats = importers.fowsim.banlist_rules(document)
            self.stdout.write(f"{game.slug}: dry run, would save format(s): {', '.join(formats)}.")
            return
        saved = importers.import_fowsim_banlist(game=game, document=document)
        for fmt in saved:
            counts = {rule["rule"]: rule for rule in fmt.rules}
            banned = len(counts.get("banlist", {}).get("cards", {}))
            pairs = len(counts.get("combination_ban", {}).get("groups", []))
            self.stdout.write(
                f"{game.slug}: format {fmt.slug} saved ({banned} cards banned, {pairs} pairs)."
            )
