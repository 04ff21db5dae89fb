"""manage.py load_sample_data

Loads every cards/sample/*.json: the game and its vocabulary (services.save_game), then its
leaders and cards (importers.import_records). Idempotent: records are matched by slug and
updated in place, so a second run changes nothing. Any bad record fails the command and writes
nothing.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from cards import importers, services

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample"


class Command(BaseCommand):
    help = "Load (or refresh) the sample games, leaders and cards of cards/sample/*.json."

    def handle(self, *args, **options):
        paths = sorted(SAMPLE_DIR.glob("*.json"))
        if not paths:
            raise CommandError(f"No sample files in {SAMPLE_DIR}.")
        parts = []
        with transaction.atomic():
            for path in paths:
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                    definition = data["game"]
                except (OSError, ValueError, KeyError, TypeError) as e:
                    raise CommandError(f"{path.name}: not a sample file ({e}).") from None
                game = services.save_game(definition=definition)
                leaders, cards = data.get("leaders", []), data.get("cards", [])
                report = importers.import_records(game=game, cards=cards, leaders=leaders)
                if report.errors:
                    lines = "\n".join(f"  {error}" for error in report.errors)
                    raise CommandError(f"{path.name} has bad records:\n{lines}")
                parts.append(
                    f"{game.slug} ({len(leaders)} leaders, {len(cards)} cards: "
                    f"{report.created} created, {report.updated} updated, "
                    f"{report.unchanged} unchanged)"
                )
        self.stdout.write(f"Loaded {len(paths)} sample game(s): {'; '.join(parts)}.")
