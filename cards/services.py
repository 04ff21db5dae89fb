"""Writes to the reference data: small keyword-only functions, each one transaction."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.text import slugify

from . import rulebook, signals
from .models import (
    Card,
    CardSet,
    CardType,
    Colour,
    Face,
    Format,
    FormatVersion,
    Game,
    GlossaryTerm,
    Keyword,
    Leader,
    Loyalty,
    Printing,
    Rarity,
    RuleSection,
    Ruling,
    Stat,
    let_go,
    section_hrefs,
    section_links,
)


class CardWrite(NamedTuple):
    """One card for save_cards: validated model fields, keyword names, the colours (where the
    game derives them from the cost, those beside it), the card (None: a new one), its
    printings and faces (dicts of PRINTING_FIELDS and FACE_FIELDS, in order) and its other
    types. None keeps what the card has."""

    fields: dict
    keywords: Iterable[str]
    colours: Iterable[Colour] | None = None
    card: Card | None = None
    printings: list[dict] | None = None
    faces: list[dict] | None = None
    more_types: list | None = None


class LeaderWrite(NamedTuple):
    """One leader for save_leaders; `loyalty` ({faction keyword: points}, None keeps it)."""

    fields: dict
    colours: Iterable[Colour]
    keywords: Iterable[str]
    loyalty: Mapping[Keyword, int] | None = None
    leader: Leader | None = None
    printings: list[dict] | None = None
    faces: list[dict] | None = None


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
    for obj in objs:  # their relations were replaced: what they held is read again
        let_go(obj, "colours", "keywords", "loyalties", "printings", "faces", "more_types")


PRINTING_FIELDS = ("set", "number", "rarity", "image", "artist", "flavour")


def _replace_printings(*, game: Game, owner: str, given: list[tuple]) -> None:
    """Make each (card or leader, printings) pair's printings (dicts of PRINTING_FIELDS, in
    order; None keeps them) its whole list: a number already stored (any case) keeps its row,
    wherever it was, so what points at it stays; the owner's other printings are deleted.
    A dict's `art` (an Art of cards.art, or None) replaces the printing's art; without one a
    printing keeps its art. Callers have checked that no number is another record's. Three
    queries, however many."""
    given = [(obj, printings) for obj, printings in given if printings is not None]
    if not given:
        return
    owners = [obj.pk for obj, _ in given]
    numbers = {p["number"].lower() for _, printings in given for p in printings}
    stored = Printing.objects.filter(game=game).annotate(lower=Lower("number"))
    stored = stored.filter(Q(**{f"{owner}_id__in": owners}) | Q(lower__in=numbers))
    existing = {row.lower: row for row in stored}
    rows = []
    for obj, printings in given:
        for position, values in enumerate(printings):
            row = existing.get(values["number"].lower()) or Printing(game=game)
            row.card, row.leader = (obj, None) if owner == "card" else (None, obj)
            row.position = position
            for name in PRINTING_FIELDS:
                setattr(row, name, values.get(name, "" if name != "rarity" else None))
            if "art" in values:
                row.art = values["art"]
            rows.append(row)
    stale = [row.pk for lower, row in existing.items() if lower not in numbers]
    Printing.objects.filter(pk__in=stale).delete()
    fields = ["card", "leader", "position", "art", *PRINTING_FIELDS]
    Printing.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["pk"], update_fields=fields
    )


@transaction.atomic
def save_sets(*, game: Game, sets: Iterable[dict]) -> list[CardSet]:
    """Create or update sets by code (any case): dicts of code, name, group, released."""
    sets = list(sets)
    stored = {s.code.lower(): s for s in CardSet.objects.filter(game=game)}
    rows = []
    for values in sets:
        row = stored.get(values["code"].lower()) or CardSet(game=game)
        for name, value in values.items():
            setattr(row, name, value)
        rows.append(row)
    CardSet.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["pk"], update_fields=list(SET_FIELDS)
    )
    signals.bump(game.pk)
    return rows


SET_FIELDS = ("code", "name", "group", "released")


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
    from the cost where the game derives them, with those given beside it), its
    `colour_count`, its other types and faces, and its keywords with the faction of its
    loyalty among them."""
    writes = [w._replace(keywords=list(w.keywords)) for w in writes]
    if not writes:
        return []
    vocabulary = Game.objects.prefetch_related("colours", "card_types").get(pk=game.pk)
    types, domains = vocabulary.type_list[:2], vocabulary.domains()
    found = _keywords(game=game, names=(n for w in writes for n in w.keywords))
    kept_colours = _colours_beside_cost(
        [w.card for w in writes if w.card and w.colours is None], vocabulary
    )
    cards, keywords, colours = [], [], []
    for write in writes:
        card = write.card or Card(game=game)
        for name, value in write.fields.items():
            setattr(card, name, value)
        card.derive(vocabulary, types)  # as Card.save, which bulk writes do not call
        if write.faces is not None:
            card.face_names = "\n".join(face["name"] for face in write.faces)
        chosen = _keyword_pks(found, write.keywords)
        if card.loyalty_faction_id:
            chosen.append(card.loyalty_faction_id)
        beside = kept_colours.get(card.pk, []) if write.colours is None else write.colours
        if vocabulary.colours_from_cost:
            paid = [colour for domain, colour in domains.items() if domain in card.cost]
            given = list(dict.fromkeys(c.pk for c in [*paid, *beside]))
        else:
            given = None if write.colours is None else [c.pk for c in write.colours]
        if given is not None:
            card.colour_count = len(given)
        cards.append(card)
        keywords.append(chosen)
        colours.append(given)
    updated = [card.pk for card in cards if card.pk is not None]
    derived = {"slug", "type", "cost", "total_cost", "colour_count", "face_names"}
    _bulk_save(Card, cards, fields=derived.union(*(w.fields for w in writes)))
    pairs = list(zip(cards, writes, strict=True))
    _replace(Card.keywords, {card.pk: chosen for card, chosen in zip(cards, keywords, strict=True)})
    given = {card.pk: c for card, c in zip(cards, colours, strict=True) if c is not None}
    _replace(Card.colours, given)
    more = {card.pk: [t.pk for t in w.more_types] for card, w in pairs if w.more_types is not None}
    _replace(Card.more_types, more)
    _replace_faces(owner="card", given=[(card, write.faces) for card, write in pairs])
    _replace_printings(game=game, owner="card", given=[(c, w.printings) for c, w in pairs])
    _written(cards)
    signals.written(game_id=game.pk, cards=updated)
    return cards


