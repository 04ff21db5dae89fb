"""Writes to the reference data: small keyword-only functions, each one transaction."""

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from . import signals
from .models import (
    Card,
    CardType,
    Colour,
    Format,
    Game,
    Keyword,
    Leader,
    Loyalty,
    Rarity,
    Stat,
)


class CardWrite(NamedTuple):
    """One card for save_cards: validated model fields, keyword names, the colours (None keeps
    them; ignored where the game derives them from the cost) and the card (None: a new one)."""

    fields: dict
    keywords: Iterable[str]
    colours: Iterable[Colour] | None = None
    card: Card | None = None


class LeaderWrite(NamedTuple):
    """One leader for save_leaders; `loyalty` ({faction keyword: points}, None keeps it)."""

    fields: dict
    colours: Iterable[Colour]
    keywords: Iterable[str]
    loyalty: Mapping[Keyword, int] | None = None
    leader: Leader | None = None


def _keywords(*, game: Game, names: Iterable[str]) -> dict[str, Keyword]:
    """{lower-case name: keyword} of the game's keywords and of these names (any case), unknown
    ones created as plain keywords spelled as first given: two queries for any number."""
    found: dict[str, Keyword] = {}
    for keyword in Keyword.objects.filter(game=game):
        found.setdefault(keyword.name.lower(), keyword)
    new: dict[str, Keyword] = {}
    for name in (n.strip() for n in names):
        if name and name.lower() not in found:
            new.setdefault(name.lower(), Keyword(game=game, name=name, slug=slugify(name)))
    Keyword.objects.bulk_create(new.values())
    return found | new


def keywords_by_name(*, game: Game, names: Iterable[str]) -> list[Keyword]:
    """The game's keywords of these names (any case); unknown names become plain keywords."""
    names = [n.strip() for n in names if n.strip()]
    found = _keywords(game=game, names=names)
    return list({found[n.lower()].pk: found[n.lower()] for n in names}.values())


def _keyword_pks(found: dict[str, Keyword], names: Iterable[str]) -> list[int]:
    return [found[n.strip().lower()].pk for n in names if n.strip()]


def _bulk_save(model, objs: list, fields: set[str]) -> None:
    """Insert the new rows and overwrite `fields` (and `updated`) of the existing ones, in one
    INSERT ... ON CONFLICT (id) DO UPDATE: no save(), no signals. (bulk_update builds a CASE
    WHEN per field and row: seconds a thousand rows.)"""
    created = {obj.pk: obj.created for obj in objs if obj.pk is not None}
    model.objects.bulk_create(
        objs, update_conflicts=True, unique_fields=["pk"], update_fields=[*fields, "updated"]
    )
    for obj in objs:  # auto_now_add dated them all; the database kept the existing rows' dates
        obj.created = created.get(obj.pk, obj.created)


def _replace(relation, rows: dict[int, list[int]]) -> None:
    """Make `rows` ({pk: related pks}) the whole of a many-to-many relation of those pks."""
    through, field = relation.through, relation.field
    source, target = f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"
    through.objects.filter(**{f"{source}__in": list(rows)}).delete()
    through.objects.bulk_create(
        through(**{source: pk, target: related_pk})
        for pk, related in rows.items()
        for related_pk in dict.fromkeys(related)
    )


def _written(objs: list) -> None:
    for obj in objs:  # their relations were replaced under any prefetched ones
        obj._prefetched_objects_cache = {}


def save_card(
    *,
    game: Game,
    fields: dict,
    keywords: Iterable[str],
    colours: Iterable[Colour] | None = None,
    card: Card | None = None,
) -> Card:
    """Create or update one card: save_cards of one."""
    return save_cards(game=game, writes=[CardWrite(fields, keywords, colours, card)])[0]


