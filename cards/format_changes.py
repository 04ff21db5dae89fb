"""What changed from one version of a format to the next, in words, for the format's page:
cards banned, unbanned or limited, sets and set groups in and out of the pool, deck sections
and rules added, removed or changed. Pure Python over the engine's formats (cards.legality),
no Django.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from . import legality

# Where a rule is written (its rules-reference section) and whether the site chose it: not
# what it asks of a deck, so not a change players need to read.
_NOT_ASKED = {"section", "site_default"}


@dataclass(frozen=True)
class Ban:
    """One card's (or leader's) ban list entry that changed: copies allowed before and after
    (0: banned; None: not on the list)."""

    ref: str  # a slug or a printing number, as the ban list writes it
    before: int | None
    after: int | None
    words: str  # "banned", "unbanned", "limited to 1 copy"…
    leader: bool = False


@dataclass
class Changes:
    bans: list[Ban] = field(default_factory=list)
    sets_in: list[str] = field(default_factory=list)
    sets_out: list[str] = field(default_factory=list)
    groups_in: list[str] = field(default_factory=list)
    groups_out: list[str] = field(default_factory=list)
    sections_added: list[str] = field(default_factory=list)
    sections_removed: list[str] = field(default_factory=list)
    rules_added: list[str] = field(default_factory=list)
    rules_removed: list[str] = field(default_factory=list)
    rules_changed: list[tuple[str, str]] = field(default_factory=list)  # (before, after)

    def __bool__(self) -> bool:
        return any(vars(self).values())


def _copies(n: int) -> str:
    return f"{n} cop{'y' if n == 1 else 'ies'}"


def _ban_words(before: int | None, after: int | None, leader_label: str = "") -> str:
    if after == 0:
        return f"banned as {leader_label}" if leader_label else "banned"
    if after is None:
        return "unbanned" if before == 0 else f"no longer limited (was {_copies(before)})"
    if before == 0:
        return f"unbanned, limited to {_copies(after)}"
    return f"limited to {_copies(after)}" + (f" (was {before})" if before is not None else "")


def _limits(fmt: legality.Format) -> tuple[dict[str, int], dict[str, int]]:
    """The format's ban list and banlist rules as {ref: copies allowed} for cards and for
    leaders (the lowest wins where a ref is listed twice)."""
    cards: dict[str, int] = {}
    leaders: dict[str, int] = {}
    for rule in fmt.all_rules():
        if rule["rule"] != "banlist":
            continue
        for found, listed in ((cards, rule.get("cards")), (leaders, rule.get("leaders"))):
            for ref, n in (listed or {}).items():
                found[ref] = min(n, found.get(ref, n))
    return cards, leaders


def _pool(fmt: legality.Format) -> tuple[set[str], set[str]] | None:
    """The sets and set groups of the format's pool rules; None without one (any card)."""
    rules = [r for r in fmt.rules if r["rule"] == "pool"]
    if not rules:
        return None
    sets = {s for r in rules for s in r.get("sets") or ()}
    return sets, {g for r in rules for g in r.get("groups") or ()}


def _keyed(rules: list[dict], skip: set[str]) -> dict[tuple, dict]:
    """Rule instances by (kind, deck section, n-th of that pair), so that a rule is compared
    with the one in the same place of the other version."""
    seen: Counter = Counter()
    keyed = {}
    for rule in rules:
        if rule["rule"] in skip:
            continue
        where = (rule["rule"], rule.get("deck"))
        keyed[(*where, seen[where])] = rule
        seen[where] += 1
    return keyed


def _asks(rule: dict) -> dict:
    return {k: v for k, v in rule.items() if k not in _NOT_ASKED}


def diff(before: legality.Format, after: legality.Format) -> Changes:
    """What `after` changes from `before` (two versions of one format)."""
    changes = Changes()
    for i, (old, new) in enumerate(zip(_limits(before), _limits(after), strict=True)):
        label = after.leader_label if i else ""
        for ref in sorted(old.keys() | new.keys()):
            if old.get(ref) != new.get(ref):
                words = _ban_words(old.get(ref), new.get(ref), label)
                changes.bans.append(Ban(ref, old.get(ref), new.get(ref), words, leader=bool(i)))

    skip = {"banlist"}  # bans are compared card by card above
    old_pool, new_pool = _pool(before), _pool(after)
    if old_pool is not None and new_pool is not None:  # else the pool rule is added or removed
        skip.add("pool")
        changes.sets_in = sorted(new_pool[0] - old_pool[0])
        changes.sets_out = sorted(old_pool[0] - new_pool[0])
        changes.groups_in = sorted(new_pool[1] - old_pool[1])
        changes.groups_out = sorted(old_pool[1] - new_pool[1])

    old_sections = {s.slug: s.name for s in before.sections}
    new_sections = {s.slug: s.name for s in after.sections}
    changes.sections_added = [n for s, n in new_sections.items() if s not in old_sections]
    changes.sections_removed = [n for s, n in old_sections.items() if s not in new_sections]

    old_rules, new_rules = _keyed(before.rules, skip), _keyed(after.rules, skip)
    for key, rule in new_rules.items():
        if key not in old_rules:
            changes.rules_added.append(legality.describe(rule, after))
        elif _asks(rule) != _asks(old_rules[key]):
            was = legality.describe(old_rules[key], before)
            changes.rules_changed.append((was, legality.describe(rule, after)))
    for key, rule in old_rules.items():
        if key not in new_rules:
            changes.rules_removed.append(legality.describe(rule, before))
    return changes
