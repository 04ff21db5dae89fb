"""Deck text matching benchmark: a 60-card list against a 5,000-card pool (issue 23, point 5).

    DATABASE_URL= .venv/bin/python bench/deck_text.py                 # a temp SQLite database
    scripts/with-postgres .venv/bin/python bench/deck_text.py         # a throwaway PostgreSQL
    .venv/bin/python bench/deck_text.py --cards 10000 --reps 50

Without DATABASE_URL (or with it empty) the script makes and migrates its own SQLite database in
a temporary directory and removes it afterwards; with one, it migrates that database and adds
the game `bench-deck-text` (Force of Will's definition from cards/sample/force-of-will.json
under another slug), filled with bulk inserts: `--cards` cards (fixed seed), each printed once
in one of ten sets (`B01-0001`…) and a third of them reprinted in a promo set (`BPR-0001`…),
and 50 rulers with a printing each. A pool of another size is refilled; don't point it at a
database whose data matters.

The deck text is a ruler by printing number, then 60 lines of one copy each in three sections:
a third by name, a third by printing number, a third as `Name (NUMBER)`, in mixed case. Timed,
in-process, in rounds (each pass once a round, so that a slow moment hits all of them), after
one warm-up each:

- `match`: cards.matching.match on the texts of the lines (what parse_deck_text asks);
- `parse`: deckbuilder.services.parse_deck_text on the whole text (matching included);
- `baseline: pool read`: the approach matching replaced, on the same texts: every card and
  every printing of the game read into dictionaries (the old parse read every card; numbers
  need the printings too), then the same lookups in Python;
- `baseline: old parse`: the parse of commit f6fee33 (every card read, the leader by
  `name__iexact`), on the same deck given by names only (it read no numbers).

For each: median and 95th percentile ms, SQL queries, and the median over the baseline's. Then
how the database finds the rows of the two matching queries (EXPLAIN). Figures in
docs/performance.md ("Deck text matching").
"""
# ruff: noqa: E402  (Django must be set up before the project's modules are imported)

import argparse
import gc
import itertools
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import boot  # bench/boot.py: settings, django.setup()
from django.db import connection, transaction

from cards import matching, services
from cards.models import Card, CardSet, Format, Game, Leader, Printing
from deckbuilder.services import MAX_COPIES, TextImportError, parse_deck_text

SAMPLE = ROOT / "cards" / "sample" / "force-of-will.json"
SLUG = "bench-deck-text"
SEED = 20261127
SETS = [f"B{n:02}" for n in range(1, 11)]
PROMO = "BPR"
LEADERS = 50
GOAL_MS = 50

ADJECTIVES = """Ashen Blazing Bright Broken Burning Crimson Cursed Dark Dire Divine Dread Eternal
    Fallen Fierce Frozen Gilded Glorious Grim Hallowed Hidden Holy Hollow Iron Lost Silent
    Sunken Twilight Verdant Wild Woven""".split()
NOUNS = """Aegis Altar Anthem Arrow Banner Blade Blessing Bolt Chalice Chant Covenant Crown Curse
    Dawn Decree Dirge Edict Ember Fang Flame Gate Grasp Harvest Herald Hymn Lantern Mirror Oath
    Rune Sprite""".split()
PLACES = """Abyss Ashfall Brumgar Castilla Dawnmere Deepwood Emberkeep Engeln Frosthold Gloomfen
    Highspire Ironvale Moonreach Saltmarsh Stormhold Thornwall""".split()


# --- the pool ----------------------------------------------------------------------------------


def the_game(size: int) -> Game:
    """The bench's game with `size` cards (filled unless it has exactly that many)."""
    game = Game.objects.filter(slug=SLUG).first()
    if game is not None and game.cards.count() == size and game.leaders.count() == LEADERS:
        return game
    definition = json.loads(SAMPLE.read_text(encoding="utf-8"))["game"]
    definition = {**definition, "slug": SLUG, "name": "Deck text bench"}
    start = time.perf_counter()
    with transaction.atomic():
        if game is not None:
            Printing.objects.filter(game=game).delete()
            CardSet.objects.filter(game=game).delete()
            game.cards.all().delete()
            game.leaders.all().delete()
        game = services.save_game(definition=definition)
        fill(game, size)
    print(f"filled {size:,} cards in {time.perf_counter() - start:.1f} s", flush=True)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for table in ("cards_card", "cards_leader", "cards_printing", "cards_cardset"):
                cursor.execute(f"ANALYZE {table}")
    return game


