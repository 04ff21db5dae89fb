"""What the rules engine reads of a game (formats, leaders, cards), cached per process.

Validation is read-heavy and reference data rarely changes. Each process keeps a game's formats,
LeaderInfo and the CardInfo of every card a deck has named so far, and rechecks
`Game.rules_version` at most every `settings.RULES_CACHE_SECONDS`, so a validation usually costs
no query at all and a curator's change is seen within that time. Decks being saved are judged
from the database, not from here.

Cards are read on demand (one query for those a request names that this process has not read
yet), not all at load: at 50,000 cards a full load took over a second on the request that found
the cache stale, held ~60 MB per process, and its ~300,000 objects made every full collection
of the garbage collector a stall (docs/performance.md). A new version now loads in a few small
queries, and memory follows the cards decks use. Equal sets and strings are one object.
"""

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from django.conf import settings

from . import legality, vocabulary
from .models import (
    Card,
    Face,
    Format,
    Game,
    Leader,
    Loyalty,
    Printing,
    RuleSection,
    in_force,
    printing_refs,
    relation_ids,
)


@dataclass
class Words:
    """A game's ids as the engine names them, to read cards with (their rows hold ids)."""

    rarities: dict[int, str]
    types: dict[int, str]
    colours: dict[int, str]
    keywords: dict[int, tuple[str, bool]]  # (name, is_faction)
    sets: dict[int, tuple[str, str]] = field(default_factory=dict)  # (code, group)
    shared: dict = field(default_factory=dict)  # each distinct value once (`one`)

    def one(self, value):
        return self.shared.setdefault(value, value)

    def printed(self, numbers: str | None, set_ids: str | None) -> dict:
        """CardInfo's printings, sets and groups from `printing_refs` strings."""
        sets = [self.sets.get(int(pk)) for pk in (set_ids or "").split(",") if pk]
        return {
            "printings": self.one(frozenset((numbers or "").split(",")) - {""}),
            "sets": self.one(frozenset(code for code, _ in filter(None, sets))),
            "groups": self.one(frozenset(group for _, group in filter(None, sets) if group)),
        }

    def info(
        self, slug, name, rarity, kind, faction, points, colour_ids, keyword_ids, *printed, **more
    ):
        """The CardInfo of a card row (`relation_ids` strings of its colours and keywords, then
        `printing_refs` strings of its printings' numbers and sets); `more`: its other types'
        ids ("4,7"), its faces' types and keywords (lists)."""
        types = [self.types.get(kind, "")]
        types += [self.types.get(int(t), "") for t in (more.get("type_ids") or "").split(",") if t]
        types += more.get("face_types", [])
        # .get: a word of another game (bad data) is left out rather than failing the request
        words = [
            w for k in (keyword_ids or "").split(",") if k and (w := self.keywords.get(int(k)))
        ]
        colours = (self.colours.get(int(c)) for c in (colour_ids or "").split(",") if c)
        faction = self.keywords.get(faction, (None,))[0]
        return legality.CardInfo(
            slug,
            name,
            self.rarities.get(rarity, ""),
            self.one(frozenset(colours) - {None}),
            self.one(frozenset(word for word, is_faction in words if is_faction)),
            self.types.get(kind, ""),
            self.one(frozenset([word for word, _ in words] + more.get("face_keywords", []))),
            self.one((faction, points)) if faction else None,
            types=self.one(tuple(dict.fromkeys(t for t in types if t))),
            **self.printed(*printed),
        )


class Version(NamedTuple):
    """A format's version as the engine reads it."""

    starts: date | None  # None: from the beginning
    name: str
    engine: legality.Format


@dataclass
class GameRules:
    slug: str
    name: str
    version: int
    has_leaders: bool
    formats: dict[str, list[Version]]  # in the game's order; each format's versions, oldest first
    default_format: str
    leader_infos: dict[str, legality.LeaderInfo]
    rule_urls: dict[str, str]  # {rules-reference number a format rule names: page#anchor}
    game_id: int
    words: Words
    has_faces: bool = False  # some card has other faces (their types count)
    card_infos: dict[str, legality.CardInfo] = field(default_factory=dict)  # read so far
    checked: float = field(default=0.0)
    # The day whose versions judge (None: today); a copy for one request sets it
    # (dataclasses.replace shares what was read).
    as_of: date | None = None

    def version_on(self, slug: str | None = None, as_of: date | None = None) -> Version | None:
        """The version of the format `slug` (the default when None) in force on `as_of` (today
        in the site's time zone when None); None for no such format, or a day before its first
        version."""
        return in_force(self.formats.get(slug or self.default_format, ()), as_of or self.as_of)

    def format(self, slug: str | None = None, as_of: date | None = None) -> legality.Format | None:
        """The engine's format of `version_on(slug, as_of)`; before its first version, that
        version's (the caller says the day is too early: `version_on` is None)."""
        versions = self.formats.get(slug or self.default_format)
        if not versions:
            return None
        version = self.version_on(slug, as_of) or versions[0]
        return version.engine

    # The catalogue interface the deck serializers resolve slugs with.
    def leader(self, slug: str) -> legality.LeaderInfo | None:
        return self.leader_infos.get(slug)

    def cards(self, slugs: Iterable[str]) -> dict[str, legality.CardInfo]:
        """The cards of these slugs that exist; one query for those not read before (slugs
        of no card are asked again: remembering them would let requests fill memory)."""
        slugs = list(slugs)
        missing = {s for s in slugs if s not in self.card_infos}
        if missing:
            rows = (
                Card.objects.filter(game_id=self.game_id, slug__in=missing)
                .annotate(**relation_ids(), **printing_refs())
                .values_list(
                    "slug",
                    "name",
                    "rarity_id",
                    "type_id",
                    "loyalty_faction_id",
                    "loyalty_points",
                    "colour_ids",
                    "keyword_ids",
                    "printing_numbers",
                    "printing_set_ids",
                    "more_type_ids",
                )  # fmt: skip
            )
            face_types: dict[str, list] = defaultdict(list)
            face_keywords: dict[str, list] = defaultdict(list)
            if self.has_faces:
                faces = Face.objects.filter(card__game_id=self.game_id, card__slug__in=missing)
                for slug, types, keywords in faces.values_list("card__slug", "types", "keywords"):
                    face_types[slug] += types
                    face_keywords[slug] += keywords
            for *row, type_ids in rows:
                self.card_infos[row[0]] = self.words.info(
                    *row,
                    type_ids=type_ids,
                    face_types=face_types[row[0]],
                    face_keywords=face_keywords[row[0]],
                )
        return {s: self.card_infos[s] for s in slugs if s in self.card_infos}


