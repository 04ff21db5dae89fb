"""Rules reference benchmark: a synthetic comprehensive-rules text of ~10,000 rules, imported
with cards.services.import_rules, then the rules pages requested with Django's test Client.

    DATABASE_URL= .venv/bin/python bench/rules.py                  # a temp SQLite database
    scripts/with-postgres .venv/bin/python bench/rules.py          # a throwaway PostgreSQL
    .venv/bin/python bench/rules.py --rules 3000 --reps 5

Without DATABASE_URL (or with it empty) the script makes and migrates its own SQLite database in
a temporary directory and removes it afterwards; with one, it migrates that database, adds the
game `rules-bench` if it is missing and deletes that game's rules first: don't point it at a
database whose data matters.

The text is plain numbered rules as comprehensive rules publish them (fixed seed: every run
imports the same text): 10 chapters (`1. Chapter one`), each with ten hundreds (`100. Section
one hundred`), each with numbered rules (`100.1. Text…`) and their sub-rules (`100.1a …`), some
referring to other rules (`see rule 305.2`). It times, in-process:

1. the import into no rules (creates every section), and the same text again;
2. the pages, each requested once to warm up and then `--reps` times with the test Client
   (middleware, view, SQL and templates; no network). The baseline is a trivial page of the
   same layout: the game's glossary, which has no terms (the game, the header's games, the
   base template); `/healthz` (one `SELECT 1`, JSON) is shown for scale. Then the contents, a
   chapter's contents (full page and htmx fragment), a section page (a hundred and its rules),
   a chapter's section page, the whole printable rules, a chapter's printable rules and two
   searches.

For each page: median and fastest ms, bytes of the response, SQL queries, and the median as a
ratio of the baseline's. Pages whose URL does not exist in the checked-out code print n/a.
Figures are in docs/performance.md ("Rules reference at 10,000 rules"); this is a benchmark,
not a test.
"""
# ruff: noqa: E402  (Django must be set up before the project's modules are imported)

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import boot  # bench/boot.py: settings, django.setup()
from django.db import connection
from django.test import Client
from django.urls import NoReverseMatch, reverse

from cards import services
from cards.models import Game, RuleSection

SLUG = "rules-bench"
SEED = 20250611
CHAPTERS = 10
HUNDREDS = 10  # per chapter
ORDINALS = "one two three four five six seven eight nine ten".split()
WORDS = """ability activate active attack attacker battle block blocker card cast chain choose
    combat control controller cost counter damage deal deck declare defend destroy discard draw
    effect end enter event exile field game graveyard hand leader life lose mana miniature move
    opponent pay permanent phase play player power priority resolve rest return reveal round
    shuffle source spell stack step store target token trigger turn untap value will zone""".split()


def sentence(rng: random.Random, low: int = 8, high: int = 22) -> str:
    words = rng.choices(WORDS, k=rng.randint(low, high))
    return " ".join(words).capitalize() + "."


