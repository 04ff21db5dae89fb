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
import re
import statistics
import sys
import time
from contextlib import ExitStack, contextmanager, nullcontext
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
    "Beginning of enemy activation.",
    "After an allied miniature is destroyed.",
    "When an enemy miniature moves within 3 inches.",
    "Start of your turn.",
    "",
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
    definition = {
        **definition,
        "slug": GAME_SLUG,
        "name": "Bench Gods (synthetic)",
        "description": "Synthetic card pool of bench/card_search.py.",
        "is_sample": True,
    }
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
        t.format(
            n=rng.choice(NUMBERS),
            d=rng.randint(1, 6),
            unit=rng.choice(UNITS),
            stat=rng.choice(STATS),
        )
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
            for name in names[start : start + batch]:
                picked = rng.sample(domains, rng.choices((0, 1, 2, 3), (10, 60, 25, 5))[0])
                picked.sort(key=domains.index)
                cost = {domain: rng.randint(1, 3) for domain, _ in picked}
                cards.append(
                    Card(
                        game=game,
                        name=name,
                        slug=slugify(name),
                        cost=cost,
                        total_cost=sum(cost.values()),
                        colour_count=len(picked),
                        rarity=rng.choices(rarities, (60, 30, 10))[0],
                        condition=rng.choice(TRIGGERS),
                        text=card_text(rng),
                        makes_attack=rng.random() < 0.3,
                    )
                )
                colours_of.append([colour for _, colour in picked])
                faction_of.append(rng.choice(factions) if rng.random() < 0.5 else None)
            Card.objects.bulk_create(cards)
            Colours.objects.bulk_create(
                Colours(card_id=card.pk, colour_id=colour.pk)
                for card, colours in zip(cards, colours_of, strict=True)
                for colour in colours
            )
            Keywords.objects.bulk_create(
                Keywords(card_id=card.pk, keyword_id=faction.pk)
                for card, faction in zip(cards, faction_of, strict=True)
                if faction
            )
    with connection.cursor() as cursor:  # as autovacuum would: flush GIN pending lists, stats
        for table in ("cards_card", "cards_card_colours", "cards_card_keywords"):
            cursor.execute(f"VACUUM ANALYZE {table}")


def analyze_all() -> None:
    """Statistics for every table, the game vocabulary too.

    Autovacuum never analyzes the vocabulary tables (cards_colour has a handful of rows, below
    autovacuum_analyze_threshold = 50 changes); without their statistics the planner guesses
    ~450 cards per colour instead of ~15,700 and drives the colour filter's EXISTS from the
    colour side, probing every card of that colour by primary key (see docs/performance.md).
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "ANALYZE cards_game, cards_colour, cards_rarity, cards_keyword, "
            "cards_card, cards_card_colours, cards_card_keywords"
        )


# --- measuring -----------------------------------------------------------------------------


class SqlTimer:
    """Records and times the SQL of one request (connection.execute_wrapper)."""

    def __init__(self):
        self.queries: list[tuple[str, object, float]] = []

    def __call__(self, execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.queries.append((sql, params, (time.perf_counter() - start) * 1000))

    def ms(self, count_only=False) -> float:
        return sum(t for sql, _, t in self.queries if not count_only or "COUNT(*)" in sql)


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def url(params: dict) -> str:
    return f"/api/games/{GAME_SLUG}/cards/?{urlencode(params)}"


def measure(client: Client, passes: dict, warmup: int, reps: int, rounds: int) -> dict:
    """Time every query under every pass: {pass name: [result per query]}.

    `passes` maps a name to a function returning the context manager that sets the pass up.
    The passes take turns in `rounds` rounds of reps/rounds timed requests per query, so that
    a slow minute of a shared machine weighs on all of them alike. Before its timed requests
    a query gets `warmup` untimed ones in the first round and one in the later rounds.
    """
    per_round = math.ceil(reps / rounds)
    samples = {name: [([], [], []) for _ in QUERIES] for name in passes}
    last = {name: [None] * len(QUERIES) for name in passes}
    for round_ in range(rounds):
        for name, setup in passes.items():
            with setup():
                for i, (_, params) in enumerate(QUERIES):
                    for _ in range(warmup if round_ == 0 else 1):
                        response = client.get(url(params))
                        assert response.status_code == 200, response.content[:300]
                    times, sql_ms, count_ms = samples[name][i]
                    for _ in range(per_round):
                        timer = SqlTimer()
                        with connection.execute_wrapper(timer):
                            start = time.perf_counter()
                            response = client.get(url(params))
                            times.append((time.perf_counter() - start) * 1000)
                        sql_ms.append(timer.ms())
                        count_ms.append(timer.ms(count_only=True))
                    if round_ == rounds - 1:  # plans as the pass sees them
                        last[name][i] = {
                            "matches": response.json()["count"],
                            "queries": len(timer.queries),
                            "sql": timer.queries,
                            "plan": "/".join(plan_kinds(timer.queries)),
                            "explain": explain_heavy(timer.queries) if i in EXPLAINED else {},
                        }
    results = {}
    for name in passes:
        results[name] = []
        for i, (label, params) in enumerate(QUERIES):
            times, sql_ms, count_ms = samples[name][i]
            results[name].append(
                {
                    "label": label,
                    "params": params,
                    "times": times,
                    "p50": percentile(times, 50),
                    "p95": percentile(times, 95),
                    "mean": statistics.fmean(times),
                    "sql_ms": statistics.median(sql_ms),
                    "count_ms": statistics.median(count_ms),
                    **last[name][i],
                }
            )
    return results


def plan_kinds(queries) -> list[str]:
    """How the COUNT and the page query find their cards, from their EXPLAIN:
    trgm: trigram index; walk: card_game_name in name order, filtering until the page is full;
    pk: from the colour's card ids, probing cards by primary key; seq: sequential scan."""
    kinds = []
    for sql, params, _ in queries:
        if "cards_card" not in sql or "LIKE" not in sql:
            continue
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (COSTS OFF) {sql}", params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
        if "on card_name_trgm" in plan or "on card_text_trgm" in plan:
            kinds.append("trgm")
        elif "card_game_name" in plan:
            kinds.append("walk")
        elif "cards_card_pkey on cards_card" in plan:
            kinds.append("pk")
        elif re.search(r"Seq Scan on cards_card\b(?!_)", plan):
            kinds.append("seq")
        else:
            kinds.append("other")
    return kinds


