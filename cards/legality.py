"""The deck-rules engine: pure Python, no Django.

A game's *format* is data: an ordered list of rule instances, e.g.

    [{"rule": "leader_required"},
     {"rule": "deck_size", "exactly": 10},
     {"rule": "copy_limit", "by": "rarity", "limits": {"common": 3, "uncommon": 2, "rare": 1}},
     {"rule": "colour_identity"},
     {"rule": "faction_gate"}]

`check(format, leader, cards)` runs every rule over plain data and returns a Report with
*every* problem found. `validate_format(format)` says what is wrong with a format before it is
stored. Rules that judge one card against the leader (`colour_identity`, `faction_gate`) are
subset rules: "the card's X are all among the leader's Y". The database side (cards.models)
turns the same rule instances into QuerySet filters, so listings and verdicts cannot drift.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "CardInfo",
    "LeaderInfo",
    "Problem",
    "Report",
    "check",
    "validate_format",
    "card_problems",
    "SUBSET_RULES",
]


@dataclass(frozen=True)
class CardInfo:
    slug: str
    name: str
    rarity: str = ""
    colours: frozenset[str] = frozenset()
    factions: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LeaderInfo:
    slug: str
    name: str
    colours: frozenset[str] = frozenset()
    factions: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    card: str | None = None  # card slug, where the problem concerns one card
    rule: str = ""  # the format rule that found it

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "card": self.card}


@dataclass
class Report:
    legal: bool
    card_count: int
    problems: list[Problem] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "legal": self.legal,
            "card_count": self.card_count,
            "problems": [p.as_dict() for p in self.problems],
        }


Deck = list[tuple[CardInfo, int]]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _join(names: Iterable[str]) -> str:
    return ", ".join(sorted(names))


# --- rules ------------------------------------------------------------------------------------
# Each rule: a function (params, leader, deck) -> problems, and the schema of its parameters.


def _leader_required(params, leader: LeaderInfo | None, deck: Deck):
    if leader is None:
        yield Problem("leader_required", "Choose a leader: a deck needs exactly one.")


def _size_bounds(params) -> tuple[int | None, int | None]:
    return params.get("min", params.get("exactly")), params.get("max", params.get("exactly"))


def _deck_size(params, leader, deck: Deck):
    count = sum(n for _, n in deck)
    low, high = _size_bounds(params)
    if low is not None and count < low or high is not None and count > high:
        if low == high:
            wanted = f"exactly {_plural(low, 'card')}"
        elif high is None:
            wanted = f"at least {_plural(low, 'card')}"
        elif low is None:
            wanted = f"at most {_plural(high, 'card')}"
        else:
            wanted = f"{low} to {high} cards"
        yield Problem("deck_size", f"The deck needs {wanted}; it has {count}.")


def _limit(params, rarity: str) -> int | None:
    if params.get("by") == "rarity":
        return params.get("limits", {}).get(rarity, params.get("default"))
    return params.get("default")


def _copy_limit(params, leader, deck: Deck):
    copies: Counter[str] = Counter()
    first: dict[str, CardInfo] = {}
    for card, n in deck:  # copies are counted by name, as the rules say
        copies[card.name.casefold()] += n
        first.setdefault(card.name.casefold(), card)
    for key, n in copies.items():
        card = first[key]
        label = card.rarity if params.get("by") == "rarity" else "any card"
        limit = _limit(params, card.rarity)
        if limit is not None and n > limit:
            yield Problem(
                "copy_limit",
                f"{card.name} is {label}: at most {limit} {'copy' if limit == 1 else 'copies'}"
                f", deck has {n}",
                card.slug,
            )


def _subset_rule(code: str, card_attr: str, leader_attr: str, describe):
    def rule(params, leader: LeaderInfo | None, deck: Deck):
        if leader is None:
            return
        allowed = getattr(leader, leader_attr)
        for card, _ in deck:
            missing = getattr(card, card_attr) - allowed
            if missing:
                yield Problem(code, describe(card, leader, missing), card.slug)

    rule.card_attr, rule.leader_attr, rule.code = card_attr, leader_attr, code
    return rule


_colour_identity = _subset_rule(
    "colour_mismatch",
    "colours",
    "colours",
    lambda card, leader, missing: (
        f"{card.name} is {_join(missing)}, which {leader.name} does not match"
        f" (matches: {_join(leader.colours) or 'no colour'})"
    ),
)
_faction_gate = _subset_rule(
    "faction_mismatch",
    "factions",
    "factions",
    lambda card, leader, missing: (
        f"{card.name} belongs to {_join(missing)}, which is not a faction of {leader.name}"
    ),
)

_COUNT = {"type": "integer", "minimum": 0}
RULES = {
    "leader_required": (_leader_required, {}),
    "deck_size": (_deck_size, {"exactly": _COUNT, "min": _COUNT, "max": _COUNT}),
    "copy_limit": (
        _copy_limit,
        {
            "by": {"enum": ["rarity", "name"]},
            "limits": {"type": "object", "additionalProperties": _COUNT},
            "default": _COUNT,
        },
    ),
    "colour_identity": (_colour_identity, {}),
    "faction_gate": (_faction_gate, {}),
}
SUBSET_RULES = {name: fn for name, (fn, _) in RULES.items() if hasattr(fn, "card_attr")}
# The problem code each rule reports.
CODES = {
    "leader_required": "leader_required",
    "deck_size": "deck_size",
    "copy_limit": "copy_limit",
    "colour_identity": "colour_mismatch",
    "faction_gate": "faction_mismatch",
}
# Parameters every rule takes: `section`, the number of the rules-reference section it enforces.
COMMON_PARAMS = {"section": {"type": "string"}}


def sections_by_code(fmt) -> dict[str, str]:
    """{problem code: rules-reference section number} from the format's `section` params."""
    return {CODES[rule["rule"]]: rule["section"] for rule in fmt if rule.get("section")}


