"""The deck-rules engine: pure Python, no Django.

A game's *format* is data: its deck sections and an ordered list of rule instances, e.g.

    {"sections": [{"slug": "main", "name": "Deck"}],
     "rules": [{"rule": "leader_required"},
               {"rule": "deck_size", "exactly": 10},
               {"rule": "copy_limit", "by": "rarity", "limits": {"common": 3, "rare": 1}},
               {"rule": "colour_identity"},
               {"rule": "faction_gate"}],
     "banlist": {"omen-of-torn": 0}}

`check(fmt, leader, entries)` runs every rule over plain data (a leader or None, and
(card, count, section) entries) and returns a Report with *every* problem found, each with its
code and the deck section it concerns. `validate_format(data)` says what is wrong with a format
before it is stored. `card_status(fmt, card)` says where one card alone stands in a format
(legal, limited, banned, not in its pool, not allowed in any section), from the same rules.

Rules that judge one card against the leader (`colour_identity`, `faction_gate`,
`loyalty_gate`, `exclusive_keywords`, `pool`) are defined once, as a *requirement* the leader
sets (`AllIn`, `SharesOne`, `LoyaltyWithin`, `NoneOf`, `InPool`): the engine asks
`requirement.holds(card)`, and the database side (cards.models) turns the same requirement into a
QuerySet filter, so listings and verdicts cannot drift.

In a rule instance, `section` is the number of the rules-reference section it enforces and
`deck` the deck section it looks at; in a Problem, `section` is the deck section (or None) and
`ref` the rules-reference number.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = [
    "CardInfo",
    "LeaderInfo",
    "Entry",
    "Format",
    "Problem",
    "Report",
    "check",
    "card_problems",
    "card_status",
    "ban_limit",
    "status_label",
    "STATUSES",
    "closed_sections",
    "requirement",
    "types_of",
    "validate_format",
    "AllIn",
    "SharesOne",
    "LoyaltyWithin",
    "NoneOf",
    "InPool",
    "LEADER_RULES",
    "RULES",
    "CODES",
]

GENERIC = "generic"  # the cost key of a generic (colourless) amount


@dataclass(frozen=True, slots=True)
class CardInfo:
    slug: str
    name: str
    rarity: str = ""
    colours: frozenset[str] = frozenset()
    factions: frozenset[str] = frozenset()
    type: str = ""
    keywords: frozenset[str] = frozenset()  # every keyword's name, factions included
    loyalty: tuple[str, int] | None = None  # (faction, points the leader needs in it)
    types: tuple[str, ...] = ()  # every type of the card and its faces; empty: just `type`
    printings: frozenset[str] = frozenset()  # printing numbers, e.g. "CMF-071"
    sets: frozenset[str] = frozenset()  # set codes of its printings
    groups: frozenset[str] = frozenset()  # those sets' groups


@dataclass(frozen=True, slots=True)
class LeaderInfo:
    slug: str
    name: str
    colours: frozenset[str] = frozenset()
    factions: frozenset[str] = frozenset()
    loyalty: frozenset[tuple[str, int]] = frozenset()  # (faction, points) pairs
    keywords: frozenset[str] = frozenset()  # every keyword of every face
    printings: frozenset[str] = frozenset()
    sets: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()


def types_of(card: CardInfo) -> tuple[str, ...]:
    """Every type of `card` (its own first, then its faces'): a rule taking a type takes the card
    when any of them is that type."""
    return tuple(dict.fromkeys(t for t in (card.type, *card.types) if t))


class Entry(NamedTuple):
    """Copies of one card in one deck section (None: the format's first section)."""

    card: CardInfo
    count: int
    section: str | None = None


@dataclass(frozen=True)
class Section:
    slug: str
    name: str


@dataclass
class Format:
    """A format as the engine uses it; `from_data` reads the stored shape. `type_names`,
    `leader_label` and `colour_label` only make messages read in the game's words."""

    sections: list[Section]
    rules: list[dict] = field(default_factory=list)
    banlist: dict[str, int] = field(default_factory=dict)
    slug: str = ""
    name: str = ""
    type_names: dict[str, str] = field(default_factory=dict)
    leader_label: str = "leader"
    colour_label: str = "colour"  # lower case: "element" in Berserk, "attribute" in Force of Will

    @classmethod
    def from_data(
        cls, data: Mapping, *, type_names=None, leader_label: str = "", colour_label: str = ""
    ) -> Format:
        return cls(
            sections=[Section(s["slug"], s["name"]) for s in data["sections"]],
            rules=list(data.get("rules", [])),
            banlist=dict(data.get("banlist") or {}),
            slug=data.get("slug", ""),
            name=data.get("name", ""),
            type_names=dict(type_names or {}),
            leader_label=leader_label or "leader",
            colour_label=(colour_label or "colour").lower(),
        )

    @property
    def first(self) -> str:
        return self.sections[0].slug

    @property
    def slugs(self) -> list[str]:
        return [s.slug for s in self.sections]

    def section_name(self, slug: str | None) -> str:
        return next((s.name for s in self.sections if s.slug == slug), slug or "")

    def where(self, slug: str | None) -> str:
        """'the deck' for a one-section format, else 'the Main deck'."""
        return "the deck" if len(self.sections) == 1 else f"the {self.section_name(slug)}"

    def type_name(self, slug: str) -> str:
        return self.type_names.get(slug, slug)

    def all_rules(self) -> list[dict]:
        """The rule instances, then the format's ban list as one more rule."""
        if not self.banlist:
            return self.rules
        return [*self.rules, {"rule": "banlist", "cards": self.banlist}]


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    card: str | None = None  # card slug, where the problem concerns one card
    section: str | None = None  # the deck section it concerns
    ref: str = ""  # the rules-reference section of the rule that found it

    def as_dict(self) -> dict:
        data = {"code": self.code, "message": self.message, "card": self.card}
        data["section"] = self.section
        if self.ref:
            data["ref"] = self.ref
        return data


@dataclass
class Report:
    legal: bool
    card_count: int
    problems: list[Problem] = field(default_factory=list)
    section_counts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "legal": self.legal,
            "card_count": self.card_count,
            "problems": [p.as_dict() for p in self.problems],
        }


def _plural(n: int, word: str, plural: str = "") -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _join(names: Iterable[str]) -> str:
    return ", ".join(sorted(names))


def _folded(names: Iterable[str]) -> set[str]:
    return {n.casefold() for n in names}


def _matches(card: CardInfo, where: Mapping) -> bool:
    """A card filter of the rules' parameters: {"keyword": name} or {"type": slug}."""
    if "keyword" in where:
        return where["keyword"].casefold() in _folded(card.keywords)
    return where.get("type") in types_of(card)


def _named(ref: str, slug: str, printings: Iterable[str]) -> bool:
    """Whether a ban-list style reference (a slug or a printing number) names this card."""
    return ref == slug or ref.casefold() in _folded(printings)


def _leader_keywords(leader: LeaderInfo | None) -> set[str]:
    """The leader's keywords, folded; its factions count, as a card's keywords hold its own."""
    return _folded(leader.keywords | leader.factions) if leader else set()


def _size_bounds(params) -> tuple[int | None, int | None]:
    return params.get("min", params.get("exactly")), params.get("max", params.get("exactly"))


def _either(words: list[str]) -> str:
    """Words as alternatives: "0 or 5", "0, 5 or 10"."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _both(words: list[str]) -> str:
    """Words together: "A and B", "A, B and C"."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _sizes_wanted(sizes: list[int]) -> str:
    sizes = sorted(set(sizes))
    if len(sizes) == 1:
        return _wanted(sizes[0], sizes[0])
    return f"{_either([str(n) for n in sizes])} cards"


def _wanted(low: int | None, high: int | None, noun: str = "card") -> str:
    if low == high:
        return f"exactly {_plural(low, noun)}"
    if high is None:
        return f"at least {_plural(low, noun)}"
    if low is None or low == 0:
        return f"at most {_plural(high, noun)}"
    return f"{low} to {high} {noun}s"


def _cap(text: str) -> str:
    """The first letter upper-case, the rest as it is ("the Main deck" -> "The Main deck")."""
    return text[:1].upper() + text[1:]


def _first_section(fmt: Format, deck: list[Entry], slug: str) -> str | None:
    """The first section, in format order, holding the card `slug`."""
    held = {e.section for e in deck if e.card.slug == slug}
    return next((s for s in fmt.slugs if s in held), None)


# --- rules: each a function (params, fmt, leader, deck) -> problems -----------------------------


def _leader_required(params, fmt: Format, leader, deck):
    if leader is None:
        yield Problem(
            "leader_required", f"Choose {_a(fmt.leader_label)}: a deck needs exactly one.", None
        )


def _deck_size(params, fmt: Format, leader, deck):
    section = params.get("deck", fmt.first)
    count = sum(e.count for e in deck if e.section == section)
    if "sizes" in params:
        if count not in params["sizes"]:
            yield Problem(
                "deck_size",
                f"{_cap(fmt.where(section))} needs {_sizes_wanted(params['sizes'])};"
                f" it has {count}.",
                None,
                section,
            )
        return
    low, high = _size_bounds(params)
    if low is not None and count < low or high is not None and count > high:
        yield Problem(
            "deck_size",
            f"{_cap(fmt.where(section))} needs {_wanted(low, high)}; it has {count}.",
            None,
            section,
        )


def _override(params, card: CardInfo) -> tuple[str, int] | None:
    """The (keyword, limit) of the `overrides` that apply to `card`: the highest."""
    overrides = params.get("overrides")
    if not overrides:
        return None
    keywords = _folded(card.keywords)
    found = [(k, n) for k, n in overrides.items() if k.casefold() in keywords]
    return max(found, key=lambda kn: kn[1]) if found else None


def _limit(params, card: CardInfo) -> int | None:
    """The most copies of `card` the copy_limit rule `params` allows; None when unlimited."""
    if "unlimited" in params and _matches(card, params["unlimited"]):
        return None
    override = _override(params, card)
    if override:
        return override[1]
    if params.get("by") == "rarity":
        return (params.get("limits") or {}).get(card.rarity, params.get("default"))
    return params.get("default")


def _copy_limit(params, fmt: Format, leader, deck):
    across = params.get("across") or fmt.slugs
    copies: Counter[str] = Counter()
    first: dict[str, CardInfo] = {}
    sections: dict[str, set] = {}
    for entry in deck:  # copies are counted by name, as the rules say
        if entry.section in across:
            key = entry.card.name.casefold()
            copies[key] += entry.count
            first.setdefault(key, entry.card)
            sections.setdefault(key, set()).add(entry.section)
    where = ""
    if len(across) < len(fmt.slugs):
        where = " in " + _both([fmt.where(s) for s in across])
    for key, n in copies.items():
        card = first[key]
        limit = _limit(params, card)
        if limit is None or n <= limit:
            continue
        override = _override(params, card)
        if override:
            label = f"{card.name} ({override[0]})"
        elif params.get("by") == "rarity" and card.rarity:
            label = f"{card.name} is {card.rarity}"
        else:
            label = card.name
        held = sections[key]
        yield Problem(
            "copy_limit",
            f"{label}: at most {_plural(limit, 'copy', 'copies')}{where}, deck has {n}",
            card.slug,
            next(iter(held)) if len(held) == 1 else None,
        )


def _takes(params, card: CardInfo) -> bool:
    """Whether a section_types rule lets `card` into its section: one of its types is among
    `types`, and it has the `keyword` when the rule names one (FoW's stranger deck)."""
    keyword = params.get("keyword")
    if keyword and keyword.casefold() not in _folded(card.keywords):
        return False
    return any(t in params["types"] for t in types_of(card))


def _section_types(params, fmt: Format, leader, deck):
    section = params.get("deck", fmt.first)
    allowed = params.get("types", [])
    names = ", ".join(fmt.type_name(t) for t in allowed) or "none"
    if params.get("keyword"):
        names += f" with the keyword {params['keyword']}"
    for entry in deck:
        if entry.section == section and not _takes(params, entry.card):
            kinds = ", ".join(fmt.type_name(t) for t in types_of(entry.card)) or "no type"
            yield Problem(
                "wrong_section",
                f"{entry.card.name} ({kinds}) cannot go in"
                f" {fmt.where(section)}, which takes: {names}.",
                entry.card.slug,
                section,
            )


def _requires_type(params, fmt: Format, leader, deck):
    section = params.get("deck", fmt.first)
    wanted, minimum = params["type"], params.get("min", 1)
    count = sum(e.count for e in deck if e.section == section and wanted in types_of(e.card))
    if count < minimum:
        name = fmt.type_name(wanted)
        yield Problem(
            "required_card_missing",
            f"{_cap(fmt.where(section))} needs at least"
            f" {_plural(minimum, name + ' card')}; it has {count}.",
            None,
            section,
        )


def _ban_limit(banlist: Mapping[str, int], card: CardInfo) -> int | None:
    """The most copies of `card` a ban list allows (keys: its slug or any of its printing
    numbers; the lowest wins), or None when it is not listed."""
    found = [n for ref, n in banlist.items() if _named(ref, card.slug, card.printings)]
    return min(found, default=None)


def _banlist(params, fmt: Format, leader, deck):
    allowed = params.get("cards") or {}
    for ref, most in (params.get("leaders") or {}).items():
        if leader is not None and most == 0 and _named(ref, leader.slug, leader.printings):
            yield Problem(
                "banned",
                f"{leader.name} is banned as {_a(fmt.leader_label)} in this format.",
                None,
                None,
            )
            break
    copies: Counter[str] = Counter()
    limits: dict[str, int] = {}
    cards: dict[str, CardInfo] = {}
    for entry in deck:
        slug = entry.card.slug
        if slug not in limits:
            limit = _ban_limit(allowed, entry.card)
            if limit is None:
                continue
            limits[slug] = limit
        copies[slug] += entry.count
        cards[slug] = entry.card
    for slug, n in copies.items():
        most = limits[slug]
        if n > most:
            name = cards[slug].name
            message = (
                f"{name} is banned in this format."
                if most == 0
                else f"{name} is restricted to {_plural(most, 'copy', 'copies')} in this format"
                f", deck has {n}"
            )
            yield Problem("banned", message, slug, _first_section(fmt, deck, slug))


def _section_gate(params, fmt: Format, leader, deck):
    if leader is None:  # leader_required says so
        return
    section, keyword = params["deck"], params["keyword"]
    count = sum(e.count for e in deck if e.section == section)
    if count and keyword.casefold() not in _leader_keywords(leader):
        yield Problem(
            "section_closed",
            f"{_cap(fmt.where(section))} may hold cards only when the {fmt.leader_label} has the"
            f" keyword {keyword}, which {leader.name} does not; it holds {count}.",
            None,
            section,
        )


def _gate_reason(params, fmt: Format, leader) -> str:
    reason = (
        f"Only {_a(fmt.leader_label)} with the keyword {params['keyword']} may use"
        f" {fmt.where(params['deck'])}."
    )
    return reason if leader is None else f"{reason} {leader.name} does not have it."


def closed_sections(
    fmt: Format, leader: LeaderInfo | None, *, short: bool = False
) -> dict[str, str]:
    """The sections a `section_gate` closes for `leader` (with none chosen: every gated one),
    each with why, in format order; for the builder to hide or explain them. `short`: the
    reason as a few words to follow the section's name ("needs a Ruler with Divinity")."""
    keywords = _leader_keywords(leader)
    gates: dict[str, list[dict]] = {}
    for rule in fmt.rules:
        if rule["rule"] == "section_gate" and (
            leader is None or rule["keyword"].casefold() not in keywords
        ):
            gates.setdefault(rule["deck"], []).append(rule)
    if short:
        needed = {s: list(dict.fromkeys(rule["keyword"] for rule in gates[s])) for s in gates}
        return {
            s: f"needs {_a(fmt.leader_label)} with {_both(needed[s])}"
            for s in fmt.slugs
            if s in gates
        }
    return {
        s: " ".join(_gate_reason(rule, fmt, leader) for rule in gates[s])
        for s in fmt.slugs
        if s in gates
    }


def _type_limit_noun(params, fmt: Format, n: int) -> str:
    if "keyword" in params:
        return f"{_plural(n, 'card')} with the keyword {params['keyword']}"
    return _plural(n, fmt.type_name(params["type"]) + " card")


def _type_limit(params, fmt: Format, leader, deck):
    across = params.get("across") or fmt.slugs
    where = {"keyword": params["keyword"]} if "keyword" in params else {"type": params["type"]}
    counted = [e for e in deck if e.section in across and _matches(e.card, where)]
    count = sum(e.count for e in counted)
    if count > params["max"]:
        held = {e.section for e in counted}
        inside = ""
        if len(across) < len(fmt.slugs):
            inside = " in " + _both([fmt.where(s) for s in across])
        yield Problem(
            "type_limit",
            f"At most {_type_limit_noun(params, fmt, params['max'])}{inside}; the deck has"
            f" {count}.",
            None,
            next(iter(held)) if len(held) == 1 else None,
        )


def _combination_ban(params, fmt: Format, leader, deck):
    for group in params.get("groups") or []:
        members = []  # (name, card slug or None for the leader), in the group's order
        for ref in group:
            if leader is not None and _named(ref, leader.slug, leader.printings):
                members.append((f"the {fmt.leader_label} {leader.name}", None))
                continue
            entry = next((e for e in deck if _named(ref, e.card.slug, e.card.printings)), None)
            if entry is None:
                break
            members.append((entry.card.name, entry.card.slug))
        else:
            if len(set(members)) < len(group):  # one card named twice: no combination
                continue
            card = next((slug for _, slug in reversed(members) if slug), None)
            yield Problem(
                "banned_combination",
                f"{_cap(_both([name for name, _ in members]))} may not be in one deck"
                " (banned together).",
                card,
                _first_section(fmt, deck, card) if card else None,
            )


# --- rules that judge one card against the leader -----------------------------------------------
# Each yields a requirement the leader sets; `holds(card)` is the check, and cards.models turns
# the same requirement into a database filter (Card.objects.usable_by).


@dataclass(frozen=True)
class AllIn:
    """Every value of the card's `attr` is among `allowed` (a card with none fits)."""

    attr: str
    allowed: frozenset[str]

    def holds(self, card: CardInfo) -> bool:
        return getattr(card, self.attr) <= self.allowed


@dataclass(frozen=True)
class SharesOne:
    """The card has no value of `attr` (neutral), or one among `allowed`."""

    attr: str
    allowed: frozenset[str]

    def holds(self, card: CardInfo) -> bool:
        values = getattr(card, self.attr)
        return not values or not values.isdisjoint(self.allowed)


@dataclass(frozen=True)
class LoyaltyWithin:
    """The card needs no loyalty, or at most the leader's points in its faction (none: 0)."""

    points: frozenset[tuple[str, int]]

    def holds(self, card: CardInfo) -> bool:
        if card.loyalty is None:
            return True
        faction, needed = card.loyalty
        return needed <= dict(self.points).get(faction, 0)


@dataclass(frozen=True)
class NoneOf:
    """The card has no value of `attr` among `forbidden`, nor both values of any pair in
    `pairs`; names compare case-insensitively."""

    attr: str
    forbidden: frozenset[str]
    pairs: frozenset[tuple[str, str]] = frozenset()

    def holds(self, card: CardInfo) -> bool:
        values = _folded(getattr(card, self.attr))
        return values.isdisjoint(_folded(self.forbidden)) and not any(
            a.casefold() in values and b.casefold() in values for a, b in self.pairs
        )


@dataclass(frozen=True)
class InPool:
    """One of the card's printings is in one of `sets`, or in a set of one of `groups`."""

    sets: frozenset[str]
    groups: frozenset[str]

    def holds(self, card: CardInfo) -> bool:
        return not card.sets.isdisjoint(self.sets) or not card.groups.isdisjoint(self.groups)


@dataclass(frozen=True)
class LeaderRule:
    code: str
    requirement: object  # (params, leader) -> AllIn | SharesOne | LoyaltyWithin | ...
    message: object  # (card, leader, params, fmt) -> str, in the format's words
    needs_leader: bool = True  # False: the rule judges the card with no leader chosen too


def _colour_requirement(params, leader: LeaderInfo):
    if params.get("mode") == "shares":
        return SharesOne("colours", leader.colours)
    return AllIn("colours", leader.colours)


def _colour_message(card: CardInfo, leader: LeaderInfo, params, fmt: Format) -> str:
    matches = _join(leader.colours) or f"no {fmt.colour_label}"
    if params.get("mode") == "shares":
        return (
            f"{card.name} is {_join(card.colours)} and shares no {fmt.colour_label} with"
            f" {leader.name} ({matches})"
        )
    missing = card.colours - leader.colours
    return (
        f"{card.name} is {_join(missing)}, which {leader.name} does not match (matches: {matches})"
    )


def _loyalty_message(card: CardInfo, leader: LeaderInfo, params, fmt: Format) -> str:
    faction, needed = card.loyalty
    has = dict(leader.loyalty).get(faction, 0)
    return (
        f"{card.name} needs loyalty {needed} to {faction}; {leader.name} has {has}"
        if has
        else f"{card.name} needs loyalty {needed} to {faction}; {leader.name} has none"
    )


def _exclusive_requirement(params, leader: LeaderInfo | None) -> NoneOf:
    # A card holding both sides of a pair is always refused: alone it makes the deck hold both.
    own = _leader_keywords(leader)
    forbidden = set()
    for a, b in params.get("pairs") or []:
        if a.casefold() in own:
            forbidden.add(b)
        if b.casefold() in own:
            forbidden.add(a)
    pairs = frozenset(tuple(pair) for pair in params.get("pairs") or [])
    return NoneOf("keywords", frozenset(forbidden), pairs)


def _exclusive_message(card: CardInfo, leader: LeaderInfo | None, params, fmt: Format) -> str:
    """Why the requirement refuses `card` (a pair it holds both of, or the leader's side)."""
    keywords = _folded(card.keywords)
    own = _leader_keywords(leader)
    for a, b in params.get("pairs") or []:
        if a.casefold() in keywords and b.casefold() in keywords:
            return f"{card.name} has the keywords {a} and {b}: a deck may not hold both."
    for a, b in params.get("pairs") or []:
        for mine, other in ((a, b), (b, a)):
            if mine.casefold() in own and other.casefold() in keywords:
                return (
                    f"{card.name} has the keyword {other}, and {leader.name} has {mine}:"
                    " a deck may not hold both."
                )
    return f"{card.name} may not be in this deck."


def _pool_words(params) -> str:
    sets, groups = params.get("sets") or [], params.get("groups") or []
    parts = []
    if sets:
        parts.append(f"the {'set' if len(sets) == 1 else 'sets'} {', '.join(sets)}")
    if groups:
        parts.append(f"the set {'group' if len(groups) == 1 else 'groups'} {', '.join(groups)}")
    return " or ".join(parts)


def _pool_requirement(params, leader=None) -> InPool:
    return InPool(frozenset(params.get("sets") or ()), frozenset(params.get("groups") or ()))


LEADER_RULES: dict[str, LeaderRule] = {
    "colour_identity": LeaderRule("colour_mismatch", _colour_requirement, _colour_message),
    "faction_gate": LeaderRule(
        "faction_mismatch",
        lambda params, leader: AllIn("factions", leader.factions),
        lambda card, leader, params, fmt: (
            f"{card.name} belongs to {_join(card.factions - leader.factions)}, which is not a"
            f" faction of {leader.name}"
        ),
    ),
    "loyalty_gate": LeaderRule(
        "loyalty_too_low",
        lambda params, leader: LoyaltyWithin(leader.loyalty),
        _loyalty_message,
    ),
    "exclusive_keywords": LeaderRule(
        "exclusive_keywords", _exclusive_requirement, _exclusive_message, needs_leader=False
    ),
    "pool": LeaderRule(
        "not_in_pool",
        _pool_requirement,
        lambda card, leader, params, fmt: f"{card.name} has no printing in {_pool_words(params)}.",
        needs_leader=False,
    ),
}


def requirement(rule: Mapping, leader: LeaderInfo | None):
    """What a card-versus-leader rule instance asks of every card, for this leader (None only
    for the rules that need none: `exclusive_keywords`, `pool`)."""
    return LEADER_RULES[rule["rule"]].requirement(rule, leader)


def _leader_rule(kind: str):
    spec = LEADER_RULES[kind]

    def run(params, fmt: Format, leader, deck):
        if leader is None:
            return
        yield from _refused(spec, spec.requirement(params, leader), params, fmt, leader, deck)

    return run


def _refused(spec: LeaderRule, wanted, params, fmt: Format, leader, deck):
    """A problem for each card of `deck` (once, at its first section) that `wanted` refuses."""
    seen = set()
    for entry in deck:
        card = entry.card
        if card.slug in seen or wanted.holds(card):
            continue
        seen.add(card.slug)
        yield Problem(
            spec.code,
            spec.message(card, leader, params, fmt),
            card.slug,
            _first_section(fmt, deck, card.slug),
        )


def _exclusive_keywords(params, fmt: Format, leader, deck):
    across = params.get("across") or fmt.slugs
    held = [e for e in deck if e.section in across]
    wanted = _exclusive_requirement(params, leader)
    own = _leader_keywords(leader)
    why: dict[str, str] = {}  # card slug -> the first reason found, in deck order
    for entry in held:
        if entry.card.slug not in why and not wanted.holds(entry.card):
            why[entry.card.slug] = _exclusive_message(entry.card, leader, params, fmt)
    # Pairs the leader holds no side of: the deck may not mix them; the side with fewer copies
    # is the one reported (a tie: the pair's second keyword).
    for a, b in params.get("pairs") or []:
        if a.casefold() in own or b.casefold() in own:
            continue
        copies = {
            side: sum(e.count for e in held if side.casefold() in _folded(e.card.keywords))
            for side in (a, b)
        }
        if not copies[a] or not copies[b]:
            continue
        loser, winner = (b, a) if copies[b] <= copies[a] else (a, b)
        for entry in held:
            if entry.card.slug not in why and loser.casefold() in _folded(entry.card.keywords):
                why[entry.card.slug] = (
                    f"{entry.card.name} has the keyword {loser}, and the deck holds {winner}"
                    f" cards ({copies[winner]} copies to {copies[loser]}): a deck may not hold"
                    " both."
                )
    for entry in held:
        if entry.card.slug in why:
            yield Problem(
                "exclusive_keywords",
                why.pop(entry.card.slug),
                entry.card.slug,
                _first_section(fmt, held, entry.card.slug),
            )


def _pool(params, fmt: Format, leader, deck):
    wanted = _pool_requirement(params)
    if leader is not None and leader.sets and not wanted.holds(leader):
        yield Problem(
            "not_in_pool",
            f"{leader.name} ({fmt.leader_label}) has no printing in {_pool_words(params)}.",
            None,
            None,
        )
    yield from _refused(LEADER_RULES["pool"], wanted, params, fmt, leader, deck)


# --- the schema of each rule's parameters -------------------------------------------------------

_COUNT = {"type": "integer"}
_SECTION = {"type": "deck"}
_NAME = {"type": "string"}
_NAMES = {"type": "list", "of": _NAME, "hint": "a non-empty list of names"}
_SECTIONS = {"type": "list", "of": _SECTION, "hint": "a non-empty list of this format's sections"}
RULES = {
    "leader_required": (_leader_required, {}),
    "deck_size": (
        _deck_size,
        {
            "deck": _SECTION,
            "exactly": _COUNT,
            "min": _COUNT,
            "max": _COUNT,
            "sizes": {"type": "list", "of": _COUNT, "hint": "a non-empty list of card counts"},
        },
    ),
    "copy_limit": (
        _copy_limit,
        {
            "by": {"enum": ["rarity", "name"]},
            "limits": {"type": "map", "of": _COUNT},
            "default": _COUNT,
            "across": {"type": "list", "of": _SECTION},
            "unlimited": {"type": "card_filter"},
            "overrides": {"type": "map", "of": _COUNT},
        },
    ),
    "section_types": (
        _section_types,
        {
            "deck": _SECTION,
            "types": {"type": "list", "of": {"type": "card_type"}},
            "keyword": _NAME,
        },
    ),
    "colour_identity": (_leader_rule("colour_identity"), {"mode": {"enum": ["subset", "shares"]}}),
    "faction_gate": (_leader_rule("faction_gate"), {}),
    "loyalty_gate": (_leader_rule("loyalty_gate"), {}),
    "requires_type": (
        _requires_type,
        {"type": {"type": "card_type"}, "min": _COUNT, "deck": _SECTION},
    ),
    "banlist": (
        _banlist,
        {
            "cards": {"type": "map", "of": _COUNT},
            "leaders": {
                "type": "map",
                "of": _COUNT,
                "hint": "a map of leader slugs or printing numbers to 0 (banned)",
            },
        },
    ),
    "section_gate": (_section_gate, {"deck": _SECTION, "keyword": _NAME}),
    "type_limit": (
        _type_limit,
        {"across": _SECTIONS, "type": {"type": "card_type"}, "keyword": _NAME, "max": _COUNT},
    ),
    "exclusive_keywords": (
        _exclusive_keywords,
        {
            "across": _SECTIONS,
            "pairs": {
                "type": "list",
                "of": {"type": "list", "of": _NAME, "min": 2, "max": 2, "distinct": True},
                "hint": 'a list of pairs of two different keywords, e.g. [["Tales", "Villains"]]',
            },
        },
    ),
    "pool": (_pool, {"sets": _NAMES, "groups": _NAMES}),
    "combination_ban": (
        _combination_ban,
        {
            "groups": {
                "type": "list",
                "of": {"type": "list", "of": _NAME, "min": 2},
                "hint": "a list of groups, each a list of two or more card or leader slugs or"
                " printing numbers",
            }
        },
    ),
}
# Parameters a rule needs; a tuple: at least one of them.
REQUIRED = {
    "requires_type": ("type",),
    "section_types": ("types",),
    "section_gate": ("deck", "keyword"),
    "type_limit": ("max", ("type", "keyword")),
    "exclusive_keywords": ("pairs",),
    "pool": (("sets", "groups"),),
    "combination_ban": ("groups",),
}
# The problem code each rule reports.
CODES = {
    "leader_required": "leader_required",
    "deck_size": "deck_size",
    "copy_limit": "copy_limit",
    "section_types": "wrong_section",
    "colour_identity": "colour_mismatch",
    "faction_gate": "faction_mismatch",
    "loyalty_gate": "loyalty_too_low",
    "requires_type": "required_card_missing",
    "banlist": "banned",
    "section_gate": "section_closed",
    "type_limit": "type_limit",
    "exclusive_keywords": "exclusive_keywords",
    "pool": "not_in_pool",
    "combination_ban": "banned_combination",
}
# Parameters every rule takes: the rules-reference section it enforces, and whether the site
# chose it (the source leaves it open), shown on the format's page.
COMMON_PARAMS = {"section": _NAME, "site_default": {"type": "boolean"}}


# --- validating a format before it is stored ----------------------------------------------------


def validate_format(data, *, card_types: Iterable[str] | None = None) -> list[str]:
    """Every reason `data` is not a usable format; empty when it is. `card_types`, when given,
    are the type slugs the game knows (rules naming others are refused)."""
    if not isinstance(data, Mapping):
        return ['A format is an object: {"sections": [...], "rules": [...], "banlist": {...}}.']
    errors = []
    sections = data.get("sections")
    slugs: list[str] = []
    if not isinstance(sections, list) or not sections:
        errors.append('"sections" must be a non-empty list of {"slug", "name"}.')
    else:
        for i, section in enumerate(sections, 1):
            ok = (
                isinstance(section, Mapping)
                and set(section) == {"slug", "name"}
                and _is_slug(section["slug"])
                and isinstance(section["name"], str)
                and section["name"].strip()
            )
            if not ok:
                errors.append(
                    f'Section {i}: must be {{"slug", "name"}} with a slug of lowercase letters,'
                    " digits and hyphens, and a name."
                )
            elif section["slug"] in slugs:
                errors.append(f"Section {i}: {section['slug']!r} appears twice.")
            else:
                slugs.append(section["slug"])
    banlist = data.get("banlist", {})
    if banlist is not None and not _fits(banlist, {"type": "map", "of": _COUNT}, slugs, None):
        errors.append(
            '"banlist" must map card slugs or printing numbers to the most copies allowed'
            " (0 = banned)."
        )
    rules = data.get("rules", [])
    if not isinstance(rules, list):
        return [*errors, '"rules" must be a list of rules.']
    types = set(card_types) if card_types is not None else None
    for i, rule in enumerate(rules, 1):
        if (
            not isinstance(rule, Mapping)
            or not isinstance(rule.get("rule"), str)
            or rule["rule"] not in RULES
        ):
            errors.append(f"Rule {i}: 'rule' must be one of {', '.join(RULES)}.")
            continue
        kind = rule["rule"]
        spec = {**COMMON_PARAMS, **RULES[kind][1]}
        for key in REQUIRED.get(kind, ()):
            keys = key if isinstance(key, tuple) else (key,)
            if not any(k in rule for k in keys):
                errors.append(f"Rule {i} ({kind}): {' or '.join(map(repr, keys))} is required.")
        for key, value in rule.items():
            if key == "rule":
                continue
            if key not in spec:
                errors.append(f"Rule {i} ({kind}): unknown parameter {key!r}.")
            elif not _fits(value, spec[key], slugs, types):
                hint = f"; expected {spec[key]['hint']}" if "hint" in spec[key] else ""
                errors.append(f"Rule {i} ({kind}): bad value for {key!r}: {value!r}{hint}.")
        if kind == "type_limit" and "type" in rule and "keyword" in rule:
            errors.append(f"Rule {i} (type_limit): give 'type' or 'keyword', not both.")
        if kind == "deck_size" and "sizes" in rule and {"min", "max", "exactly"} & set(rule):
            errors.append(
                f"Rule {i} (deck_size): 'sizes' cannot go with 'min', 'max' or 'exactly'."
            )
        if "sizes" in rule:
            continue
        low, high = _size_bounds(rule)
        if kind == "deck_size" and None not in (low, high) and _is_int(low) and _is_int(high):
            if low > high:
                errors.append(f"Rule {i} (deck_size): min {low} is more than max {high}.")
    return errors


def _is_slug(value) -> bool:
    return (
        isinstance(value, str)
        and bool(value)
        and all(c.isascii() and (c.isalnum() or c in "-_") for c in value)
        and value == value.lower()
    )


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fits(value, spec, sections: list[str], types: set[str] | None) -> bool:
    kind = spec.get("type")
    if "enum" in spec:
        return isinstance(value, str) and value in spec["enum"]
    if kind == "string":
        return isinstance(value, str) and bool(value.strip())
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return _is_int(value) and 0 <= value <= 10_000
    if kind == "deck":
        return isinstance(value, str) and value in sections
    if kind == "card_type":
        return isinstance(value, str) and bool(value) and (types is None or value in types)
    if kind == "card_filter":
        return (
            isinstance(value, Mapping)
            and len(value) == 1
            and next(iter(value)) in ("keyword", "type")
            and _fits(next(iter(value.values())), {"type": "string"}, sections, types)
            and ("type" not in value or _fits(value["type"], {"type": "card_type"}, [], types))
        )
    if kind == "list":
        return (
            isinstance(value, list)
            and spec.get("min", 1) <= len(value) <= spec.get("max", len(value))
            and all(_fits(v, spec["of"], sections, types) for v in value)
            and (
                not spec.get("distinct") or len({v.strip().casefold() for v in value}) == len(value)
            )
        )
    if kind == "map":
        return isinstance(value, Mapping) and all(
            isinstance(k, str) and k.strip() and _fits(v, spec["of"], sections, types)
            for k, v in value.items()
        )
    return False


# --- judging a deck ----------------------------------------------------------------------------


def check(fmt: Format, leader: LeaderInfo | None, entries: Iterable) -> Report:
    """Judge a deck: the leader (or None) and entries (card, count[, section]) against a
    format. An entry without a section is in the format's first section; an entry in a section
    the format does not have is a `wrong_section` problem."""
    deck: list[Entry] = []
    problems: list[Problem] = []
    for entry in entries:
        card, count, section = Entry(*entry)
        if count <= 0:
            continue
        section = section or fmt.first
        if section not in fmt.slugs:
            problems.append(
                Problem(
                    "wrong_section",
                    f"{card.name} is in a section this format does not have ({section!r}).",
                    card.slug,
                    section,
                )
            )
            continue
        deck.append(Entry(card, count, section))
    for rule in fmt.all_rules():
        ref = rule.get("section", "")
        for problem in RULES[rule["rule"]][0](rule, fmt, leader, deck):
            problems.append(
                Problem(problem.code, problem.message, problem.card, problem.section, ref)
            )
    counts = dict.fromkeys(fmt.slugs, 0)
    for entry in deck:
        counts[entry.section] += entry.count
    return Report(
        legal=not problems,
        card_count=sum(counts.values()),
        problems=problems,
        section_counts=counts,
    )


def card_problems(fmt: Format, leader: LeaderInfo | None, card: CardInfo) -> list[Problem]:
    """Why `leader` may not use `card` at all (the card-versus-leader rules only; with no
    leader, those that need none)."""
    problems = []
    for rule in fmt.rules:
        spec = LEADER_RULES.get(rule["rule"])
        if leader is None and spec and spec.needs_leader:
            continue
        if spec and not spec.requirement(rule, leader).holds(card):
            problems.append(
                Problem(
                    spec.code,
                    spec.message(card, leader, rule, fmt),
                    card.slug,
                    None,
                    rule.get("section", ""),
                )
            )
    return problems


# --- what a format says, for pages (read from the same parameters the rules use) ---------------


def copy_limit(fmt: Format, card: CardInfo, section: str | None = None) -> int | None:
    """The most copies of `card` the format allows in `section` (default: the first); None when
    unlimited. The ban list counts too."""
    section = section or fmt.first
    limits = [_rules_limit(fmt, card, section), _ban_limit(fmt.banlist, card)]
    return min((n for n in limits if n is not None), default=None)


def _rules_limit(fmt: Format, card: CardInfo, section: str) -> int | None:
    """The most copies of `card` the format's copy_limit rules allow in `section` (no ban
    list); None when unlimited."""
    limits = [
        _limit(rule, card)
        for rule in fmt.rules
        if rule["rule"] == "copy_limit" and section in (rule.get("across") or fmt.slugs)
    ]
    return min((n for n in limits if n is not None), default=None)


def size_label(fmt: Format, section: str | None = None) -> str:
    """The card count a section asks for, for "38/40–60": "10", "40–60", "40+" (at least 40),
    "0–15" (at most 15), "" (any)."""
    section = section or fmt.first
    for rule in fmt.rules:
        if rule["rule"] == "deck_size" and rule.get("deck", fmt.first) == section:
            if "sizes" in rule:
                return _either([str(n) for n in sorted(set(rule["sizes"]))])
            low, high = _size_bounds(rule)
            if low is not None and low == high:
                return str(low)
            if low and high is not None:
                return f"{low}–{high}"
            if low:
                return f"{low}+"
            if high is not None:
                return f"0–{high}"
    return ""


def allowed_sections(fmt: Format, card: CardInfo) -> list[str]:
    """The sections `card` may go in: those whose section_types rules (if any) take it."""
    rules = [r for r in fmt.rules if r["rule"] == "section_types"]
    return [
        s for s in fmt.slugs if all(_takes(r, card) for r in rules if r.get("deck", fmt.first) == s)
    ]


# --- a card's standing in a format, on its own (no leader) --------------------------------------

LEGAL, LIMITED, BANNED, NOT_IN_POOL, NOT_ALLOWED = (
    "legal",
    "limited",
    "banned",
    "not_in_pool",
    "not_allowed",
)
STATUSES = (LEGAL, LIMITED, BANNED, NOT_IN_POOL, NOT_ALLOWED)


def ban_limit(fmt: Format, card: CardInfo) -> int | None:
    """The most copies of `card` the format's ban lists allow (its ban list and every `banlist`
    rule's cards, by slug or printing number; the lowest wins), or None when none lists it.
    A `combination_ban` bans cards only together, never one alone: it does not count."""
    found = [
        _ban_limit(rule.get("cards") or {}, card)
        for rule in fmt.all_rules()
        if rule["rule"] == "banlist"
    ]
    return min((n for n in found if n is not None), default=None)


def card_status(fmt: Format, card: CardInfo) -> tuple[str, int | None]:
    """Where `card` alone stands in `fmt`, as (status, the copies the ban list allows or None).
    The first that applies: `not_allowed`, no deck section takes it (section_types);
    `not_in_pool`, a pool rule leaves it out; `banned`, the ban list allows 0; `limited`, it
    allows fewer copies than the copy_limit rules would; else `legal`. Rules that judge a card
    against a leader do not count. Card.objects.legal_in / banned_in are its database side."""
    sections = allowed_sections(fmt, card)
    if not sections:
        return NOT_ALLOWED, None
    pool = LEADER_RULES["pool"]
    for rule in fmt.rules:
        if rule["rule"] == "pool" and not pool.requirement(rule, None).holds(card):
            return NOT_IN_POOL, None
    most = ban_limit(fmt, card)
    if most == 0:
        return BANNED, 0
    if most is not None:
        # What the rules allow where the card may go; the most generous section counts.
        allowed = [_rules_limit(fmt, card, section) for section in sections]
        if None in allowed or most < max(allowed):
            return LIMITED, most
    return LEGAL, None


_STATUS_LABELS = {
    LEGAL: "Legal",
    BANNED: "Banned",
    NOT_IN_POOL: "Not in pool",
    NOT_ALLOWED: "Not allowed",
}


def status_label(status: str, limit: int | None = None) -> str:
    """A status in words, for pages: "Legal", "Limited to 2", "Banned"…"""
    return f"Limited to {limit}" if status == LIMITED else _STATUS_LABELS[status]


def describe(rule: Mapping, fmt: Format) -> str:
    """One rule instance in words, for the format's page."""
    kind = rule["rule"]
    where = fmt.where(rule.get("deck", fmt.first))
    if kind == "leader_required":
        return f"A deck has exactly one {fmt.leader_label}."
    if kind == "deck_size" and "sizes" in rule:
        return f"{_cap(where)} holds {_sizes_wanted(rule['sizes'])}."
    if kind == "deck_size":
        low, high = _size_bounds(rule)
        wanted = "any number of cards" if low is None and high is None else _wanted(low, high)
        return f"{_cap(where)} holds {wanted}."
    if kind == "copy_limit":
        across = rule.get("across") or fmt.slugs
        counted = _both([fmt.where(s) for s in across])
        if rule.get("by") == "rarity" and rule.get("limits"):
            parts = [f"{r} {_plural(n, 'copy', 'copies')}" for r, n in rule["limits"].items()]
            text = "Copies of a card with the same name, by rarity: " + ", ".join(parts)
            if rule.get("default") is not None:
                text += f", other rarities {rule['default']}"
        elif rule.get("default") is not None:
            text = f"At most {_plural(rule['default'], 'copy', 'copies')} of a card name"
        else:
            text = "Any number of copies of a card name"
        if len(across) == 1 and len(fmt.slugs) > 1:
            text += f" in {counted}"
        elif len(across) < len(fmt.slugs) or len(fmt.slugs) > 1:
            text += f", counted across {counted}"
        for keyword, n in (rule.get("overrides") or {}).items():
            text += f"; a card with the keyword {keyword} may have {n}"
        unlimited = rule.get("unlimited")
        if unlimited:
            what = (
                f"cards with the keyword {unlimited['keyword']}"
                if "keyword" in unlimited
                else f"{fmt.type_name(unlimited['type'])} cards"
            )
            text += f"; {what} are not limited by this rule"
        return text + "."
    if kind == "section_types":
        names = ", ".join(fmt.type_name(t) for t in rule["types"])
        if rule.get("keyword"):
            return (
                f"{_cap(where)} takes only cards with the keyword {rule['keyword']}, of these"
                f" types: {names}."
            )
        return f"{_cap(where)} takes only these card types: {names}."
    if kind == "colour_identity":
        colour = fmt.colour_label
        if rule.get("mode") == "shares":
            return (
                f"Every card shares {_a(colour)} with the {fmt.leader_label}, or has none"
                " (neutral)."
            )
        return (
            f"Every {colour} of every card is one of the {fmt.leader_label}'s {colour}s;"
            f" a card with no {colour} fits every deck."
        )
    if kind == "faction_gate":
        return (
            f"A card of a faction needs {_a(fmt.leader_label)} of that faction"
            " (of every one it names)."
        )
    if kind == "loyalty_gate":
        return (
            f"A faction card needs the {fmt.leader_label}'s loyalty to its faction to be at least"
            " the card's requirement (no loyalty to a faction counts as 0)."
        )
    if kind == "requires_type":
        minimum = rule.get("min", 1)
        return (
            f"{_cap(where)} holds at least"
            f" {_plural(minimum, fmt.type_name(rule['type']) + ' card')}."
        )
    if kind == "banlist":
        text = "Cards on the ban list are limited as listed (0 = banned)"
        leaders = [ref for ref, n in (rule.get("leaders") or {}).items() if n == 0]
        if leaders:
            text += f"; banned as {fmt.leader_label}: {', '.join(leaders)}"
        return text + "."
    if kind == "section_gate":
        return (
            f"{_cap(where)} may hold cards only when the {fmt.leader_label} has the keyword"
            f" {rule['keyword']}."
        )
    if kind == "type_limit":
        text = f"At most {_type_limit_noun(rule, fmt, rule['max'])}"
        across = rule.get("across") or fmt.slugs
        if len(across) < len(fmt.slugs):
            text += " in " + _both([fmt.where(s) for s in across])
        return text + "."
    if kind == "exclusive_keywords":
        mixes = [f"{a} cards with {b} cards" for a, b in rule["pairs"]]
        text = f"A deck may not mix {', nor '.join(mixes)}"
        across = rule.get("across") or fmt.slugs
        if len(across) < len(fmt.slugs):
            text += " in " + _both([fmt.where(s) for s in across])
        return f"{text}; the {fmt.leader_label}'s keywords count too."
    if kind == "pool":
        return (
            f"Only cards with a printing in {_pool_words(rule)} may be used, the"
            f" {fmt.leader_label} too."
        )
    if kind == "combination_ban":
        n = len(rule["groups"])
        return (
            f"Some cards and {fmt.leader_label}s may not all be in one deck:"
            f" {_plural(n, 'combination')} banned together."
        )
    return kind