def _colours_beside_cost(cards: list[Card], game: Game) -> dict[int, list[Colour]]:
    """{card pk: its colours its stored cost does not pay}, kept by a write that gives none
    (one query, none where colours do not come from the cost)."""
    if not cards or not game.colours_from_cost:
        return {}
    costs = {card.pk: card.cost or {} for card in cards}  # as stored: no field is set yet
    by_pk = {c.pk: c for c in game.colour_list}
    found: dict[int, list[Colour]] = {}
    rows = Card.colours.through.objects.filter(card_id__in=list(costs))
    for card_id, colour_id in rows.values_list("card_id", "colour_id"):
        colour = by_pk.get(colour_id)
        if colour is not None and not (colour.domain and colour.domain in costs[card_id]):
            found.setdefault(card_id, []).append(colour)
    return found


FACE_FIELDS = ("name", "types", "cost", "colours", "keywords", "stats", "text")


def _replace_faces(*, owner: str, given: list[tuple]) -> None:
    """Make each (card or leader, faces) pair's faces (dicts of FACE_FIELDS, in order; None
    keeps them) its whole list: two queries, however many."""
    given = [(obj, faces) for obj, faces in given if faces is not None]
    if not given:
        return
    Face.objects.filter(**{f"{owner}_id__in": [obj.pk for obj, _ in given]}).delete()
    Face.objects.bulk_create(
        Face(
            game_id=obj.game_id,
            **{owner: obj},
            position=position,
            **{k: v for k, v in face.items() if k in FACE_FIELDS},
        )
        for obj, faces in given
        for position, face in enumerate(faces)
    )


def save_leader(
    *,
    game: Game,
    fields: dict,
    colours: Iterable[Colour],
    keywords: Iterable[str],
    loyalty: Mapping[Keyword, int] | None = None,
    leader: Leader | None = None,
    faces: list[dict] | None = None,
) -> Leader:
    """Create or update one leader: save_leaders of one."""
    write = LeaderWrite(fields, colours, keywords, loyalty, leader, faces=faces)
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
    if replaced:  # one DELETE, no signal per row: signals.written below stands for them
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {Loyalty._meta.db_table} WHERE leader_id IN "  # noqa: S608
                f"({', '.join(['%s'] * len(replaced))})",
                replaced,
            )
    Loyalty.objects.bulk_create(
        Loyalty(leader=leader, faction=faction, points=points)
        for leader, write in pairs
        for faction, points in (write.loyalty or {}).items()
    )
    _replace_faces(owner="leader", given=[(obj, w.faces) for obj, w in pairs])
    _replace_printings(game=game, owner="leader", given=[(obj, w.printings) for obj, w in pairs])
    _written(leaders)
    signals.written(game_id=game.pk, leaders=updated)
    return leaders


