"""Pages under load at 50,000 cards, 200 leaders, 2,000 users and 20,000 decks (issue 11).

    scripts/with-postgres .venv/bin/python bench/pages.py            # ~5 min on 2 cores
    scripts/with-postgres .venv/bin/python bench/pages.py --duration 10 --connections 4

Needs PostgreSQL (refuses SQLite); don't point it at a database whose data matters. The pool is
the synthetic game of bench/card_search.py (`bench-gods`, 50,000 cards, kept between runs) plus
leaders, users and decks of 10–60 cards, all made with bulk inserts and kept too (a pool of
another size is made again). Then the site is served as bench/validate_rps.py serves it
(`gunicorn -w 2`, production-like settings, DJANGO_SETTINGS_MODULE=bench.settings) and wrk
(Debian's) drives each page for --duration seconds with --connections connections, in turn
with the floor: GET /bench/trivial/, a plain Django JsonResponse through the same middleware
and no database, measured before the pages and again after them. Figures per page: req/s, its
ratio to the floor (the mean of the two floor runs), p50 and p95 latency, the p95/p50 ratio
(collector stalls show as a long tail), and the SQL queries of one warm request, counted
in-process (CaptureQueriesContext; anonymous, or signed in for the builder). At the end: the
resident memory of each gunicorn worker, then again after validate requests have named every
card of the pool (the rules catalogue at its largest); and, in-process before the load, how
long the rules catalogue of a new version takes to load. Static files are collected first
(staticfiles/), as production serves them. The goals of the issue are printed beside the
figures. A pause before each page lets the requests the previous one left in flight finish.

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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import validate_rps as served  # PostgreSQL only, server settings, django.setup()

# isort: split
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from bench.card_search import bench_game, fill, without_vector
from cards import catalogue
from cards.models import Card, Colour, Game, Leader
from deckbuilder.models import Deck, DeckCard

SEED = 20261123
# The goals, as ratios to the floor's req/s (in the same run).
GOAL_HTML, GOAL_LIGHT = 0.05, 0.10
GOAL_TAIL, GOAL_SQL = 2.5, 6
# Seconds of quiet before each page: the requests wrk leaves in flight (the builder's take
# ~300 ms each) finish first instead of showing as the next page's tail.
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
# A new address each time (`{n}` in the path): a page that is never served from a cache.
FRESH_SCRIPT = """
n = 0
request = function()
  n = n + 1
  return wrk.format("GET", (string.gsub("PATH", "{n}", tostring(n))))
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
    with connection.cursor() as cursor:
        for table in ("deckbuilder_deck", "deckbuilder_deckcard", "cards_leader"):
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


# --- measuring -----------------------------------------------------------------------------


def measure(client: Client, path: str, post: str = "") -> tuple[int, int, float]:
    """SQL queries of one warm request with the pages cache (the page answered from it; for an
    address new each time, the page rendered from the builder rows it keeps), and of one
    rendered without it (PAGE_CACHE off), and the median ms of 20 requests in this process:
    rendered without the cache, or with it for an address new each time."""

    sent = [0]

    def send():  # as wrk sends it: a new address each time, a count alternating 2/3
        sent[0] += 1
        if not post:
            return client.get(path.replace("{n}", str(sent[0])))
        body = f"{post}&count={2 + sent[0] % 2}"
        return client.post(path, body, content_type=FORM, headers=HTMX)

    counts = []
    for cached in (True, False):
        with override_settings(PAGE_CACHE=cached):
            send()  # warm: per-process caches filled, the page stored
            with CaptureQueriesContext(connection) as queries:
                status = send().status_code
            if status != 200:
                sys.exit(f"pages: {path} answered {status}")
            counts.append(len(queries))
    times = []
    with override_settings(PAGE_CACHE="{n}" in path):
        for _ in range(20):
            started = time.perf_counter()
            send()
            times.append((time.perf_counter() - started) * 1000)
    return counts[0], counts[1], statistics.median(times)


