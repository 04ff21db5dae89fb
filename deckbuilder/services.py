"""Writes to decks: small keyword-only functions, each one transaction.

Every change goes through `_save`, which asks the rules engine for the verdict and stores it,
refuses `public` for an illegal deck (nothing written), bumps the version used as ETag, stores
the contents and records the deck as it is now in its history (a DeckVersion; rapid changes
update the latest one). A change that changes nothing writes nothing.
Input shapes (slugs, counts 1..99, same game) are checked before: by the API's serializers
and the pages' forms.
"""

import copy
import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from django.contrib.admin.models import CHANGE, LogEntry
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F, Prefetch, Q
from django.http import Http404
from django.utils import timezone

from cards import catalogue, fowsim, legality, matching, vocabulary
from cards.models import (
    Card,
    CardType,
    Face,
    Format,
    FormatVersion,
    Game,
    Leader,
    Printing,
    hold,
    printings_of_sets,
)

from . import history
from .models import Deck, DeckCard, DeckVerdict, DeckVersion, Visibility

MAX_COPIES = 99


class DeckNotLegal(Exception):
    """Making a deck public needs a legal deck."""

    def __init__(self, report: legality.Report):
        super().__init__("Only a legal deck can be public.")
        self.report = report


class DeckUnpublished(Exception):
    """Staff took the deck out of the public lists: only staff can let it back in."""

    def __init__(self, deck: Deck):
        super().__init__(
            f"Staff unpublished this deck: {deck.unpublished_reason} "
            "It cannot be made public again until staff restore it."
        )


class DeckNotPublic(Exception):
    """Only a public deck can be unpublished."""


class VersionMismatch(Exception):
    """The deck changed since the caller read it (If-Match no longer matches)."""


class TextImportError(Exception):
    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


Contents = Mapping[tuple[Card, str], int]  # {(card, deck section slug): count}
# {(card, deck section slug): printing number}: the art the player chose for an entry (the
# rules ignore it). Entries without one are absent.
Printings = Mapping[tuple[Card, str], str]


def cards_for_rules():
    """Cards with what the engine reads (rarity, type, colours, keywords, loyalty), in
    constant queries."""
    return Card.objects.select_related("rarity", "type", "loyalty_faction").prefetch_related(
        "colours", "keywords", "faces", "more_types", Prefetch("printings", printings_of_sets())
    )


def _entries():
    """Deck entries with everything the engine and the pages need (3 queries)."""
    return DeckCard.objects.select_related(
        "card__rarity", "card__type", "card__loyalty_faction"
    ).prefetch_related(
        "card__colours",
        "card__keywords",
        "card__faces",
        "card__more_types",
        Prefetch("card__printings", printings_of_sets()),
    )


def entries_of(deck: Deck) -> list[DeckCard]:
    """The deck's entries with everything the engine and the pages need (3 queries)."""
    return list(_entries().filter(deck=deck))


def judge(*, fmt: Format, leader: Leader | None, contents: Contents) -> legality.Report:
    """The engine's verdict on a leader and contents (cards with prefetched relations)."""
    return legality.check(
        fmt.engine(),
        leader.info() if leader else None,
        [(card.info(), count, section) for (card, section), count in contents.items()],
    )


def leader_for_rules(leader: Leader | None) -> Leader | None:
    if leader is None:
        return None
    return Leader.objects.for_rules().get(pk=leader.pk)


def fit_sections(contents: Contents, fmt: Format) -> dict[tuple[Card, str], int]:
    """The contents with every card in a section of `fmt`: a card in a section the format does
    not have moves to its first section (counts add up), so a change of format loses nothing."""
    fitted: dict[tuple[Card, str], int] = {}
    for (card, section), count in contents.items():
        key = (card, section if section in fmt.slugs else fmt.slugs[0])
        fitted[key] = min(fitted.get(key, 0) + count, MAX_COPIES)
    return fitted


def fit_printings(printings: Printings, fmt: Format) -> dict[tuple[Card, str], str]:
    """The printings as fit_sections moves their entries: an entry that moves to the first
    section keeps its printing, unless an entry already there has one."""
    first = fmt.slugs[0]
    fitted = {key: number for key, number in printings.items() if key[1] in fmt.slugs}
    for (card, section), number in printings.items():
        if section not in fmt.slugs:
            fitted.setdefault((card, first), number)
    return fitted


def printings_of(entries: Iterable[DeckCard]) -> dict[tuple[Card, str], str]:
    """The printings of these entries (those that have one)."""
    return {(e.card, e.section): e.printing for e in entries if e.printing}


def _contents_of(deck: Deck) -> tuple[dict[tuple[Card, str], int], dict[tuple[Card, str], str]]:
    """The deck's contents and printings as stored."""
    entries = entries_of(deck)
    return {(e.card, e.section): e.count for e in entries}, printings_of(entries)


_READ = object()  # _save's leader: read it from the database


