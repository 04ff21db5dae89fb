"""Card search benchmark: the card list API on a synthetic pool, full-text index vs a naive scan.

    scripts/with-postgres .venv/bin/python bench/card_search.py   # throwaway PostgreSQL, 50k cards
    scripts/with-postgres .venv/bin/python bench/card_search.py --reps 20 --prototype capped-count

Fills PostgreSQL (never SQLite) with a synthetic game "bench-gods", then requests
GET /api/games/bench-gods/cards/?q=...&colour=... in-process through Django's test Client, with
DEBUG off. Server time is the time Django takes to handle the request: middleware, view, every
SQL query (game, pagination COUNT, page, prefetches) and JSON rendering; no network, no server.

Two passes in the same run: "fts", the product (word-prefix full-text search on the GIN-indexed
search_vector, cards/migrations/0004), and "baseline", the same requests with
CardQuerySet.search patched to a naive `name__icontains | text__icontains` per word, i.e. a
sequential LIKE scan. Figures are compared as ratios; this is a benchmark, not a test.
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
# Every request a real search: the pages cache would answer the repeated ones from memory.
# Only when run: bench/pages.py imports the pool from here, and serves with the cache on.
if __name__ == "__main__":
    os.environ["PAGE_CACHE"] = "0"
import boot  # noqa: E402,F401  (bench/boot.py: settings, django.setup())
import django
from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import Q
from django.test import Client
from django.utils.text import slugify

from cards import services
from cards.models import Card, CardQuerySet, Game

SAMPLE = ROOT / "cards" / "sample" / "card-of-gods.json"
GAME_SLUG = "bench-gods"
GIN_INDEX = "card_search_colours_gin"  # words and colours, cards/migrations/0013
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
# Rare words: one card in 25 names one of these, so each is in ~0.16 % of the cards.
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
    ("rare word", {"q": "quicksilver", "colour": "red"}),
    ("common word", {"q": "damage", "colour": "green"}),
    ("name word", {"q": "wyrm", "colour": "black"}),
    ("3-letter prefix", {"q": "dra", "colour": "yellow"}),
    ("2-letter prefix", {"q": "de", "colour": "red"}),
    ("phrase", {"q": "target enemy knight", "colour": "green"}),
    ("no match", {"q": "zzyzx", "colour": "red"}),
]
EXPLAINED = (0, 1)  # indexes into QUERIES whose SQL is EXPLAIN ANALYZEd


# --- the synthetic pool --------------------------------------------------------------------


def bench_game() -> Game:
    """The synthetic game, made from the sample's definition when missing. An existing one is
    not saved again: that would judge again every deck of it (bench/pages.py makes 20,000)."""
    found = Game.objects.filter(slug=GAME_SLUG).first()
    if found is not None:
        return found
    definition = json.loads(SAMPLE.read_text())["game"]
    definition |= {
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
    """Bulk-create `count` cards, their colours and factions, as Card.save would derive them.
    search_vector is left to the database trigger, which fires for bulk INSERTs too."""
    rng = random.Random(SEED)
    domains = list(game.domains().items())  # [(domain slug, Colour)] in the game's order
    rarities = list(game.rarities.all())
    card_type = game.card_types.get()
    factions = list(game.keywords.filter(is_faction=True))
    Colours, Keywords = Card.colours.through, Card.keywords.through
    with transaction.atomic():
        Card.objects.filter(game=game).delete()
        names = card_names(count, rng)
        for start in range(0, count, 5000):
            cards, colours_of, faction_of = [], [], []
            for name in names[start : start + 5000]:
                picked = rng.sample(domains, rng.choices((0, 1, 2, 3), (10, 60, 25, 5))[0])
                picked.sort(key=domains.index)
                cost = {domain: rng.randint(1, 3) for domain, _ in picked}
                cards.append(
                    Card(
                        game=game,
                        name=name,
                        slug=slugify(name),
                        type=card_type,
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
    with connection.cursor() as cursor:  # as autovacuum would: flush the GIN pending list, stats
        for table in ("cards_card", "cards_card_colours", "cards_card_keywords"):
            cursor.execute(f"VACUUM ANALYZE {table}")


def without_vector(game: Game) -> int:
    return Card.objects.filter(game=game, search_vector__isnull=True).count()


# --- the passes ----------------------------------------------------------------------------


@contextmanager
def patched(cls, name: str, value):
    original = getattr(cls, name)
    setattr(cls, name, value)
    try:
        yield
    finally:
        setattr(cls, name, original)


def naive_search(self, text: str, game=None):
    """The baseline: every word anywhere in name or text, UPPER(col) LIKE '%WORD%'."""
    for word in re.findall(r"\w+", text.lower()):
        self = self.filter(Q(name__icontains=word) | Q(text__icontains=word))
    return self


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


def cached_game():
    """Prototype: each process reads a game with its colours and rarities once, not on every
    request (3 queries less; the product would need to invalidate it when the game changes)."""
    from cards.api import GameScopedViewSet

    prop, games = GameScopedViewSet.__dict__["game"], {}
    original = prop.func

    def game(view):
        slug = view.kwargs["game"]
        if slug not in games:
            games[slug] = original(view)
        return games[slug]

    return patched(prop, "func", game)


PROTOTYPES = {
    "capped-count": (capped_count, "pagination counts at most 1000 matches (unordered LIMIT)"),
    "cached-game": (cached_game, "the game and its vocabulary read once per process"),
}


def prototype_setup(value: str):
    """argparse type: "a+b" -> a context manager factory applying prototypes a and b."""
    names = value.split("+")
    if unknown := [n for n in names if n not in PROTOTYPES]:
        raise argparse.ArgumentTypeError(f"unknown prototype {unknown[0]!r}")

    @contextmanager
    def setup():
        with ExitStack() as stack:
            for name in names:
                stack.enter_context(PROTOTYPES[name][0]())
            yield

    setup.name = value
    return setup


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
        return sum(t for sql, _, t in self.queries if not count_only or is_count(sql))


def is_count(sql: str) -> bool:
    return "COUNT(*)" in sql or "capped_count(" in sql  # cards.pagination's two ways


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def search_sql(queries):
    """The COUNT and page queries of a request: those that search cards_card. A search counted
    through `capped_count` (cards.pagination) gives its count query, or "estimate" (the
    planner expected over twice the cap: nothing counted)."""
    for sql, params, _ in queries:
        if "capped_count(" in sql:
            query, cap, trust = params
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN (FORMAT JSON) {query}")
                expected = cursor.fetchone()[0][0]["Plan"]["Plan Rows"]  # psycopg reads json
            if expected > trust:
                yield "estimate", query, None
            else:
                yield "count", f"SELECT COUNT(*) FROM ({query} LIMIT {cap + 1}) counted", None
        elif 'FROM "cards_card"' in sql and ("@@" in sql or "LIKE" in sql):
            yield ("count" if "COUNT(*)" in sql else "page"), sql, params


def explain(sql: str, params, analyze=False) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN ({'ANALYZE, ' if analyze else ''}COSTS OFF) {sql}", params)
        return [row[0] for row in cursor.fetchall()]


def plan_kind(plan: list[str]) -> str:
    """fts: the GIN index of search_vector; walk: card_game_name in name order until the page is
    full; pk: cards in primary key order (until a LIMIT); seq: sequential scan of cards_card."""
    text = "\n".join(plan)
    if f"on {GIN_INDEX}" in text:
        return "fts"
    if "card_game_name" in text:
        return "walk"
    if "cards_card_pkey on cards_card" in text:
        return "pk"
    if re.search(r"Seq Scan on cards_card\b(?!_)", text):
        return "seq"
    return "other"


def measure(client: Client, passes: dict, warmup: int, reps: int, rounds: int) -> dict:
    """Time every query under every pass: {pass name: [result per query]}.

    The passes take turns in `rounds` rounds of reps/rounds timed requests per query, so that a
    slow minute of a shared machine weighs on all of them alike. Before its timed requests a
    query gets `warmup` untimed ones in the first round and one in the later rounds.
    """
    per_round = math.ceil(reps / rounds)
    samples = {name: [[] for _ in QUERIES] for name in passes}
    results = {name: [{} for _ in QUERIES] for name in passes}
    for round_ in range(rounds):
        for name, setup in passes.items():
            with setup():
                for i, (_, params) in enumerate(QUERIES):
                    url = f"/api/games/{GAME_SLUG}/cards/?{urlencode(params)}"
                    for _ in range(warmup if round_ == 0 else 1):
                        response = client.get(url)
                        assert response.status_code == 200, response.content[:300]
                    for _ in range(per_round):
                        timer = SqlTimer()
                        with connection.execute_wrapper(timer):
                            start = time.perf_counter()
                            response = client.get(url)
                            total = (time.perf_counter() - start) * 1000
                        samples[name][i].append((total, timer.ms(), timer.ms(count_only=True)))
                    if round_ == rounds - 1:  # plans as the pass sees them
                        found = list(search_sql(timer.queries))
                        results[name][i] = {
                            "matches": response.json()["count"],
                            "queries": len(timer.queries),
                            "plan": "/".join(
                                "est" if k == "estimate" else plan_kind(explain(s, p))
                                for k, s, p in found
                            ),
                            "explain": {
                                k: explain(s, p, analyze=k != "estimate") for k, s, p in found
                            }
                            if i in EXPLAINED
                            else {},
                        }
    for name in passes:
        for i, (label, params) in enumerate(QUERIES):
            totals, sql, count = zip(*samples[name][i], strict=True)
            results[name][i] |= {
                "label": label,
                "params": params,
                "times": totals,
                "p50": percentile(totals, 50),
                "p95": percentile(totals, 95),
                "sql_ms": statistics.median(sql),
                "count_ms": statistics.median(count),
                "py_ms": statistics.median(t - s for t, s, _ in samples[name][i]),
            }
    return results


# --- report --------------------------------------------------------------------------------


def describe(params: dict) -> str:
    return "&".join(f"{k}={v}" for k, v in params.items())


def verdict(p95: float) -> str:
    return "PASS" if p95 <= TARGET_P95_MS else "MISS"


def print_table(left: list[dict], right: list[dict], titles: tuple[str, str]) -> None:
    """Two passes side by side; ratio = right / left; the 30 ms target applies to left."""
    head = (
        f"{'query':<34} {'rows':>5} {'SQLs':>4} | {'p50':>6} {'p95':>6} {'SQL':>5} {'COUNT':>5} "
        f"{'py':>5} | {'rows':>5} {'p50':>6} {'p95':>6} | {'p50/p95 ratio':>13} | p95<=30 | plans"
    )
    print(f"{'':<45}| {titles[0] + ', ms':^36} | {titles[1] + ', ms':^19} |")
    print(head)
    print("-" * len(head))
    for a, b in zip(left, right, strict=True):
        print(
            f"{describe(a['params']):<34} {a['matches']:>5} {a['queries']:>4} | "
            f"{a['p50']:>6.1f} {a['p95']:>6.1f} {a['sql_ms']:>5.1f} {a['count_ms']:>5.1f} "
            f"{a['py_ms']:>5.1f} | {b['matches']:>5} {b['p50']:>6.1f} {b['p95']:>6.1f} | "
            f"{b['p50'] / a['p50']:>5.1f}x /{b['p95'] / a['p95']:>5.1f}x | "
            f"{verdict(a['p95']):<7} | {a['plan']}, {b['plan']}"
        )
    all_a = [t for r in left for t in r["times"]]
    all_b = [t for r in right for t in r["times"]]
    p = {q: (percentile(all_a, q), percentile(all_b, q)) for q in (50, 95)}
    print("-" * len(head))
    print(
        f"{'all requests':<45}| {p[50][0]:>6.1f} {p[95][0]:>6.1f} {'':>17} | {'':>5} "
        f"{p[50][1]:>6.1f} {p[95][1]:>6.1f} | {p[50][1] / p[50][0]:>5.1f}x /"
        f"{p[95][1] / p[95][0]:>5.1f}x | {verdict(p[95][0])}"
    )


def print_plans(title: str, plans: dict[str, list[str]], whole: bool) -> None:
    for kind, lines in plans.items():
        print(f"  {title}, {kind} query:")
        for line in lines:
            if whole or line is lines[0] or "->" in line or "Cond" in line or "Time" in line:
                print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=50_000, help="pool size (default 50000)")
    parser.add_argument("--reps", type=int, default=40, help="timed requests per query and pass")
    parser.add_argument("--warmup", type=int, default=5, help="untimed requests per query")
    parser.add_argument("--rounds", type=int, default=4, help="the passes take turns (default 4)")
    parser.add_argument(
        "--prototype",
        action="append",
        type=prototype_setup,
        default=[],
        help="also measure the product with this change patched in-process (repeatable; join "
        "with + to combine): " + "; ".join(f"{k}: {v[1]}" for k, v in PROTOTYPES.items()),
    )
    parser.add_argument("--plans", action="store_true", help="print the whole EXPLAIN plans")
    args = parser.parse_args()

    if connection.vendor != "postgresql":
        sys.exit("card_search.py needs PostgreSQL: set DATABASE_URL or use scripts/with-postgres")
    call_command("migrate", verbosity=0, interactive=False)
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    print(
        f"PostgreSQL {pg_version}, Django {django.get_version()}, Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, "
        f"DEBUG={settings.DEBUG}, {time.strftime('%Y-%m-%d %H:%M %Z')}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )

    game = bench_game()
    have = Card.objects.filter(game=game).count()
    if have == args.cards and not without_vector(game):
        print(f"{GAME_SLUG}: {have} cards already there, not refilled")
    else:  # another size, or filled before search_vector existed
        start = time.perf_counter()
        fill(game, args.cards)
        print(f"{GAME_SLUG}: filled {args.cards} cards in {time.perf_counter() - start:.1f} s")
    if missing := without_vector(game):
        sys.exit(f"{missing} cards have no search_vector: is the trigger of migration 0004 there?")
    print("search_vector: set on every card (trigger card_search_vector)")

    client = Client(SERVER_NAME="localhost", HTTP_ACCEPT="application/json")
    passes = {
        "fts": nullcontext,
        "baseline": lambda: patched(CardQuerySet, "search", naive_search),
        **{p.name: p for p in args.prototype},
    }
    start = time.perf_counter()
    results = measure(client, passes, args.warmup, args.reps, args.rounds)
    fts, baseline = results["fts"], results["baseline"]

    per_pass = math.ceil(args.reps / args.rounds) * args.rounds
    print(
        f"\nGET /api/games/{GAME_SLUG}/cards/?q=...&colour=... on {args.cards} cards: "
        f"{per_pass} timed requests per query and pass, in {args.rounds} rounds, after "
        f"{args.warmup} warm-up; server time in-process ({time.perf_counter() - start:.0f} s, "
        f"load average now {os.getloadavg()[0]:.1f})\n"
    )
    print_table(fts, baseline, ("fts (the product)", "baseline: LIKE scan"))
    print(
        "\nrows: matching cards (the API's count); SQLs: queries per request; SQL, COUNT, py: "
        "median ms per request in all SQL,\nin the pagination's count (COUNT(*) or "
        "capped_count: the planner asked first), and outside SQL "
        "(Python: middleware, filters, DRF serializer, JSON);\nbaseline: CardQuerySet.search "
        "patched to name__icontains | text__icontains per word, a sequential LIKE scan\n"
        "(substring matches, so its rows differ); ratio: baseline / fts; plans: COUNT/page "
        f"query of each pass\n(fts: GIN index {GIN_INDEX}; walk: card_game_name in "
        "name order until the page is full; pk: by primary key; seq: sequential scan;\n"
        "est: not counted, the planner expected over twice the cap)."
    )
    met = sum(r["p95"] <= TARGET_P95_MS for r in fts)
    print(f"Target p95 <= {TARGET_P95_MS:.0f} ms: {met} of {len(fts)} queries PASS.")
    for p in args.prototype:
        print(f"\nPrototype {p.name}: " + "; ".join(PROTOTYPES[n][1] for n in p.name.split("+")))
        print("(ratio: fts / prototype)\n")
        print_table(results[p.name], fts, (f"fts + {p.name}", "fts"))

    print("\nEXPLAIN ANALYZE of the SQL of one request:")
    for i in EXPLAINED:
        print_plans(f"{describe(QUERIES[i][1])}, fts", fts[i]["explain"], args.plans)
        print_plans(f"{describe(QUERIES[i][1])}, baseline", baseline[i]["explain"], args.plans)
    used = [
        f"{QUERIES[i][0]} {kind}"
        for i in EXPLAINED
        for kind, plan in fts[i]["explain"].items()
        if f"on {GIN_INDEX}" in "\n".join(plan)
    ]
    print(f"\nGIN index {GIN_INDEX} in the fts plans of: {', '.join(used) or 'NONE'}")


if __name__ == "__main__":
    main()
