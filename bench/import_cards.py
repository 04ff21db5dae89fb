"""Card import benchmark: a 5,000-row JSON file for Card of Gods through importers.import_records.

    .venv/bin/python bench/import_cards.py                               # a temp SQLite database
    scripts/with-postgres .venv/bin/python bench/import_cards.py         # a throwaway PostgreSQL
    .venv/bin/python bench/import_cards.py --rows 500
    .venv/bin/python bench/import_cards.py --source fowsim     # the real Force of Will pool

Without DATABASE_URL (or with it empty) the script makes and migrates its own SQLite database in
a temporary directory and removes it afterwards; with one, it migrates that database and adds the
game `card-of-gods` (vocabulary from cards/sample/card-of-gods.json) if it is missing. It needs a
game with no cards: don't point it at a database whose data matters.

It generates a file of `--rows` cards (fixed seed: every run imports the same file; one keyword in
eight is new to the game, so the import creates keywords too) and times, as `manage.py
import_cards` runs it (read_file, then import_records), in this order:

1. dry run, into the empty pool;
2. the file with one bad row added at the end (an unknown domain), into the empty pool: must write
   nothing (checked: no card, no keyword, `rules_version` as before);
3. the import, into the empty pool: creates every card;
4. the same file again: every row unchanged;
5. the file with every card's text changed: updates every card.

For each: seconds, SQL queries, the report's counts and how many times `Game.rules_version` was
bumped. The figures are in docs/performance.md ("Card import, 5,000 rows"); this is a benchmark,
not a test.
"""
# ruff: noqa: E402  (Django must be set up before the project's modules are imported)

import argparse
import io
import itertools
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import boot  # bench/boot.py: settings, django.setup()
from django.db import connection

from cards import importers, services
from cards.models import Card, Game, Keyword, Printing

SAMPLE = ROOT / "cards" / "sample" / "card-of-gods.json"
SEED = 20250607

ADJECTIVES = """Ashen Blazing Bright Broken Burning Crimson Cursed Dark Dire Divine Dread Eternal
    Fallen Fierce Frozen Gilded Glorious Grim Hallowed Hidden Holy Hollow Iron Lost""".split()
NOUNS = """Aegis Altar Anthem Arrow Banner Blade Blessing Bolt Chalice Chant Covenant Crown Curse
    Dawn Decree Dirge Edict Ember Fang Flame Gate Grasp Harvest Herald Hymn""".split()
PLACES = """Abyss Ashfall Brumgar Castilla Dawnmere Deepwood Emberkeep Engeln Frosthold Gloomfen
    Highspire Ironvale""".split()
NEW_KEYWORDS = """Ritual Relic Blessing Curse Ward Omen Vow Rite Hex Litany""".split()


def the_game() -> Game:
    game = Game.objects.filter(slug="card-of-gods").first()
    if game is None:
        game = services.save_game(definition=json.loads(SAMPLE.read_text())["game"])
    if game.cards.exists():
        sys.exit(f"{game.slug} has cards already: give the benchmark a database of its own.")
    return game


def card_file(rows: int, game: Game) -> dict:
    """The file: `rows` cards of the game's vocabulary with names from a fixed seed."""
    rng = random.Random(SEED)
    domains = [c.domain for c in game.colours.all() if c.domain]
    rarities = [r.slug for r in game.rarities.all()]
    keywords = [k.name for k in game.keywords.all()]
    names = [f"{a} {n} of {p}" for a, n, p in itertools.product(ADJECTIVES, NOUNS, PLACES)]
    if rows > len(names):
        sys.exit(f"At most {len(names)} rows.")
    cards = []
    for name in rng.sample(names, rows):
        picked = rng.sample(domains, rng.choice([0, 1, 1, 2, 2, 3]))
        words = rng.sample(keywords, rng.choice([0, 1, 1, 2]))
        if rng.random() < 0.125:
            words.append(rng.choice(NEW_KEYWORDS))
        cards.append(
            {
                "name": name,
                "rarity": rng.choice(rarities),
                "cost": {d: rng.randint(1, 3) for d in picked},
                "keywords": words,
                "condition": rng.choice(["", "Your activation", "Beginning of enemy activation"]),
                "text": f"Deal {rng.randint(1, 4)} damage to target enemy miniature.",
                "flavour": "",
                "makes_attack": rng.random() < 0.3,
            }
        )
    return {"game": game.slug, "cards": cards}


def state(game: Game) -> tuple:
    game.refresh_from_db(fields=["rules_version"])
    return (game.rules_version, Card.objects.filter(game=game).count(), Keyword.objects.count())


def run(label: str, game: Game, document: dict, *, dry_run: bool = False) -> dict:
    raw = json.dumps(document).encode("utf-8")
    version, cards, keywords = state(game)
    queries = []  # counted, not kept: CaptureQueriesContext keeps the last 9,000 only
    with connection.execute_wrapper(lambda execute, *args: queries.append(1) or execute(*args)):
        start = time.perf_counter()
        data = importers.read_file(io.BytesIO(raw), fmt="json")
        report = importers.import_records(
            game=game, cards=data.cards, leaders=data.leaders, errors=data.errors, dry_run=dry_run
        )
        seconds = time.perf_counter() - start
    after = state(game)
    result = {
        "label": label,
        "rows": len(document["cards"]),
        "seconds": seconds,
        "queries": len(queries),
        "report": report,
        "bumps": after[0] - version,
        "cards": after[1] - cards,
        "keywords": after[2] - keywords,
    }
    print(
        f"{label:<34} {result['rows']:>6} {seconds:>8.2f} {len(queries):>8} "
        f"{report.created:>7} {report.updated:>7} {report.unchanged:>9} {len(report.errors):>6} "
        f"{result['bumps']:>5} {result['cards']:>+7} {result['keywords']:>+8}",
        flush=True,
    )
    return result


