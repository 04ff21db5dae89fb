"""Pages under load at 50,000 cards, 200 leaders, 2,000 users and 20,000 decks (issues 11, 22,
24).

    scripts/with-postgres .venv/bin/python bench/pages.py            # ~6 min on 2 cores
    scripts/with-postgres .venv/bin/python bench/pages.py --duration 10 --connections 4

Needs PostgreSQL (refuses SQLite); don't point it at a database whose data matters. The pool is
the synthetic game of bench/card_search.py (`bench-gods`, 50,000 cards, kept between runs) plus
leaders, users and decks of 10–60 cards, all made with bulk inserts and kept too (a pool of
another size is made again). Then the site is served as bench/validate_rps.py serves it
(`gunicorn -w 2`, production-like settings, DJANGO_SETTINGS_MODULE=bench.settings) and wrk
(Debian's) drives it for --duration seconds a run with --connections connections, beside the
floor: GET /bench/trivial/, a plain Django JsonResponse through the same middleware and no
database, measured before and after.

Anonymous traffic is measured as players make it: mixes of thousands of distinct addresses
(card pages, card searches, public deck pages, and all of those with leader pages, card
browser pages and API reads), each request drawn from its mix by a Zipf law (the n-th most
asked address asked 1/n as often as the first), the same sequence for every run. Each mix runs
against a server with the pages cache on and one with it off (PAGE_CACHE): the ratio says
whether the cache pays (issue 22 keeps a cache that at least doubles its page). The owner's
builder is read (each read a render: nothing of it is kept) and changed (+/-, htmx, a count
alternating 2 and 3). Figures: req/s, the ratio to the floor, p50 and p95 latency. In-process
before the load: the SQL queries and median ms of one request of each page kind rendered with
the cache off. At the end: the resident memory of each worker, and again after validate has
named every card (the rules catalogue at its largest), and how long a new rules version of the
catalogue takes to load. The goals of the issue are printed beside the figures.

A benchmark, not a test: it prints figures, never fails on them.
"""
# ruff: noqa: E402  (Django is set up by validate_rps before the project's modules are imported)

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import validate_rps as served  # PostgreSQL only, server settings, django.setup()

# isort: split
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from bench.card_search import (
    ADJECTIVES,
    NOUNS,
    PLACES,
    RELICS,
    UNITS,
    bench_game,
    fill,
    without_vector,
)
from cards import catalogue
from cards.models import Card, Colour, Game, Leader
from deckbuilder import services
from deckbuilder.models import Deck, DeckCard

SEED = 20261123
# Issue 22's goals: (ratio to the floor's req/s in the same run, p95 ms).
GOALS = {"mix": (0.05, 60), "change": (0.05, 60), "read": (0.02, 120)}
GOAL_SQL = 6  # queries of a page rendered with the cache off
GOAL_CACHE = 2.0  # a cache is kept where it at least doubles what its page serves
ZIPF_REQUESTS = 20_000  # the sequence each mix's runs walk through
# Seconds of quiet before each run: the requests wrk leaves in flight finish first instead of
# showing as the next run's tail.
PAUSE = 1.5

FORM = "application/x-www-form-urlencoded"
HTMX = {"HX-Request": "true"}
POST_SCRIPT = """
n = 0
request = function()
  n = n + 1
  return wrk.format("POST", "PATH", nil, "BODY&count=" .. (2 + n % 2))
end
"""
# The addresses of a mix, one a line, asked in that order (the same for every run).
SEQUENCE_SCRIPT = """
paths = {}
for line in io.lines("FILE") do paths[#paths + 1] = line end
n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n - 1) % #paths + 1])
end
"""
P95_SCRIPT = """
done = function(summary, latency, requests)
  io.write(string.format("P50 %d\\nP95 %d\\n", latency:percentile(50), latency:percentile(95)))
end
"""


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=50_000)
    parser.add_argument("--leaders", type=int, default=200)
    parser.add_argument("--users", type=int, default=2_000)
    parser.add_argument("--decks", type=int, default=20_000)
    parser.add_argument("--duration", type=float, default=8, help="seconds of load per page")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    return parser.parse_args()