def load(wrk: str, port: int, path: str, seconds: float, conns: int, me, tmp, post="") -> dict:
    """wrk on `path` (signed in with `me`, the session and CSRF cookies); with `post`, an htmx
    POST of that form whose `count=` alternates between 2 and 3."""
    script = Path(tmp) / "p95.lua"
    lua = ""
    if me:
        session, csrf = me
        lua += f'wrk.headers["Cookie"] = "sessionid={session}; csrftoken={csrf}"\n'
    if post:
        lua += f'wrk.headers["X-CSRFToken"] = "{csrf}"\nwrk.headers["HX-Request"] = "true"\n'
        lua += f'wrk.headers["Content-Type"] = "{FORM}"\n'
        lua += POST_SCRIPT.replace("PATH", path).replace("BODY", post)
    elif "{n}" in path:
        lua += FRESH_SCRIPT.replace("PATH", path)
    script.write_text(lua + P95_SCRIPT)
    cmd = [wrk, "-t1", f"-c{conns}", f"-d{seconds:g}s", "--timeout", "10s", "-s", str(script)]
    out = subprocess.run(
        [*cmd, f"http://{served.HOST}:{port}{path.replace('{n}', '0')}"],
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
    pages = [  # (name, path, signed in, goal as a ratio to the floor, POST body)
        ("card browser", f"{g}/cards/", False, GOAL_HTML, ""),
        ("card browser q=", f"{g}/cards/?q=blade", False, GOAL_HTML, ""),
        ("card browser leader=", f"{g}/cards/?leader={leader.slug}", False, GOAL_HTML, ""),
        ("card detail", f"{g}/cards/{card.slug}/", False, GOAL_HTML, ""),
        ("leader list", f"{g}/leaders/", False, GOAL_HTML, ""),
        ("leader detail", f"{g}/leaders/{leader.slug}/", False, GOAL_HTML, ""),
        ("builder, 60 cards", builder, True, GOAL_HTML, ""),
        ("builder, not kept", f"{builder}?v={{n}}", True, GOAL_HTML, ""),
        ("deck page, 60 cards", f"/decks/{deck.share_id}/", False, GOAL_HTML, ""),
        ("public decks", "/decks/", False, GOAL_HTML, ""),
        ("API card list q=", f"/api/games/{game.slug}/cards/?q=blade", False, GOAL_LIGHT, ""),
        ("builder +/- (htmx)", builder, True, GOAL_LIGHT, f"card={plus}&shown={plus}"),
    ]
    slugs = list(Card.objects.filter(game=game).order_by("?").values_list("slug", flat=True))
    cold = cold_catalogue(game, slugs)
    anonymous, signed_in = Client(HTTP_HOST=served.HOST), Client(HTTP_HOST=served.HOST)
    signed_in.force_login(owner)
    signed_in.get(builder)  # sets the CSRF cookie
    me = (signed_in.cookies["sessionid"].value, signed_in.cookies["csrftoken"].value)
    signed_in.defaults["HTTP_X_CSRFTOKEN"] = me[1]
    sql = {
        name: measure(signed_in if mine else anonymous, path, post)
        for name, path, mine, _, post in pages
    }
    connection.close()

    wrk = served.find_wrk("wrk")
    os.environ["PAGE_CACHE"] = "1"  # the site as served: what follows measures it with the cache
    rows, floors = {}, []
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        with served.Gunicorn(args.workers, Path(tmp)) as server:

            def run(path, mine=False, post="", seconds=args.duration):
                who = me if mine else None
                return load(wrk, server.port, path, seconds, args.connections, who, tmp, post)

            for _name, path, mine, _, post in pages:  # warm every worker's caches, unmeasured
                run(path, mine, post, seconds=1)
            floors.append(run(served.TRIVIAL_PATH))
            for name, path, mine, _, post in pages:
                time.sleep(PAUSE)
                rows[name] = run(path, mine, post)
            time.sleep(PAUSE)
            floors.append(run(served.TRIVIAL_PATH))
            rss = worker_rss(server.proc.pid)
            validate_every_card(server.port, game, leader.slug, slugs)
            rss_full = worker_rss(server.proc.pid)

    floor = sum(f["rps"] for f in floors) / len(floors)
    print(
        f"\nwrk, {args.connections} connections, {args.duration:g} s per page, gunicorn "
        f"{args.workers} workers. Floor (/bench/trivial/): "
        + ", ".join(f"{f['rps']:.0f}" for f in floors)
        + " req/s (before, after the pages)\n"
        "SQL: queries of a request answered from the pages cache / of one rendered without "
        "it; render: median ms of a rendered request in-process (PAGE_CACHE off). Under load, "
        "wrk repeats one address: anonymous pages and the owner's builder are served from the "
        "pages cache. 'builder, not kept' asks a new address each time (?v=1, 2, …): its page "
        "is rendered every time, from the builder rows the cache keeps (its SQL and render "
        "are of that). The +/- alternates a count of 2 and 3: every request is a change.\n"
    )
    head = f"{'page':<22} {'req/s':>7} {'× floor':>8} {'goal':>5} {'p50 ms':>7} {'p95 ms':>7}"
    print(head + f" {'p95/p50':>7} {'SQL':>5} {'render':>6}  verdict")
    missed = []
    for name, _, _, goal, _ in pages:
        r, (hit, rendered, render_ms) = rows[name], sql[name]
        ratio, tail = r["rps"] / floor, r["p95"] / max(r["p50"], 1e-3)
        misses = [
            what
            for what, ok in (
                (f"× floor < {goal}", ratio >= goal),
                (f"p95/p50 > {GOAL_TAIL}", tail <= GOAL_TAIL),
                (f"SQL > {GOAL_SQL}", max(hit, rendered) <= GOAL_SQL),
                (f"{r['bad']} non-2xx", not r["bad"]),
            )
            if not ok
        ]
        print(
            f"{name:<22} {r['rps']:>7.1f} {ratio:>8.3f} {goal:>5} {r['p50']:>7.1f} "
            f"{r['p95']:>7.1f} {tail:>7.2f} {hit:>2}/{rendered:<2} {render_ms:>6.1f}  "
            + ("goals met" if not misses else "; ".join(misses))
        )
        missed += [name] if misses else []
    if missed:
        print(
            f"\nNot met: {', '.join(missed)}. Why, with the profiles: docs/performance.md, "
            "'Where each goal stands'."
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