def explain(sql: str, params) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, COSTS OFF) {sql}", params)
        return [row[0] for row in cursor.fetchall()]


def explain_heavy(queries) -> dict[str, list[str]]:
    """EXPLAIN ANALYZE the COUNT(*) and the page query of one request."""
    plans = {}
    for sql, params, _ in queries:
        if "cards_card" in sql and "LIKE" in sql:
            plans["count" if "COUNT(*)" in sql else "page"] = explain(sql, params)
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


@contextmanager
def patched(cls, name: str, value):
    original = getattr(cls, name)
    setattr(cls, name, value)
    try:
        yield
    finally:
        setattr(cls, name, original)


def capped_count(cap: int = 1000):
    """Prototype: the pagination counts at most `cap` + 1 matches, in no particular order."""
    from django.core.paginator import Paginator
    from django.utils.functional import cached_property

    from cards.api import CardViewSet
    from deckbuilder.pagination import PageNumberPagination

    class CappedPaginator(Paginator):
        @cached_property
        def count(self):  # SELECT COUNT(*) FROM (SELECT ... LIMIT cap + 1): stops early
            return self.object_list.order_by()[: cap + 1].count()

    class CappedPagination(PageNumberPagination):
        django_paginator_class = CappedPaginator

    return patched(CardViewSet, "pagination_class", CappedPagination)


def colour_ids():
    """Prototype: the colour filter tests colour ids (from the game's prefetched colours)
    instead of joining cards_colour by slug, so the planner's estimate comes from the
    statistics of cards_card_colours."""
    from django.db.models import Exists, OuterRef, Q

    from cards.filters import COLOURLESS, CardFilter

    def filter_colour(self, queryset, name, value):
        if not value:
            return queryset
        ids = [c.pk for c in self.game.colours.all() if c.slug in value]
        condition = Q(
            Exists(Card.colours.through.objects.filter(card=OuterRef("pk"), colour_id__in=ids))
        )
        if COLOURLESS in value:
            condition |= Q(colour_count=0)
        return queryset.filter(condition)

    return patched(CardFilter, "filter_colour", filter_colour)


def set_index_statistics(target: int) -> None:
    """Statistics target of the trigram indexes' expressions UPPER(name), UPPER(text); -1 is
    the default. A finer histogram keeps the planner from taking a rare word for a common one.
    (Not a rolled-back prototype: ANALYZE in a transaction block leaves index statistics alone.)
    """
    with connection.cursor() as cursor:
        for name in TRIGRAM_INDEXES:
            cursor.execute(f"ALTER INDEX {name} ALTER COLUMN 1 SET STATISTICS {int(target)}")
        cursor.execute("ANALYZE cards_card")