def _save(
    deck: Deck,
    contents: Contents | None = None,
    *,
    printings: Printings | None = None,
    dressed: bool = False,
    leader=_READ,
    changed: DeckCard | None = None,
    merge: bool = True,
    record: bool = True,
) -> legality.Report:
    """Store the deck (and replace its contents, when given) with the engine's verdict, and
    record it in the deck's history (`_record`; `merge` False: as a version of its own, never
    folded into the latest; `record` False: no version, for a change no version would show).
    `dressed`: the contents' cards carry what the engine reads already, and `leader` is the
    deck's with its relations (both read in this transaction); else they are read from the
    database. `changed`: the one entry in which the contents differ from the stored ones (its
    count 0: gone), written alone. `printings`: those of the contents' entries (read with the
    contents when they are not given; with them, entries not named have none)."""
    replace = contents is not None
    if contents is None:
        contents, printings = _contents_of(deck)
    else:
        contents = {key: n for key, n in contents.items() if n}
        if not dressed:
            loaded = cards_for_rules().in_bulk([card.pk for card, _ in contents])
            contents = {(loaded[card.pk], section): n for (card, section), n in contents.items()}
    # A card is equal to itself however it was read (by pk): these keys are the contents'.
    printings = {k: p for k, p in (printings or {}).items() if p and contents.get(k)}
    if leader is _READ:
        leader = leader_for_rules(deck.leader)
    formats = vocabulary.of(deck.game).formats if dressed else None
    entries = [(card.info(), n, section) for (card, section), n in contents.items()]
    report, verdicts = judge_all(
        deck=deck, leader=leader.info() if leader else None, entries=entries, formats=formats
    )
    if deck.visibility == Visibility.PUBLIC and deck.unpublished_at:
        raise DeckUnpublished(deck)
    if deck.visibility == Visibility.PUBLIC and not report.legal:
        raise DeckNotLegal(report)
    deck.card_count = report.card_count
    # The first change after creation never merges (_record): no statement spent trying.
    saved_before = deck.updated if deck.pk and merge and deck.version > 1 else None
    if deck.pk:
        deck.version += 1
    deck.save()
    if changed is not None:
        _store_one(changed)
    elif replace:
        _store(deck, contents, printings)
    _store_verdicts(verdicts)
    hold(deck, "verdicts", verdicts)
    if record:
        _record(deck, contents, report, printings, saved_before=saved_before)
    return report


def formats_of(game_id: int) -> list[Format]:
    """The game's formats with their versions and the words their engines read, as the
    database has them now (three queries)."""
    formats = list(
        Format.objects.filter(game_id=game_id).select_related("game").prefetch_related("versions")
    )
    if formats:
        hold(formats[0].game, "card_types", CardType.objects.filter(game_id=game_id))
    for fmt in formats:
        fmt.game = formats[0].game
    return formats


def judge_all(
    *,
    deck: Deck,
    leader: legality.LeaderInfo | None,
    entries: list[tuple[legality.CardInfo, int, str]],
    formats: list[Format] | None = None,
) -> tuple[legality.Report, list[DeckVerdict]]:
    """The engine's verdict on the deck (its leader and entries as the engine reads them) under
    each version of each format of its game in force today or later (`formats` with their
    versions, read when not given): the report of its own format's version in force today, and
    the verdicts to store."""
    day = timezone.localdate()
    info = leader
    own, verdicts = None, []
    for fmt in formats if formats is not None else formats_of(deck.game_id):
        versions, now = fmt.version_list, fmt.version_on(day)
        # Those before the one in force now are never in force again (unless a later one is
        # deleted, which judges every deck again).
        for version in versions[versions.index(now) if now else 0 :]:
            report = legality.check(version.engine(), info, entries)
            verdicts.append(
                DeckVerdict(
                    deck=deck,
                    format=fmt,
                    version=version,
                    starts=version.starts,
                    legal=report.legal,
                    problems=[p.as_dict() for p in report.problems],
                )
            )
            if fmt.pk == deck.format_id and version is (now or versions[0]):
                own = report
    if own is None:  # the deck's format is not among them (never: a deck's format is its game's)
        own = legality.check(deck.format.engine(), info, entries)
    return own, verdicts


def verdict_now(*, deck: Deck, entries: Iterable[DeckCard], leader: Leader | None) -> DeckVerdict:
    """The deck's verdict under its format's version in force now, judged from `entries` (their
    cards dressed) and `leader` (with its relations), not read: for a page that holds them."""
    fmt = deck.format
    version = fmt.version_on() or fmt.version_list[0]
    entries = [(e.card.info(), e.count, e.section) for e in entries]
    report = legality.check(version.engine(), leader.info() if leader else None, entries)
    problems = [p.as_dict() for p in report.problems]
    return DeckVerdict(
        deck=deck,
        format=fmt,
        version=version,
        starts=version.starts,
        legal=report.legal,
        problems=problems,
    )


def legality_of(deck: Deck, day=None) -> list[dict]:
    """The deck's stored verdict under the version in force on `day` (today when None) of
    every format of its game, in the game's order: {"format", "legal", "version": {"from",
    "name"}, "problems"} (`legal` None: not judged under that version yet)."""
    rows = []
    for fmt in vocabulary.of(deck.game).formats:
        version = fmt.version_on(day)
        if version is None:
            continue  # not in force yet
        verdict = deck.verdict(fmt.pk, day)
        fresh = verdict is not None and verdict.version_id == version.pk
        rows.append(
            {
                "format": fmt.slug,
                "name": fmt.name,
                "legal": verdict.legal if fresh else None,
                "version": {"from": version.starts, "name": version.name},
                "problems": verdict.problems if fresh else [],
            }
        )
    return rows


def _store_verdicts(verdicts: list[DeckVerdict]) -> None:
    """Write these verdicts over the stored ones of the same deck and version (one statement)."""
    DeckVerdict.objects.bulk_create(
        verdicts,
        update_conflicts=True,
        unique_fields=["deck", "version"],
        update_fields=["format", "starts", "legal", "problems"],
    )