# --- the pool ----------------------------------------------------------------------------------


def pool(args) -> Game:
    """The synthetic game with its cards, leaders, users and decks, made again when a count
    differs from the one asked for."""
    game = Game.objects.filter(slug="bench-gods").first() or bench_game()
    wanted = (args.cards, args.leaders, args.users, args.decks)
    have = (
        Card.objects.filter(game=game).count(),
        Leader.objects.filter(game=game).count(),
        User.objects.filter(username__startswith="bench-").count(),
        Deck.objects.filter(game=game).exclude(name="Bench sixty").count(),
    )
    if have == wanted and not without_vector(game):
        return game
    started = time.perf_counter()
    Deck.objects.filter(game=game).delete()
    if have[0] != args.cards or without_vector(game):
        fill(game, args.cards)
    rng = random.Random(SEED)
    with transaction.atomic():
        Leader.objects.filter(game=game).delete()
        colours = list(Colour.objects.filter(game=game))
        leaders = Leader.objects.bulk_create(
            Leader(game=game, name=f"Bench Leader {i}", slug=f"bench-leader-{i}")
            for i in range(args.leaders)
        )
        Leader.colours.through.objects.bulk_create(
            Leader.colours.through(leader_id=leader.pk, colour_id=colour.pk)
            for leader in leaders
            for colour in rng.sample(colours, rng.choice((1, 2, 2, 3)))
        )
        User.objects.filter(username__startswith="bench-").delete()
        users = User.objects.bulk_create(
            User(username=f"bench-{i}", password="!") for i in range(args.users)
        )
        card_ids = list(Card.objects.filter(game=game).values_list("pk", flat=True))
        fmt = game.default_format()
        for start in range(0, args.decks, 2000):
            decks = Deck.objects.bulk_create(
                Deck(
                    owner=rng.choice(users),
                    game=game,
                    format=fmt,
                    leader=rng.choice(leaders),
                    name=f"Bench deck {i}",
                    visibility=rng.choice(("public", "public", "unlisted", "private")),
                    copies=rng.choice((0, 0, 0, 1, 2, 5)),
                )
                for i in range(start, min(start + 2000, args.decks))
            )
            rows = []
            for deck in decks:
                picked = rng.sample(card_ids, rng.randint(4, 25))
                counts = [rng.randint(1, 3) for _ in picked]
                deck.card_count = sum(counts)
                rows += [
                    DeckCard(deck=deck, card_id=c, count=n)
                    for c, n in zip(picked, counts, strict=True)
                ]
            DeckCard.objects.bulk_create(rows, batch_size=10_000)
            Deck.objects.bulk_update(decks, ["card_count"], batch_size=2000)
    judged = time.perf_counter()
    services.refresh_legality(decks=Deck.objects.filter(game=game).order_by("pk").iterator())
    print(f"{args.decks} decks judged under every version in {time.perf_counter() - judged:.0f} s")
    with connection.cursor() as cursor:
        for table in (
            "deckbuilder_deck",
            "deckbuilder_deckcard",
            "deckbuilder_deckverdict",
            "cards_leader",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
    print(f"pool made in {time.perf_counter() - started:.0f} s")
    return game


def sixty_card_deck(game: Game, owner: User) -> Deck:
    """A deck of exactly 60 cards (20 cards, 3 copies each) for the builder and deck page,
    unlisted: the builder's +/- may make it illegal."""
    deck = Deck.objects.filter(game=game, name="Bench sixty").first()
    if deck is not None and deck.visibility != "unlisted":  # +/- may make it illegal
        Deck.objects.filter(pk=deck.pk).update(visibility="unlisted")
    if deck is None:
        leader = Leader.objects.filter(game=game).order_by("pk").first()
        deck = Deck.objects.create(
            owner=owner, game=game, format=game.default_format(), leader=leader,
            name="Bench sixty", visibility="unlisted", card_count=60,
        )  # fmt: skip
        cards = Card.objects.filter(game=game).order_by("pk")[:20]
        DeckCard.objects.bulk_create(DeckCard(deck=deck, card=c, count=3) for c in cards)
    return deck


# --- traffic ------------------------------------------------------------------------------


def mixes(game: Game, rng: random.Random) -> dict[str, list[str]]:
    """Thousands of distinct addresses of each kind players ask for, and all of them mixed."""
    g = f"/games/{game.slug}"
    slugs = list(Card.objects.filter(game=game).order_by("pk").values_list("slug", flat=True))
    cards = [f"{g}/cards/{slug}/" for slug in rng.sample(slugs, 3000)]
    words = sorted({w.lower() for w in (*ADJECTIVES, *NOUNS, *PLACES, *RELICS, *UNITS)})
    colours = list(Colour.objects.filter(game=game).values_list("slug", flat=True))

    def search() -> dict:
        q = " ".join(rng.sample(words, rng.choice((1, 1, 2))))
        if rng.random() < 0.2:  # a word start, as typed
            q = q[: rng.randint(3, 5)]
        params = {"q": q}
        if rng.random() < 0.4:
            params["colour"] = rng.choice(colours)
        if rng.random() < 0.2:
            params["page"] = rng.randint(2, 3)
        return params

    searches = sorted({f"{g}/cards/?{urlencode(search())}" for _ in range(2000)})
    # the card browser with a format's legality filter (issue 24), as players combine them
    legal = sorted(
        {f"{g}/cards/?{urlencode(search() | {'legal': 'standard'})}" for _ in range(1000)}
    )
    public = Deck.objects.filter(game=game, visibility="public").order_by("pk")
    decks = [
        f"/decks/{sid}/"
        for sid in rng.sample(list(public.values_list("share_id", flat=True)), 2000)
    ]
    leaders = [
        f"{g}/leaders/{slug}/"
        for slug in Leader.objects.filter(game=game).values_list("slug", flat=True)
    ]
    browser = [f"{g}/cards/?page={n}" for n in range(1, 51)]
    browser += [f"{g}/cards/?leader={path.rsplit('/', 2)[1]}" for path in leaders]
    api = {f"/api/games/{game.slug}/cards/?{urlencode(search())}" for _ in range(500)}
    api = sorted(re.sub(r"&page=\d+", "", path) for path in api)  # the API's pages end: 404 past
    return {
        "card pages": cards,
        "card searches": searches,
        "legal= searches": legal,
        "deck pages": decks,
        "mixed": cards + searches + decks + leaders + browser + api,
    }


def zipf(addresses: list[str], rng: random.Random) -> list[str]:
    """ZIPF_REQUESTS addresses drawn from `addresses`, the n-th most asked 1/n as often as the
    first (the order of popularity shuffled)."""
    popular = list(addresses)
    rng.shuffle(popular)
    return rng.choices(
        popular, weights=[1 / n for n in range(1, len(popular) + 1)], k=ZIPF_REQUESTS
    )


# --- measuring -----------------------------------------------------------------------------


def measure(client: Client, path: str, post: str = "") -> tuple[int, float]:
    """The SQL queries of one request rendered with the pages cache off, and the median ms of
    20 such requests in this process (warm: the per-process data of the game loaded)."""
    sent = [0]

    def send():  # as wrk sends it: a count alternating 2/3
        sent[0] += 1
        if not post:
            return client.get(path)
        return client.post(path, f"{post}&count={2 + sent[0] % 2}", content_type=FORM, headers=HTMX)

    with override_settings(PAGE_CACHE=False):
        send()
        with CaptureQueriesContext(connection) as queries:
            status = send().status_code
        count = len(queries)  # now: the next request's start empties the log it reads
        if status != 200:
            sys.exit(f"pages: {path} answered {status}")
        times = []
        for _ in range(20):
            started = time.perf_counter()
            send()
            times.append((time.perf_counter() - started) * 1000)
    return count, statistics.median(times)


def load(
    wrk: str, port: int, path: str, seconds: float, conns: int, me, tmp, post="", sequence=()
) -> dict:
    """wrk on `path` (signed in with `me`, the session and CSRF cookies); with `post`, an htmx
    POST of that form whose `count=` alternates between 2 and 3; with `sequence`, GETs of those
    addresses in turn."""
    script = Path(tmp) / "load.lua"
    lua = ""
    if me:
        session, csrf = me
        lua += f'wrk.headers["Cookie"] = "sessionid={session}; csrftoken={csrf}"\n'
    if post:
        lua += f'wrk.headers["X-CSRFToken"] = "{csrf}"\nwrk.headers["HX-Request"] = "true"\n'
        lua += f'wrk.headers["Content-Type"] = "{FORM}"\n'
        lua += POST_SCRIPT.replace("PATH", path).replace("BODY", post)
    elif sequence:
        addresses = Path(tmp) / "addresses.txt"
        addresses.write_text("\n".join(sequence) + "\n")
        lua += SEQUENCE_SCRIPT.replace("FILE", str(addresses))
    script.write_text(lua + P95_SCRIPT)
    cmd = [wrk, "-t1", f"-c{conns}", f"-d{seconds:g}s", "--timeout", "10s", "-s", str(script)]
    out = subprocess.run(
        [*cmd, f"http://{served.HOST}:{port}{path}"],
        capture_output=True, text=True, timeout=seconds + 60, check=True,
    ).stdout  # fmt: skip
    bad = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s*([\d.]+)", out)[1]),
        "p50": int(re.search(r"^P50 (\d+)", out, re.M)[1]) / 1000,
        "p95": int(re.search(r"^P95 (\d+)", out, re.M)[1]) / 1000,
        "bad": int(bad[1]) if bad else 0,
    }


