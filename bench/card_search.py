"""Card search benchmark: the card list API on a synthetic pool, with and without trigram indexes.

    make bench                       # a throwaway PostgreSQL 15, 50,000 cards, the whole run
    scripts/with-postgres .venv/bin/python bench/card_search.py --cards 20000 --reps 30

Fills PostgreSQL (never SQLite) with a synthetic game "bench-gods", then requests
GET /api/games/bench-gods/cards/?q=...&colour=... in-process through Django's test Client.
Server time is the time Django takes to handle the request: middleware, view, every SQL query
(filter, pagination COUNT, page, prefetches) and JSON rendering; no network, no HTTP server.

The baseline is measured in the same run: the same requests inside a transaction that drops the
trigram indexes (cards/migrations/0002) and is rolled back afterwards, i.e. the naive `icontains`
scan. Figures are compared as ratios against that baseline; this is a benchmark, not a test.
"""
# ruff: noqa: E402  (Django must be set up before the project's modules are imported)

import argparse
import itertools
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "deckbuilder.settings")
os.environ.setdefault("DEBUG", "1")

import django

django.setup()

from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.utils.text import slugify

from cards import services
from cards.models import Card, Game

SAMPLE = ROOT / "cards" / "sample" / "card-of-gods.json"
GAME_SLUG = "bench-gods"
TRIGRAM_INDEXES = ("card_name_trgm", "card_text_trgm")
TARGET_P95_MS = 30.0
SEED = 20250601

# Card names: adjective x noun x place, 40 * 50 * 25 = 50,000 distinct names.
ADJECTIVES = """Ashen Blazing Bright Broken Burning Crimson Cursed Dark Dire Divine Dread Eternal
    Fallen Fierce Frozen Gilded Glorious Grim Hallowed Hidden Holy Hollow Iron Lost Mighty Night
    Pale Radiant Raging Sacred Savage Silent Silver Storm Sunlit Thorned Twisted Verdant Wild
    Wrathful""".split()
NOUNS = """Aegis Altar Anthem Arrow Banner Blade Blessing Bolt Chalice Chant Covenant Crown Curse
    Dawn Decree Dirge Dragon Edict Ember Fang Flame Gate Grasp Harvest Herald Hymn Judgement Lance
    Lantern Litany Mantle Oath Omen Pact Prayer Relic Rite Sapling Scourge Seal Shield Sigil Spear
    Tempest Thorn Tide Torch Vigil Ward Wyrm""".split()
PLACES = """Abyss Ashfall Brumgar Castilla Dawnmere Deepwood Emberkeep Engeln Frosthold Gloomfen
    Highspire Ironvale Keld Kriegmark Mistmoor Nightfall Ravenrock Saltmarsh Skyreach Stonewatch
    Sunspire Thornwall Umberdeep Whitecliff Wolfden""".split()
UNITS = "miniature warrior hero beast priest knight champion leader".split()
STATS = "attack defence movement courage".split()
NUMBERS = "one two three four".split()
# Effect sentences and their weights: "damage", "target", "wound" end up in many cards.
EFFECTS = [
    ("Deal {n} damage to target enemy {unit}.", 30),
    ("Draw {n} cards.", 20),
    ("Target {unit} gains +{d} {stat} until the end of activation.", 20),
    ("Heal {d} lost wounds of an allied {unit}.", 12),
    ("Make an Attack against the target {unit}.", 12),
    ("Move an allied {unit} up to {d} inches.", 10),
    ("Your opponent discards {n} cards.", 6),
    ("Return a {unit} card from your discard pile to your hand.", 5),
    ("Each enemy {unit} within {d} inches suffers a wound.", 8),
    ("The ground burns until the end of activation.", 4),
]
# Rare words: one sentence in 25 names one of these, so each is in ~0.16 % of the cards.
RELICS = """amberglass bloodstone cinderbloom duskpetal emberquill frostfang gloamshard hollowbell
    ironroot jadewing kestrelbone lichenveil moonwell nightvale obsidian quicksilver runethorn
    sablecrest starfall thundermoss umbralith vesperlight wyrmscale yewheart zephyrstone""".split()