def _record(
    deck: Deck,
    contents: Contents,
    report: legality.Report,
    printings: Printings,
    *,
    saved_before=None,
) -> None:
    """The deck as just saved, as a version of its history: one statement, two at most.

    Rapid edits are one version: a change within `history.merge_window()` of the deck's
    previous save (`saved_before`; None: never merge), when that save made the latest version
    and the format and leader stay, updates that version (its contents, name and time) instead
    of adding one; never the first version, so the deck as created (imported, copied) stays
    restorable. Only the deck's owner changes a deck, so a version is always its editor's;
    any other save in between (a description or visibility change, staff moderation) moved
    `updated` and ends the merging. Changes that do not go through `_save` are not versions:
    staff unpublishing and restoring (they change no card, and the admin's log records them)
    and `refresh_legality` (the rules changed, not the deck); their version bumps leave gaps,
    as do merged changes (a version keeps the number of its first change)."""
    rows = history.contents_rows(
        ((card.slug, card.name, section, n) for (card, section), n in contents.items()),
        deck.format.slugs,
        printings={(card.slug, section): p for (card, section), p in printings.items()},
    )
    state = {
        "created": deck.updated,
        "name": deck.name,
        "contents": rows,
        "card_count": report.card_count,
        "legal": report.legal,
    }
    window = history.merge_window()
    if saved_before is not None and window and deck.updated - saved_before <= window:
        latest = DeckVersion.objects.filter(
            deck=deck,
            created=saved_before,
            number__gt=1,
            format_id=deck.format_id,
            leader_id=deck.leader_id,
        )
        if latest.update(**state):
            return
    DeckVersion.objects.create(
        deck=deck,
        number=deck.version,
        format_id=deck.format_id,
        leader_id=deck.leader_id,
        **state,
    )


def _store(deck: Deck, contents: Contents, printings: Printings | None = None) -> None:
    printings = printings or {}
    deck.entries.all().delete()
    DeckCard.objects.bulk_create(
        DeckCard(
            deck=deck,
            card=card,
            section=section,
            count=n,
            printing=printings.get((card, section), ""),
        )
        for (card, section), n in contents.items()
        if n
    )


def _store_one(entry: DeckCard) -> None:
    """One entry's new count: one statement (0 deletes the row; no pk yet inserts it)."""
    if not entry.count:
        DeckCard.objects.filter(pk=entry.pk).delete()
    elif entry.pk is None:
        entry.save(force_insert=True)
    else:
        DeckCard.objects.filter(pk=entry.pk).update(count=entry.count)


def _lock(deck: Deck, expected_version: int | None) -> Deck:
    # of=self: the leader is a nullable join, and PostgreSQL cannot lock an outer join
    locked = (
        Deck.objects.select_for_update(of=("self",))
        .select_related("game", "format", "leader")
        .filter(pk=deck.pk)
        .order_by()
        .first()
    )
    if locked is None:  # deleted by a request that held the lock before us
        raise Http404("The deck was deleted.")
    locked.format.game = locked.game  # the same game: no second join
    if expected_version is not None and locked.version != expected_version:
        raise VersionMismatch
    return locked


@transaction.atomic
def deck_create(
    *,
    owner,
    game: Game,
    name: str,
    format: Format | None = None,
    leader: Leader | None = None,
    description: str = "",
    visibility: str = Visibility.PRIVATE,
    contents: Contents | None = None,
    printings: Printings | None = None,
    copied_from: Deck | None = None,
) -> Deck:
    """A new deck of `format` (default: the game's default format); `printings`: the art
    chosen for some of its entries."""
    fmt = format or game.default_format()
    deck = Deck(
        owner=owner,
        game=game,
        format=fmt,
        leader=leader,
        name=name,
        description=description,
        visibility=visibility,
        copied_from=copied_from,
    )
    _save(deck, dict(contents or {}), printings=printings)
    return deck


@transaction.atomic
def deck_update(
    *,
    deck: Deck,
    expected_version: int | None = None,
    contents: Contents | None = None,
    printings: Printings | None = None,
    merge: bool = True,
    **fields,
) -> Deck:
    """Change any of format, leader, name, description, visibility, and (replace) the contents
    with their `printings` (entries not named there have none). A new format keeps every card,
    and its printing: those in sections it lacks move to its first section.

    A change that changes nothing writes nothing: no version, and the deck's version (its
    ETag) stays. One that changes only the description or visibility, which a version does not
    hold, is saved without a version. `merge` False: a version of its own (_record)."""
    deck = _lock(deck, expected_version)
    changed = set()
    for name, value in fields.items():
        if name not in {"format", "leader", "name", "description", "visibility"}:
            raise TypeError(f"deck_update() got an unexpected field {name!r}")
        if getattr(deck, name) != value:
            changed.add(name)
        setattr(deck, name, value)
    same_cards = contents is None or _holds(deck, contents, printings)
    if same_cards and not changed:
        return deck
    if contents is None and "format" in changed:
        contents, printings = _contents_of(deck)
        contents = fit_sections(contents, deck.format)
        printings = fit_printings(printings, deck.format)
    versioned = not same_cards or bool(changed & {"format", "leader", "name"})
    _save(deck, contents, printings=printings, merge=merge, record=versioned)
    return deck


def _holds(deck: Deck, contents: Contents, printings: Printings | None) -> bool:
    """Whether the deck's stored entries are these contents with these printings (one query)."""
    stored = deck.entries.values_list("card_id", "section", "count", "printing")
    printings = printings or {}
    wanted = {
        (card.pk, section, n, printings.get((card, section)) or "")
        for (card, section), n in contents.items()
        if n
    }
    return set(stored) == wanted