def validate_format(fmt) -> list[str]:
    """Every reason `fmt` is not a usable format; empty when it is."""
    if not isinstance(fmt, list):
        return ["A format is a list of rules."]
    errors = []
    for i, rule in enumerate(fmt, 1):
        if (
            not isinstance(rule, dict)
            or not isinstance(rule.get("rule"), str)
            or rule["rule"] not in RULES
        ):
            known = ", ".join(RULES)
            errors.append(f"Rule {i}: 'rule' must be one of {known}.")
            continue
        spec = {**COMMON_PARAMS, **RULES[rule["rule"]][1]}
        for key, value in rule.items():
            if key == "rule":
                continue
            if key not in spec:
                errors.append(f"Rule {i} ({rule['rule']}): unknown parameter {key!r}.")
            elif not _fits(value, spec[key]):
                errors.append(f"Rule {i} ({rule['rule']}): bad value for {key!r}: {value!r}.")
    return errors


def _fits(value, spec) -> bool:
    if "enum" in spec:
        return value in spec["enum"]
    if spec.get("type") == "string":
        return isinstance(value, str) and bool(value.strip())
    if spec.get("type") == "integer":
        return isinstance(value, int) and not isinstance(value, bool) and value >= spec["minimum"]
    if spec.get("type") == "object":
        return isinstance(value, dict) and all(
            _fits(v, spec["additionalProperties"]) for v in value.values()
        )
    return False


def check(
    fmt: list[Mapping], leader: LeaderInfo | None, cards: Iterable[tuple[CardInfo, int]]
) -> Report:
    """Judge a deck: the leader (or None) and (card, count) pairs, against a format."""
    deck = [(card, n) for card, n in cards if n > 0]
    problems = [problem for rule in fmt for problem in RULES[rule["rule"]][0](rule, leader, deck)]
    return Report(legal=not problems, card_count=sum(n for _, n in deck), problems=problems)


# --- what a format says, for pages (read from the same parameters the rules use) ---------------


def copy_limit(fmt, rarity: str) -> int | None:
    """The most copies of one card of `rarity` the format allows; None when unlimited."""
    limits = [_limit(r, rarity) for r in fmt if r["rule"] == "copy_limit"]
    return min((n for n in limits if n is not None), default=None)


def deck_size_label(fmt) -> str:
    """The card count the format asks for, for "n/10": "10", "8–12", "≥ 8", "≤ 12" or ""."""
    for rule in fmt:
        if rule["rule"] == "deck_size":
            low, high = _size_bounds(rule)
            if low is not None and low == high:
                return str(low)
            if low is not None and high is not None:
                return f"{low}–{high}"
            if low is not None:
                return f"≥ {low}"
            if high is not None:
                return f"≤ {high}"
    return ""


def card_problems(fmt: list[Mapping], leader: LeaderInfo, card: CardInfo) -> list[Problem]:
    """Why `leader` may not use `card` at all (the subset rules only); empty when it may."""
    return [
        problem
        for rule in fmt
        if rule["rule"] in SUBSET_RULES
        for problem in SUBSET_RULES[rule["rule"]](rule, leader, [(card, 1)])
    ]