TRIGGERS = [
    "Beginning of enemy activation.", "After an allied miniature is destroyed.",
    "When an enemy miniature moves within 3 inches.", "Start of your turn.", "",
]

# (label, query string): what is searched, through the API, in each pass.
QUERIES = [
    ("rare word + colour", {"q": "quicksilver", "colour": "red"}),
    ("common word + colour", {"q": "damage", "colour": "green"}),
    ("name word + colour", {"q": "wyrm", "colour": "black"}),
    ("3-letter fragment + colour", {"q": "dra", "colour": "yellow"}),
    ("2-letter fragment + colour", {"q": "ax", "colour": "red"}),
    ("phrase + colour", {"q": "target enemy knight", "colour": "green"}),
    ("no match + colour", {"q": "zzyzx", "colour": "red"}),
]
EXPLAINED = (0, 1)  # indexes into QUERIES whose SQL is EXPLAINed


# --- the synthetic pool --------------------------------------------------------------------


def bench_game() -> Game:
    definition = json.loads(SAMPLE.read_text())["game"]
    definition = {**definition, "slug": GAME_SLUG, "name": "Bench Gods (synthetic)",
                  "description": "Synthetic card pool of bench/card_search.py.", "is_sample": True}
    return services.save_game(definition=definition)


def card_names(count: int, rng: random.Random) -> list[str]:
    combos = [f"{a} {n} of {p}" for a, n, p in itertools.product(ADJECTIVES, NOUNS, PLACES)]
    rng.shuffle(combos)
    return [
        combos[i % len(combos)] + (f" {i // len(combos) + 1}" if i >= len(combos) else "")
        for i in range(count)
    ]


def card_text(rng: random.Random) -> str:
    templates, weights = zip(*EFFECTS, strict=True)
    sentences = [
        t.format(n=rng.choice(NUMBERS), d=rng.randint(1, 6), unit=rng.choice(UNITS),
                 stat=rng.choice(STATS))
        for t in rng.choices(templates, weights, k=rng.choice((1, 1, 2, 2, 3)))
    ]
    if rng.random() < 1 / 25:
        sentences.append(f"Attach the {rng.choice(RELICS)} relic to an allied {rng.choice(UNITS)}.")
    rng.shuffle(sentences)
    return " ".join(sentences)


def fill(game: Game, count: int) -> None:
    """Bulk-create `count` cards, their colours and factions, as Card.save would derive them."""
    rng = random.Random(SEED)
    domains = list(game.domains().items())  # [(domain slug, Colour)] in the game's order
    rarities = list(game.rarities.all())
    factions = list(game.keywords.filter(is_faction=True))
    Colours, Keywords = Card.colours.through, Card.keywords.through
    batch = 5000
    with transaction.atomic():
        Card.objects.filter(game=game).delete()
        names = card_names(count, rng)
        for start in range(0, count, batch):
            cards, colours_of, faction_of = [], [], []
            for name in names[start:start + batch]:
                picked = rng.sample(domains, rng.choices((0, 1, 2, 3), (10, 60, 25, 5))[0])
                picked.sort(key=domains.index)
                cost = {domain: rng.randint(1, 3) for domain, _ in picked}
                cards.append(Card(
                    game=game, name=name, slug=slugify(name), cost=cost,
                    total_cost=sum(cost.values()), colour_count=len(picked),
                    rarity=rng.choices(rarities, (60, 30, 10))[0],
                    condition=rng.choice(TRIGGERS), text=card_text(rng),
                    makes_attack=rng.random() < 0.3,
                ))
                colours_of.append([colour for _, colour in picked])
                faction_of.append(rng.choice(factions) if rng.random() < 0.5 else None)
            Card.objects.bulk_create(cards)
            Colours.objects.bulk_create(
                Colours(card_id=card.pk, colour_id=colour.pk)
                for card, colours in zip(cards, colours_of, strict=True) for colour in colours
            )
            Keywords.objects.bulk_create(
                Keywords(card_id=card.pk, keyword_id=faction.pk)
                for card, faction in zip(cards, faction_of, strict=True) if faction
            )
    with connection.cursor() as cursor:  # as autovacuum would: flush GIN pending lists, stats
        for table in ("cards_card", "cards_card_colours", "cards_card_keywords"):
            cursor.execute(f"VACUUM ANALYZE {table}")