def deck_set_count(
    *,
    deck: Deck,
    card: Card,
    count: int | Callable[[int], int],
    section: str | None = None,
    entries: list[DeckCard] | None = None,
) -> Deck:
    """Set how many copies of one card a section holds (0 removes it): the builder's +/−.
    `section` defaults to the format's first. `count` may be a function of the count the
    locked deck holds (+1, −1); when the count stays as it is, nothing is written.

    `entries`: the deck's entries with their cards, which the caller read in its transaction
    after reading the deck with `select_for_update` (the builder: one statement for both
    reads); they are left as they were. Without them the deck is locked and read here.

    The engine's data comes from the game's cached vocabulary at the rules_version the lock
    read (cards.vocabulary): the leader and the format's words cost no query. Only the changed
    entry is written, and the deck comes back with its entries as they now are
    (`deck.entry_list`: no query), for the answer. A refusal (DeckNotLegal) rolls back the
    caller's transaction too (which has no use for a savepoint: two statements less)."""
    with transaction.atomic(savepoint=entries is None):
        deck, entries = _locked_entries(deck, entries, None)
        return _set_count(deck, card, count, section, list(entries))


def _locked_entries(deck: Deck, entries, expected_version: int | None):
    """(deck, its entries with their cards), inside a transaction: the caller's own locked read
    when handed over (checked against `expected_version`), else the deck locked and read here."""
    if entries is None:
        deck = _lock(deck, expected_version)
        return deck, deck.entries.with_cards(vocabulary.of(deck.game))
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("Entries handed over must come from the caller's locked read.")
    if expected_version is not None and deck.version != expected_version:
        raise VersionMismatch
    return deck, entries


def _set_count(deck: Deck, card: Card, count, section: str | None, entries: list) -> Deck:
    """deck_set_count on the locked deck and its entries: a list of its own, changed here; the
    entry changed is a copy, so the caller's entries stay as they were read."""
    words = vocabulary.of(deck.game)
    deck.format.game = deck.game
    section = section or deck.format.slugs[0]
    at = _at(entries, card, section)
    current = entries[at].count if at is not None else 0
    new = max(0, min(count(current) if callable(count) else count, MAX_COPIES))
    if new == current:
        hold(deck, "entries", entries)
        return deck
    entry = _put(deck, entries, at, card, section, new)
    contents = {(e.card, e.section): e.count for e in entries}
    _save(
        deck,
        contents,
        printings=printings_of(entries),
        dressed=True,
        leader=_rules_leader(deck, words),
        changed=entry,
    )
    hold(deck, "entries", [e for e in entries if e.count])
    return deck


def _at(entries: list, card: Card, section: str) -> int | None:
    """The index of the entry of `card` in `section` among `entries` (None: not there)."""
    return next(
        (i for i, e in enumerate(entries) if e.card_id == card.pk and e.section == section), None
    )


def _put(deck: Deck, entries: list, at: int | None, card: Card, section: str, count: int):
    """Give `entries` (a list of the caller's own) `count` copies of `card` in `section`: the
    entry at index `at` becomes a copy with that count (the entries read stay as they were);
    none (`at` None): a new entry, its card as the other entries have it. Returns the entry."""
    if at is None:  # not in this section yet: its card as the other entries have it
        dressed = next((e.card for e in entries if e.card_id == card.pk), None)
        if dressed is None:
            dressed = Card.objects.filter(pk=card.pk).for_listing(vocabulary.of(deck.game)).get()
        entry = DeckCard(deck=deck, card=dressed, section=section, count=count)
        entries.append(entry)
    else:
        entry = entries[at] = copy.copy(entries[at])
        entry.count = count
    return entry


def _rules_leader(deck: Deck, words) -> Leader | None:
    """The deck's leader with what the engine reads: from the game's vocabulary `words`."""
    leader = words.leader(deck.leader_id) if deck.leader_id else None
    if deck.leader_id and leader is None:
        leader = leader_for_rules(deck.leader)
    return leader


def deck_swap(
    *,
    deck: Deck,
    out: Card,
    into: Card,
    out_section: str | None = None,
    into_section: str | None = None,
    expected_version: int | None = None,
    entries: list[DeckCard] | None = None,
) -> Deck:
    """One copy of `out` leaves its section and one of `into` enters its own (both default to
    the format's first), judged and written as one change: the builder's swap, for a public
    deck, which must be legal after every change when a − alone (or a + to a full deck) would
    not be. Illegal as a whole: DeckNotLegal, and neither is written. Swapping a card for
    itself in its own section changes nothing. ValueError when `out` is not in its section.

    `expected_version`: as deck_update's (VersionMismatch when the deck moved on). `entries`:
    as deck_set_count's (the caller's read, after locking the deck in its transaction); the
    deck comes back with its entries as they now are."""
    with transaction.atomic(savepoint=entries is None):
        deck, entries = _locked_entries(deck, entries, expected_version)
        entries = list(entries)
        deck.format.game = deck.game
        first = deck.format.slugs[0]
        out_section, into_section = out_section or first, into_section or first
        if (out.pk, out_section) == (into.pk, into_section):
            hold(deck, "entries", entries)
            return deck
        gone = _at(entries, out, out_section)
        if gone is None:
            raise ValueError(f"{out.name} is not in the deck's {out_section}.")
        _put(deck, entries, gone, out, out_section, entries[gone].count - 1)
        came = _at(entries, into, into_section)
        held = entries[came].count if came is not None else 0
        _put(deck, entries, came, into, into_section, min(held + 1, MAX_COPIES))
        # Two entries change: the contents are written whole (a delete and an insert).
        _save(
            deck,
            {(e.card, e.section): e.count for e in entries},
            printings=printings_of(entries),
            dressed=True,
            leader=_rules_leader(deck, vocabulary.of(deck.game)),
        )
        hold(deck, "entries", [e for e in entries if e.count])
        return deck


