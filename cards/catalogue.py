"""What the rules engine reads of a game (formats, cards, leaders), cached per process.

Validation is read-heavy and reference data rarely changes. Each process keeps a game's formats,
CardInfo and LeaderInfo and rechecks `Game.rules_version` at most every
`settings.RULES_CACHE_SECONDS`, so a validation usually costs no query at all and a curator's
change is seen within that time. Decks being saved are judged from the database, not from here.
"""

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings

from . import legality, vocabulary
from .models import Card, Format, Game, Leader, Loyalty, RuleSection


@dataclass
class GameRules:
    slug: str
    name: str
    version: int
    has_leaders: bool
    formats: dict[str, legality.Format]  # in the game's order
    default_format: str
    card_infos: dict[str, legality.CardInfo]
    leader_infos: dict[str, legality.LeaderInfo]
    rule_urls: dict[str, str]  # {rules-reference number a format rule names: page#anchor}
    checked: float = field(default=0.0)

    def format(self, slug: str | None = None) -> legality.Format | None:
        return self.formats.get(slug or self.default_format)

    # The catalogue interface the deck serializers resolve slugs with.
    def leader(self, slug: str) -> legality.LeaderInfo | None:
        return self.leader_infos.get(slug)

    def cards(self, slugs: Iterable[str]) -> dict[str, legality.CardInfo]:
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
        entry = _cache[slug] = _load(row[0])
    entry.checked = now
    return entry


def rule_urls(slug: str) -> dict[str, str]:
    """{rules-reference number: page#anchor} of the game `slug` (empty for an unknown game)."""
    found = game_rules(slug)
    return found.rule_urls if found else {}


def clear() -> None:
    _cache.clear()


def _load(game_id: int) -> GameRules:
    """A few flat queries, no model instances: this runs on the request that finds it stale."""
    game = Game.objects.get(pk=game_id)
    type_names = dict(game.card_types.values_list("slug", "name"))
    formats = {f.slug: f for f in Format.objects.filter(game_id=game_id).select_related("game")}
    default = next((f for f in formats.values() if f.is_default), None)
    colours = _sets(Card.colours.through, "card_id", "colour__slug", card__game_id=game_id)
    keywords = _sets(
        Card.keywords.through,
        "card_id",
        ("keyword__name", "keyword__is_faction"),
        card__game_id=game_id,
    )
    leader_colours = _sets(
        Leader.colours.through, "leader_id", "colour__slug", leader__game_id=game_id
    )
    leader_factions = _sets(
        Leader.keywords.through,
        "leader_id",
        "keyword__name",
        leader__game_id=game_id,
        keyword__is_faction=True,
    )
    loyalty = _sets(Loyalty, "leader_id", ("faction__name", "points"), leader__game_id=game_id)
    cards = Card.objects.filter(game_id=game_id).values_list(
        "pk",
        "slug",
        "name",
        "rarity__slug",
        "type__slug",
        "loyalty_faction__name",
        "loyalty_points",
    )
    leaders = Leader.objects.filter(game_id=game_id).values_list("pk", "slug", "name")
    refs = {rule.get("section") for f in formats.values() for rule in f.rules} - {None, ""}
    anchors = RuleSection.objects.live().filter(game_id=game_id, number__in=refs)
    return GameRules(
        slug=game.slug,
        name=game.name,
        version=game.rules_version,
        has_leaders=game.has_leaders,
        formats={slug: f.engine(type_names) for slug, f in formats.items()},
        default_format=(default or next(iter(formats.values()), None)).slug if formats else "",
        card_infos={
            slug: legality.CardInfo(
                slug,
                name,
                rarity or "",
                frozenset(colours[pk]),
                frozenset(k for k, faction in keywords[pk] if faction),
                kind,
                frozenset(k for k, _ in keywords[pk]),
                (faction, points) if faction else None,
            )
            for pk, slug, name, rarity, kind, faction, points in cards
        },
        leader_infos={
            slug: legality.LeaderInfo(
                slug,
                name,
                frozenset(leader_colours[pk]),
                frozenset(leader_factions[pk]),
                frozenset(loyalty[pk]),
            )
            for pk, slug, name in leaders
        },
        rule_urls=vocabulary.rule_urls(game.slug, anchors.values_list("number", "anchor")),
    )


def _sets(model, owner: str, value, **filters) -> dict[int, set]:
    """{owner id: set of values} from one query; `value` a field or a tuple of fields."""
    fields = value if isinstance(value, tuple) else (value,)
    result: dict[int, set] = defaultdict(set)
    for pk, *item in model.objects.filter(**filters).values_list(owner, *fields):
        result[pk].add(tuple(item) if isinstance(value, tuple) else item[0])
    return result