def worker_rss(master_pid: int) -> list[float]:
    """Resident memory (MB) of each child of the gunicorn master."""
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    rss = []
    for pid in children:
        status = Path(f"/proc/{pid}/status").read_text()
        rss.append(int(re.search(r"VmRSS:\s*(\d+) kB", status)[1]) / 1024)
    return rss


def cold_catalogue(game: Game, slugs: list[str]) -> tuple[float, float]:
    """Median ms (of 5) of loading the rules catalogue of a new version, and of then reading
    the CardInfo of 60 cards into it (validate's first requests after a rules change)."""
    loads, reads = [], []
    for _ in range(5):
        catalogue.clear()
        started = time.perf_counter()
        rules = catalogue.game_rules(game.slug)
        loads.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        rules.cards(slugs[:60])
        reads.append((time.perf_counter() - started) * 1000)
    return statistics.median(loads), statistics.median(reads)


def validate_every_card(port: int, game: Game, leader: str, slugs: list[str]) -> None:
    """POST validate naming every card of the pool, 200 a request, twice over (so that each
    worker very likely reads them all): the catalogue's largest size, for the RSS figure."""
    for _ in range(2):
        for start in range(0, len(slugs), 200):
            rows = [{"card": slug, "count": 1} for slug in slugs[start : start + 200]]
            body = json.dumps({"leader": leader, "cards": rows}).encode()
            request = urllib.request.Request(
                f"http://{served.HOST}:{port}/api/games/{game.slug}/validate/",
                data=body,
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as answer:
                answer.read()


def verdict(ratio: float, p95: float, goal: tuple[float, int], bad: int) -> str:
    misses = [
        what
        for what, ok in (
            (f"× floor < {goal[0]}", ratio >= goal[0]),
            (f"p95 > {goal[1]} ms", p95 <= goal[1]),
            (f"{bad} non-2xx", not bad),
        )
        if not ok
    ]
    return "goals met" if not misses else "; ".join(misses)


def main() -> None:
    args = parse_args()
    call_command("migrate", verbosity=0, interactive=False)
    # Production's static files: hashed names from the manifest (staticfiles/, git-ignored).
    call_command("collectstatic", verbosity=0, interactive=False)
    print(
        f"pages: PostgreSQL {connection.cursor().connection.info.server_version}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; pool "
        f"{args.cards:,} cards, {args.leaders} leaders, {args.users:,} users, {args.decks:,} decks"
    )
    game = pool(args)
    owner = User.objects.filter(username="bench-0").get()
    deck = sixty_card_deck(game, owner)
    card = Card.objects.filter(game=game).order_by("pk")[1]
    leader = deck.leader
    g = f"/games/{game.slug}"
    plus = (
        Card.objects.filter(deck_entries__deck=deck)
        .order_by("pk")
        .values_list("slug", flat=True)[0]
    )
    builder = f"/decks/{deck.share_id}/edit/"
    change = f"card={plus}&shown={plus}"
    kinds = [  # (name, path, signed in, POST body): SQL and ms of a render, in-process
        ("card browser", f"{g}/cards/", False, ""),
        ("card browser q=", f"{g}/cards/?q=blade", False, ""),
        ("card browser leader=", f"{g}/cards/?leader={leader.slug}", False, ""),
        ("card browser legal=", f"{g}/cards/?legal=standard&q=blade", False, ""),
        ("card detail", f"{g}/cards/{card.slug}/", False, ""),
        ("leader list", f"{g}/leaders/", False, ""),
        ("leader detail", f"{g}/leaders/{leader.slug}/", False, ""),
        ("deck page, 60 cards", f"/decks/{deck.share_id}/", False, ""),
        ("public decks", "/decks/", False, ""),
        ("API card list q=", f"/api/games/{game.slug}/cards/?q=blade", False, ""),
        ("builder, 60 cards", builder, True, ""),
        ("builder +/- (htmx)", builder, True, change),
    ]
    slugs = list(Card.objects.filter(game=game).order_by("?").values_list("slug", flat=True))
    rng = random.Random(SEED)
    traffic = {name: zipf(addresses, rng) for name, addresses in mixes(game, rng).items()}
    cold = cold_catalogue(game, slugs)
    anonymous, signed_in = Client(HTTP_HOST=served.HOST), Client(HTTP_HOST=served.HOST)
    signed_in.force_login(owner)
    signed_in.get(builder)  # sets the CSRF cookie
    me = (signed_in.cookies["sessionid"].value, signed_in.cookies["csrftoken"].value)
    signed_in.defaults["HTTP_X_CSRFTOKEN"] = me[1]
    rendered = {
        name: measure(signed_in if mine else anonymous, path, post)
        for name, path, mine, post in kinds
    }
    connection.close()

    wrk = served.find_wrk("wrk")
    on, off, floors, rss, rss_full = {}, {}, [], [], []
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        for cached, results in ((True, on), (False, off)):
            os.environ["PAGE_CACHE"] = "1" if cached else "0"
            with served.Gunicorn(args.workers, Path(tmp)) as server:

                def run(path="/", mine=False, post="", sequence=(), seconds=args.duration):
                    who = me if mine else None
                    time.sleep(PAUSE)
                    return load(
                        wrk, server.port, path, seconds, args.connections, who, tmp, post, sequence
                    )

                run(builder, True, seconds=1)  # every worker's per-process data, unmeasured
                floors.append(run(served.TRIVIAL_PATH))
                for name, sequence in traffic.items():
                    # The same law's draws, the first half to warm a server up (a site that
                    # has been serving: its popular pages kept), the second measured.
                    if cached:
                        run(sequence=sequence[: len(sequence) // 2])
                    results[name] = run(sequence=sequence[len(sequence) // 2 :])
                if cached:
                    results["builder read"] = run(builder, True)
                    results["builder +/-"] = run(builder, True, change)
                floors.append(run(served.TRIVIAL_PATH))
                if cached:
                    rss = worker_rss(server.proc.pid)
                    validate_every_card(server.port, game, leader.slug, slugs)
                    rss_full = worker_rss(server.proc.pid)

    floor = sum(f["rps"] for f in floors) / len(floors)
    print(
        f"\nwrk, {args.connections} connections, {args.duration:g} s a run, gunicorn "
        f"{args.workers} workers. Floor (/bench/trivial/): "
        + ", ".join(f"{f['rps']:.0f}" for f in floors)
        + " req/s (cache on: before, after; cache off: before, after)\n"
    )
    print(
        "Anonymous traffic: each mix's addresses drawn by a Zipf law; with the cache on, a first "
        "half of the draws warms the server up (unmeasured), the second is measured; with it off, "
        "the second half."
    )
    print(
        f"{'mix':<15} {'addresses':>9} {'top 1%':>6} | {'cache on':>8} {'× floor':>7} "
        f"{'p50':>6} {'p95':>6} | {'cache off':>9} {'× floor':>7} {'p50':>6} {'p95':>6} | "
        f"{'on/off':>6}  verdict"
    )
    keep = []
    for name, sequence in traffic.items():
        sequence = sequence[len(sequence) // 2 :]  # what was measured
        r_on, r_off = on[name], off[name]
        counts = sorted(
            (sequence.count(a) for a in set(sequence)), reverse=True
        )  # how concentrated the traffic is
        top = sum(counts[: max(1, len(counts) // 100)]) / len(sequence)
        gain = r_on["rps"] / r_off["rps"]
        keep.append(gain >= GOAL_CACHE)
        print(
            f"{name:<15} {len(set(sequence)):>9,} {top:>6.0%} | {r_on['rps']:>8.1f} "
            f"{r_on['rps'] / floor:>7.3f} {r_on['p50']:>6.1f} {r_on['p95']:>6.1f} | "
            f"{r_off['rps']:>9.1f} {r_off['rps'] / floor:>7.3f} {r_off['p50']:>6.1f} "
            f"{r_off['p95']:>6.1f} | {gain:>6.2f}  cache on: "
            + verdict(r_on["rps"] / floor, r_on["p95"], GOALS["mix"], r_on["bad"] + r_off["bad"])
        )
    print(
        f"The pages cache {'at least doubles' if all(keep) else 'does not double'} what every "
        f"mix serves (goal ≥ {GOAL_CACHE}× to keep it).\n"
    )
    print(f"{'builder':<15} {'req/s':>8} {'× floor':>7} {'p50':>6} {'p95':>6}  verdict")
    for name, goal in (("builder read", GOALS["read"]), ("builder +/-", GOALS["change"])):
        r = on[name]
        print(
            f"{name:<15} {r['rps']:>8.1f} {r['rps'] / floor:>7.3f} {r['p50']:>6.1f} "
            f"{r['p95']:>6.1f}  " + verdict(r["rps"] / floor, r["p95"], goal, r["bad"])
        )
    print(f"\nRendered with the cache off, in-process (SQL goal ≤ {GOAL_SQL}):")
    for name, (queries, ms) in rendered.items():
        print(
            f"  {name:<22} {queries:>2} queries {ms:>6.1f} ms"
            + ("" if queries <= GOAL_SQL else "  MISS")
        )
    print(
        "\nworker RSS after the load: "
        + ", ".join(f"{mb:.0f} MB" for mb in rss)
        + f"; after validating every one of the {len(slugs):,} cards (the rules catalogue "
        + "at its largest): "
        + ", ".join(f"{mb:.0f} MB" for mb in rss_full)
        + f" (goal ≤ 120 MB). Load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"rules catalogue of a new version: loaded in {cold[0]:.1f} ms (goal ≤ 200 ms), then "
        f"60 cards read into it in {cold[1]:.1f} ms (medians of 5, in-process)"
    )


if __name__ == "__main__":
    main()