def fill(game: Game, size: int) -> None:
    rng = random.Random(SEED)
    names = [f"{a} {n} of {p}" for a, n, p in itertools.product(ADJECTIVES, NOUNS, PLACES)]
    if size + LEADERS > len(names):
        sys.exit(f"At most {len(names) - LEADERS} cards.")
    names = rng.sample(names, size + LEADERS)
    card_type = game.card_types.exclude(slug="ruler").first()
    sets = {
        code: CardSet.objects.create(game=game, code=code, name=f"Bench set {code}")
        for code in [*SETS, PROMO]
    }
    cards = Card.objects.bulk_create(
        Card(game=game, slug=f"c{i:05}", name=name, type=card_type, cost={})
        for i, name in enumerate(names[:size])
    )
    leaders = Leader.objects.bulk_create(
        Leader(game=game, slug=f"l{i:03}", name=name) for i, name in enumerate(names[size:])
    )
    printings, promo = [], itertools.count(1)
    for i, card in enumerate(cards):
        code = SETS[i % len(SETS)]
        number = f"{code}-{i // len(SETS) + 1:04}"
        printings.append(Printing(game=game, set=sets[code], card=card, number=number))
        if rng.random() < 1 / 3:
            number = f"{PROMO}-{next(promo):04}"
            printings.append(
                Printing(game=game, set=sets[PROMO], card=card, number=number, position=1)
            )
    for i, leader in enumerate(leaders):
        number = f"{SETS[0]}-L{i + 1:03}"
        printings.append(Printing(game=game, set=sets[SETS[0]], leader=leader, number=number))
    Printing.objects.bulk_create(printings, batch_size=2000)


# --- the deck text -----------------------------------------------------------------------------


def deck_lines(game: Game) -> tuple[list[str], list[str]]:
    """(the text's lines, the same deck by names only)."""
    rng = random.Random(SEED + 1)
    rows = list(
        Printing.objects.filter(game=game, card__isnull=False, position=0)
        .values_list("card__name", "number")
        .order_by("pk")
    )
    picked = rng.sample(rows, 60)
    ruler_name, ruler_number = (
        Printing.objects.filter(game=game, leader__isnull=False)
        .values_list("leader__name", "number")
        .order_by("pk")
        .first()
    )

    def cased(text: str, i: int) -> str:
        return (text, text.lower(), text.upper())[i % 3]

    lines, by_name = [cased(ruler_number, 1)], [ruler_name]
    for i, (name, number) in enumerate(picked):
        if i == 40:
            lines.append("Magic stone deck:")
            by_name.append("Magic stone deck:")
        if i == 50:
            lines.append("Side deck:")
            by_name.append("Side deck:")
        kind = i % 3
        text = (name, number, f"{name} ({number})")[kind]
        lines.append(f"1 {cased(text, i // 3)}")
        by_name.append(f"1 {name}")
    return lines, by_name


def texts_of(lines: list[str]) -> list[str]:
    return [line[2:] for line in lines[1:] if not line.endswith(":")]


# --- what is timed -----------------------------------------------------------------------------


def pool_read(game: Game, texts: list[str], leader_text: str) -> dict:
    """The approach matching replaced: the whole pool in dictionaries, then the lookups."""
    cards = {c.name.casefold(): c for c in Card.objects.filter(game=game)}
    numbers = {
        p.number.casefold(): p
        for p in Printing.objects.filter(game=game).select_related("card", "leader")
    }
    leader = Leader.objects.filter(game=game, name__iexact=leader_text).first()
    if leader is None and leader_text.casefold() in numbers:
        leader = numbers[leader_text.casefold()].leader
    found = {}
    for text in texts:
        folded = text.casefold()
        if folded in cards:
            found[folded] = cards[folded]
        elif folded in numbers and numbers[folded].card is not None:
            found[folded] = numbers[folded].card
        elif split := matching.split_number(text):
            card = cards.get(split[0].casefold())
            printing = numbers.get(split[1].casefold())
            if card is not None and printing is not None and printing.card_id == card.pk:
                found[folded] = card
    return found


_LINE = re.compile(r"^\s*(?P<count>\d+)\s*[xX×]?\s+(?P<name>\S.*?)\s*$")  # as at f6fee33