class Restored(NamedTuple):
    deck: Deck
    skipped: list[str]  # names of the version's cards the game no longer has, left out
    number: int | None = None  # the version the restore made; None: the deck already was it


@transaction.atomic
def deck_restore_version(*, deck: Deck, number: int) -> Restored:
    """Bring back the format, leader and contents of the deck's version `number` as a new
    version of its own (never merged into the latest: the state before the restore stays one
    to go back to), through deck_update (a public deck must stay legal: DeckNotLegal, nothing
    written; the deck as it is already: nothing written). The name, description and
    visibility stay as they are. A card is found by its slug, else by its name (renamed
    since); cards the game no longer has are left out and named in `skipped`.
    DeckVersion.DoesNotExist when the deck has no such version."""
    deck = _lock(deck, None)
    version = deck.versions.select_related("format", "leader").get(number=number)
    rows = version.contents
    found = Card.objects.filter(game_id=deck.game_id).filter(
        Q(slug__in={r["card"] for r in rows}) | Q(name__in={r["name"] for r in rows})
    )
    by_slug = {c.slug: c for c in found}
    by_name = {c.name: c for c in found}
    contents: dict[tuple[Card, str], int] = {}
    printings: dict[tuple[Card, str], str] = {}
    skipped: list[str] = []
    for row in rows:
        card = by_slug.get(row["card"]) or by_name.get(row["name"])
        if card is None:
            if row["name"] not in skipped:
                skipped.append(row["name"])
            continue
        key = (card, row["section"])
        contents[key] = min(contents.get(key, 0) + row["count"], MAX_COPIES)
        if row.get("printing"):
            printings.setdefault(key, row["printing"])
    before = deck.version
    deck = deck_update(
        deck=deck,
        format=version.format,
        leader=version.leader,
        contents=fit_sections(contents, version.format),
        printings=fit_printings(printings, version.format),
        merge=False,
    )
    return Restored(deck, skipped, deck.version if deck.version != before else None)


@transaction.atomic
def deck_delete(*, deck: Deck, expected_version: int | None = None) -> None:
    locked = _lock(deck, expected_version)
    share_id = locked.share_id
    locked.delete()
    # Its link-preview pictures go with it, once the deletion is sure.
    transaction.on_commit(lambda: _forget_pictures(share_id))


def _forget_pictures(share_id: str) -> None:
    from . import previews  # Pillow: only where pictures are drawn (previews.py)

    previews.forget_deck(default_storage, share_id)


@transaction.atomic
def deck_unpublish(*, deck: Deck, by, reason: str) -> Deck:
    """Staff take a public deck out of the lists: it becomes unlisted (its link still works),
    the owner sees `reason` on its page, and the admin's history records who and why."""
    deck = _lock(deck, None)
    if deck.visibility != Visibility.PUBLIC:
        raise DeckNotPublic("Only a public deck can be unpublished.")
    deck.visibility = Visibility.UNLISTED
    deck.unpublished_reason, deck.unpublished_by, deck.unpublished_at = reason, by, timezone.now()
    deck.version += 1
    deck.save()
    _log(deck, by, f"Unpublished: {reason}")
    return deck


@transaction.atomic
def deck_restore(*, deck: Deck, by) -> Deck:
    """Staff lift an unpublishing: the deck stays unlisted; its owner may make it public."""
    deck = _lock(deck, None)
    deck.unpublished_reason, deck.unpublished_by, deck.unpublished_at = "", None, None
    deck.version += 1
    deck.save()
    _log(deck, by, "Restored: the owner may make it public again.")
    return deck


def _log(deck: Deck, by, message: str) -> None:
    LogEntry.objects.log_actions(
        user_id=by.pk, queryset=[deck], action_flag=CHANGE, change_message=message
    )


@transaction.atomic
def deck_copy(*, deck: Deck, owner) -> Deck:
    """A private copy of `deck` for `owner`; a copy by another player counts for `deck`."""
    entries = list(deck.entries.select_related("card"))
    contents = {(e.card, e.section): e.count for e in entries}
    copy = deck_create(
        owner=owner,
        game=deck.game,
        format=deck.format,
        leader=deck.leader,
        name=f"Copy of {deck.name}"[:120],
        description=deck.description,
        contents=contents,
        printings=printings_of(entries),
        copied_from=deck,
    )
    if owner.pk != deck.owner_id:
        Deck.objects.filter(pk=deck.pk).update(copies=F("copies") + 1)
    return copy


class Judged(NamedTuple):
    """What the engine reads of decks: per deck, its leader and entries."""

    leaders: dict[int, legality.LeaderInfo | None]
    entries: dict[int, list[tuple[legality.CardInfo, int, str]]]


def _judged(rules: catalogue.GameRules, decks: list[Deck]) -> Judged:
    """The leaders and entries of these decks (of one game) as the engine reads them, from the
    game's engine data read for this (`catalogue.load`: as the database has it now): two flat
    queries, and one for the cards `rules` has not read yet."""
    rows = DeckCard.objects.filter(deck__in=decks).values_list(
        "deck_id", "card__slug", "section", "count"
    )
    rows = list(rows)
    cards = rules.cards({slug for _, slug, _, _ in rows})
    entries: dict[int, list] = {d.pk: [] for d in decks}
    for deck_id, slug, section, count in rows:
        entries[deck_id].append((cards[slug], count, section))
    led = Leader.objects.filter(pk__in={d.leader_id for d in decks})
    slugs = dict(led.values_list("pk", "slug"))
    leaders = {d.pk: rules.leader(slugs[d.leader_id]) if d.leader_id else None for d in decks}
    return Judged(leaders, entries)