def rules_text(target: int) -> str:
    """About `target` rules of comprehensive rules in plain text, the same for the same target."""
    rng = random.Random(SEED)
    hundreds = CHAPTERS * HUNDREDS
    per_hundred = max(1, -(-(target - CHAPTERS - hundreds) // hundreds))  # rules and sub-rules
    lines = []
    for chapter in range(1, CHAPTERS + 1):
        lines.append(f"{chapter}. Chapter {ORDINALS[chapter - 1]}")
        for h in range(HUNDREDS):
            hundred = chapter * 100 + h
            lines.append(f"{hundred}. Section {hundred} {rng.choice(WORDS)}")
            left, rule = per_hundred, 0
            while left > 0:
                rule += 1
                body = " ".join(sentence(rng) for _ in range(rng.randint(1, 2)))
                if rng.random() < 0.15:  # a cross-reference to a rule of another chapter
                    other = rng.randint(1, CHAPTERS) * 100 + rng.randrange(HUNDREDS)
                    body += f" See rule {other}.{rng.randint(1, 3)}."
                lines.append(f"{hundred}.{rule}. {body}")
                left -= 1
                for letter in "abcdefgh"[: min(left, rng.choice([0, 0, 2, 3, 4, 6, 8]))]:
                    lines.append(f"{hundred}.{rule}{letter} {sentence(rng)}")
                    left -= 1
    return "\n\n".join(lines) + "\n"


class Queries:
    """Counts the SQL statements run on the default connection inside `with`."""

    def __init__(self):
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)

    def __enter__(self):
        self.count = 0
        self._wrapper = connection.execute_wrapper(self)
        self._wrapper.__enter__()
        return self

    def __exit__(self, *exc):
        self._wrapper.__exit__(*exc)


def timed_import(label: str, game: Game, text: str) -> None:
    with Queries() as queries:
        start = time.perf_counter()
        report = services.import_rules(game=game, text=text)
        seconds = time.perf_counter() - start
    print(
        f"{label:<34} {seconds:>8.2f} {queries.count:>8} {report.created:>8} "
        f"{report.updated:>8} {report.unchanged:>9}",
        flush=True,
    )


def path_of(name: str, **kwargs) -> str | None:
    try:
        return reverse(name, kwargs=kwargs)
    except NoReverseMatch:
        return None


def measure(client: Client, path: str, reps: int, headers: dict) -> dict:
    response = client.get(path, headers=headers)  # warm up (templates, caches)
    if response.status_code != 200:
        raise SystemExit(f"GET {path}: {response.status_code}")
    times, queries = [], Queries()
    for _ in range(reps):
        with queries:
            start = time.perf_counter()
            response = client.get(path, headers=headers)
            times.append((time.perf_counter() - start) * 1000)
    return {
        "median": statistics.median(times),
        "best": min(times),
        "bytes": len(response.content),
        "queries": queries.count,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", type=int, default=10000, help="rules in the text (~10,000)")
    parser.add_argument("--reps", type=int, default=15, help="requests per page (default 15)")
    parser.add_argument(
        "--big-reps", type=int, default=5, help="requests of the whole printable rules (5)"
    )
    args = parser.parse_args()

    boot.migrate_and_describe()
    game = services.save_game(definition={"slug": SLUG, "name": "Rules Bench"})
    RuleSection.objects.filter(game=game).delete()
    text = rules_text(args.rules)
    print(f"text: {len(text.splitlines()) // 2 + 1:,} lines, {len(text.encode()):,} bytes")

    print(
        f"\n{'import':<34} {'seconds':>8} {'queries':>8} {'created':>8} {'updated':>8} "
        f"{'unchanged':>9}"
    )
    timed_import("1. into no rules", game, text)
    timed_import("2. the same text again", game, text)
    game.refresh_from_db()
    live = RuleSection.objects.live().filter(game=game)
    print(f"sections: {live.count():,} live, chaptered: {game.rules_chapters}")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

    chapter, hundred = "5", "500"
    htmx = {"HX-Request": "true"}
    pages = [
        ("baseline: glossary, no terms", path_of("rule-glossary", game=SLUG), {}),
        ("/healthz", "/healthz", {}),
        ("contents", path_of("rule-index", game=SLUG), {}),
        (f"chapter {chapter} contents", path_of("rule-contents", game=SLUG, number=chapter), {}),
        (
            f"chapter {chapter} contents, htmx",
            path_of("rule-contents", game=SLUG, number=chapter),
            htmx,
        ),
        (f"section {hundred}", path_of("rule-section", game=SLUG, number=hundred), {}),
        (f"section {chapter} (a chapter)", path_of("rule-section", game=SLUG, number=chapter), {}),
        ("print, whole", path_of("rule-print", game=SLUG), {}),
        (
            f"print, chapter {chapter}",
            path_of("rule-print-chapter", game=SLUG, number=chapter),
            {},
        ),
        ("search 'priority'", path_of("rule-search", game=SLUG) + "?q=priority", {}),
        ("search 'target token'", path_of("rule-search", game=SLUG) + "?q=target+token", {}),
    ]
    client = Client()
    print(
        f"\n{'page':<30} {'median ms':>9} {'best ms':>8} {'× base':>7} {'bytes':>10} "
        f"{'queries':>7}  path"
    )
    baseline = None
    for label, path, headers in pages:
        if path is None:
            print(f"{label:<30} {'n/a':>9}")
            continue
        reps = args.big_reps if label == "print, whole" else args.reps
        result = measure(client, path, reps, headers)
        baseline = baseline or result["median"]
        print(
            f"{label:<30} {result['median']:>9.1f} {result['best']:>8.1f} "
            f"{result['median'] / baseline:>7.1f} {result['bytes']:>10,} {result['queries']:>7}  "
            f"{path}",
            flush=True,
        )
    print(
        "\nmedian/best ms: the whole request in-process with the test Client; × base: median / "
        "the baseline's median;\nbytes: the response body; queries: SQL statements of one "
        "request (the last of the reps)."
    )


if __name__ == "__main__":
    main()