_cache: dict[str, GameRules] = {}


def game_rules(slug: str) -> GameRules | None:
    """The engine's data of the game `slug`, or None when there is no such game."""
    now = time.monotonic()
    entry = _cache.get(slug)
    if entry and now - entry.checked < settings.RULES_CACHE_SECONDS:
        return entry
    row = Game.objects.filter(slug=slug).values_list("pk", "rules_version").first()
    if row is None:
        _cache.pop(slug, None)
        return None
    if entry is None or entry.version != row[1]:
        entry = _cache[slug] = load(row[0])
    entry.checked = now
    return entry


def rule_urls(slug: str) -> dict[str, str]:
    """{rules-reference number: page#anchor} of the game `slug` (empty for an unknown game)."""
    found = game_rules(slug)
    return found.rule_urls if found else {}


def clear() -> None:
    _cache.clear()


def load(game_id: int) -> GameRules:
    """The engine's data of a game as the database has it now, not cached (game_rules keeps
    what this reads; judging many decks at once reads its own). A few small flat queries, no
    model instances: this runs on the request that finds the cache stale. No card yet
    (GameRules.cards reads them)."""
    game = Game.objects.get(pk=game_id)
    type_names = dict(game.card_types.values_list("slug", "name"))
    formats = {
        f.slug: f
        for f in Format.objects.filter(game_id=game_id)
        .select_related("game")
        .prefetch_related("versions")
    }
    default = next((f for f in formats.values() if f.is_default), None)
    leader_colours = _sets(
        Leader.colours.through, "leader_id", "colour__slug", leader__game_id=game_id
    )
    leader_keywords = _sets(
        Leader.keywords.through,
        "leader_id",
        ("keyword__name", "keyword__is_faction"),
        leader__game_id=game_id,
    )
    leader_face_keywords = defaultdict(list)
    for pk, names in Face.objects.filter(leader__game_id=game_id).values_list("leader", "keywords"):
        leader_face_keywords[pk] += names
    leader_printings = _sets(
        Printing, "leader_id", ("number", "set_id"), game_id=game_id, leader__isnull=False
    )
    loyalty = _sets(Loyalty, "leader_id", ("faction__name", "points"), leader__game_id=game_id)
    leaders = Leader.objects.filter(game_id=game_id).values_list("pk", "slug", "name")
    refs = {
        rule.get("section") for f in formats.values() for v in f.version_list for rule in v.rules
    } - {None, ""}
    anchors = RuleSection.objects.live().filter(game_id=game_id, number__in=refs)
    words = Words(
        rarities=dict(game.rarities.values_list("pk", "slug")),
        types=dict(game.card_types.values_list("pk", "slug")),
        colours=dict(game.colours.values_list("pk", "slug")),
        keywords={k: (n, f) for k, n, f in game.keywords.values_list("pk", "name", "is_faction")},
        sets={
            pk: (code, group) for pk, code, group in game.sets.values_list("pk", "code", "group")
        },
    )
    return GameRules(
        slug=game.slug,
        name=game.name,
        version=game.rules_version,
        has_leaders=game.has_leaders,
        formats={
            slug: [Version(v.starts, v.name, v.engine(type_names)) for v in f.version_list]
            for slug, f in formats.items()
        },
        default_format=(default or next(iter(formats.values()), None)).slug if formats else "",
        leader_infos={
            slug: legality.LeaderInfo(
                slug,
                name,
                frozenset(leader_colours[pk]),
                frozenset(word for word, is_faction in leader_keywords[pk] if is_faction),
                frozenset(loyalty[pk]),
                keywords=frozenset(
                    [word for word, _ in leader_keywords[pk]] + leader_face_keywords[pk]
                ),
                **words.printed(
                    ",".join(number for number, _ in leader_printings[pk]),
                    ",".join(str(set_id) for _, set_id in leader_printings[pk]),
                ),
            )
            for pk, slug, name in leaders
        },
        rule_urls=vocabulary.rule_urls(game.slug, anchors.values_list("number", "anchor")),
        game_id=game_id,
        words=words,
        has_faces=Face.objects.filter(card__game_id=game_id).exists(),
    )


def _sets(model, owner: str, value, **filters) -> dict[int, set]:
    """{owner id: set of values} from one query; `value` a field or a tuple of fields."""
    fields = value if isinstance(value, tuple) else (value,)
    result: dict[int, set] = defaultdict(set)
    for pk, *item in model.objects.filter(**filters).values_list(owner, *fields):
        result[pk].add(tuple(item) if isinstance(value, tuple) else item[0])
    return result
