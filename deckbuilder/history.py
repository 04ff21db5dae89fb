"""Deck history: what a version stores of a deck, how soon a change folds into the latest
version (`merge_window`), and the diff between two versions.

Pure functions over plain data, no queries: `Snapshot.of(version)` reads a DeckVersion whose
format and leader were loaded with it (select_related).
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

MINUS = "\u2212"  # − : a minus sign, not a hyphen
ARROW = "\u2192"  # →


def merge_window() -> timedelta:
    """How soon after its latest version a change to a deck updates that version instead of
    adding one (settings.HISTORY_MERGE_SECONDS; 0: every change is a version): a burst of +/−
    clicks is one version, not one per click (docs/decisions/deck-history.md)."""
    return timedelta(seconds=settings.HISTORY_MERGE_SECONDS)


def contents_rows(
    items: Iterable[tuple[str, str, str, int]],
    sections: list[str],
    printings: Mapping[tuple[str, str], str] | None = None,
) -> list[dict]:
    """A version's `contents` from (card slug, card name, section slug, count): one dict a card
    and section, in the format's section order then by name; zero counts are left out. An
    entry with a printing (`printings`: {(card slug, section slug): number}) also has
    `"printing": number`, so that restoring brings the art back."""
    order = {slug: i for i, slug in enumerate(sections)}
    printings = printings or {}
    rows = []
    for slug, name, section, count in items:
        if count:
            row = {"card": slug, "name": name, "section": section, "count": count}
            if printings.get((slug, section)):
                row["printing"] = printings[(slug, section)]
            rows.append(row)
    rows.sort(
        key=lambda r: (order.get(r["section"], len(order)), r["section"], r["name"].casefold())
    )
    return rows


@dataclass(frozen=True)
class Snapshot:
    """A deck as one version stored it, with the names a diff shows."""

    name: str
    format: str  # the format's name
    leader: str | None  # the leader's name
    sections: tuple[tuple[str, str], ...]  # (slug, name) of the format's sections, in order
    contents: tuple[dict, ...]  # contents_rows

    @classmethod
    def of(cls, version) -> "Snapshot":
        return cls(
            name=version.name,
            format=version.format.name,
            leader=version.leader.name if version.leader else None,
            sections=tuple((s["slug"], s["name"]) for s in sections_then(version)),
            contents=tuple(version.contents),
        )

    @property
    def card_count(self) -> int:
        return sum(row["count"] for row in self.contents)


def sections_then(version) -> list[dict]:
    """The sections of the deck's format as they were when the version was saved."""
    fmt = version.format
    return (fmt.version_on(timezone.localdate(version.created)) or fmt.current).sections


@dataclass(frozen=True)
class Change:
    """One line of a diff. `kind`: added, removed, printing, name, format, leader, created or
    started;
    `text` reads alone (its sign or arrow says what happened, not only a colour)."""

    kind: str
    text: str

    def __str__(self) -> str:
        return self.text


def _cards(n: int) -> str:
    return f"{n} card{'' if n == 1 else 's'}"


def created(new: Snapshot) -> list[Change]:
    """The first version of a deck."""
    return [Change("created", f"Created with {_cards(new.card_count)}")]


def started(new: Snapshot) -> list[Change]:
    """The oldest recorded version of a deck made before its history was kept."""
    return [
        Change(
            "started",
            f"History starts here, with {_cards(new.card_count)} (earlier changes"
            " were not recorded)",
        )
    ]


def diff(old: Snapshot | None, new: Snapshot, *, leader_label: str = "leader") -> list[Change]:
    """What changed from `old` to `new`: the name, the format, the leader, then the cards of
    each section (in the format's order) added, then removed, each by name:
    `+2 Healing`, `−1 Despair`; with the section where a format has several:
    `+1 Chant (Side deck)`. No `old`: the deck was created."""
    if old is None:
        return created(new)
    changes = []
    if old.name != new.name:
        changes.append(Change("name", f"name “{old.name}” {ARROW} “{new.name}”"))
    if old.format != new.format:
        changes.append(Change("format", f"format {old.format} {ARROW} {new.format}"))
    if old.leader != new.leader:
        was, now = old.leader or "none", new.leader or "none"
        changes.append(Change("leader", f"{leader_label} {was} {ARROW} {now}"))

    section_names = dict(old.sections) | dict(new.sections)
    several = len(old.sections) > 1 or len(new.sections) > 1
    rank: dict[str, int] = {}  # sections in the new format's order, then any others
    for slug in [s for s, _ in new.sections + old.sections] + [
        r["section"] for r in new.contents + old.contents
    ]:
        rank.setdefault(slug, len(rank))
    before = {(r["card"], r["section"]): r for r in old.contents}
    after = {(r["card"], r["section"]): r for r in new.contents}

    deltas = []
    for key in before.keys() | after.keys():
        delta = (after[key]["count"] if key in after else 0) - (
            before[key]["count"] if key in before else 0
        )
        if delta:
            name = (after.get(key) or before[key])["name"]
            deltas.append((rank[key[1]], delta < 0, name.casefold(), key[0], delta, name, key[1]))
    for *_, delta, name, section in sorted(deltas):
        sign = "+" if delta > 0 else MINUS
        where = f" ({section_names.get(section, section)})" if several else ""
        changes.append(
            Change("added" if delta > 0 else "removed", f"{sign}{abs(delta)} {name}{where}")
        )
    arts = []  # the printing shown changed, for a card kept in its section
    for key in before.keys() & after.keys():
        was, now = before[key].get("printing"), after[key].get("printing")
        if was != now:
            name = after[key]["name"]
            arts.append((rank[key[1]], name.casefold(), key[0], name, key[1], was, now))
    for *_, name, section, was, now in sorted(arts):
        where = f" ({section_names.get(section, section)})" if several else ""
        text = f"{name}{where}: printing {was or 'none'} {ARROW} {now or 'none'}"
        changes.append(Change("printing", text))
    return changes