# --- measuring -----------------------------------------------------------------------------


class SqlTimer:
    """Counts and times the SQL of each request (connection.execute_wrapper)."""

    def __init__(self):
        self.queries: list[tuple[str, object, float]] = []

    def __call__(self, execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.queries.append((sql, params, time.perf_counter() - start))


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def url(params: dict) -> str:
    return f"/api/games/{GAME_SLUG}/cards/?{urlencode(params)}"


def measure(client: Client, warmup: int, reps: int) -> list[dict]:
    results = []
    for label, params in QUERIES:
        for _ in range(warmup):
            response = client.get(url(params))
            assert response.status_code == 200, (response.status_code, response.content[:300])
        times, sql_times, sql_counts = [], [], []
        for _ in range(reps):
            timer = SqlTimer()
            with connection.execute_wrapper(timer):
                start = time.perf_counter()
                response = client.get(url(params))
                times.append((time.perf_counter() - start) * 1000)
            sql_times.append(sum(t for _, _, t in timer.queries) * 1000)
            sql_counts.append(len(timer.queries))
        results.append({
            "label": label, "params": params, "matches": response.json()["count"],
            "times": times, "p50": percentile(times, 50), "p95": percentile(times, 95),
            "mean": statistics.fmean(times), "sql_ms": statistics.median(sql_times),
            "queries": max(sql_counts), "sql": timer.queries,
        })
    return results


def explain(sql: str, params) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, COSTS OFF) {sql}", params)
        return [row[0] for row in cursor.fetchall()]


def plan_summary(lines: list[str]) -> list[str]:
    keep = ("Scan", "Join", "Limit", "Sort", "Aggregate", "BitmapOr", "Execution Time", "Semi")
    return [line for line in lines if any(k in line for k in keep)]


def explain_heavy(result: dict) -> dict[str, list[str]]:
    """EXPLAIN ANALYZE the COUNT(*) and the page query of one request."""
    plans = {}
    for sql, params, _ in result["sql"]:
        if "cards_card" not in sql or "LIKE" not in sql:
            continue
        kind = "count" if "COUNT(*)" in sql else "page"
        plans[kind] = explain(sql, params)
    return plans