def prototype_name(value: str) -> str:
    """argparse type: a prototype, or several joined by "+" (measured together)."""
    unknown = [name for name in value.split("+") if name not in PROTOTYPES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown prototype {unknown[0]!r}")
    return value


def prototype_setup(value: str):
    """The context manager factory of "a+b": the prototypes a and b, together."""

    @contextmanager
    def setup():
        with ExitStack() as stack:
            for name in value.split("+"):
                stack.enter_context(PROTOTYPES[name][0]())
            yield

    return setup


PROTOTYPES = {
    "colour-ids": (colour_ids, "colour filter by colour id, no join to cards_colour"),
    "capped-count": (capped_count, "pagination counts at most 1000 matches (unordered LIMIT)"),
}


# --- report --------------------------------------------------------------------------------


def describe_query(params: dict) -> str:
    return "&".join(f"{k}={v}" for k, v in params.items())


def verdict(p95: float) -> str:
    return "met" if p95 <= TARGET_P95_MS else "MISSED"


def print_table(left: list[dict], right: list[dict], left_title: str, right_title: str) -> None:
    """Two passes side by side; speed-up = right p95 / left p95; the target applies to left."""
    head = (
        f"{'query':<36} {'rows':>5} {'SQLs':>4} | {'p50':>6} {'p95':>6} {'mean':>6} "
        f"{'SQL':>6} {'COUNT':>6} | {'p50':>6} {'p95':>6} {'mean':>6} | "
        f"{'speed-up':>8} | p95<=30 | plans"
    )
    print(f"{'':<48}| {left_title + ', ms':^41} | {right_title + ', ms':^20} | {'p95':^8} |")
    print(head)
    print("-" * len(head))
    for i, o in zip(left, right, strict=True):
        print(
            f"{describe_query(i['params']):<36} {i['matches']:>5} {i['queries']:>4} | "
            f"{i['p50']:>6.1f} {i['p95']:>6.1f} {i['mean']:>6.1f} "
            f"{i['sql_ms']:>6.1f} {i['count_ms']:>6.1f} | "
            f"{o['p50']:>6.1f} {o['p95']:>6.1f} {o['mean']:>6.1f} | "
            f"{o['p95'] / i['p95']:>7.1f}x | {verdict(i['p95']):<7} | {i['plan']}, {o['plan']}"
        )
    all_i = [t for r in left for t in r["times"]]
    all_o = [t for r in right for t in r["times"]]
    print("-" * len(head))
    print(
        f"{'all requests':<36} {'':>5} {'':>4} | {percentile(all_i, 50):>6.1f} "
        f"{percentile(all_i, 95):>6.1f} {statistics.fmean(all_i):>6.1f} {'':>6} {'':>6} | "
        f"{percentile(all_o, 50):>6.1f} {percentile(all_o, 95):>6.1f} "
        f"{statistics.fmean(all_o):>6.1f} | "
        f"{percentile(all_o, 95) / percentile(all_i, 95):>7.1f}x | "
        f"{verdict(percentile(all_i, 95))}"
    )


def plan_nodes(lines: list[str]) -> list[str]:
    return [
        line
        for line in lines
        if line is lines[0]
        or "->" in line
        or "Index Cond" in line
        or line.startswith("Execution Time")
    ]


def print_plans(title: str, plans: dict[str, list[str]]) -> None:
    for kind in ("count", "page"):
        if kind in plans:
            print(f"  {title}, {kind} query:")
            for line in plan_nodes(plans[kind]):
                print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=50_000, help="pool size (default 50000)")
    parser.add_argument("--reps", type=int, default=40, help="timed requests per query")
    parser.add_argument("--warmup", type=int, default=5, help="untimed requests per query")
    parser.add_argument("--rounds", type=int, default=4, help="the passes take turns (default 4)")
    parser.add_argument(
        "--stats",
        choices=["full", "autovacuum"],
        default="full",
        help="full: ANALYZE every cards table after the fill (default); autovacuum: only the card "
        "tables, as autovacuum leaves a fresh database (applies to a fresh fill only)",
    )
    parser.add_argument(
        "--prototype",
        action="append",
        type=prototype_name,
        default=[],
        help="also measure an indexed pass with this change to the app, patched in-process "
        "(repeatable; join with + to combine): "
        + "; ".join(f"{k}: {v[1]}" for k, v in PROTOTYPES.items()),
    )
    parser.add_argument(
        "--index-stats-target",
        type=int,
        metavar="N",
        help="prototype: statistics target N for the trigram indexes' expressions during the "
        "run (ALTER INDEX ... SET STATISTICS N, ANALYZE cards_card; reset afterwards)",
    )
    parser.add_argument("--plans", action="store_true", help="print the whole EXPLAIN plans")
    args = parser.parse_args()

    if connection.vendor != "postgresql":
        sys.exit(
            "bench/card_search.py needs PostgreSQL: set DATABASE_URL, or run `make bench` "
            "(scripts/with-postgres starts a throwaway cluster)."
        )
    call_command("migrate", verbosity=0, interactive=False)
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    print(
        f"PostgreSQL {pg_version}, Django {django.get_version()}, Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, "
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}"
    )

    game = bench_game()
    have = Card.objects.filter(game=game).count()
    if have == args.cards:
        print(f"{GAME_SLUG}: {have} cards already there, not refilled")
    else:
        start = time.perf_counter()
        fill(game, args.cards)
        print(f"{GAME_SLUG}: filled {args.cards} cards in {time.perf_counter() - start:.1f} s")
    if args.stats == "full":
        analyze_all()
    if args.index_stats_target:
        set_index_statistics(args.index_stats_target)
    print(
        f"statistics: {args.stats}"
        + (f", trigram index target {args.index_stats_target}" if args.index_stats_target else "")
    )

    client = Client(SERVER_NAME="localhost", HTTP_ACCEPT="application/json")
    passes = {"indexed": nullcontext, "baseline": without_trigram_indexes}
    passes.update({name: prototype_setup(name) for name in args.prototype})
    start = time.perf_counter()
    try:
        results = measure(client, passes, args.warmup, args.reps, args.rounds)
    finally:
        if args.index_stats_target:
            set_index_statistics(-1)
    elapsed = time.perf_counter() - start
    indexed, baseline = results["indexed"], results["baseline"]

    per_pass = math.ceil(args.reps / args.rounds) * args.rounds
    print(
        f"\nGET /api/games/{GAME_SLUG}/cards/?q=...&colour=... on {args.cards} cards: "
        f"{per_pass} timed requests per query and pass, in {args.rounds} rounds, after "
        f"{args.warmup} warm-up; server time in-process ({elapsed:.0f} s of requests)\n"
    )
    print_table(indexed, baseline, "indexed", "baseline: no trigram")
    print(
        "\nrows: matching cards (the API's count); SQLs: queries per request; SQL, COUNT: "
        "median ms per request in all SQL and in the pagination's COUNT(*);\n"
        "plans: COUNT/page query, left pass then right pass (trgm: trigram bitmap; walk: name "
        "index in order until the page is full; pk: colour's cards by primary key; seq: scan);\n"
        "baseline 'no trigram': the same requests with the trigram indexes dropped (naive "
        "icontains scan); speed-up: baseline p95 / indexed p95."
    )
    print(
        f"Target p95 <= {TARGET_P95_MS:.0f} ms with indexes: "
        f"{sum(r['p95'] <= TARGET_P95_MS for r in indexed)} of {len(indexed)} queries meet it."
    )
    for name in args.prototype:
        print(
            f"\nPrototype {name}: "
            f"{'; '.join(PROTOTYPES[n][1] for n in name.split('+'))}; trigram indexes in place "
            f"(speed-up: indexed p95 / prototype p95)\n"
        )
        print_table(results[name], indexed, "indexed + prototype", "indexed")

    print("\nEXPLAIN ANALYZE of the SQL of one request (plan nodes):")
    for i in EXPLAINED:
        label = describe_query(QUERIES[i][1])
        print_plans(f"{label}, indexed", indexed[i]["explain"])
        print_plans(f"{label}, baseline", baseline[i]["explain"])
    used = sorted(
        {
            name
            for i in EXPLAINED
            for plan in indexed[i]["explain"].values()
            for line in plan
            for name in TRIGRAM_INDEXES
            if f"on {name}" in line
        }
    )
    print(f"\nTrigram indexes in the indexed plans: {', '.join(used) or 'NONE'}")
    if args.plans:
        for i in EXPLAINED:
            for kind, lines in indexed[i]["explain"].items():
                print(f"\n{describe_query(QUERIES[i][1])}, indexed, {kind} query:")
                print("\n".join(lines))


if __name__ == "__main__":
    main()