@transaction.atomic
def save_cards(*, game: Game, writes: Iterable[CardWrite]) -> list[Card]:
    """Create or update cards in a fixed number of queries, however many: bulk writes, so no
    per-row signals but signals.written once. Each card gets what Card.save derives (slug from
    the name, the game's only card type, the cost in the game's order and its total, colours
    from the cost where the game derives them), its `colour_count`, and its keywords with the
    faction of its loyalty among them."""
    writes = [w._replace(keywords=list(w.keywords)) for w in writes]
    if not writes:
        return []
    vocabulary = Game.objects.prefetch_related("colours", "card_types").get(pk=game.pk)
    types, domains = list(vocabulary.card_types.all()[:2]), vocabulary.domains()
    found = _keywords(game=game, names=(n for w in writes for n in w.keywords))
    cards, keywords, colours = [], [], []
    for write in writes:
        card = write.card or Card(game=game)
        for name, value in write.fields.items():
            setattr(card, name, value)
        card.derive(vocabulary, types)  # as Card.save, which bulk writes do not call
        chosen = _keyword_pks(found, write.keywords)
        if card.loyalty_faction_id:
            chosen.append(card.loyalty_faction_id)
        if vocabulary.colours_from_cost:
            given = [colour.pk for domain, colour in domains.items() if domain in card.cost]
        else:
            given = None if write.colours is None else [c.pk for c in write.colours]
        if given is not None:
            card.colour_count = len(given)
        cards.append(card)
        keywords.append(chosen)
        colours.append(given)
    updated = [card.pk for card in cards if card.pk is not None]
    derived = {"slug", "type", "cost", "total_cost", "colour_count"}
    _bulk_save(Card, cards, fields=derived.union(*(w.fields for w in writes)))
    _replace(Card.keywords, {card.pk: chosen for card, chosen in zip(cards, keywords, strict=True)})
    given = {card.pk: c for card, c in zip(cards, colours, strict=True) if c is not None}
    _replace(Card.colours, given)
    _written(cards)
    signals.written(game_id=game.pk, cards=updated)
    return cards


def save_leader(
    *,
    game: Game,
    fields: dict,
    colours: Iterable[Colour],
    keywords: Iterable[str],
    loyalty: Mapping[Keyword, int] | None = None,
    leader: Leader | None = None,
) -> Leader:
    """Create or update one leader: save_leaders of one."""
    write = LeaderWrite(fields, colours, keywords, loyalty, leader)
    return save_leaders(game=game, writes=[write])[0]


@transaction.atomic
def save_leaders(*, game: Game, writes: Iterable[LeaderWrite]) -> list[Leader]:
    """Create or update leaders in a fixed number of queries, however many (as save_cards).
    A `loyalty` given replaces the leader's loyalty points, and its factions join the leader's
    keywords."""
    writes = [w._replace(keywords=list(w.keywords), colours=list(w.colours)) for w in writes]
    if not writes:
        return []
    found = _keywords(game=game, names=(n for w in writes for n in w.keywords))
    leaders = []
    for write in writes:
        leader = write.leader or Leader(game=game)
        for name, value in write.fields.items():
            setattr(leader, name, value)
        leader.slug = leader.slug or slugify(leader.name)
        leaders.append(leader)
    updated = [leader.pk for leader in leaders if leader.pk is not None]
    _bulk_save(Leader, leaders, fields={"slug"}.union(*(w.fields for w in writes)))
    pairs = list(zip(leaders, writes, strict=True))
    _replace(Leader.colours, {leader.pk: [c.pk for c in w.colours] for leader, w in pairs})
    _replace(
        Leader.keywords,
        {
            leader.pk: _keyword_pks(found, w.keywords) + [f.pk for f in w.loyalty or ()]
            for leader, w in pairs
        },
    )
    replaced = [leader.pk for leader, write in pairs if write.loyalty is not None]
    # One DELETE, not a delete with signals per row: signals.written below stands for them.
    Loyalty.objects.filter(leader_id__in=replaced)._raw_delete(Loyalty.objects.db)
    Loyalty.objects.bulk_create(
        Loyalty(leader=leader, faction=faction, points=points)
        for leader, write in pairs
        for faction, points in (write.loyalty or {}).items()
    )
    _written(leaders)
    signals.written(game_id=game.pk, leaders=updated)
    return leaders


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
    for keyword in keywords_by_name(game=game, names=definition.get("factions", [])):
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
