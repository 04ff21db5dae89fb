"""Writes to decks: small keyword-only functions, each one transaction.

Every change goes through `_save`, which asks the rules engine for the verdict and stores it,
refuses `public` for an illegal deck (nothing written) and bumps the version used as ETag.
Input shapes (slugs, counts 1..99, same game) are checked before: by the API's serializers
and the pages' forms.
"""

import re
from collections.abc import Iterable, Mapping

from django.db import transaction

from cards import legality
from cards.models import Card, Game, Leader

from .models import Deck, DeckCard, Visibility

MAX_COPIES = 99


class DeckNotLegal(Exception):
    """Making a deck public needs a legal deck."""

    def __init__(self, report: legality.Report):
        super().__init__("Only a legal deck can be public.")
        self.report = report


class VersionMismatch(Exception):
    """The deck changed since the caller read it (If-Match no longer matches)."""


class TextImportError(Exception):
    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


def cards_for_rules():
    """Cards with what the engine reads (rarity, colours, factions), in constant queries."""
    return Card.objects.select_related("rarity").prefetch_related("colours", "keywords")


def entries_of(deck: Deck) -> list[DeckCard]:
    """The deck's cards with everything the engine and the pages need (3 queries)."""
    return list(
        deck.entries.select_related("card__rarity").prefetch_related(
            "card__colours", "card__keywords"
        )
    )


def judge(*, game: Game, leader: Leader | None, counts: Mapping[Card, int]) -> legality.Report:
    """The engine's verdict on a leader and card counts (cards with prefetched relations)."""
    return legality.check(
        game.format,
        leader.info() if leader else None,
        [(card.info(), count) for card, count in counts.items()],
    )


def _leader_for_rules(leader: Leader | None) -> Leader | None:
    if leader is None:
        return None
    return Leader.objects.prefetch_related("colours", "keywords").get(pk=leader.pk)


def _save(deck: Deck, counts: Mapping[Card, int] | None = None) -> legality.Report:
    """Store the deck (and its counts, when given) with the engine's verdict."""
    if counts is None:
        counts = {entry.card: entry.count for entry in entries_of(deck)}
    else:
        counts = {card: n for card, n in counts.items() if n}
        loaded = {c.pk: c for c in cards_for_rules().filter(pk__in=[c.pk for c in counts])}
        counts = {loaded[card.pk]: n for card, n in counts.items()}
    report = judge(game=deck.game, leader=_leader_for_rules(deck.leader), counts=counts)
    if deck.visibility == Visibility.PUBLIC and not report.legal:
        raise DeckNotLegal(report)
    deck.legal, deck.card_count = report.legal, report.card_count
    deck.problems = [p.as_dict() for p in report.problems]
    if deck.pk:
        deck.version += 1
    deck.save()
    return report


def _store_counts(deck: Deck, counts: Mapping[Card, int]) -> None:
    deck.entries.all().delete()
    DeckCard.objects.bulk_create(
        DeckCard(deck=deck, card=card, count=n) for card, n in counts.items() if n
    )


def _lock(deck: Deck, expected_version: int | None) -> Deck:
    # of=self: the leader is a nullable join, and PostgreSQL cannot lock an outer join
    locked = (
        Deck.objects.select_for_update(of=("self",))
        .select_related("game", "leader")
        .get(pk=deck.pk)
    )
    if expected_version is not None and locked.version != expected_version:
        raise VersionMismatch
    return locked


@transaction.atomic
def deck_create(
    *,
    owner,
    game: Game,
    name: str,
    leader: Leader | None = None,
    description: str = "",
    visibility: str = Visibility.PRIVATE,
    counts: Mapping[Card, int] | None = None,
) -> Deck:
    deck = Deck(
        owner=owner,
        game=game,
        leader=leader,
        name=name,
        description=description,
        visibility=visibility,
    )
    counts = dict(counts or {})
    _save(deck, counts)
    _store_counts(deck, counts)
    return deck


@transaction.atomic
def deck_update(
    *,
    deck: Deck,
    expected_version: int | None = None,
    counts: Mapping[Card, int] | None = None,
    **fields,
) -> Deck:
    """Change any of leader, name, description, visibility, and (replace) the counts."""
    deck = _lock(deck, expected_version)
    for name, value in fields.items():
        if name not in {"leader", "name", "description", "visibility"}:
            raise TypeError(f"deck_update() got an unexpected field {name!r}")
        setattr(deck, name, value)
    _save(deck, counts)
    if counts is not None:
        _store_counts(deck, counts)
    return deck