def refresh_legality(*, decks: Iterable[Deck], chunk: int = 500) -> int:
    """Judge decks again after cards, leaders or a format (or its versions) changed: their
    verdicts under every version in force now or later; returns how many decks changed. Cards
    in a section their format no longer has today move to its first section. A public deck
    that became illegal stays public, showing its problems.

    A chunk of decks at a time, read as the engine reads them (`_judged`: flat rows, no model
    instances); what changed is written in two statements (the verdicts, the decks), and a
    deck whose cards move has them rewritten."""
    changed = 0
    games: dict[int, tuple[catalogue.GameRules, list[Format]]] = {}
    decks = iter(decks)
    while batch := list(itertools.islice(decks, chunk)):
        by_game: dict[int, list[Deck]] = {}
        for deck in batch:
            by_game.setdefault(deck.game_id, []).append(deck)
        verdicts, updated = [], []
        for game_id, of_game in by_game.items():
            if game_id not in games:
                games[game_id] = (catalogue.load(game_id), formats_of(game_id))
            rules, formats = games[game_id]
            judged = _judged(rules, of_game)
            stored: dict[int, dict] = {d.pk: {} for d in of_game}
            for verdict in DeckVerdict.objects.filter(deck__in=of_game):
                stored[verdict.deck_id][verdict.version_id] = (verdict.legal, verdict.problems)
            for deck in of_game:
                fmt = next(f for f in formats if f.pk == deck.format_id)
                if any(section not in fmt.slugs for _, _, section in judged.entries[deck.pk]):
                    _fit(deck, fmt)  # rare: the format lost a section today
                    judged = _judged(rules, of_game)
                report, now = judge_all(
                    deck=deck,
                    leader=judged.leaders[deck.pk],
                    entries=judged.entries[deck.pk],
                    formats=formats,
                )
                if report.card_count == deck.card_count and all(
                    stored[deck.pk].get(v.version_id) == (v.legal, v.problems) for v in now
                ):
                    continue
                verdicts += now
                deck.card_count, deck.version = report.card_count, deck.version + 1
                updated.append(deck)
        with transaction.atomic():
            _store_verdicts(verdicts)
            Deck.objects.bulk_update(updated, ["card_count", "version"])
        changed += len(updated)
    return changed


def _fit(deck: Deck, fmt: Format) -> None:
    """Move the deck's cards in sections `fmt` no longer has to its first (fit_sections)."""
    contents, printings = _contents_of(deck)
    _store(deck, fit_sections(contents, fmt), fit_printings(printings, fmt))


# --- text export and import ---------------------------------------------------------------

# The name ends at its last non-space character: `\S(?:.*\S)?`, not a lazy `\S.*?` before
# `\s*$`, which retried the spaces at every character (a second for a line of 20,000).
_LINE = re.compile(r"^\s*(?P<count>\d+)\s*[xX×]?\s+(?P<name>\S(?:.*\S)?)\s*$")


# A line starting with one of these is a comment: the import skips it (line numbers still count
# it). The export's first line is one that names the deck's game and format, for people and for
# the import (read_header): `# Force of Will — Constructed (game: force-of-will; format:
# constructed)`, so that a text imported back lands in its game and format.
COMMENT = ("#", "//")


def deck_export_text(deck: Deck, entries: Iterable[DeckCard] | None = None) -> str:
    """A comment line naming the game and the format (slugs included), then the leader's name
    (no line for a game without leaders), then one `N Card Name` a line for the first section
    (`N Card Name (NUMBER)` for an entry that names a printing); each further section that
    holds cards starts with a header line naming it (`Side deck:`). deck_import reads it back
    into the same game and format, printings included.

    `entries`: the deck's entries with their cards, when the caller has loaded them already.
    """
    if entries is None:
        entries = deck.entries.select_related("card")
    by_section: dict[str, list[DeckCard]] = {}
    for entry in entries:
        by_section.setdefault(entry.section, []).append(entry)
    game, fmt = deck.game, deck.format
    lines = [f"# {game.name} — {fmt.name} (game: {game.slug}; format: {fmt.slug})"]
    if game.has_leaders:
        lines.append(deck.leader.name if deck.leader else "")
    for i, section in enumerate(deck.format.sections):
        rows = sorted(by_section.get(section["slug"], []), key=lambda e: e.card.name.casefold())
        if i and rows:
            lines.append(f"{section['name']}:")
        lines += [
            f"{e.count} {e.card.name} ({e.printing})" if e.printing else f"{e.count} {e.card.name}"
            for e in rows
        ]
    return "\n".join(lines) + "\n"


class ParsedDeck(NamedTuple):
    leader: Leader | None
    contents: dict[tuple[Card, str], int]
    printings: dict[tuple[Card, str], str]  # the printing each line named, where one did


def _lines(numbers: list[int]) -> str:
    """'line 5', 'lines 5–9'."""
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    return f"lines {numbers[0]}\u2013{numbers[-1]}"


