"""Writes to the reference data: small keyword-only functions, each one transaction."""

from collections.abc import Iterable

from django.db import transaction
from django.utils.text import slugify

from . import legality
from .models import Card, Colour, Game, Keyword, Leader


def keywords_by_name(*, game: Game, names: Iterable[str]) -> list[Keyword]:
    """The game's keywords of these names (any case); unknown names become plain keywords."""
    keywords = []
    for name in dict.fromkeys(n.strip() for n in names if n.strip()):
        keyword = Keyword.objects.filter(game=game, name__iexact=name).first()
        if keyword is None:
            keyword = Keyword.objects.create(game=game, name=name, slug=slugify(name))
        keywords.append(keyword)
    return keywords


@transaction.atomic
def save_card(
    *, game: Game, fields: dict, keywords: Iterable[str], card: Card | None = None
) -> Card:
    """Create or update a card; `fields` are already validated model fields."""
    card = card or Card(game=game)
    for name, value in fields.items():
        setattr(card, name, value)
    card.save()
    card.keywords.set(keywords_by_name(game=game, names=keywords))
    return card


@transaction.atomic
def save_leader(
    *,
    game: Game,
    fields: dict,
    colours: Iterable[Colour],
    keywords: Iterable[str],
    leader: Leader | None = None,
) -> Leader:
    leader = leader or Leader(game=game)
    for name, value in fields.items():
        setattr(leader, name, value)
    leader.save()
    leader.colours.set(list(colours))
    leader.keywords.set(keywords_by_name(game=game, names=keywords))
    return leader


@transaction.atomic
def save_game(*, definition: dict) -> Game:
    """Create or update a game and its vocabulary from a definition (see cards/sample/*.json).

    Idempotent: colours, rarities and factions are matched by slug and updated in place.
    """
    fields = {
        k: definition[k]
        for k in (
            "name",
            "description",
            "domain_label",
            "leader_label",
            "card_label",
            "is_sample",
            "format",
        )
        if k in definition
    }
    errors = legality.validate_format(fields.get("format", []))
    if errors:
        raise ValueError(f"Bad format for {definition['slug']}: " + " ".join(errors))
    game, _ = Game.objects.update_or_create(slug=definition["slug"], defaults=fields)
    for position, colour in enumerate(definition.get("colours", [])):
        Colour.objects.update_or_create(
            game=game, slug=colour["slug"], defaults={**colour, "position": position}
        )
    for position, rarity in enumerate(definition.get("rarities", [])):
        game.rarities.update_or_create(
            slug=rarity["slug"], defaults={**rarity, "position": position}
        )
    for name in definition.get("factions", []):
        keyword = keywords_by_name(game=game, names=[name])[0]
        if not keyword.is_faction:
            keyword.is_faction = True
            keyword.save(update_fields=["is_faction"])
    return game