@transaction.atomic
def deck_set_count(*, deck: Deck, card: Card, count: int) -> Deck:
    """Set how many copies of one card the deck holds (0 removes it): the builder's +/−."""
    deck = _lock(deck, None)
    counts = {entry.card: entry.count for entry in deck.entries.select_related("card")}
    counts = {c: n for c, n in counts.items() if c.pk != card.pk}
    counts[card] = max(0, min(count, MAX_COPIES))
    _save(deck, counts)
    _store_counts(deck, counts)
    return deck


@transaction.atomic
def deck_delete(*, deck: Deck, expected_version: int | None = None) -> None:
    _lock(deck, expected_version).delete()


@transaction.atomic
def deck_copy(*, deck: Deck, owner) -> Deck:
    """A private copy of `deck` for `owner`."""
    counts = {entry.card: entry.count for entry in deck.entries.select_related("card")}
    return deck_create(
        owner=owner,
        game=deck.game,
        leader=deck.leader,
        name=f"Copy of {deck.name}"[:120],
        description=deck.description,
        counts=counts,
    )


def refresh_legality(*, decks: Iterable[Deck]) -> int:
    """Recompute stored verdicts after cards, leaders or a format changed; returns how many
    changed. A public deck that became illegal stays public, showing its problems."""
    changed = 0
    for deck in decks:
        with transaction.atomic():
            entries = entries_of(deck)
            report = judge(
                game=deck.game,
                leader=_leader_for_rules(deck.leader),
                counts={e.card: e.count for e in entries},
            )
            problems = [p.as_dict() for p in report.problems]
            if (deck.legal, deck.card_count, deck.problems) != (
                report.legal,
                report.card_count,
                problems,
            ):
                Deck.objects.filter(pk=deck.pk).update(
                    legal=report.legal,
                    card_count=report.card_count,
                    problems=problems,
                    version=deck.version + 1,
                )
                changed += 1
    return changed


# --- text export and import ---------------------------------------------------------------

_LINE = re.compile(r"^\s*(?P<count>\d+)\s*[xX×]?\s+(?P<name>\S.*?)\s*$")


def deck_export_text(deck: Deck, entries: Iterable[DeckCard] | None = None) -> str:
    """The leader's name on the first line, then one `N Card Name` a line.

    `entries`: the deck's entries with their cards, when the caller has loaded them already.
    """
    if entries is None:
        entries = deck.entries.select_related("card")
    lines = [deck.leader.name if deck.leader else ""]
    lines += [f"{e.count} {e.card.name}" for e in entries]
    return "\n".join(lines) + "\n"


def parse_deck_text(*, game: Game, text: str) -> tuple[Leader | None, dict[Card, int]]:
    """Read the export format back; every bad line is reported (TextImportError)."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if not lines:
        raise TextImportError(["The text is empty: put the leader's name on the first line."])
    errors: list[str] = []
    leader_line, leader_name = lines[0]
    leader = Leader.objects.filter(game=game, name__iexact=leader_name).first()
    if leader is None and _LINE.match(leader_name):
        card_lines = lines  # no leader line: a draft exported before a leader was chosen
    else:
        card_lines = lines[1:]
        if leader is None:
            errors.append(f"line {leader_line}: no leader named {leader_name!r} in {game.name}")
    cards = {c.name.casefold(): c for c in Card.objects.filter(game=game)}
    counts: dict[Card, int] = {}
    for number, line in card_lines:
        match = _LINE.match(line)
        if not match:
            errors.append(f"line {number}: expected 'N Card Name', got {line!r}")
            continue
        count, name = int(match["count"]), match["name"]
        card = cards.get(name.casefold())
        if card is None:
            errors.append(f"line {number}: no card named {name!r} in {game.name}")
        elif not 1 <= count <= MAX_COPIES:
            errors.append(f"line {number}: count must be from 1 to {MAX_COPIES}, got {count}")
        elif card in counts:
            errors.append(f"line {number}: {card.name} is listed twice")
        else:
            counts[card] = count
    if errors:
        raise TextImportError(errors)
    return leader, counts


@transaction.atomic
def deck_import(*, owner, game: Game, text: str, name: str = "") -> Deck:
    leader, counts = parse_deck_text(game=game, text=text)
    return deck_create(
        owner=owner,
        game=game,
        leader=leader,
        counts=counts,
        name=name or (f"{leader.name} deck" if leader else "Imported deck"),
    )