def old_parse(*, game: Game, fmt: Format, text: str):
    """parse_deck_text as of f6fee33, whole: every card of the game read to match names."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    errors: list[str] = []
    leader = None
    card_lines = lines
    if game.has_leaders:
        leader_line, leader_name = lines[0]
        leader = Leader.objects.filter(game=game, name__iexact=leader_name).first()
        if leader is not None or not _LINE.match(leader_name):
            card_lines = lines[1:]
            if leader is None:
                errors.append(f"line {leader_line}: no leader named {leader_name!r}")
    headers = {}
    for section in fmt.sections:
        headers[section["slug"].casefold()] = headers[section["name"].casefold()] = section["slug"]
    cards = {c.name.casefold(): c for c in Card.objects.filter(game=game)}
    section = fmt.slugs[0]
    contents = {}
    for number, line in card_lines:
        match = _LINE.match(line)
        if not match and line.endswith(":"):
            name = line[:-1].strip()
            if name.casefold() in headers:
                section = headers[name.casefold()]
            else:
                errors.append(f"line {number}: no section {name!r}")
            continue
        if not match:
            errors.append(f"line {number}: expected 'N Card Name', got {line!r}")
            continue
        digits, name = match["count"].lstrip("0") or "0", match["name"]
        count = int(digits) if len(digits) < 10 else None
        card = cards.get(name.casefold())
        if card is None:
            errors.append(f"line {number}: no card named {name!r}")
        elif count is None or not 1 <= count <= MAX_COPIES:
            errors.append(f"line {number}: bad count")
        elif (card, section) in contents:
            errors.append(f"line {number}: {card.name} is listed twice in this section")
        else:
            contents[(card, section)] = count
    if errors:
        raise TextImportError(errors)
    return leader, contents


def counted(fn):
    """fn() timed in ms, with the SQL statements it ran; the garbage of the passes before is
    collected first, so that no pass pays for another's."""
    gc.collect()
    queries = []
    with connection.execute_wrapper(lambda execute, *args: queries.append(1) or execute(*args)):
        start = time.perf_counter()
        result = fn()
        ms = (time.perf_counter() - start) * 1000
    return ms, len(queries), result


def explain(game: Game, texts: list[str]) -> None:
    """How the database finds the rows of matching's name and number queries."""
    names = matching.any_case(Card.objects.filter(game=game), "name", texts)
    numbers = matching.any_case(Printing.objects.filter(game=game), "number", texts)
    for label, queryset in (("names", names), ("numbers", numbers)):
        plan = [line.strip() for line in queryset.explain().splitlines()]
        plan = [line if len(line) < 110 else line[:110] + "…" for line in plan]
        print(f"{label}: {' | '.join(plan)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=5000, help="cards in the pool (5000)")
    parser.add_argument("--reps", type=int, default=40, help="rounds of timing (40)")
    args = parser.parse_args()

    boot.migrate_and_describe()
    game = the_game(args.cards)
    fmt = game.default_format()
    lines, by_name = deck_lines(game)
    text, names_text = "\n".join(lines), "\n".join(by_name)
    texts = texts_of(lines)

    new = parse_deck_text(game=game, fmt=fmt, text=text)
    old = old_parse(game=game, fmt=fmt, text=names_text)
    found = matching.match(game, cards=texts, leaders=[lines[0]])
    assert len(new.contents) == 60 and len(new.printings) == 40 and new.leader is not None
    assert {(c.pk, s) for c, s in new.contents} == {(c.pk, s) for c, s in old[1]}
    assert new.leader == old[0] and len(found.cards) == 60
    assert {k: c.pk for k, c in pool_read(game, texts, lines[0]).items()} == {
        k: m.found.pk for k, m in found.cards.items()
    }

    passes = {
        "match": lambda: matching.match(game, cards=texts, leaders=[lines[0]]),
        "parse": lambda: parse_deck_text(game=game, fmt=fmt, text=text),
        "baseline: pool read": lambda: pool_read(game, texts, lines[0]),
        "baseline: old parse": lambda: old_parse(game=game, fmt=fmt, text=names_text),
    }
    samples = {name: [] for name in passes}
    queries = {}
    for fn in passes.values():
        fn()  # warm up
    for _ in range(args.reps):
        for name, fn in passes.items():
            ms, n, _ = counted(fn)
            samples[name].append(ms)
            queries[name] = n

    cards = Card.objects.filter(game=game).count()
    printings = Printing.objects.filter(game=game).count()
    print(
        f"\n{cards:,} cards, {printings:,} printings, {LEADERS} rulers; the text: a ruler by "
        f"number, 60 lines (20 names, 20 numbers, 20 'Name (NUMBER)'), {args.reps} rounds\n"
    )
    print(f"{'pass':<22} {'median ms':>9} {'p95 ms':>7} {'queries':>7} {'÷ pool read':>11} "
          f"{'÷ old parse':>11}")  # fmt: skip
    base = {
        b: statistics.median(samples[b]) for b in ("baseline: pool read", "baseline: old parse")
    }
    for name, times in samples.items():
        median = statistics.median(times)
        p95 = sorted(times)[max(0, round(0.95 * len(times)) - 1)]
        verdict = ""
        if name in ("match", "parse"):
            verdict = "  PASS" if median <= GOAL_MS else "  MISS"
        print(
            f"{name:<22} {median:>9.2f} {p95:>7.2f} {queries[name]:>7} "
            f"{median / base['baseline: pool read']:>11.3f} "
            f"{median / base['baseline: old parse']:>11.3f}{verdict}"
        )
    print(f"\nPASS: median <= {GOAL_MS} ms. Ratios below 1: faster than the baseline.\n")
    explain(game, texts)


if __name__ == "__main__":
    main()