def _fdk_as_text(text: str) -> str:
    """A fowsim deck file's text as deck text; any other text as it is."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        return fowsim.deck_text(text)
    except (fowsim.FowsimError, ValueError, RecursionError):
        return text  # not a deck file: its lines are reported as bad lines


def _content_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line stripped) of the lines that are neither blank nor comments."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)]
    return [(n, line) for n, line in lines if line and not line.startswith(COMMENT)]


class TextHeader(NamedTuple):
    """The game and the format a deck text's header names, as written (a slug or a name);
    `format` is "" when it names none."""

    game: str
    format: str


def read_header(text: str) -> TextHeader | None:
    """What a comment line above the text's first line names: its `game:` and `format:`
    fields, separated by `;` or parentheses (the export's `# Card of Gods — Standard (game:
    card-of-gods; format: standard)`, or `# game: card-of-gods`). None when no comment there
    names a game."""
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not line.startswith(COMMENT):
            return None
        fields: dict[str, str] = {}
        for part in re.split(r"[;()]", line.lstrip("#/")):
            key, colon, value = part.partition(":")
            if colon and value.strip():
                fields.setdefault(key.strip().casefold(), value.strip())
        if "game" in fields:
            return TextHeader(fields["game"], fields.get("format", ""))
    return None


class TextTargetError(Exception):
    """The game or the format a deck text goes to is unclear, or is not the one its header
    names: `field` ("game" or "format") says which; the message names the candidates."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def _header_game(name: str) -> Game:
    game = Game.objects.filter(Q(slug=name.casefold()) | Q(name__iexact=name)).first()
    if game is None:
        raise TextTargetError(
            "game", f"The text's first line names the game {name!r}, which this site lacks."
        )
    return game


def _header_format(game: Game, name: str) -> Format:
    formats = game.format_list
    found = next((f for f in formats if name.casefold() in (f.slug, f.name.casefold())), None)
    if found is None:
        known = ", ".join(f"{f.name} ({f.slug})" for f in formats)
        raise TextTargetError(
            "format",
            f"The text's first line names the format {name!r}, which {game.name} lacks "
            f"(its formats: {known}).",
        )
    return found


def detect_game(text: str) -> Game:
    """The game whose cards and leaders the text's lines name most often (by name, face name
    or printing number, in any case): five queries, whatever the text or the number of games.
    No line named, or several games named by as many lines: TextTargetError asking to choose
    the game, with the number of lines each game recognises."""
    candidates = []  # per card or leader line: the texts that may name what it holds
    for _, line in _content_lines(text):
        match = _LINE.match(line)
        if not match and line.endswith(":"):
            continue  # a section's header
        name = match["name"] if match else line
        candidates.append({name, *(matching.split_number(name) or ())})
    texts = set().union(*candidates)
    games_of: dict[str, set[int]] = {}  # a text casefolded: the games that have it
    for model, field in ((Card, "name"), (Leader, "name"), (Face, "name"), (Printing, "number")):
        asked = texts if field == "name" else {t for t in texts if len(t) <= matching.NUMBER_LENGTH}
        rows = matching.any_case(model.objects.all(), field, asked).values_list("game_id", field)
        for game_id, value in rows:
            games_of.setdefault(value.casefold(), set()).add(game_id)
    lines_of: dict[int, int] = {}  # game id: how many lines name one of its cards or leaders
    for line in candidates:
        for game_id in set().union(*(games_of.get(t.casefold(), ()) for t in line)):
            lines_of[game_id] = lines_of.get(game_id, 0) + 1
    if not lines_of:
        raise TextTargetError(
            "game", "Choose the game: no line of the text names a card or a leader of any game."
        )
    games = Game.objects.in_bulk(lines_of)
    ranked = sorted(lines_of.items(), key=lambda item: (-item[1], games[item[0]].name))
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        seen = ", ".join(f"{games[g].name}: {n} line{'s' if n > 1 else ''}" for g, n in ranked)
        raise TextTargetError(
            "game", f"Choose the game: the text names cards of several games as often ({seen})."
        )
    return games[ranked[0][0]]


def deck_text_target(
    *, text: str, game: Game | None = None, format: Format | None = None
) -> tuple[Game, Format]:
    """The game and the format a deck text goes to. The game: the one given (or the given
    format's), which must be the one the text's header names, if it names one; else the
    header's; else the one its lines name most often (detect_game). The format: the one given,
    else the header's, else the game's default. What is unclear or contradicts the header:
    TextTargetError."""
    text = _fdk_as_text(text)
    header = read_header(text)
    named = _header_game(header.game) if header else None
    game = game or (format.game if format else None) or named or detect_game(text)
    if named is not None and named != game:
        raise TextTargetError(
            "game",
            f"The text's first line is for {named.name} ({named.slug}), but the game chosen is "
            f"{game.name} ({game.slug}): choose {named.name}, or delete that line.",
        )
    if format is not None and format.game_id != game.pk:
        raise TextTargetError(
            "format", f"{format.name} is a format of {format.game.name}, not of {game.name}."
        )
    if format is None and header and header.format:
        format = _header_format(game, header.format)
    return game, format or game.default_format()


