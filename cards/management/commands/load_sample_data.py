"""manage.py load_sample_data

Loads every cards/sample/*.json: the game and its vocabulary (services.save_game), then its
leaders and cards (importers.import_records). Then, for each game, whichever of these exist:
cards/sample/rules/<game>.md (services.import_rules), <game>.glossary.json
(services.import_glossary)
and <game>.rulings.json (services.import_rulings). Idempotent: records are matched by slug (rule
sections by number, rulings by card and question) and updated in place, so a second run changes
nothing. Any bad record fails the command and writes nothing.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from cards import importers, rulebook, services

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample"
RULES_DIR = SAMPLE_DIR / "rules"


class Command(BaseCommand):
    help = "Load (or refresh) the sample games, leaders and cards of cards/sample/*.json."

    def handle(self, *args, **options):
        paths = sorted(SAMPLE_DIR.glob("*.json"))
        if not paths:
            raise CommandError(f"No sample files in {SAMPLE_DIR}.")
        with transaction.atomic():
            parts = [load_sample(path) for path in paths]
        self.stdout.write(f"Loaded {len(paths)} sample game(s): {'; '.join(parts)}.")


def load_sample(path: Path) -> str:
    """Load one sample game (definition, leaders, cards, rules, glossary, rulings) from its
    JSON file and the rules files beside it; say what was done. CommandError if anything is bad.
    """
    try:
        data = importers.load_json(path.read_text(encoding="utf-8"))
        definition = data["game"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CommandError(f"{path.name}: not a sample file ({e}).") from None
    try:
        game = services.save_game(definition=definition)
    except ValueError as e:
        raise CommandError(f"{path.name}: {e}") from None
    leaders, cards = data.get("leaders", []), data.get("cards", [])
    report = importers.import_records(
        game=game, cards=cards, leaders=leaders, sets=data.get("sets", [])
    )
    if report.errors:
        lines = "\n".join(f"  {error}" for error in report.errors)
        raise CommandError(f"{path.name} has bad records:\n{lines}")
    return (
        f"{game.slug} ({len(leaders)} leaders, {len(cards)} cards: "
        f"{report.created} created, {report.updated} updated, "
        f"{report.unchanged} unchanged)" + "".join(f"; {part}" for part in _load_rules(game))
    )


def _load_rules(game):
    """Import the game's rules, glossary and rulings files, those that exist."""
    path = RULES_DIR / f"{game.slug}.md"
    if path.exists():
        try:
            report = services.import_rules(game=game, text=rulebook.decode(path.read_bytes()))
        except rulebook.RulesParseError as e:
            raise CommandError(f"{path.name}, {e}") from None
        yield (
            f"rules: {len(report.sections)} sections ({report.created} created, "
            f"{report.updated} updated, {report.unchanged} unchanged)"
        )
    for suffix, load, label in (
        ("glossary", services.import_glossary, "glossary terms"),
        ("rulings", services.import_rulings, "rulings"),
    ):
        path = RULES_DIR / f"{game.slug}.{suffix}.json"
        if not path.exists():
            continue
        try:
            entries = importers.load_json(path.read_text(encoding="utf-8-sig"))
            report = load(game=game, entries=entries)
        except (OSError, ValueError) as e:  # services.ContentError is a ValueError
            raise CommandError(f"{path.name}: {e}") from None
        yield f"{label}: {report.summary()}"
    # An import renders only what changed; a newer renderer may draw unchanged text better.
    if rendered := services.rerender_sections(game=game):
        yield f"{rendered} rules texts rendered again"