@contextmanager
def without_trigram_indexes():
    """The naive scan: drop the trigram indexes in a transaction that is always rolled back."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            for name in TRIGRAM_INDEXES:
                cursor.execute(f"DROP INDEX {name}")
        try:
            yield
        finally:
            transaction.set_rollback(True)


# --- report --------------------------------------------------------------------------------


def describe_query(params: dict) -> str:
    return "&".join(f"{k}={v}" for k, v in params.items())


def print_table(indexed: list[dict], baseline: list[dict]) -> None:
    header = (f"{'query':<40} {'rows':>6} {'SQL':>3} | {'p50':>6} {'p95':>6} {'mean':>6} "
              f"{'SQL':>6} | {'p50':>7} {'p95':>7} {'mean':>7} | {'p95 speed-up':>12}  target")
    print(f"{'':<52}| {'indexed (ms)':^28} | {'baseline: no trigram (ms)':^25} |")
    print(header)
    print("-" * len(header))
    for i, b in zip(indexed, baseline, strict=True):
        ok = "met" if i["p95"] <= TARGET_P95_MS else "MISSED"
        print(f"{describe_query(i['params']):<40} {i['matches']:>6} {i['queries']:>3} | "
              f"{i['p50']:>6.1f} {i['p95']:>6.1f} {i['mean']:>6.1f} {i['sql_ms']:>6.1f} | "
              f"{b['p50']:>7.1f} {b['p95']:>7.1f} {b['mean']:>7.1f} | "
              f"{b['p95'] / i['p95']:>11.1f}x  {ok}")
    all_i = [t for r in indexed for t in r["times"]]
    all_b = [t for r in baseline for t in r["times"]]
    print("-" * len(header))
    print(f"{'all requests':<40} {'':>6} {'':>3} | {percentile(all_i, 50):>6.1f} "
          f"{percentile(all_i, 95):>6.1f} {statistics.fmean(all_i):>6.1f} {'':>6} | "
          f"{percentile(all_b, 50):>7.1f} {percentile(all_b, 95):>7.1f} "
          f"{statistics.fmean(all_b):>7.1f} | "
          f"{percentile(all_b, 95) / percentile(all_i, 95):>11.1f}x  "
          f"{'met' if percentile(all_i, 95) <= TARGET_P95_MS else 'MISSED'}")
    print("rows = matching cards (the API's count); SQL = queries per request; "
          "indexed SQL = median ms spent in SQL per request")


def print_plans(title: str, plans: dict[str, list[str]]) -> None:
    for kind in ("page", "count"):
        if kind in plans:
            print(f"  {title}, {kind} query:")
            for line in plan_summary(plans[kind]):
                print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=50_000, help="pool size (default 50000)")
    parser.add_argument("--reps", type=int, default=40, help="timed requests per query")
    parser.add_argument("--warmup", type=int, default=5, help="untimed requests per query")
    args = parser.parse_args()

    if connection.vendor != "postgresql":
        sys.exit("bench/card_search.py needs PostgreSQL: set DATABASE_URL, or run `make bench` "
                 "(scripts/with-postgres starts a throwaway cluster).")
    call_command("migrate", verbosity=0, interactive=False)
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    print(f"PostgreSQL {pg_version}, Django {django.get_version()}, Python "
          f"{platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")

    game = bench_game()
    have = Card.objects.filter(game=game).count()
    if have == args.cards:
        print(f"{GAME_SLUG}: {have} cards already there, not refilled")
    else:
        start = time.perf_counter()
        fill(game, args.cards)
        print(f"{GAME_SLUG}: filled {args.cards} cards in {time.perf_counter() - start:.1f} s")

    client = Client(SERVER_NAME="localhost", HTTP_ACCEPT="application/json")
    start = time.perf_counter()
    indexed = measure(client, args.warmup, args.reps)
    indexed_plans = {i: explain_heavy(indexed[i]) for i in EXPLAINED}
    with without_trigram_indexes():
        baseline = measure(client, args.warmup, args.reps)
        baseline_plans = {i: explain_heavy(baseline[i]) for i in EXPLAINED}
    elapsed = time.perf_counter() - start

    print(f"\nGET /api/games/{GAME_SLUG}/cards/?q=...&colour=... , {args.cards} cards, "
          f"{args.reps} timed requests per query after {args.warmup} warm-up, "
          f"server time in-process ({elapsed:.0f} s)\n")
    print_table(indexed, baseline)
    print(f"\nTarget: p95 <= {TARGET_P95_MS:.0f} ms with indexes.")

    print("\nEXPLAIN ANALYZE of the SQL behind the requests (plan nodes only):")
    for i in EXPLAINED:
        label = describe_query(QUERIES[i][1])
        print_plans(f"{label}, indexed", indexed_plans[i])
        print_plans(f"{label}, baseline", baseline_plans[i])
    used = {name for i in EXPLAINED for plan in indexed_plans[i].values()
            for line in plan for name in TRIGRAM_INDEXES if name in line}
    print(f"\nTrigram indexes used by the indexed plans: {', '.join(sorted(used)) or 'NONE'}")


if __name__ == "__main__":
    main()
