"""Writes to the reference data: small keyword-only functions, each one transaction."""

from collections.abc import Iterable, Mapping

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from .models import Card, CardType, Colour, Format, Game, Keyword, Leader, Loyalty, Rarity, Stat


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
    *,
    game: Game,
    fields: dict,
    keywords: Iterable[str],
    colours: Iterable[Colour] | None = None,
    card: Card | None = None,
) -> Card:
    """Create or update a card; `fields` are already validated model fields. `colours` are set
    only in a game whose colours are given (not derived from the cost). A card needing loyalty
    to a faction carries that faction among its keywords."""
    card = card or Card(game=game)
    for name, value in fields.items():
        setattr(card, name, value)
    card.save()
    keywords = keywords_by_name(game=game, names=keywords)
    if card.loyalty_faction_id and card.loyalty_faction_id not in {k.pk for k in keywords}:
        keywords.append(card.loyalty_faction)
    card.keywords.set(keywords)
    if colours is not None and not game.colours_from_cost:
        colours = list(colours)
        card.colours.set(colours)
        card.colour_count = len(colours)
    return card


@transaction.atomic
def save_leader(
    *,
    game: Game,
    fields: dict,
    colours: Iterable[Colour],
    keywords: Iterable[str],
    loyalty: Mapping[Keyword, int] | None = None,
    leader: Leader | None = None,
) -> Leader:
    """Create or update a leader; `loyalty` ({faction keyword: points}) replaces the leader's
    loyalty points when given, and its factions join the leader's keywords."""
    leader = leader or Leader(game=game)
    for name, value in fields.items():
        setattr(leader, name, value)
    leader.save()
    leader.colours.set(list(colours))
    keywords = keywords_by_name(game=game, names=keywords)
    if loyalty is not None:
        leader.loyalties.all().delete()
        for faction, points in loyalty.items():  # one by one: signals refresh decks
            Loyalty.objects.create(leader=leader, faction=faction, points=points)
        keywords += [f for f in loyalty if f.pk not in {k.pk for k in keywords}]
    leader.keywords.set(keywords)
    return leader


GAME_FIELDS = (
    "name",
    "description",
    "leader_label",
    "leaders_label",
    "card_label",
    "cards_label",
    "cost_label",
    "colour_label",
    "domain_label",
    "generic_cost_label",
    "colours_from_cost",
    "condition_label",
    "is_sample",
)


@transaction.atomic
def save_game(*, definition: dict) -> Game:
    """Create or update a game, its vocabulary and its formats from a definition (the shape of
    cards/sample/*.json and of `export_game_definition`).

    Idempotent: colours, rarities, card types, stats, factions and formats are matched by slug
    and updated in place; formats are checked against the engine's schema (ValueError)."""
    fields = {k: definition[k] for k in GAME_FIELDS if k in definition}
    game, _ = Game.objects.update_or_create(slug=definition["slug"], defaults=fields)
    for model, key in (
        (Colour, "colours"),
        (Rarity, "rarities"),
        (CardType, "card_types"),
        (Stat, "stats"),
    ):
        for position, term in enumerate(definition.get(key, [])):
            model.objects.update_or_create(
                game=game, slug=term["slug"], defaults={**term, "position": position}
            )
    for name in definition.get("factions", []):
        keyword = keywords_by_name(game=game, names=[name])[0]
        if not keyword.is_faction:
            keyword.is_faction = True
            keyword.save(update_fields=["is_faction"])
    formats = definition.get("formats", [])
    if formats and not any(f.get("default") for f in formats):
        formats = [{**formats[0], "default": True}, *formats[1:]]
    for position, data in enumerate(formats):
        try:
            save_format(game=game, data=data, position=position)
        except ValidationError as e:
            raise ValueError(f"Bad format {data.get('slug')!r} of {game.slug}: {e}") from None
    return game


@transaction.atomic
def save_format(*, game: Game, data: Mapping, position: int | None = None) -> Format:
    """Create or update one format of `game` from its data shape (see Format.as_data), checked
    against the engine's schema; making it the default takes that from the others."""
    fmt = Format.objects.filter(game=game, slug=data.get("slug")).first() or Format(game=game)
    fmt.slug = data.get("slug") or ""
    fmt.name = data.get("name") or fmt.slug
    fmt.is_default = bool(data.get("default"))
    fmt.sections = data.get("sections") or []
    fmt.rules = data.get("rules") or []
    fmt.banlist = data.get("banlist") or {}
    fmt.notes = data.get("notes") or ""
    if position is not None:
        fmt.position = position
    elif fmt.pk is None:  # a new format goes after the others
        last = game.formats.order_by("-position").values_list("position", flat=True).first()
        fmt.position = 0 if last is None else last + 1
    if fmt.is_default:  # before full_clean, which refuses a second default
        game.formats.exclude(pk=fmt.pk).filter(is_default=True).update(is_default=False)
    fmt.full_clean(exclude=["game"], validate_unique=False, validate_constraints=False)
    fmt.save()
    return fmt


def export_game_definition(game: Game) -> dict:
    """The game's definition (vocabulary and formats) as save_game reads it."""
    terms = {
        "colours": ["slug", "name", "symbol", "css", "domain", "domain_name"],
        "rarities": ["slug", "name", "symbol"],
        "card_types": ["slug", "name"],
        "stats": ["slug", "name"],
    }
    definition = {"slug": game.slug, **{k: getattr(game, k) for k in GAME_FIELDS}}
    for key, names in terms.items():
        definition[key] = list(getattr(game, key).values(*names))
    definition["factions"] = list(
        game.keywords.filter(is_faction=True).values_list("name", flat=True)
    )
    definition["formats"] = [f.as_data() for f in game.formats.all()]
    return definition