GAME_FIELDS = (
    "name",
    "description",
    "language",
    "leader_label",
    "leaders_label",
    "card_label",
    "cards_label",
    "cost_label",
    "colour_label",
    "domain_label",
    "generic_cost_label",
    "colours_from_cost",
    "cost_symbols",
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
    """Create or update one format of `game` from its data shape (see Format.as_data), each
    version checked against the engine's schema; making it the default takes that from the
    others.

    Its `versions` decide where given (matched by their `from` date: the same date replaces
    the stored version, a new date adds one, none is deleted); without them the top-level
    sections, rules, ban list and notes are one version in force from the beginning."""
    fmt = Format.objects.filter(game=game, slug=data.get("slug")).first() or Format(game=game)
    fmt.slug = data.get("slug") or ""
    fmt.name = data.get("name") or fmt.slug
    fmt.is_default = bool(data.get("default"))
    fmt.hand_size = data.get("hand_size") or Format._meta.get_field("hand_size").default
    if position is not None:
        fmt.position = position
    elif fmt.pk is None:  # a new format goes after the others
        last = game.formats.order_by("-position").values_list("position", flat=True).first()
        fmt.position = 0 if last is None else last + 1
    if fmt.is_default:  # before full_clean, which refuses a second default
        game.formats.exclude(pk=fmt.pk).filter(is_default=True).update(is_default=False)
    fmt.full_clean(exclude=["game"], validate_unique=False, validate_constraints=False)
    versions = data.get("versions")
    fmt.save()
    if versions is None:
        save_format_version(fmt=fmt, data={**data, "from": None, "name": fmt.name})
        return fmt
    if not isinstance(versions, list) or not versions:
        raise ValidationError({"versions": "must be a non-empty list of versions."})
    for number, version in enumerate(versions, 1):
        try:
            save_format_version(fmt=fmt, data=version)
        except ValidationError as e:
            raise ValidationError(
                {"versions": [f"version {number}: {message}" for message in e.messages]}
            ) from None
    return fmt


def save_format_version(*, fmt: Format, data: Mapping) -> FormatVersion:
    """Create or replace the version of `fmt` that starts on `data["from"]` (an ISO date, or
    None for the beginning), checked against the engine's schema."""
    if not isinstance(data, Mapping):
        raise ValidationError('a version is an object: {"from", "name", "sections", "rules"}.')
    starts = data.get("from")
    if starts is not None:
        try:
            starts = date.fromisoformat(starts) if isinstance(starts, str) else None
        except ValueError:
            starts = None
        if starts is None:
            raise ValidationError(
                f'"from" must be a date such as "2025-09-18", not {data["from"]!r}.'
            )
    version = fmt.versions.filter(starts=starts).first() or FormatVersion(format=fmt, starts=starts)
    version.name = data.get("name") or (starts.strftime("%-d %B %Y") if starts else fmt.name)
    version.sections = data.get("sections") or []
    version.rules = data.get("rules") or []
    version.banlist = data.get("banlist") or {}
    version.notes = data.get("notes") or ""
    version.full_clean(exclude=["format"], validate_unique=False, validate_constraints=False)
    version.save()
    return version


def export_game_definition(game: Game) -> dict:
    """The game's definition (vocabulary and formats) as save_game reads it."""
    terms = {
        "colours": ["slug", "name", "symbol", "css", "domain", "domain_name"],
        "rarities": ["slug", "name", "symbol", "code"],
        "card_types": ["slug", "name"],
        "stats": ["slug", "name"],
    }
    definition = {"slug": game.slug, **{k: getattr(game, k) for k in GAME_FIELDS}}
    for key, names in terms.items():
        definition[key] = list(getattr(game, key).values(*names))
    definition["factions"] = list(
        game.keywords.filter(is_faction=True).values_list("name", flat=True)
    )
    definition["formats"] = [f.as_data() for f in game.format_list]
    return definition


# --- rules documents ------------------------------------------------------------------------


@dataclass
class RulesImport:
    """What import_rules did (or, in a dry run, would do)."""

    game_slug: str
    document: rulebook.ParsedDocument
    dry_run: bool
    created: int = 0
    updated: int = 0
    renumbered: int = 0
    unchanged: int = 0
    revived: int = 0
    obsolete: list[str] = field(default_factory=list)  # numbers the file no longer has
    pruned: int = 0
    language_hint: str = ""

    @property
    def sections(self) -> list[rulebook.ParsedSection]:
        return self.document.sections

    def tree(self) -> str:
        return self.document.tree()

    def summary(self) -> str:
        verb = "Would import" if self.dry_run else "Imported"
        style = rulebook.STYLE_NAMES[self.document.style]
        text = (
            f"{verb} {len(self.sections)} sections of {self.game_slug} ({style}): "
            f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"
        )
        if self.renumbered:
            text += f", {self.renumbered} renumbered (their anchors kept)"
        if self.revived:
            text += f", {self.revived} obsolete ones current again"
        text += "."
        if self.obsolete:
            listed = ", ".join(self.obsolete[:10]) + ("…" if len(self.obsolete) > 10 else "")
            text += (
                f" {len(self.obsolete)} sections not in the file "
                + ("would be deleted" if self.dry_run else "were deleted")
                if self.pruned
                else f" {len(self.obsolete)} sections not in the file are marked obsolete "
                "(kept at their address; --prune deletes them)"
            )
            text += f": {listed}."
        elif self.pruned:
            text += f" {self.pruned} obsolete sections deleted."
        if self.document.skipped_lines:
            text += f" {self.document.skipped_lines} lines before the first section were skipped."
        if self.document.warnings:
            text += f" {len(self.document.warnings)} warnings."
        if self.language_hint:
            text += f" {self.language_hint}"
        return text


# What an import writes to a section it keeps (parent_id: "parent" to bulk_update).
_WRITTEN = ("number", "title", "body", "body_html", "sort_key", "depth", "parent_id")
_WRITTEN += ("obsolete_since",)


def _expected_anchors(sections: list[rulebook.ParsedSection]) -> dict[str, str]:
    """{number: anchor} the document gives: the number's for sections with their own numbers,
    the title's for sections numbered by position (a repeated title: under its parent's)."""
    anchors: dict[str, str] = {}
    used: set[str] = set()
    for section in sections:
        base = rulebook.anchor_for(section.number)
        if section.by_position and rulebook.title_anchor(section.title):
            base = rulebook.title_anchor(section.title)
            parent = anchors.get(section.parent_number or "")
            if base in used and parent:
                base = f"{parent}-{base}"[:76]
        anchors[section.number] = rulebook.unique_anchor(base, used)
        used.add(anchors[section.number])
    return anchors


@transaction.atomic
def import_rules(
    *,
    game: Game,
    text: str,
    dry_run: bool = False,
    fmt: str | None = None,
    numbering: str | None = None,
    prune: bool = False,
) -> RulesImport:
    """Parse `text` (rulebook.parse_document) and make it the game's rules. Nothing is written
    when the document cannot be parsed (RulesParseError) or in a dry run.

    Sections with their own numbers are matched by number; sections numbered by position by
    their anchor (from the title), so that a heading inserted before them moves their number,
    not their links; a renamed one keeps its place by number. A matched section keeps its
    anchor. Sections the file no longer has become obsolete (kept at their address with a
    notice) or, with `prune`, are deleted, as are earlier obsolete ones.
    """
    document = rulebook.parse_document(text, fmt=fmt, numbering=numbering)
    report = RulesImport(game.slug, document, dry_run)
    cyrillic = sum("а" <= c <= "я" for c in text[:20000].casefold())
    if cyrillic > len(text[:20000]) / 4 and game.language != "ru":
        report.language_hint = (
            "The text is Russian but the game's language is not: set it to Russian (admin) "
            "for Russian word forms in search."
        )
    existing = list(RuleSection.objects.filter(game=game).order_by("obsolete_since", "pk"))
    live = {s.number: s for s in existing if s.obsolete_since is None}
    old = {s.number: s for s in reversed(existing) if s.obsolete_since is not None}
    by_anchor = {s.anchor: s for s in existing}
    expected = _expected_anchors(document.sections)
    matched: dict[str, RuleSection] = {}  # number in the document -> its section
    used: set[int] = set()

    def match(number: str, section: RuleSection | None) -> None:
        if section is not None and section.pk not in used:
            matched[number] = section
            used.add(section.pk)

    for parsed in document.sections:
        if parsed.by_position:
            match(parsed.number, by_anchor.get(expected[parsed.number]))
        else:
            match(parsed.number, live.get(parsed.number) or old.get(parsed.number))
    for parsed in document.sections:  # renamed, or a number the document now gives itself
        if parsed.number not in matched:
            match(parsed.number, live.get(parsed.number))

    taken = {s.anchor for s in existing}
    anchors = {}
    for parsed in document.sections:
        section = matched.get(parsed.number)
        if section is not None:
            anchors[parsed.number] = section.anchor
        else:
            anchors[parsed.number] = rulebook.unique_anchor(expected[parsed.number], taken)
            taken.add(anchors[parsed.number])
    links = section_hrefs(game.slug, anchors.items())

    now = timezone.now()
    gone = [s for s in existing if s.pk not in used]
    report.obsolete = sorted(
        (s.number for s in gone if s.obsolete_since is None),
        key=lambda n: rulebook.sort_key(n, game.rules_chapters),
    )
    report.pruned = len(gone) if prune else 0
    # Bodies are rendered again only when they or the sections they may link to changed.
    before = section_hrefs(game.slug, ((n, s.anchor) for n, s in live.items()))
    relink = links != before
    original = {s.pk: tuple(getattr(s, f) for f in _WRITTEN) for s in existing}
    rows, moved = [], []
    for parsed in document.sections:
        section = matched.get(parsed.number)
        if section is None:
            report.created += 1
            section = RuleSection(game=game, number=parsed.number, anchor=anchors[parsed.number])
        else:
            revived = section.obsolete_since is not None
            report.revived += revived
            if section.number != parsed.number:
                report.renumbered += 1
                moved.append(section)
            elif (section.title, section.body) != (parsed.title, parsed.body) or revived:
                report.updated += 1
            elif section.sort_key != parsed.sort_key:
                report.updated += 1  # the chapters of its number changed
            else:
                report.unchanged += 1
        render = relink or section.pk is None or section.body != parsed.body
        section.game = game
        section.number, section.title, section.body = parsed.number, parsed.title, parsed.body
        section.obsolete_since = None
        section.derive(chapters=document.chapters, links=links if render else None)
        rows.append((section, parsed))
    if dry_run:
        return report

    with signals.one_bump():
        # Out of the way of the numbers' uniqueness (it binds current sections only): sections
        # that leave, and those that change number, are obsolete until written back.
        parked = [s.pk for s in gone if s.obsolete_since is None] + [s.pk for s in moved]
        RuleSection.objects.filter(pk__in=parked).update(obsolete_since=now)
        by_number = {p.number: s for s, p in rows}
        changed = []
        for depth in sorted({p.depth for _, p in rows}):  # parents exist before their children
            level = []
            for section, parsed in rows:
                if parsed.depth != depth:
                    continue
                parent = by_number.get(parsed.parent_number) if parsed.parent_number else None
                section.parent_id = parent.pk if parent else None
                if section.pk is None:
                    section.updated = now
                    level.append(section)
                elif tuple(getattr(section, f) for f in _WRITTEN) != original[section.pk]:
                    section.updated = now
                    changed.append(section)
            RuleSection.objects.bulk_create(level, batch_size=500)
        RuleSection.objects.bulk_update(changed, [*_WRITTEN, "updated"], batch_size=500)
        if prune:
            RuleSection.objects.filter(pk__in=[s.pk for s in gone]).delete()
        if game.rules_chapters != document.chapters:
            game.rules_chapters = document.chapters
            Game.objects.filter(pk=game.pk).update(rules_chapters=document.chapters)
        signals.bump(game.pk)
    return report


def rerender_sections(*, game) -> int:
    """Render every section and glossary definition of the game again (after an admin edit
    that may add or remove cross-link targets); returns how many changed."""
    links = section_links(game)
    changed = 0
    for model, source, target in (
        (RuleSection, "body", "body_html"),
        (GlossaryTerm, "definition", "definition_html"),
    ):
        rows = []
        for row in model.objects.filter(game=game):
            rendered = rulebook.render_markdown(getattr(row, source), links)
            if rendered != getattr(row, target):
                setattr(row, target, rendered)
                rows.append(row)
        model.objects.bulk_update(rows, [target], batch_size=500)
        changed += len(rows)
    if changed:  # glossary definitions are in the pages' cached vocabulary (no signal here)
        signals.bump(game.pk)
    return changed


# --- glossary and rulings (sample content files) --------------------------------------------


class ContentError(ValueError):
    """A bad entry in a glossary or rulings file; the message names the entry."""


@dataclass
class UpsertReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def summary(self) -> str:
        return f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"


def _upsert(model, lookup: dict, values: dict, report: UpsertReport):
    instance = model.objects.filter(**lookup).first()
    if instance is None:
        instance = model(**lookup, **values)
        instance.full_clean()
        instance.save()
        report.created += 1
    elif any(getattr(instance, k) != v for k, v in values.items()):
        for name, value in values.items():
            setattr(instance, name, value)
        instance.full_clean()
        instance.save()
        report.updated += 1
    else:
        report.unchanged += 1
    return instance


def _entries(entries, required: dict[str, type], optional: dict[str, type]):
    if not isinstance(entries, list):
        raise ContentError("expected a list of entries")
    for index, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise ContentError(f"entry {index}: expected an object")
        unknown = set(entry) - set(required) - set(optional)
        missing = set(required) - set(entry)
        if unknown or missing:
            raise ContentError(
                f"entry {index}: "
                + "; ".join(
                    filter(
                        None,
                        [
                            missing and f"missing {', '.join(sorted(missing))}",
                            unknown and f"unknown {', '.join(sorted(unknown))}",
                        ],
                    )
                )
            )
        for name, kind in {**required, **optional}.items():
            if name in entry and entry[name] is not None and not isinstance(entry[name], kind):
                raise ContentError(f"entry {index}: {name} must be a {kind.__name__}")
        yield index, entry


def import_glossary(*, game, entries) -> UpsertReport:
    """Upsert glossary terms from [{"term", "aliases", "definition", "section"}]; terms are
    matched by slug. ContentError (nothing written) for a bad entry or an unknown section."""
    report = UpsertReport()
    sections = {s.number: s for s in RuleSection.objects.live().filter(game=game)}
    with transaction.atomic(), signals.one_bump():
        for index, entry in _entries(
            entries, {"term": str, "definition": str}, {"aliases": list, "section": str}
        ):
            term = entry["term"].strip()
            section = None
            if entry.get("section"):
                section = sections.get(entry["section"].strip())
                if section is None:
                    raise ContentError(f"entry {index} ({term}): no section {entry['section']}")
            aliases = entry.get("aliases") or []
            if not all(isinstance(a, str) for a in aliases):
                raise ContentError(f"entry {index} ({term}): aliases must be strings")
            try:
                _upsert(
                    GlossaryTerm,
                    {"game": game, "slug": slugify(term, allow_unicode=True)},
                    {
                        "term": term,
                        "aliases": [a.strip() for a in aliases if a.strip()],
                        "definition": entry["definition"].strip(),
                        "section_id": section.pk if section else None,
                    },
                    report,
                )
            except ValidationError as e:
                raise ContentError(f"entry {index} ({term}): {'; '.join(e.messages)}") from None
    return report


def import_rulings(*, game, entries) -> UpsertReport:
    """Upsert rulings from [{"card", "question", "answer", "source", "date"}] (card by slug,
    date as YYYY-MM-DD), matched by card and question."""
    report = UpsertReport()
    cards = {c.slug: c for c in Card.objects.filter(game=game)}
    with transaction.atomic():
        for index, entry in _entries(
            entries,
            {"card": str, "question": str, "answer": str, "date": str},
            {"source": str},
        ):
            card = cards.get(entry["card"])
            if card is None:
                raise ContentError(f"entry {index}: no card {entry['card']!r} in {game.slug}")
            try:
                when = date.fromisoformat(entry["date"])
            except ValueError:
                raise ContentError(
                    f"entry {index}: date {entry['date']!r} is not YYYY-MM-DD"
                ) from None
            try:
                _upsert(
                    Ruling,
                    {"card": card, "question": entry["question"].strip()},
                    {
                        "answer": entry["answer"].strip(),
                        "source": (entry.get("source") or "").strip(),
                        "date": when,
                    },
                    report,
                )
            except ValidationError as e:
                raise ContentError(f"entry {index}: {'; '.join(e.messages)}") from None
    return report