def parse_deck_text(*, game: Game, fmt: Format, text: str) -> ParsedDeck:
    """Read the export format back; every bad line is reported by number (TextImportError).
    Blank lines and comments (`#`, `//`: the export's header) are skipped, and counted in the
    numbers.

    A line names its card by name, by printing number (`4 BEL-001`) or as `4 Name (BEL-001)`
    (cards.matching: a card's own name wins), the leader line its leader the same ways; the
    printing named is kept for the entry. All names are matched at once: a constant number of
    queries, whatever the size of the text or of the pool. After a header naming a section the
    format lacks, no line goes into any section until the next known header: the header's
    error says how many lines that left out, and their own errors are still reported.

    A Force of Will deck file of the community database (`.fdk`: JSON of printing numbers) is
    read as the deck text it stands for (cards.fowsim.deck_text)."""
    text = _fdk_as_text(text)
    lines = _content_lines(text)
    if not lines:
        first = (
            f"the {game.leader_label.lower()}'s name on the first line, then "
            if game.has_leaders
            else ""
        )
        raise TextImportError([f"The text is empty: put {first}one 'N Card Name' a line."])
    leader_line, leader_text = lines[0] if game.has_leaders else (0, "")
    parsed = {number: _LINE.match(line) for number, line in lines}
    found = matching.match(
        game,
        cards=[m["name"] for m in parsed.values() if m],
        leaders=[leader_text] if leader_text else [],
    )

    errors: list[str] = []
    leader = None
    card_lines = lines
    if game.has_leaders:
        named = found.leaders.get(matching.key(leader_text))
        leader = named.found if named is not None and named.problem is None else None
        if leader is not None or not parsed[leader_line]:
            card_lines = lines[1:]  # else no leader line: a draft exported before choosing one
            if leader is None:
                errors.append(
                    f"line {leader_line}: {named.problem}"
                    if named is not None and named.problem
                    else f"line {leader_line}: no {game.leader_label.lower()} named "
                    f"{leader_text!r} in {game.name}"
                )
    headers = {}
    for section in fmt.sections:
        headers[section["slug"].casefold()] = headers[section["name"].casefold()] = section["slug"]
    section: str | None = fmt.slugs[0]  # None: under an unknown header
    unknown: list[tuple[int, str, list[int]]] = []  # (its error's index, its line, lines under it)
    contents: dict[tuple[Card, str], int] = {}
    printings: dict[tuple[Card, str], str] = {}
    for number, line in card_lines:
        match = parsed[number]
        if not match and line.endswith(":"):
            name = line[:-1].strip()
            if name.casefold() in headers:
                section = headers[name.casefold()]
            else:
                section = None
                known = ", ".join(s["name"] for s in fmt.sections)
                unknown.append((len(errors), number, []))
                errors.append(
                    f"line {number}: no section {name!r} in {fmt.name} (sections: {known})"
                )
            continue
        if section is None:
            unknown[-1][2].append(number)
        if not match:
            errors.append(f"line {number}: expected 'N Card Name', got {line!r}")
            continue
        digits, name = match["count"].lstrip("0") or "0", match["name"]
        # Ten digits or more are too many copies, whatever the number: int() is not asked (it
        # refuses strings of more than 4,300 digits, sys.get_int_max_str_digits(): ValueError).
        count = int(digits) if len(digits) < 10 else None
        named = found.cards.get(matching.key(name))
        card = named.found if named is not None else None
        if named is not None and named.problem:
            errors.append(f"line {number}: {named.problem}")
        elif card is None:
            errors.append(f"line {number}: no card named {name!r} in {game.name}")
        elif count is None or not 1 <= count <= MAX_COPIES:
            got = count if count is not None else f"a number of {len(digits):,} digits"
            errors.append(f"line {number}: count must be from 1 to {MAX_COPIES}, got {got}")
        elif section is None:
            continue  # in no section: the header's error says so
        elif (card, section) in contents:
            errors.append(f"line {number}: {card.name} is listed twice in this section")
        else:
            contents[(card, section)] = count
            if named.printing:
                printings[(card, section)] = named.printing
    for at, _, under in unknown:
        if under:
            were = "was" if len(under) == 1 else "were"
            errors[at] += (
                f"; the {len(under)} line{'s' if len(under) > 1 else ''} under it "
                f"({_lines(under)}) {were} put in no section"
            )
    if errors:
        raise TextImportError(errors)
    return ParsedDeck(leader, contents, printings)


@transaction.atomic
def deck_import(
    *, owner, text: str, game: Game | None = None, name: str = "", format: Format | None = None
) -> Deck:
    """A new private deck of `owner` from a deck text, in the game and format given or those
    the text names (deck_text_target: TextTargetError); bad lines: TextImportError."""
    game, fmt = deck_text_target(text=text, game=game, format=format)
    leader, contents, printings = parse_deck_text(game=game, fmt=fmt, text=text)
    return deck_create(
        owner=owner,
        game=game,
        format=fmt,
        leader=leader,
        contents=contents,
        printings=printings,
        name=name or (f"{leader.name} deck" if leader else "Imported deck"),
    )


class Impact(NamedTuple):
    """What a format version would do to its format's decks: of `judged` decks legal now,
    `public` public ones and, per owner, `by_owner` (username: count, any visibility) are
    illegal under it."""

    judged: int
    public: int
    by_owner: dict[str, int]


def version_impact(*, version: FormatVersion, chunk: int = 500) -> Impact:
    """The decks of `version.format` legal now in it that `version` (saved or not: the admin's
    preview) would make illegal, judged as stored; writes nothing. A chunk of decks at a time,
    read as the engine reads them (`_judged`)."""
    game = version.format.game
    # The game's words handed in: the engine of this version as it is now, not one held before.
    engine = version.engine({t.slug: t.name for t in game.card_types.all()})
    rules = catalogue.load(game.pk)
    decks = (
        Deck.objects.filter(format=version.format_id)
        .legal_now()
        .order_by("pk")
        .only("pk", "game_id", "leader_id", "visibility", "owner__username")
        .select_related("owner")
        .iterator(chunk_size=chunk)
    )
    judged, public, by_owner = 0, 0, {}
    while batch := list(itertools.islice(decks, chunk)):
        read = _judged(rules, batch)
        for deck in batch:
            judged += 1
            if not legality.check(engine, read.leaders[deck.pk], read.entries[deck.pk]).legal:
                public += deck.visibility == Visibility.PUBLIC
                by_owner[deck.owner.username] = by_owner.get(deck.owner.username, 0) + 1
    return Impact(judged, public, dict(sorted(by_owner.items())))
