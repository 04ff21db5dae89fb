"""What a player's text names: cards and leaders by name, by printing number, by `Name (NUMBER)`
(and, once `cards.models.Face` lands, by face name), in a constant number of queries whatever
the size of the pool or of the text: `lower(name) IN (…)` and `lower(number) IN (…)` on the
indexes of the unique constraints, never a read of the whole pool.

    found = match(game, cards=["Lantern Acolyte", "bel-001", "Undertow (BEL-012)"],
                  leaders=["BEL-100"])
    found.cards["bel-001"]    # Match(<Card: Lantern Acolyte>, printing="BEL-001", by="number")
    found.leaders["bel-100"]  # Match(<Leader: Seraphine of the Dawn Bell>, "BEL-100", "number")

Results are keyed by the text as given, stripped and casefolded (`key(text)`); a text that
names nothing has no key. For each text of one kind (cards, or leaders), the first that holds:

1. **name**: a card's (leader's) own name, in any case;
2. **number**: a printing number of a card (leader), in any case; the printing is kept
   (`Match.printing`, as stored);
3. **face**: the name of another face of a card (leader);
4. **name+number**: `Name (NUMBER)`, the name as in 1 (or 3) and NUMBER a printing of that
   very card (leader); a number that is unknown, or a printing of something else, gives a Match
   with a `problem` (and no `found`), which the caller reports;
5. a printing number of the other kind (a leader's number on a card line): a Match with a
   `problem` saying whose it is.

So a card's own name wins over a printing number and over another card's face name.

Queries: one for the cards' names, one for the leaders' names (each only when there are texts of
that kind), one for the printings of both kinds, one for the faces' names. SQLite's `lower()`
folds ASCII letters only: texts are folded the same way for the index, and texts with other
letters are also compared with `casefold()` (registered by cards.apps; a scan of the game's
rows, only then). PostgreSQL's `lower()` folds every script (a UTF-8 locale).
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import connections
from django.db.models import F, Func, Q, QuerySet
from django.db.models.functions import Lower

from .models import Card, Face, Game, Leader, Printing

NUMBER_LENGTH = Printing._meta.get_field("number").max_length

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def key(text: str) -> str:
    """The key of a text in the results: stripped and casefolded."""
    return text.strip().casefold()


def split_number(text: str) -> tuple[str, str] | None:
    """`Name (NUMBER)` as (name, number), both stripped: the last parenthesised group, which
    holds no parenthesis, at the very end, after a name. None for any other text. (In linear
    time: no regular expression, whose backtracking a long line of spaces makes quadratic.)"""
    text = text.strip()
    if not text.endswith(")"):
        return None
    at = text.rfind("(")
    name, number = text[:at].strip(), text[at + 1 : -1].strip()
    if at < 0 or not name or not number or ")" in number:
        return None
    return name, number


@dataclass(frozen=True)
class Match:
    """What one text names. `found`: the Card or Leader (None when `problem` says why the text
    names nothing). `printing`: the printing number named (as stored), if any. `by`: name,
    number, face or name+number."""

    found: Card | Leader | None
    printing: str | None = None
    by: str = "name"
    problem: str | None = None


@dataclass
class Matches:
    cards: dict[str, Match] = field(default_factory=dict)
    leaders: dict[str, Match] = field(default_factory=dict)


def any_case(queryset: QuerySet, name: str, texts: Iterable[str]) -> QuerySet:
    """The rows of `queryset` whose field `name` is one of `texts` in any case: one `IN` on
    `lower(name)` (the index of a `Lower(name)` unique constraint), plus, on SQLite and only
    for texts with letters beyond ASCII, `casefold(name) IN (…)`."""
    texts = {t for t in texts if t}
    if not texts:
        return queryset.none()
    queryset = queryset.order_by()  # no sort: an order could steer the planner off the index
    if connections[queryset.db].vendor != "sqlite":
        return queryset.alias(_lower=Lower(name)).filter(_lower__in={t.lower() for t in texts})
    condition = Q(_lower__in={t.translate(_ASCII_LOWER) for t in texts})
    wide = {t.casefold() for t in texts if not t.isascii()}
    if wide:
        queryset = queryset.alias(_folded=Func(F(name), function="casefold"))
        condition |= Q(_folded__in=wide)
    return queryset.alias(_lower=Lower(name)).filter(condition)


# A back side's number: its front's and a mark (Force of Will: CMF-005J, RDE-060J^, BFA-076^).
_BACK = re.compile(r"^(?P<front>.*\d)(?:J\^|\^|J|\*)$", re.IGNORECASE)


def printings(game: Game, numbers: Iterable[str]) -> dict[str, Printing]:
    """The game's printings with these numbers, any case, with their card or leader: one query.
    Keyed by the number casefolded; a back side's number (CMF-005J) finds its front's printing
    too, under its own key."""
    numbers = {n.strip() for n in numbers if n and len(n.strip()) <= NUMBER_LENGTH}
    fronts = {n: m["front"] for n in numbers if (m := _BACK.match(n))}
    rows = any_case(Printing.objects.filter(game=game), "number", numbers | set(fronts.values()))
    found = {p.number.casefold(): p for p in rows.select_related("card", "leader")}
    for number, front in fronts.items():
        if number.casefold() not in found and front.casefold() in found:
            found[number.casefold()] = found[front.casefold()]
    return found


def _by_name(model, game: Game, texts: set[str]) -> dict[str, Card | Leader]:
    if not texts:
        return {}
    return {
        row.name.casefold(): row for row in any_case(model.objects.filter(game=game), "name", texts)
    }


def _by_face(game: Game, card_texts: set[str], leader_texts: set[str]) -> tuple[dict, dict]:
    """The cards and the leaders one of whose other faces (cards.models.Face) is named by one
    of the texts, each keyed by the face's name casefolded: one query for both kinds, on the
    index `face_name_lower`; none without texts."""
    texts = card_texts | leader_texts
    if not texts:
        return {}, {}
    rows = any_case(Face.objects.filter(game=game), "name", texts).select_related("card", "leader")
    cards, leaders = {}, {}
    card_keys = {t.casefold() for t in card_texts}
    leader_keys = {t.casefold() for t in leader_texts}
    for face in rows:
        folded = face.name.casefold()
        if face.card_id and folded in card_keys:
            cards.setdefault(folded, face.card)
        if face.leader_id and folded in leader_keys:
            leaders.setdefault(folded, face.leader)
    return cards, leaders


def match(game: Game, cards: Iterable[str] = (), leaders: Iterable[str] = ()) -> Matches:
    """What each text names among the game's cards (`cards`) and leaders (`leaders`); see the
    module's docstring for the order. At most three queries (four with faces)."""
    card_texts = {t.strip() for t in cards if t and t.strip()}
    leader_texts = {t.strip() for t in leaders if t and t.strip()}
    split = {t: split_number(t) for t in card_texts | leader_texts}
    split = {t: parts for t, parts in split.items() if parts}

    def with_parts(texts: set[str]) -> set[str]:
        return texts | {split[t][0] for t in texts if t in split}

    card_names = _by_name(Card, game, with_parts(card_texts))
    leader_names = _by_name(Leader, game, with_parts(leader_texts))
    numbers = printings(game, card_texts | leader_texts | {number for _, number in split.values()})
    card_faces, leader_faces = _by_face(game, with_parts(card_texts), with_parts(leader_texts))

    found = Matches()
    for texts, names, faces, kind, results in (
        (card_texts, card_names, card_faces, "card", found.cards),
        (leader_texts, leader_names, leader_faces, "leader", found.leaders),
    ):
        for text in texts:
            result = _one(game, text, split.get(text), kind, names, faces, numbers)
            if result is not None:
                results.setdefault(key(text), result)
    return found