# --- a real pool: the Force of Will community database ----------------------------------------

FOW_SAMPLE = ROOT / "cards" / "sample" / "force-of-will.json"
FOW_SLICE = ROOT.parent / "shared" / "data" / "force-of-will" / "fowsim-cards-grimm-alice.json"


def fowsim_file(copies: int) -> dict:
    """The real slice (11 sets, 1,065 printings of 902 names) `copies` times over, each copy's
    sets, numbers and names its own (reprints stay reprints within a copy): 5 copies are about
    the whole database (4,500 names, 5,300 printings)."""
    if not FOW_SLICE.exists():
        sys.exit(f"{FOW_SLICE} is absent: the real Force of Will slice is needed.")
    real = json.loads(FOW_SLICE.read_text(encoding="utf-8"))
    clusters = []
    for copy in range(copies):
        tag = "" if copy == 0 else str(copy + 1)
        for cluster in real["fow"]["clusters"]:
            sets = []
            for card_set in cluster["sets"]:
                code = card_set["code"] + tag
                cards = [
                    {**card, "id": code + card["id"][len(card_set["code"]) :],
                     "name": card["name"] + (f" {tag}" if tag else "")}
                    for card in card_set["cards"]
                ]  # fmt: skip
                sets.append(
                    {**card_set, "code": code, "name": card_set["name"] + tag, "cards": cards}
                )
            clusters.append({"name": cluster["name"] + tag, "sets": sets})
    return {"fow": {"clusters": clusters}}


def run_fowsim(label: str, game: Game, document: dict) -> float:
    raw = json.dumps(document).encode("utf-8")
    queries = []
    with connection.execute_wrapper(lambda execute, *args: queries.append(1) or execute(*args)):
        start = time.perf_counter()
        data = importers.read_fowsim(io.BytesIO(raw), game=game)
        report = importers.import_records(game=game, **data.records())
        seconds = time.perf_counter() - start
    printings = Printing.objects.filter(game=game).count()
    print(
        f"{label:<34} {seconds:>8.2f} {len(queries):>8} {report.created:>7} {report.updated:>7} "
        f"{report.unchanged:>9} {len(report.errors):>6} {printings:>9}",
        flush=True,
    )
    return seconds


def main_fowsim(copies: int) -> None:
    game = Game.objects.filter(slug="force-of-will").first()
    if game is None:
        game = services.save_game(definition=json.loads(FOW_SAMPLE.read_text())["game"])
    if game.cards.exists():
        sys.exit(f"{game.slug} has cards already: give the benchmark a database of its own.")
    document = fowsim_file(copies)
    total = sum(len(s["cards"]) for c in document["fow"]["clusters"] for s in c["sets"])
    print(f"\nfowsim file: {total:,} printings ({copies} copies of the real slice)")
    print(
        f"{'step':<34} {'seconds':>8} {'queries':>8} {'created':>7} {'updated':>7} "
        f"{'unchanged':>9} {'errors':>6} {'printings':>9}"
    )
    first = run_fowsim("1. import into an empty pool", game, document)
    again = run_fowsim("2. the same file again", game, document)
    print(f"\nimport {first:.1f} s, again {again:.1f} s (the goal: at most 20 s each)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=5000, help="cards in the file (default 5000)")
    parser.add_argument(
        "--source", choices=["exchange", "fowsim"], default="exchange", help="what to import"
    )
    parser.add_argument(
        "--copies", type=int, default=5, help="fowsim: copies of the real slice (default 5)"
    )
    args = parser.parse_args()

    boot.migrate_and_describe()
    if args.source == "fowsim":
        return main_fowsim(args.copies)
    game = the_game()
    document = card_file(args.rows, game)
    cards = document["cards"]
    bad = {**document, "cards": [*cards, {"name": "Bad Cost", "cost": {"air": 1}}]}
    changed = {**document, "cards": [{**c, "text": c["text"] + " Then rest."} for c in cards]}

    print(
        f"\n{'step':<34} {'rows':>6} {'seconds':>8} {'queries':>8} {'created':>7} {'updated':>7} "
        f"{'unchanged':>9} {'errors':>6} {'bumps':>5} {'cards':>7} {'keywords':>8}"
    )
    results = [
        run("1. dry run", game, document, dry_run=True),
        run("2. one bad row at the end", game, bad),
        run("3. import", game, document),
        run("4. the same file again", game, document),
        run("5. every row changed", game, changed),
    ]
    refused = results[1]
    if refused["report"].written or refused["cards"] or refused["keywords"] or refused["bumps"]:
        print("\nWRONG: the file with a bad row wrote something.")
    print(
        "\nseconds: read_file + import_records, in-process; queries: SQL statements; bumps: "
        "Game.rules_version after - before;\ncards, keywords: rows in the database after - before."
    )


if __name__ == "__main__":
    main()
