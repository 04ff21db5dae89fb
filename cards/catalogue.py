"""What the rules engine reads of a game (format, cards, leaders), cached per process.

Validation is read-heavy and reference data rarely changes. Each process keeps a game's
CardInfo and LeaderInfo and rechecks `Game.rules_version` at most every
`settings.RULES_CACHE_SECONDS`, so a validation usually costs no query at all and a curator's
change is seen within that time. Decks being saved are judged from the database, not from here.
"""

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings

from . import legality, models
from .models import Card, Game, Leader


@dataclass
class GameRules:
    slug: str
    name: str
    version: int
    format: list
    card_infos: dict[str, legality.CardInfo]
    leader_infos: dict[str, legality.LeaderInfo]
    rule_urls: dict[str, str]  # {problem code: rules page#anchor of the rule it enforces}
    checked: float = field(default=0.0)

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
    """{problem code: rules page#anchor} of the game `slug` (empty for an unknown game)."""
    rules = game_rules(slug)
    return rules.rule_urls if rules else {}


def clear() -> None:
    _cache.clear()


def _load(game_id: int) -> GameRules:
    """Seven flat queries, no model instances: this runs on the request that finds it stale."""
    game = Game.objects.values("slug", "name", "rules_version", "format").get(pk=game_id)
    card_colours = _sets(Card.colours.through, "card_id", "colour__slug", card__game_id=game_id)
    card_factions = _sets(
        Card.keywords.through,
        "card_id",
        "keyword__name",
        card__game_id=game_id,
        keyword__is_faction=True,
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
    cards = Card.objects.filter(game_id=game_id).values_list("pk", "slug", "name", "rarity__slug")
    leaders = Leader.objects.filter(game_id=game_id).values_list("pk", "slug", "name")
    return GameRules(
        slug=game["slug"],
        name=game["name"],
        version=game["rules_version"],
        format=game["format"],
        card_infos={
            slug: legality.CardInfo(
                slug, name, rarity, frozenset(card_colours[pk]), frozenset(card_factions[pk])
            )
            for pk, slug, name, rarity in cards
        },
        rule_urls=models.rule_urls(game["slug"], game["format"]),
        leader_infos={
            slug: legality.LeaderInfo(
                slug, name, frozenset(leader_colours[pk]), frozenset(leader_factions[pk])
            )
            for pk, slug, name in leaders
        },
    )


def _sets(through, owner: str, value: str, **filters) -> dict[int, set[str]]:
    result: dict[int, set[str]] = defaultdict(set)
    for pk, item in through.objects.filter(**filters).values_list(owner, value):
        result[pk].add(item)
    return result