def _owner(printing: Printing, kind: str):
    return printing.card if kind == "card" else printing.leader


def _label(game: Game, kind: str) -> str:
    return (game.card_label if kind == "card" else game.leader_label or "leader").lower()


def _one(game, text, parts, kind, names, faces, numbers) -> Match | None:
    folded = text.casefold()
    if folded in names:
        return Match(names[folded])
    printing = numbers.get(folded)
    if printing is not None and _owner(printing, kind) is not None:
        return Match(_owner(printing, kind), printing.number, "number")
    if folded in faces:
        return Match(faces[folded], by="face")
    if parts is not None:
        name, number = parts
        named = names.get(name.casefold()) or faces.get(name.casefold())
        if named is not None:
            printing = numbers.get(number.casefold())
            if printing is None:
                return Match(
                    None, problem=f"{named.name} has no printing {number!r} in {game.name}"
                )
            if _owner(printing, kind) != named:
                return Match(
                    None,
                    problem=f"{printing.number} is a printing of {printing.owner.name}, "
                    f"not of {named.name}",
                )
            return Match(named, printing.number, "name+number")
    if printing is not None:  # a number of the other kind
        other = "leader" if kind == "card" else "card"
        return Match(
            None,
            problem=f"{printing.number} is a printing of the {_label(game, other)} "
            f"{printing.owner.name}, not of a {_label(game, kind)}",
        )
    return None
