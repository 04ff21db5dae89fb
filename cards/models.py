"""The reference data of each game: what admins curate and everyone reads.

A game owns its vocabulary (colours with the cost domain that pays for each, rarities,
keywords of which some are factions); cards and leaders use only their own game's words.
"""

import bisect
import datetime
import functools
import html
import json
import re
from typing import NamedTuple

from django.contrib.postgres.search import (
    SearchHeadline,
    SearchQuery,
    SearchRank,
    SearchVectorField,
)
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connection, models
from django.db.models import (
    Case,
    Exists,
    F,
    FloatField,
    Func,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from . import legality, rulebook
from .text import one_line, several_lines


def rows_of(obj, name: str) -> list:
    """The rows of `obj`'s relation `name`: those it was handed with `hold` (a page that has
    them in memory already: cards.vocabulary, the deck services), else the relation's own
    (prefetched, or one query). Read related rows this way (or through the `held` properties),
    not through `<name>.all()`, so that what a page hands over is seen."""
    found = obj.__dict__.get(f"held_{name}")
    return list(getattr(obj, name).all()) if found is None else found


def held(name: str) -> property:
    """A property giving `rows_of(self, name)` (for templates: `card.colour_list`)."""
    return property(lambda self: rows_of(self, name), doc=f"The {name}: rows_of(self, {name!r}).")


def hold(obj, name: str, rows) -> None:
    """Hand `obj` the rows of its relation `name`, read by its `held` property without a query.
    An ordinary attribute of the object: a row read again holds nothing; a write to the relation
    through a service lets go of it (`let_go`)."""
    setattr(obj, f"held_{name}", list(rows))


def holds(obj, name: str) -> bool:
    """Whether `obj` was handed the rows of its relation `name` (`hold`)."""
    return f"held_{name}" in obj.__dict__


def let_go(obj, *names: str) -> None:
    """Forget what `obj` holds of these relations: they are read from the database again."""
    for name in names:
        obj.__dict__.pop(f"held_{name}", None)


class Game(models.Model):
    """A game and its vocabulary: what it calls its leader, cards, cost and colours. Pages take
    every such label from here, never from a template."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100, unique=True, validators=[one_line])
    description = models.TextField(blank=True, validators=[several_lines])
    leader_label = models.CharField(
        max_length=40,
        default="Leader",
        blank=True,
        help_text="What this game calls its deck leader; empty for a game without leaders.",
    )
    leaders_label = models.CharField(
        max_length=40, blank=True, help_text="Plural of the leader label (default: add an s)."
    )
    card_label = models.CharField(max_length=40, default="Card")
    cards_label = models.CharField(
        max_length=40, blank=True, help_text="Plural of the card label (default: add an s)."
    )
    cost_label = models.CharField(max_length=40, default="Cost", help_text="e.g. Faith cost.")
    colour_label = models.CharField(
        max_length=40,
        default="Colour",
        blank=True,
        help_text="What a card colour is called (Colour, Attribute, Element); empty if none.",
    )
    domain_label = models.CharField(
        max_length=40,
        default="Domain",
        blank=True,
        help_text="What this game calls a cost symbol that pays for a colour.",
    )
    generic_cost_label = models.CharField(
        max_length=40,
        blank=True,
        help_text="What the generic part of a cost is called (Coins, Any); empty if costs have "
        f'none. Its cost key is "{legality.GENERIC}".',
    )
    colours_from_cost = models.BooleanField(
        default=True,
        help_text="A card's colours come from its cost's colour symbols (else they are given).",
    )
    condition_label = models.CharField(max_length=60, default="Condition for playing")
    is_sample = models.BooleanField(
        default=False, help_text="The pool is sample data, not the real card list."
    )
    language = models.CharField(
        max_length=2,
        choices=[("en", "English"), ("ru", "Russian")],
        default="en",
        help_text="The language of its rules text: how rules search stems words.",
    )
    rules_chapters = models.BooleanField(
        default=False,
        editable=False,
        help_text="Its rules are numbered in chapters of hundreds (rule 100 is in chapter 1), "
        "as comprehensive rules are; set by the rules import.",
    )
    cost_symbols = models.JSONField(
        default=list,
        blank=True,
        help_text='Cost symbols that pay no colour and count 0 in the total, e.g. ["x", "moon"].',
    )
    rules_version = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="Bumped whenever formats, cards, leaders or vocabulary change.",
    )

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=~Q(slug=""), name="game_slug_not_empty")]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("card-list", kwargs={"game": self.slug})

    colour_list = held("colours")
    rarity_list = held("rarities")
    type_list = held("card_types")
    stat_list = held("stats")
    format_list = held("formats")
    keyword_list = held("keywords")
    set_list = held("sets")

    def save(self, *args, update_fields=None, **kwargs):
        """Save the game, but never write its rules_version back: an instance read before
        other changes holds an older number, and writing it would hand a version number out
        twice (caches keyed on it would keep stale data). Only the bump (cards.signals) moves
        it."""
        if update_fields is None and not self._state.adding:
            update_fields = [
                f.name
                for f in self._meta.concrete_fields
                if not f.primary_key and f.name != "rules_version"
            ]
        super().save(*args, update_fields=update_fields, **kwargs)

    @property
    def has_leaders(self) -> bool:
        return bool(self.leader_label)

    @property
    def leaders_name(self) -> str:
        return self.leaders_label or (f"{self.leader_label}s" if self.leader_label else "")

    @property
    def cards_name(self) -> str:
        return self.cards_label or f"{self.card_label}s"

    @property
    def no_colour_name(self) -> str:
        """What a card without colour is: colourless where colours come from the cost,
        neutral where they are printed."""
        return "Colourless" if self.colours_from_cost else "Neutral"

    def domains(self):
        """{domain slug: Colour} for the colours that a cost domain pays for."""
        return {c.domain: c for c in self.colour_list if c.domain}

    # What pages about the game's cards read of it, prefetched in one go (the pages themselves
    # take it from the cache: cards.vocabulary).
    VOCABULARY = ("colours", "rarities", "card_types", "stats", "formats")

    def default_format(self) -> "Format | None":
        """The format decks get when none is named (uses prefetched `formats`)."""
        formats = self.format_list
        return next((f for f in formats if f.is_default), formats[0] if formats else None)


def games_version() -> RawSQL:
    """An expression whose value changes whenever a game is added, renamed or removed: the
    number of games, the largest id (ids are never reused) and the sum of their rules_versions
    (saving a game bumps its own). It also moves with every change to any game's reference
    data, which is cheap: the games are read again once."""
    table = Game._meta.db_table
    return RawSQL(
        f"SELECT COUNT(*) || '-' || COALESCE(MAX(id), 0) || '-' "  # noqa: S608 (no input)
        f"|| COALESCE(SUM(rules_version), 0) FROM {table}",
        [],
        output_field=models.CharField(),
    )


class Term(models.Model):
    """A word of a game's vocabulary (a colour, rarity, card type or stat): slug, name, and its
    place in the game's order. Each subclass adds its `game` with its own related name."""

    slug = models.SlugField()
    name = models.CharField(max_length=40, validators=[one_line])
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        abstract = True
        ordering = ["game", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="%(class)s_unique_slug"),
            models.CheckConstraint(condition=~Q(slug=""), name="%(class)s_slug_not_empty"),
        ]

    def __str__(self):
        return self.name


class Colour(Term):
    """A card colour of one game, and the cost domain that gives it (e.g. life -> green)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="colours")
    symbol = models.CharField(
        max_length=8, help_text="Shown beside the colour, never colour alone."
    )
    css = models.CharField(max_length=20, default="#888888", help_text="CSS colour for badges.")
    domain = models.SlugField(blank=True, help_text="Cost key that pays for this colour.")
    domain_name = models.CharField(max_length=40, blank=True)

    class Meta(Term.Meta):
        constraints = [
            *Term.Meta.constraints,
            models.UniqueConstraint(
                fields=["game", "domain"], condition=~Q(domain=""), name="colour_unique_domain"
            ),
        ]

    def __str__(self):
        return f"{self.symbol} {self.name}"


class Rarity(Term):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rarities")
    symbol = models.CharField(max_length=8, blank=True)
    code = models.CharField(
        max_length=8,
        blank=True,
        validators=[one_line],
        help_text="As printed on cards (C, R, SR): imports may name the rarity by it.",
    )

    class Meta(Term.Meta):
        verbose_name_plural = "rarities"


class CardType(Term):
    """A kind of card in one game (resonator, magic stone, God Card…); deck sections of a
    format may take only some types."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="card_types")


class Stat(Term):
    """A number printed on the cards of one game (ATK, DEF, Life…): shown, filtered, sorted."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="stats")


class Keyword(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="keywords")
    name = models.CharField(max_length=60, validators=[one_line])
    slug = models.SlugField(max_length=60)
    is_faction = models.BooleanField(default=False, db_index=True)

    class Meta:
        ordering = ["game", "name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="keyword_unique_slug"),
            models.UniqueConstraint(Lower("name"), "game", name="keyword_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="keyword_name_not_empty"),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.name)
        super().save(*args, **kwargs)


MAX_HAND = 30
ONE_DEFAULT = "Another format of this game is its default: make that one not the default first."


def _default_sections():
    return [{"slug": "main", "name": "Deck"}]


def in_force(dated, day: datetime.date | None = None):
    """Of things with a `starts` date (None: from the beginning), such as a format's versions or
    a deck's verdicts, the one in force on `day` (today in the site's time zone when None): the
    latest that starts on or before it; None before the first."""
    day = day or timezone.localdate()
    started = [item for item in dated if item.starts is None or item.starts <= day]
    return max(started, key=lambda item: (item.starts is not None, item.starts), default=None)


class Format(models.Model):
    """How a game's decks are judged. A game has one or more formats, one its default; a
    format changes over time, so what judges is one of its dated versions (`FormatVersion`):
    the one in force on the day asked, today unless said."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="formats")
    slug = models.SlugField(max_length=40)
    name = models.CharField(max_length=80, validators=[one_line])
    is_default = models.BooleanField("default", default=False)
    position = models.PositiveSmallIntegerField(default=0)
    hand_size = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_HAND)],
        help_text="Cards in a starting hand: the deck page's sample hand draws this many.",
    )

    class Meta:
        ordering = ["game", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="format_unique_slug"),
            models.UniqueConstraint(
                fields=["game"],
                condition=Q(is_default=True),
                name="format_one_default",
                violation_error_message=ONE_DEFAULT,
            ),
            models.CheckConstraint(condition=~Q(slug=""), name="format_slug_not_empty"),
            models.CheckConstraint(
                condition=Q(hand_size__gte=1) & Q(hand_size__lte=MAX_HAND),
                name="format_hand_size_1_to_30",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("format-detail", kwargs={"game": self.game.slug, "slug": self.slug})

    @property
    def version_list(self) -> list["FormatVersion"]:
        """The versions, oldest first: those held or prefetched, else read once and held."""
        if not holds(self, "versions"):
            hold(self, "versions", self.versions.all())
        return rows_of(self, "versions")

    def version_on(self, day: datetime.date | None = None) -> "FormatVersion | None":
        """The version in force on `day` (today in the site's time zone when None): the last
        that starts on or before it; None before the first."""
        return in_force(self.version_list, day)

    @property
    def current(self) -> "FormatVersion":
        """The version in force today (a format always has one from its first day on; before
        that, its first)."""
        return self.version_on() or self.version_list[0]

    # Today's sections, rules, ban list and notes: what pages and the builder show.
    @property
    def sections(self) -> list[dict]:
        return self.current.sections

    @property
    def rules(self) -> list[dict]:
        return self.current.rules

    @property
    def banlist(self) -> dict[str, int]:
        return self.current.banlist

    @property
    def notes(self) -> str:
        return self.current.notes

    @property
    def slugs(self) -> list[str]:
        """Today's deck sections' slugs, in order (as legality.Format.slugs)."""
        return [s["slug"] for s in self.sections]

    def as_data(self) -> dict:
        """The format as data: the API's and the game definition's shape (today's sections,
        rules, ban list and notes at the top, every version in `versions`)."""
        return {
            "slug": self.slug,
            "name": self.name,
            "default": self.is_default,
            **self.current.rules_data(),
            "hand_size": self.hand_size,
            "versions": [v.as_data() for v in self.version_list],
        }

    def engine(
        self, type_names: dict[str, str] | None = None, *, as_of: datetime.date | None = None
    ) -> legality.Format:
        """The version in force on `as_of` (today when None; the first version before it) as the
        rules engine reads it, in the game's words (see FormatVersion.engine)."""
        version = self.version_on(as_of) or self.version_list[0]
        return version.engine(type_names)

    def clean(self):
        if not self.game_id:
            return
        other = self.game.formats.exclude(pk=self.pk).filter(is_default=True).first()
        if self.is_default and other is not None:
            raise ValidationError({"is_default": f"{ONE_DEFAULT} ({other.name})"})


class FormatVersion(models.Model):
    """One format as it stood from a date on: its deck sections, its ordered rule instances
    (cards.legality) and its ban list. A version without a start date is in force from the
    beginning; a later one replaces it on its date."""

    format = models.ForeignKey(Format, on_delete=models.CASCADE, related_name="versions")
    starts = models.DateField(
        "in force from",
        null=True,
        blank=True,
        help_text="The first day it judges decks (the site's time zone); empty: from the "
        "beginning.",
    )
    name = models.CharField(
        max_length=120, validators=[one_line], help_text='e.g. "September 2025 ban list".'
    )
    sections = models.JSONField(
        default=_default_sections,
        help_text='Deck sections in order, e.g. [{"slug": "main", "name": "Main deck"}]; cards '
        "go to the first when no section is named.",
    )
    rules = models.JSONField(
        default=list,
        blank=True,
        help_text=(
            "Deck rules, in order: a list such as "
            '[{"rule": "deck_size", "deck": "main", "min": 40, "section": "5.3"}]. '
            "Rules: " + ", ".join(legality.RULES) + "."
        ),
    )
    banlist = models.JSONField(
        default=dict, blank=True, help_text='{"card-slug": most copies allowed}; 0 = banned.'
    )
    notes = models.TextField(blank=True, help_text="What the version is; what the site chose.")

    class Meta:
        ordering = ["format", F("starts").asc(nulls_first=True)]
        constraints = [
            models.UniqueConstraint(fields=["format", "starts"], name="formatversion_one_a_day"),
            models.UniqueConstraint(
                fields=["format"],
                condition=Q(starts__isnull=True),
                name="formatversion_one_from_the_beginning",
                violation_error_message="Only one version can be in force from the beginning.",
            ),
            models.CheckConstraint(condition=~Q(name=""), name="formatversion_name_not_empty"),
        ]

    def __str__(self):
        return self.name

    @property
    def slugs(self) -> list[str]:
        return [s["slug"] for s in self.sections]

    def rules_data(self) -> dict:
        return {
            "sections": self.sections,
            "rules": self.rules,
            "banlist": self.banlist or {},
            "notes": self.notes,
        }

    def as_data(self) -> dict:
        """The version as the API and the game definition give it."""
        starts = self.starts.isoformat() if self.starts else None
        return {"from": starts, "name": self.name, **self.rules_data()}

    def engine(self, type_names: dict[str, str] | None = None) -> legality.Format:
        """This version as the rules engine reads it, in the game's words (`type_names`: the
        game's card type names; read from the database when not given)."""
        game = self.format.game
        if type_names is None:
            if getattr(self, "_engine", None) is None:  # once per instance (prefetch-aware)
                self._engine = self.engine({t.slug: t.name for t in game.type_list})
            return self._engine
        data = {"slug": self.format.slug, "name": self.format.name, **self.rules_data()}
        return legality.Format.from_data(
            data,
            type_names=type_names,
            leader_label=game.leader_label,
            colour_label=game.colour_label,
        )

    def clean(self):
        if not self.format_id:
            return
        types = self.format.game.card_types.values_list("slug", flat=True)
        errors = legality.validate_format(self.rules_data(), card_types=list(types))
        if errors:
            raise ValidationError({"rules": errors})


def cost_in_order(game: Game, cost) -> dict:
    """The cost's keys in the game's order: its domains, then the generic amount (then any
    unknown key, as stored)."""
    order = [*game.domains(), legality.GENERIC, *game.cost_symbols]
    cost = cost or {}
    return {k: cost[k] for k in sorted(cost, key=lambda k: order.index(k) if k in order else 99)}


def validate_cost(game: Game, cost) -> dict[str, int]:
    """Check a cost against the game's domains (and its generic amount, if it has one);
    return it normalised, in the game's order with the generic amount last."""
    if cost in (None, ""):
        return {}
    if not isinstance(cost, dict):
        raise ValidationError('Cost must be an object such as {"life": 2}.')
    keys = list(game.domains()) + ([legality.GENERIC] if game.generic_cost_label else [])
    keys += list(game.cost_symbols)
    errors = []
    for key, amount in cost.items():
        if key not in keys:
            what = (game.domain_label or "cost key").lower()
            errors.append(f"Unknown {what} {key!r} (known: {', '.join(sorted(keys)) or 'none'}).")
        elif isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= 999:
            errors.append(f"Cost of {key!r} must be a whole number from 1 to 999.")
    if errors:
        raise ValidationError(errors)
    return cost_in_order(game, cost)


def validate_stats(game: Game, stats) -> dict[str, int]:
    """Check a card's stats ({"atk": 600}) against the game's; return them in the game's order."""
    if stats in (None, ""):
        return {}
    if not isinstance(stats, dict):
        raise ValidationError('Stats must be an object such as {"atk": 600}.')
    known = [s.slug for s in game.stat_list]
    errors = []
    for key, value in stats.items():
        if key not in known:
            errors.append(f"Unknown stat {key!r} (known: {', '.join(known) or 'none'}).")
        elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 99999:
            errors.append(f"Stat {key!r} must be a whole number from 0 to 99999.")
    if errors:
        raise ValidationError(errors)
    return {k: stats[k] for k in sorted(stats, key=known.index)}


class IdList(models.Aggregate):
    """The values of a group as one string, comma-separated ("3,5,8"): GROUP_CONCAT on SQLite,
    string_agg on PostgreSQL."""

    function = "GROUP_CONCAT"
    output_field = models.TextField()

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(
            compiler,
            connection,
            function="STRING_AGG",
            template="%(function)s(%(expressions)s::text, ',')",
            **extra_context,
        )


def relation_ids(card: str = "pk") -> dict:
    """Annotations holding the ids of a card's colours and keywords ("3,5", None for none), the
    card being `card` of the outer query ("pk" for cards, "card_id" for deck entries): a
    subquery each, run for the rows fetched only, so a page of cards needs no prefetch query.
    Built once per `card` (~0.7 ms each time otherwise): a query resolves a copy of each."""
    return dict(_relation_ids(card))


@functools.cache
def _relation_ids(card: str) -> dict:

    def ids(relation, column: str) -> Subquery:
        rows = (
            relation.through.objects.filter(card_id=OuterRef(card))
            .order_by()
            .values("card_id")
            .annotate(ids=IdList(column))
            .values("ids")
        )
        return Subquery(rows, output_field=models.TextField())

    return {
        "colour_ids": ids(Card.colours, "colour_id"),
        "keyword_ids": ids(Card.keywords, "keyword_id"),
    }


def printing_refs() -> dict:
    """Annotations holding a card's printing numbers and their sets' ids ("CMF-005,VIN-012",
    "3,9"; None for none) and the ids of its other types, for the engine's catalogue (no
    comma is allowed in a number)."""

    def of(column: str) -> Subquery:
        rows = (
            Printing.objects.filter(card_id=OuterRef("pk"))
            .order_by()
            .values("card_id")
            .annotate(ids=IdList(column))
            .values("ids")
        )
        return Subquery(rows, output_field=models.TextField())

    more = (
        Card.more_types.through.objects.filter(card_id=OuterRef("pk"))
        .order_by()
        .values("card_id")
        .annotate(ids=IdList("cardtype_id"))
        .values("ids")
    )
    return {
        "printing_numbers": of("number"),
        "printing_set_ids": of("set_id"),
        "more_type_ids": Subquery(more, output_field=models.TextField()),
    }


class ColourIds(Func):
    """A test of the card's `colour_ids` (PostgreSQL only: the sorted ids of its colours, kept
    on its row by triggers, migration 0013) against colour ids: `op` is `&&` (shares one) or
    `<@` (all within). The column is read from the query's own card table, whatever its
    alias."""

    output_field = models.BooleanField()
    conditional = True

    def __init__(self, op: str, ids):
        super().__init__(F("pk"))
        # Literal ids, not a subquery: the planner then knows how many cards match.
        self.op, self.ids = op, sorted(int(i) for i in ids)

    def as_sql(self, compiler, connection, **extra_context):
        card = self.source_expressions[0]  # the pk's column, with the query's alias
        table = compiler.quote_name_unless_alias(card.alias)
        return f"{table}.colour_ids {self.op} %s::bigint[]", [self.ids]


class Dressing(Value):
    """What a `DressedQuerySet.dressed` queryset dresses its rows from: the game's Vocabulary
    (`words`) and the path from a row to its card (`path`, "" for cards). Carried in the query
    as an alias (never selected), so that every filtered, ordered or sliced copy dresses too."""

    def __init__(self, words, path: str):
        super().__init__(None)
        self.words, self.path = words, path

    def dress(self, rows):
        """Each row (a model instance) as it comes, its card dressed from `words`: pointing at
        the game, with its colours, keywords, rarity, type and loyalty faction held."""
        for row in rows:
            if not isinstance(row, models.Model):  # values() of the queryset: plain data
                yield row
                continue
            card = getattr(row, self.path) if self.path else row
            if not holds(card, "colours"):
                self.words.dress(card, None, row.colour_ids, row.keyword_ids)
            yield row

    def prefetches(self) -> list:
        """What the cards' rows do not bring and the game has: their printings (their set and
        rarity are dressed from `words`, their art comes in their rows: the picture a card
        shows), other faces and other types; a prefetch query each."""
        prefix = f"{self.path}__" if self.path else ""
        printings = Prefetch(f"{prefix}printings", Printing.objects.select_related("art"))
        wanted = [
            (printings, self.words.sets),
            (f"{prefix}faces", self.words.card_faces),
            (f"{prefix}more_types", self.words.more_types),
        ]
        return [lookup for lookup, has in wanted if has]


class DressedQuerySet(models.QuerySet):
    """A queryset of cards, or of rows with a `card`, that can bring each card's colours and
    keywords in its own row (`relation_ids`) instead of two prefetch queries."""

    @property
    def costly_to_count(self) -> bool:
        """Whether each row costs enough to test that counting a thousand matches shows (a word
        search, which says so: `search`): cards.pagination asks the planner first."""
        return "costly_to_count" in self.query.annotations

    def __iter__(self):
        rows = super().__iter__()
        dressing = self.query.annotations.get("dressing")
        return rows if dressing is None else dressing.dress(rows)

    def get(self, *args, **kwargs):
        row = super().get(*args, **kwargs)
        dressing = self.query.annotations.get("dressing")
        return row if dressing is None else next(dressing.dress([row]))

    def dressed(self, words, path: str = ""):
        """Rows whose card (the row, or its `path` relation) is dressed from `words`, the
        game's Vocabulary (cards.vocabulary; handed in, a queryset never reaches into a cache)
        as they are iterated: one query, whatever the number of rows."""
        clone = self.annotate(**relation_ids(f"{path}_id" if path else "pk"))
        # The search column is the widest and only the database reads it.
        clone = clone.defer(f"{path}__search_vector" if path else "search_vector")
        dressing = Dressing(words, path)
        clone = clone.prefetch_related(*dressing.prefetches())
        return clone.alias(dressing=dressing)


# A word start shared by more words of a game's lexicon than this stays a word start.
EXPANDED = 16
_LEXEME = re.compile(r"[^\W_]+")  # a word that to_tsquery reads back as itself


def _as_words(start: str, lexicon: tuple[str, ...]) -> str:
    """The tsquery term for a word start: the words of `lexicon` (sorted) that begin with it,
    as plain words, when there are 1 to EXPANDED of them and to_tsquery reads each back as
    itself; else the word start itself (also when none is found: the lexicon may be older than
    the index)."""
    at = bisect.bisect_left(lexicon, start)
    words = lexicon[at : at + EXPANDED + 1]
    words = [w for w in words if w.startswith(start)]
    if not words or len(words) > EXPANDED or not all(_LEXEME.fullmatch(w) for w in words):
        return f"{start}:*"
    return f"({' | '.join(words)})"


class CardQuerySet(DressedQuerySet):
    def for_listing(self, words=None):
        """Everything a list shows, in a constant number of queries.

        With `words`, the game's Vocabulary (cards.vocabulary), one query: the ids of each
        card's colours and keywords come in its row and are read from `words`, as are its
        rarity, type and loyalty faction, and each card points at the game (`dressed`).
        Without it, joins and two prefetch queries."""
        if words is None:
            return self.select_related(
                "game", "rarity", "type", "loyalty_faction"
            ).prefetch_related(
                "colours",
                "keywords",
                "faces",
                "more_types",
                Prefetch("printings", printings_of_sets()),
            )
        return self.dressed(words)

    def search(self, text: str, lexicon: tuple[str, ...] = ()):
        """Cards whose name, text or other faces' names have every word of `text` (as a word
        start on PostgreSQL, through the full-text index; anywhere in the text on SQLite, whose
        pools are small).
        With the game's `lexicon` (cards.vocabulary.lexicon), a word start that few of its
        words have is searched as those words (`target` as `target | targets`): the same cards,
        but the index finds exact words several times faster (a word start is read in full,
        never skipped through)."""
        words = re.findall(r"\w+", text.lower())
        if not words:
            return self
        if connection.vendor == "postgresql":
            words = [_as_words(word, lexicon) if lexicon else f"{word}:*" for word in words]
            query = " & ".join(words)
            found = self.filter(
                search_vector=SearchQuery(query, search_type="raw", config="simple")
            )
            # A word match per row: ~1 µs, 8,000 rows for 1,000. A mark the query carries.
            return found.alias(costly_to_count=Value(True))
        for word in words:
            self = self.filter(
                Q(name__icontains=word) | Q(text__icontains=word) | Q(face_names__icontains=word)
            )
        return self

    def with_any_colour(self, colours, include_colourless=False):
        """Cards having any of `colours` (Colour objects or ids), or no colour at all."""
        condition = colours_q("&&", [getattr(colour, "pk", colour) for colour in colours])
        if include_colourless:
            condition |= Q(colour_count=0)
        return self.filter(condition)

    def with_keyword(self, keyword):
        """Cards with the keyword, on their front or on another face."""
        own = Exists(Card.keywords.through.objects.filter(card=OuterRef("pk"), keyword=keyword))
        return self.filter(Q(own) | face_keyword_q(keyword.name))

    def usable_by(self, leader: "Leader", fmt=None):
        """Cards that `leader` may put in a deck of `fmt` (default: the game's default format),
        by the format's card-versus-leader rules. `fmt`: what holds a format's rules (a
        Format: its version in force today; a FormatVersion; the engine's legality.Format).

        Each such rule of the engine gives a requirement (cards.legality.LEADER_RULES), which
        the engine checks card by card and `requirement_q` turns into a filter here: one
        definition for both, and tests prove they agree.
        """
        fmt = fmt or leader.game.default_format()
        queryset = self.filter(game_id=leader.game_id)
        info = leader.info()
        for rule in fmt.rules if fmt else []:
            if rule["rule"] in legality.LEADER_RULES:
                wanted = legality.requirement(rule, info)
                queryset = queryset.filter(requirement_q(wanted, leader.game))
        return queryset

    def legal_in(self, fmt: legality.Format, game: Game):
        """Cards legal or limited in `fmt` (the engine's format, of `game`) on their own: where
        legality.card_status says `legal` or `limited`. The same rules read the same way (tests
        prove the two agree)."""
        admitted, banned = _standing_q(fmt, game)
        queryset = self.filter(admitted)
        return queryset if banned is None else queryset.filter(~banned)

    def banned_in(self, fmt: legality.Format, game: Game):
        """Cards banned in `fmt` (of `game`): where legality.card_status says `banned` (the
        card may go in a section and is in the pool, and a ban list allows it 0 copies)."""
        admitted, banned = _standing_q(fmt, game)
        return self.none() if banned is None else self.filter(admitted & banned)


def _standing_q(fmt: legality.Format, game: Game) -> tuple[Q, Q | None]:
    """(the cards some section takes and every pool rule admits; the cards a ban list
    allows 0 copies, None when it bans none) as conditions, from the rules card_status
    reads: section_types (legality.allowed_sections), pool, banlist."""
    admitted = Q()
    rules = [r for r in fmt.rules if r["rule"] == "section_types"]
    some_section = None
    for section in fmt.slugs:
        mine = [r for r in rules if r.get("deck", fmt.first) == section]
        if not mine:  # a section that takes every card
            some_section = None
            break
        takes = Q()
        for rule in mine:
            takes &= _takes_q(rule, game)
        some_section = takes if some_section is None else some_section | takes
    if some_section is not None:
        admitted &= some_section
    for rule in fmt.rules:
        if rule["rule"] == "pool":
            admitted &= requirement_q(legality.requirement(rule, None), game)
    refs = {  # what legality.ban_limit finds 0 for (the format's ban list is one of them)
        ref
        for rule in fmt.all_rules()
        if rule["rule"] == "banlist"
        for ref, most in (rule.get("cards") or {}).items()
        if most == 0
    }
    if not refs:
        return admitted, None
    numbers = Printing.objects.annotate(lower=Lower("number")).filter(
        card=OuterRef("pk"), lower__in=sorted({ref.lower() for ref in refs})
    )
    return admitted, Q(slug__in=sorted(refs)) | Q(Exists(numbers))


def _takes_q(rule: dict, game: Game) -> Q:
    """The cards a section_types rule takes (legality._takes): one of its types (its own,
    its other types, its faces') among the rule's, and the rule's keyword if it names one."""
    if not rule.get("types"):
        return Q(pk__in=[])  # takes nothing (the schema refuses such a rule)
    ids = [t.pk for t in game.type_list if t.slug in rule["types"]]
    faces = Q()
    for slug in rule["types"]:  # a face's types are a JSON list of slugs, as its keywords
        faces |= Q(types__icontains=json.dumps(slug, ensure_ascii=False))
    face_rows = Face.objects.filter(faces, card=OuterRef("pk"))
    takes = Q(Exists(face_rows))
    if ids:
        more = Card.more_types.through.objects.filter(card=OuterRef("pk"), cardtype_id__in=ids)
        takes |= Q(type_id__in=ids) | Q(Exists(more))
    if rule.get("keyword"):  # having it: not NoneOf it (one definition of "has a keyword")
        takes &= ~requirement_q(legality.NoneOf("keywords", frozenset([rule["keyword"]])), game)
    return takes


def colours_q(op: str, ids) -> Q:
    """Cards whose colours share one of `ids` (`op` "&&") or all lie among them ("<@"): on
    PostgreSQL a test of the card's row (ColourIds: with a word search, one bitmap of the GIN
    index), elsewhere through the relation."""
    if connection.vendor == "postgresql":
        return Q(ColourIds(op, ids))
    colours = Card.colours.through.objects.filter(card=OuterRef("pk"))
    if op == "&&":
        return Q(Exists(colours.filter(colour_id__in=ids)))
    return ~Q(Exists(colours.exclude(colour_id__in=ids)))


def requirement_q(wanted, game: "Game") -> Q:
    """The database side of a card-versus-leader requirement (cards.legality): the condition
    on Card rows that holds exactly where `wanted.holds(card.info())` does."""
    # The game's words by id (its cached vocabulary's, once read): the database then tests the
    # card's own rows, no join, and plans it knowing the ids (~2 ms less at 50,000 cards).
    if getattr(wanted, "attr", "") == "colours":
        allowed = [c.pk for c in game.colour_list if c.slug in wanted.allowed]
    if isinstance(wanted, legality.AllIn) and wanted.attr == "colours":
        return colours_q("<@", allowed)
    if isinstance(wanted, legality.AllIn) and wanted.attr == "factions":
        others = [k.pk for k in game.keyword_list if k.is_faction and k.name not in wanted.allowed]
        factions = Card.keywords.through.objects.filter(card=OuterRef("pk"), keyword_id__in=others)
        return ~Q(Exists(factions)) if others else Q()
    if isinstance(wanted, legality.SharesOne) and wanted.attr == "colours":
        return Q(colour_count=0) | colours_q("&&", allowed)
    if isinstance(wanted, legality.LoyaltyWithin):
        faction_ids = {k.name: k.pk for k in game.keyword_list}
        condition = Q(loyalty_faction__isnull=True)
        for faction, points in wanted.points:
            if faction in faction_ids:
                condition |= Q(loyalty_faction_id=faction_ids[faction], loyalty_points__lte=points)
        return condition
    if isinstance(wanted, legality.NoneOf) and wanted.attr == "keywords":
        ids = {k.name.casefold(): k.pk for k in game.keyword_list}

        def having(name: str) -> Q:
            on_face = face_keyword_q(name)
            if name.casefold() not in ids:
                return on_face  # no card's own keyword: the game does not know it
            rows = Card.keywords.through.objects.filter(card=OuterRef("pk"))
            return Q(Exists(rows.filter(keyword_id=ids[name.casefold()]))) | on_face

        condition = Q()
        for name in wanted.forbidden:
            condition &= ~having(name)
        for a, b in wanted.pairs:
            condition &= ~(having(a) & having(b))
        return condition
    if isinstance(wanted, legality.InPool):
        sets = [s.pk for s in game.set_list if s.code in wanted.sets or s.group in wanted.groups]
        return printed_in_q(sets)
    raise NotImplementedError(f"No database filter for {wanted!r}")


class CostSymbol(NamedTuple):
    """A cost symbol that pays no colour (X, Force of Will's moon and time), shown as a pip."""

    slug: str
    is_symbol = True
    domain = ""
    KNOWN = {"x": ("X", "X"), "moon": ("☾", "Moon"), "time": ("⧗", "Time")}  # noqa: RUF012

    @property
    def pk(self) -> str:  # the pip's CSS class: colour-symbol-x
        return f"symbol-{self.slug}"

    @property
    def symbol(self) -> str:
        return self.KNOWN.get(self.slug, (self.slug.upper(),))[0]

    @property
    def name(self) -> str:
        return self.KNOWN.get(self.slug, ("", self.slug.replace("-", " ").capitalize()))[1]

    domain_name = name


class Card(models.Model):
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="cards")
    slug = models.SlugField(max_length=120)
    name = models.CharField(max_length=120, validators=[one_line])
    type = models.ForeignKey(CardType, on_delete=models.PROTECT, related_name="cards")
    more_types = models.ManyToManyField(
        CardType, blank=True, related_name="more_cards", help_text="Its other types, if any."
    )
    cost = models.JSONField(
        default=dict, blank=True, help_text='Per domain, e.g. {"life": 2}; "generic": n.'
    )
    # Derived from `cost` on save when the game's colours come from the cost; else given.
    colours = models.ManyToManyField(Colour, blank=True, related_name="cards")
    colour_count = models.PositiveSmallIntegerField(default=0, editable=False)  # kept by signal
    total_cost = models.PositiveSmallIntegerField(default=0, editable=False, db_index=True)
    rarity = models.ForeignKey(
        Rarity, on_delete=models.PROTECT, related_name="cards", null=True, blank=True
    )
    keywords = models.ManyToManyField(Keyword, blank=True, related_name="cards")
    stats = models.JSONField(default=dict, blank=True, help_text='e.g. {"atk": 600, "def": 400}')
    loyalty_faction = models.ForeignKey(
        Keyword,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="loyalty_cards",
        help_text="The faction whose loyalty this card needs (with loyalty points).",
    )
    loyalty_points = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The hero's loyalty it needs in that faction: 1 to 3."
    )
    condition = models.TextField(
        blank=True,
        help_text="Condition for playing: when it can be played.",
        validators=[several_lines],
    )
    text = models.TextField(blank=True, help_text="Effect text.", validators=[several_lines])
    flavour = models.TextField(blank=True, validators=[several_lines])
    effect_source = models.CharField(max_length=40, blank=True)
    makes_attack = models.BooleanField(default=False, db_index=True)
    image = models.URLField(blank=True)
    # The names of its other faces, a line each (kept by services.save_cards): search finds
    # the card by them.
    face_names = models.TextField(blank=True, editable=False)
    # PostgreSQL only: name, text and face names as a tsvector, kept by a trigger (0004, 0016).
    search_vector = SearchVectorField(null=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = CardQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="card_unique_slug"),
            models.UniqueConstraint(Lower("name"), "game", name="card_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="card_name_not_empty"),
            models.CheckConstraint(condition=~Q(slug=""), name="card_slug_not_empty"),
            models.CheckConstraint(
                condition=Q(loyalty_faction__isnull=True, loyalty_points__isnull=True)
                | Q(loyalty_faction__isnull=False, loyalty_points__gte=1, loyalty_points__lte=3),
                name="card_loyalty_faction_and_points_1_to_3",
            ),
        ]
        indexes = [
            models.Index(fields=["game", "name"], name="card_game_name"),
            models.Index(fields=["game", "total_cost"], name="card_game_cost"),
            models.Index(fields=["game", "rarity"], name="card_game_rarity"),
            models.Index(fields=["game", "type"], name="card_game_type"),
            models.Index(fields=["game", "colour_count"], name="card_game_colour_count"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("card-detail", kwargs={"game": self.game.slug, "slug": self.slug})

    colour_list = held("colours")
    keyword_list = held("keywords")
    printing_list = held("printings")
    face_list = held("faces")
    more_type_list = held("more_types")

    @property
    def factions(self):
        return [k for k in self.keyword_list if k.is_faction]

    @property
    def loyalty(self) -> dict | None:
        if self.loyalty_faction_id is None:
            return None
        return {"faction": self.loyalty_faction.name, "points": self.loyalty_points}

    @property
    def type_list(self) -> list["CardType"]:
        """Its types as printed on its front: the first, then the others."""
        return [self.type, *self.more_type_list]

    @property
    def given_colours(self) -> list["Colour"]:
        """Its colours that its cost does not pay (a ruler's, a 0-cost rune's)."""
        cost = self.cost or {}
        return [c for c in self.colour_list if not (c.domain and c.domain in cost)]

    def as_record(self, *, with_colours: bool = True) -> dict:
        """The card as plain data, as the export writes it and the API shows it (with its
        derived fields); from the related rows of for_listing(): no query there. Without
        `with_colours` (an export where the cost decides colours) only the colours given beside
        the cost are written."""
        record = {
            "slug": self.slug,
            "name": self.name,
            "type": self.type.slug,
            "types": [t.slug for t in self.type_list],
            "rarity": self.rarity.slug if self.rarity_id else None,
            "cost": self.cost or {},
            "stats": self.stats or {},
            "keywords": [k.name for k in self.keyword_list],
            "faces": [f.as_record() for f in self.face_list],
            "loyalty": self.loyalty,
            "condition": self.condition,
            "text": self.text,
            "flavour": self.flavour,
            "effect_source": self.effect_source,
            "makes_attack": self.makes_attack,
            "image": self.image,
            "printings": [p.as_record() for p in self.printing_list],
        }
        colours = self.colour_list if with_colours else self.given_colours
        if with_colours or colours:
            record["colours"] = [c.slug for c in colours]
        return record

    @property
    def cost_items(self) -> list[tuple["Colour | CostSymbol | None", int]]:
        """The cost as (colour of the domain, amount) in the game's colour order, then
        (None, generic amount), then (CostSymbol, amount) for the game's other symbols (X,
        moon...), from the prefetched colours (no query with for_listing())."""
        cost = self.cost or {}
        items = [(c, cost[c.domain]) for c in self.colour_list if c.domain in cost]
        if cost.get(legality.GENERIC):
            items.append((None, cost[legality.GENERIC]))
        paid = {c.domain for c, _ in items if c} | {legality.GENERIC}
        return items + [(CostSymbol(key), n) for key, n in cost.items() if key not in paid]

    @property
    def stat_items(self) -> list[tuple["Stat", int]]:
        """(Stat, value) in the game's order (needs the game's stats prefetched)."""
        stats = self.stats or {}
        return [(s, stats[s.slug]) for s in self.game.stat_list if s.slug in stats]

    def info(self) -> legality.CardInfo:
        """This card as the rules engine sees it (uses the related rows of for_listing())."""
        keywords = self.keyword_list
        return legality.CardInfo(
            slug=self.slug,
            name=self.name,
            rarity=self.rarity.slug if self.rarity_id else "",
            colours=frozenset(c.slug for c in self.colour_list),
            factions=frozenset(k.name for k in keywords if k.is_faction),
            type=self.type.slug,
            keywords=frozenset([k.name for k in keywords] + face_keywords(self)),
            loyalty=(self.loyalty_faction.name, self.loyalty_points)
            if self.loyalty_faction_id
            else None,
            types=tuple(
                dict.fromkeys(
                    [t.slug for t in self.type_list] + [t for f in self.face_list for t in f.types]
                )
            ),
            **printed(self.printing_list),
        )

    def clean(self):
        if not self.slug:
            self.slug = slugify(self.name)
        if not self.game_id:
            return
        errors = {}
        for name, validate in (("cost", validate_cost), ("stats", validate_stats)):
            try:
                setattr(self, name, validate(self.game, getattr(self, name)))
            except ValidationError as e:
                errors[name] = e.messages
        for name in ("rarity", "type", "loyalty_faction"):
            related = getattr(self, name) if getattr(self, f"{name}_id") else None
            if related is not None and related.game_id != self.game_id:
                errors[name] = "This belongs to another game."
        if self.loyalty_faction_id and not self.loyalty_faction.is_faction:
            errors["loyalty_faction"] = "Choose a faction keyword."
        if errors:
            raise ValidationError(errors)

    def derive(self, game: Game, types: list) -> None:
        """What follows from the other fields (save and services.save_cards both call it): the
        slug from the name, the game's only card type (`types`: up to two of the game's card
        types), the cost in the game's order and its total."""
        self.slug = self.slug or slugify(self.name)
        if self.type_id is None and len(types) == 1:
            self.type = types[0]
        self.cost = cost_in_order(game, self.cost)
        # X and the game's other symbols pay nothing countable (Force of Will: X, moon, time).
        self.total_cost = sum(n for k, n in self.cost.items() if k not in game.cost_symbols)

    def save(self, *args, **kwargs):
        types = self.game.type_list[:2] if self.type_id is None else []
        self.derive(self.game, types)
        super().save(*args, **kwargs)
        if self.game.colours_from_cost:
            colours = [c for d, c in self.game.domains().items() if d in (self.cost or {})]
            self.colours.set(colours)
            self.colour_count = len(colours)


def face_keywords(obj) -> list[str]:
    """The keyword names of a card's or leader's other faces: rules read them as its own."""
    return [name for face in obj.face_list for name in face.keywords]


def printed(printings) -> dict:
    """The printing numbers, set codes and set groups of a card's or leader's printings, as
    the engine's CardInfo and LeaderInfo take them (the printings' sets held or joined)."""
    return {
        "printings": frozenset(p.number for p in printings),
        "sets": frozenset(p.set.code for p in printings),
        "groups": frozenset(p.set.group for p in printings if p.set.group),
    }


def printings_of_sets():
    """Printings with their set, rarity and art, for a prefetch."""
    return Printing.objects.select_related("set", "rarity", "art")


class LeaderQuerySet(models.QuerySet):
    def for_rules(self):
        """Leaders with what the engine and the pages read (colours, keywords, loyalty), in a
        constant number of queries."""
        return self.select_related("art").prefetch_related(
            "colours",
            "keywords",
            "loyalties__faction",
            "faces",
            Prefetch("printings", printings_of_sets()),
        )


class Leader(models.Model):
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="leaders")
    slug = models.SlugField(max_length=120)
    name = models.CharField(max_length=120, validators=[one_line])
    colours = models.ManyToManyField(
        Colour, blank=True, related_name="leaders", help_text="Matching colours."
    )
    keywords = models.ManyToManyField(Keyword, blank=True, related_name="leaders")
    text = models.TextField(blank=True, validators=[several_lines])
    image = models.URLField(blank=True)
    art = models.ForeignKey(
        "Art",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        editable=False,
        related_name="leaders",
        help_text="Its picture (cards.art), shown before its printings' art.",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = LeaderQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="leader_unique_slug"),
            models.UniqueConstraint(Lower("name"), "game", name="leader_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="leader_name_not_empty"),
            models.CheckConstraint(condition=~Q(slug=""), name="leader_slug_not_empty"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leader-detail", kwargs={"game": self.game.slug, "slug": self.slug})

    colour_list = held("colours")
    keyword_list = held("keywords")
    loyalty_list = held("loyalties")
    printing_list = held("printings")
    face_list = held("faces")

    @property
    def factions(self):
        return [k for k in self.keyword_list if k.is_faction]

    @property
    def loyalty(self) -> dict[str, int]:
        """{faction name: points} (needs `loyalties__faction` prefetched in lists)."""
        return {row.faction.name: row.points for row in self.loyalty_list}

    def info(self) -> legality.LeaderInfo:
        return legality.LeaderInfo(
            slug=self.slug,
            name=self.name,
            colours=frozenset(c.slug for c in self.colour_list),
            factions=frozenset(k.name for k in self.factions),
            loyalty=frozenset(self.loyalty.items()),
            keywords=frozenset([k.name for k in self.keyword_list] + face_keywords(self)),
            **printed(self.printing_list),
        )

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.name)
        super().save(*args, **kwargs)


class Loyalty(models.Model):
    """A leader's loyalty points (1-3) to one faction (the Irdya game's heroes)."""

    leader = models.ForeignKey(Leader, on_delete=models.CASCADE, related_name="loyalties")
    faction = models.ForeignKey(Keyword, on_delete=models.PROTECT, related_name="loyalties")
    points = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["-points", "faction__name"]
        verbose_name_plural = "loyalties"
        constraints = [
            models.UniqueConstraint(fields=["leader", "faction"], name="loyalty_one_per_faction"),
            models.CheckConstraint(
                condition=Q(points__gte=1) & Q(points__lte=3), name="loyalty_points_1_to_3"
            ),
        ]

    def __str__(self):
        return f"{self.faction}: {self.points}"

    def clean(self):
        if self.faction_id and self.leader_id:
            if self.faction.game_id != self.leader.game_id or not self.faction.is_faction:
                raise ValidationError({"faction": "Choose a faction of the leader's game."})


# --- sets and printings: a card is its name; each time it is printed is a Printing ----------


class CardSet(models.Model):
    """A set (expansion) of a game, in a group (Force of Will's clusters, blocks, seasons)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="sets")
    code = models.CharField(max_length=20, validators=[one_line], help_text="e.g. CMF, VIN001.")
    name = models.CharField(max_length=120, validators=[one_line])
    group = models.CharField(
        max_length=80, blank=True, validators=[one_line], help_text="Cluster, block or season."
    )
    released = models.DateField(null=True, blank=True)

    class Meta:
        ordering = [F("released").asc(nulls_last=True), "pk"]  # undated: as they were added
        verbose_name = "set"
        constraints = [
            models.UniqueConstraint(Lower("code"), "game", name="set_unique_code"),
            models.CheckConstraint(condition=~Q(code=""), name="set_code_not_empty"),
            models.CheckConstraint(condition=~Q(name=""), name="set_name_not_empty"),
        ]
        indexes = [models.Index(fields=["game", "group"], name="set_game_group")]

    def __str__(self):
        return f"{self.name} ({self.code})"

    def get_absolute_url(self):
        return reverse("set-detail", kwargs={"game": self.game.slug, "code": self.code})


class OfCardOrLeader(models.Model):
    """What belongs to one card or one leader, in order (`position`), in their game: printings
    and other faces. `game` is its owner's (set on save when left out: an admin inline)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="%(class)ss")
    card = models.ForeignKey(
        Card, on_delete=models.CASCADE, null=True, blank=True, related_name="%(class)ss"
    )
    leader = models.ForeignKey(
        Leader, on_delete=models.CASCADE, null=True, blank=True, related_name="%(class)ss"
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=Q(card__isnull=False, leader__isnull=True)
                | Q(card__isnull=True, leader__isnull=False),
                name="%(class)s_of_a_card_or_a_leader",
            ),
        ]
        indexes = [
            models.Index(fields=["card", "position"], name="%(class)s_card"),
            models.Index(fields=["leader", "position"], name="%(class)s_leader"),
        ]

    @property
    def owner(self) -> "Card | Leader":
        return self.card if self.card_id else self.leader

    def take_owners_game(self) -> None:
        if self.game_id is None and (self.card_id or self.leader_id):
            self.game_id = self.owner.game_id

    def save(self, *args, **kwargs):
        self.take_owners_game()
        super().save(*args, **kwargs)

    def clean(self):
        self.take_owners_game()
        related = [
            (name, getattr(self, name)) for name in self.SAME_GAME if getattr(self, f"{name}_id")
        ]
        errors = {
            name: "This belongs to another game."
            for name, row in related
            if self.game_id and row.game_id != self.game_id
        }
        if errors:
            raise ValidationError(errors)

    SAME_GAME = ("card", "leader")  # relations that must be of its game


class Printing(OfCardOrLeader):
    """One printing of a card or a leader: its set, its number (unique within the game, any
    case), its rarity and art. A card's first printing (by position) is the one shown."""

    set = models.ForeignKey(CardSet, on_delete=models.PROTECT, related_name="printings")
    number = models.CharField(max_length=30, validators=[one_line], help_text="e.g. CMF-058.")
    rarity = models.ForeignKey(
        Rarity, on_delete=models.PROTECT, null=True, blank=True, related_name="printings"
    )
    image = models.CharField(
        max_length=500, blank=True, help_text="Where the art came from: a URL or an import's path."
    )
    art = models.ForeignKey(
        "Art",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        editable=False,
        related_name="printings",
        help_text="Its art as stored (cards.art).",
    )
    artist = models.CharField(max_length=200, blank=True, validators=[one_line])
    flavour = models.TextField(blank=True, validators=[several_lines])

    SAME_GAME = ("set", "rarity", "card", "leader")

    class Meta(OfCardOrLeader.Meta):
        ordering = ["position", "number"]
        constraints = [
            *OfCardOrLeader.Meta.constraints,
            models.UniqueConstraint(Lower("number"), "game", name="printing_unique_number"),
            models.CheckConstraint(condition=~Q(number=""), name="printing_number_not_empty"),
        ]
        indexes = [
            *OfCardOrLeader.Meta.indexes,
            models.Index(fields=["set", "number"], name="printing_set_number"),
        ]

    def __str__(self):
        return self.number

    def as_record(self) -> dict:
        """As the exchange file and the API give it (its set and rarity held or joined)."""
        return {
            "set": self.set.code,
            "number": self.number,
            "rarity": self.rarity.slug if self.rarity_id else None,
            "image": self.image,
            "artist": self.artist,
            "flavour": self.flavour,
        }


class Face(OfCardOrLeader):
    """Another face of a card or a leader (a ruler's J-ruler, the back of a double-faced
    chant): its own name, types, cost, colours, keywords, stats and text. Rules read its
    keywords and types as its card's too (the engine's CardInfo; the database through
    `face_keyword_q`)."""

    name = models.CharField(max_length=120, validators=[one_line])
    types = models.JSONField(default=list, blank=True, help_text='Card type slugs: ["j-ruler"].')
    cost = models.JSONField(default=dict, blank=True)
    colours = models.JSONField(default=list, blank=True, help_text="Colour slugs beside the cost.")
    keywords = models.JSONField(default=list, blank=True, help_text="Keyword names.")
    stats = models.JSONField(default=dict, blank=True)
    text = models.TextField(blank=True, validators=[several_lines])

    class Meta(OfCardOrLeader.Meta):
        ordering = ["position", "pk"]
        constraints = [
            *OfCardOrLeader.Meta.constraints,
            models.CheckConstraint(condition=~Q(name=""), name="face_name_not_empty"),
        ]
        indexes = [
            *OfCardOrLeader.Meta.indexes,
            models.Index(Lower("name"), "game", name="face_name_lower"),
        ]

    def __str__(self):
        return self.name

    def as_record(self) -> dict:
        return {
            "name": self.name,
            "types": list(self.types),
            "cost": dict(self.cost),
            "colours": list(self.colours),
            "keywords": list(self.keywords),
            "stats": dict(self.stats),
            "text": self.text,
        }


class Art(models.Model):
    """A picture of a printing or a leader, kept as renditions made once, at upload (cards.art):
    each width of cards.art.WIDTHS that the original reaches, as WebP and as a fallback (JPEG,
    or PNG for a picture with transparency). Its files are named by the SHA-256 of the original
    (`art/ab/<digest>-<size>.<ext>`): the same picture is stored once, and a name never changes
    its content, so its files may be cached forever. A row never changes once made, and is kept
    (PROTECT) while a printing or leader shows it."""

    digest = models.CharField(
        max_length=64, unique=True, editable=False, help_text="SHA-256 of the original file."
    )
    width = models.PositiveIntegerField(editable=False, help_text="Of the original, upright.")
    height = models.PositiveIntegerField(editable=False)
    fallback = models.CharField(
        max_length=4, choices=[("jpg", "JPEG"), ("png", "PNG")], editable=False
    )
    renditions = models.JSONField(
        default=list,
        editable=False,
        help_text='Each {"size", "width", "height"}, narrowest first.',
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "art"
        constraints = [
            models.CheckConstraint(condition=~Q(digest=""), name="art_digest_not_empty"),
            models.CheckConstraint(
                condition=Q(fallback__in=["jpg", "png"]), name="art_fallback_jpg_or_png"
            ),
            models.CheckConstraint(
                condition=Q(width__gte=1, height__gte=1), name="art_width_and_height"
            ),
        ]

    def __str__(self):
        return f"{self.digest[:12]} ({self.width}×{self.height})"

    def file_name(self, size: str, ext: str) -> str:
        return f"art/{self.digest[:2]}/{self.digest}-{size}.{ext}"

    def url(self, size: str, ext: str) -> str:
        return default_storage.url(self.file_name(size, ext))

    def srcset(self, ext: str) -> str:
        """`<url> 160w, <url> 320w, ...`: each rendition in format `ext`."""
        return ", ".join(f"{self.url(r['size'], ext)} {r['width']}w" for r in self.renditions)

    @property
    def largest(self) -> dict:
        return self.renditions[-1]

    def largest_url(self) -> str:
        """The largest rendition, in the fallback format (any browser or client reads it)."""
        return self.url(self.largest["size"], self.fallback)


def face_keyword_q(name: str) -> Q:
    """Cards one of whose other faces has the keyword `name` (any case): its JSON list holds
    the name in quotes (a name's own quotes and backslashes are escaped there as here)."""
    quoted = json.dumps(name, ensure_ascii=False)
    return Q(Exists(Face.objects.filter(card=OuterRef("pk"), keywords__icontains=quoted)))


def printed_in_q(set_ids, owner: str = "card") -> Q:
    """Cards (`owner` "leader": leaders) with a printing in one of the sets `set_ids`."""
    return Q(Exists(Printing.objects.filter(set_id__in=list(set_ids), **{owner: OuterRef("pk")})))


# --- the rules reference: sections, glossary, rulings ---------------------------------------
# Numbers, parsing and rendering are cards.rulebook (pure); cards.services.import_rules writes.

SECTION_NUMBER_HELP = "Like 3, 3.1 or 3.1.2 (a letter may end it: 100.1a)."


def section_href(game_slug: str, number: str, anchor: str) -> str:
    """Where a section is read: the page of its first part, at its anchor."""
    page = rulebook.page_number(number)
    return reverse("rule-section", kwargs={"game": game_slug, "number": page}) + "#" + anchor


def section_hrefs(game_slug: str, anchors) -> dict[str, str]:
    """{number: href} for (number, anchor) pairs; each page's address is reversed once."""
    pages, hrefs = {}, {}
    for number, anchor in anchors:
        page = rulebook.page_number(number)
        if page not in pages:
            pages[page] = section_href(game_slug, page, "")
        hrefs[number] = pages[page] + anchor
    return hrefs


def section_links(game) -> dict[str, str]:
    """{number: href} of every current section of the game, for cross-links."""
    rows = RuleSection.objects.live().filter(game=game).values_list("number", "anchor")
    return section_hrefs(game.slug, rows)


def free_anchor(game, base: str) -> str:
    """`base`, or `base` suffixed if another section of `game` has it."""
    taken = set(
        RuleSection.objects.filter(game=game, anchor__startswith=base).values_list(
            "anchor", flat=True
        )
    )
    return rulebook.unique_anchor(base, taken)


# How PostgreSQL stems each language's rules ("devotion" finds "Devotion", "героя" "Герои").
SEARCH_CONFIGS = {"en": "english", "ru": "russian"}
SEARCH_MAX_LENGTH = 200
# Marks around matched words in a PostgreSQL headline; turned into <mark> after escaping.
_MARK_START, _MARK_STOP = "\ue000", "\ue001"
_MARKED = re.compile(f"{_MARK_START}(.*?){_MARK_STOP}", re.S)
SNIPPET_CHARS = 220


# Tags of sanitised HTML (cards.rulebook) as a snippet drops them: inline ones go without a trace
# ("see <a>4.2</a>)" -> "see 4.2)"), the others leave a space between the words they separate.
# The same patterns serve PostgreSQL (regexp_replace) and Python.
_INLINE_TAG = r"</?(a|abbr|b|code|del|em|i|kbd|s|span|strong|sub|sup|u)(\s[^>]*)?>"
_ANY_TAG = r"<[^>]*>"


def _plain_text(body_html: str) -> str:
    """Sanitised HTML -> plain text, whitespace collapsed (tags removed, entities decoded)."""
    text = re.sub(_ANY_TAG, " ", re.sub(_INLINE_TAG, "", body_html or ""))
    text = html.unescape(strip_tags(text))
    return " ".join(text.replace(_MARK_START, "").replace(_MARK_STOP, "").split())


def _search_words(text: str) -> list[str]:
    return list(dict.fromkeys(w.casefold() for w in re.findall(r"\w+", text or "")))


def highlight(text: str, words) -> SafeString:
    """Escape plain `text` and wrap each occurrence of `words` (any case) in <mark>."""
    words = sorted(set(words), key=len, reverse=True)
    if not words:
        return mark_safe(html.escape(text))
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    out, position = [], 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[position : match.start()]))
        out.append(f"<mark>{html.escape(match.group())}</mark>")
        position = match.end()
    out.append(html.escape(text[position:]))
    return mark_safe("".join(out))


def _window(text: str, words, length: int = SNIPPET_CHARS) -> str:
    """About `length` characters of `text` around the first of `words`, cut at spaces."""
    lowered = text.casefold()
    hits = [i for i in (lowered.find(w) for w in words) if i >= 0]
    start = max(0, min(hits) - length // 3) if hits else 0
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < start + 30 else start
    end = start + length
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    return ("… " if start else "") + text[start:end] + (" …" if end < len(text) else "")


def _ranked(sections, matches: Q, rank, defined: str | None):
    """The `sections` that `matches` finds, best `rank` first, and section `defined` after them
    unless it is among them (RuleSectionQuerySet.search)."""
    if defined:
        rank = Case(When(matches, then=rank), default=Value(0.0), output_field=FloatField())
        matches |= Q(number=defined)
    return sections.filter(matches).annotate(rank=rank).order_by("-rank", "sort_key")


class RuleSectionQuerySet(models.QuerySet):
    def live(self):
        """Sections of the current rules (not obsolete: a re-import no longer had them)."""
        return self.filter(obsolete_since__isnull=True)

    def search(self, text: str, language: str = "en", *, defined: str | None = None):
        """Sections matching `text`, best first, each annotated with `rank`.

        PostgreSQL: full-text search of the stored `search_vector` (title weighted A, body B,
        English stemming), ranked by SearchRank, with a SearchHeadline (`headline`) made from
        the plain text of the sanitised body. SQLite: every word in the title or body
        (icontains), ranked by words (and the whole phrase) found in the title first.
        `snippet(section, text)` turns either into safe HTML with only <mark> added.

        `defined`: the number of the section defining the glossary term `text` names (by an
        alias too: "героя" in rules written in English). The words may miss it: it is found
        anyway, after the sections they find (rank 0), whose order it leaves as it is.
        """
        words = _search_words(text)
        if not words:
            return self.none()
        try:  # a rule's number ("702.19", "5.4."): that rule first, whatever else matches
            number = rulebook.normalise_number(text)
        except ValueError:
            number = None
        first = Case(
            When(number=number or "", then=Value(100.0)),
            default=Value(0.0),
            output_field=FloatField(),
        )
        if connection.vendor == "postgresql":
            config = SEARCH_CONFIGS.get(language, "simple")
            query = SearchQuery(text, search_type="websearch", config=config)
            text_only = Func(
                F("body_html"),
                Value(_INLINE_TAG),
                Value(""),
                Value("gi"),
                function="regexp_replace",
                output_field=models.TextField(),
            )
            plain = Func(
                text_only,
                Value(_ANY_TAG),
                Value(" "),
                Value("g"),
                function="regexp_replace",
                output_field=models.TextField(),
            )
            matches = Q(search_vector=query) | Q(number=number or "")  # "" never matches
            return _ranked(
                self, matches, SearchRank(F("search_vector"), query) + first, defined
            ).annotate(
                headline=SearchHeadline(
                    plain,
                    query,
                    config=config,
                    start_sel=_MARK_START,
                    stop_sel=_MARK_STOP,
                    max_words=35,
                    min_words=15,
                    max_fragments=2,
                    fragment_delimiter=" … ",
                ),
            )
        # SQLite: its LIKE folds ASCII letters only, so both sides are folded in Python
        # (`casefold`, registered on each connection by cards.apps): "Герои" finds "герои".
        found = self.annotate(
            folded_title=Func(F("title"), function="casefold"),
            folded_body=Func(F("body"), function="casefold"),
        )
        condition = Q()
        rank = Case(
            When(folded_title__contains=" ".join(words), then=Value(2.0)),
            default=Value(0.0),
            output_field=FloatField(),
        )
        for word in words:
            condition &= Q(folded_title__contains=word) | Q(folded_body__contains=word)
            rank += Case(
                When(folded_title__contains=word, then=Value(1.0)),
                default=Value(0.1),
                output_field=FloatField(),
            )
        if number:
            condition |= Q(number=number)
        return _ranked(found, condition, rank + first, defined)

    def subtree(self, number: str, chapters: bool = False):
        """Section `number` (normalised) and all its descendants, by sort key: one query."""
        return self.filter(subtree_q(number, chapters))

    def tree(self) -> list["RuleSection"]:
        """The sections (one query) as a tree; see `as_tree`."""
        return as_tree(self.order_by("sort_key"))


def subtree_q(number: str, chapters: bool = False) -> Q:
    """Condition for section `number` and its descendants (their sort keys extend its own)."""
    key = rulebook.sort_key(number, chapters)
    return Q(sort_key=key) | Q(sort_key__startswith=key + ".")


def ancestor_numbers(number: str, chapters: bool = False) -> list[str]:
    """'5.5.1' -> ['5', '5.5']; chaptered '100.1' -> ['1', '100']."""
    ancestors, parent = [], rulebook.parent_number(number, chapters)
    while parent:
        ancestors.insert(0, parent)
        parent = rulebook.parent_number(parent, chapters)
    return ancestors


def as_tree(sections) -> list["RuleSection"]:
    """Sections in rule order as a forest, without queries: each gets `nodes`, its children in
    order, and the roots (sections whose parent is not among them) come back in order."""
    sections = list(sections)
    by_pk = {s.pk: s for s in sections}
    roots = []
    for section in sections:
        section.nodes = []
    for section in sections:
        parent = by_pk.get(section.parent_id)
        (parent.nodes if parent else roots).append(section)
    return roots


def snippet(section: "RuleSection", text: str) -> SafeString:
    """The search snippet of a section found by `RuleSectionQuerySet.search(text)`: plain text
    of the sanitised body, escaped, with the matched words in <mark> (nothing else)."""
    headline = getattr(section, "headline", None)
    if headline is not None:
        # The headline is cut from the tag-stripped body: decode entities, then escape.
        def clean(segment: str) -> str:
            segment = segment.replace(_MARK_START, "").replace(_MARK_STOP, "")
            return html.escape(re.sub(r"\s+", " ", html.unescape(segment)), quote=False)

        parts, position = [], 0
        for match in _MARKED.finditer(headline):
            parts.append(clean(headline[position : match.start()]))
            parts.append(f"<mark>{clean(match[1])}</mark>")
            position = match.end()
        parts.append(clean(headline[position:]))
        return mark_safe("".join(parts).strip())
    words = _search_words(text)
    return highlight(_window(_plain_text(section.body_html), words), words)


class RuleSection(models.Model):
    """One numbered section of a game's rules; its parent is the section of its number minus
    the last part (3.1.2 -> 3.1). The anchor is set once, when the section is created, and
    never changes afterwards, so links to it survive renumbering and re-imports."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rule_sections")
    number = models.CharField(max_length=40, help_text=SECTION_NUMBER_HELP)
    sort_key = models.CharField(max_length=64, editable=False)  # indexed with game, below
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="children",
        editable=False,
    )
    depth = models.PositiveSmallIntegerField(default=1, editable=False)
    anchor = models.SlugField(
        max_length=80,
        blank=True,
        allow_unicode=True,
        help_text="Set once (from the number, or the title of a section numbered by position); "
        "links depend on it.",
    )
    title = models.CharField(max_length=200, blank=True, validators=[one_line])
    body = models.TextField(blank=True, help_text="Markdown.", validators=[several_lines])
    body_html = models.TextField(blank=True, editable=False)
    # PostgreSQL only: title (weight A) and body (B), kept by a trigger (migration 0006).
    search_vector = SearchVectorField(null=True, editable=False)
    updated = models.DateTimeField(auto_now=True)
    obsolete_since = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="When a re-import no longer had it: kept at its address with a notice, out of "
        "the contents and search (import_rules --prune deletes it).",
    )

    objects = RuleSectionQuerySet.as_manager()

    class Meta:
        ordering = ["game", "sort_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "number"],
                condition=Q(obsolete_since__isnull=True),
                name="rule_section_unique_number",
            ),
            models.UniqueConstraint(fields=["game", "anchor"], name="rule_section_unique_anchor"),
            models.CheckConstraint(condition=~Q(number=""), name="rule_section_number_not_empty"),
            models.CheckConstraint(condition=~Q(anchor=""), name="rule_section_anchor_not_empty"),
        ]
        indexes = [models.Index(fields=["game", "sort_key"], name="rule_section_game_sort")]

    def __str__(self):
        return f"{self.number} {self.display_title}"

    @property
    def display_title(self) -> str:
        """The title, or else the start of the body (numbered rules often have no title)."""
        return self.title or rulebook.excerpt(self.body) or f"Section {self.number}"

    @property
    def top_number(self) -> str:
        return rulebook.page_number(self.number)

    @property
    def number_anchor(self) -> str:
        """The anchor its number gives: an alias when the section has another anchor."""
        return rulebook.anchor_for(self.number)

    def get_absolute_url(self):
        return reverse("rule-section", kwargs={"game": self.game.slug, "number": self.number})

    def permalink(self) -> str:
        """The page of its first part, at this section's anchor."""
        return section_href(self.game.slug, self.number, self.anchor)

    def clean(self):
        try:
            self.number = rulebook.normalise_number(self.number)
        except ValueError as e:
            raise ValidationError({"number": str(e)}) from None
        if not self.game_id:
            return
        others = RuleSection.objects.filter(game_id=self.game_id)
        if self.pk:
            others = others.exclude(pk=self.pk)
        parent = rulebook.parent_number(self.number, self.game.rules_chapters)
        if parent and not others.live().filter(number=parent).exists():
            raise ValidationError({"number": f"Add section {parent} first."})
        if self.pk:
            old = RuleSection.objects.filter(pk=self.pk).values_list("number", flat=True).first()
            if old and old != self.number and self.children.exists():
                raise ValidationError(
                    {"number": "Renumber or move its subsections first: they hang under it."}
                )
        if not self.anchor:
            self.anchor = free_anchor(self.game, rulebook.anchor_for(self.number))
        elif others.filter(anchor=self.anchor).exists():
            raise ValidationError({"anchor": "Another section of this game has this anchor."})

    def derive(self, *, chapters: bool, links: dict[str, str] | None) -> str | None:
        """Set what follows from the number and body (sort key, depth, and the HTML with
        cross-links from `links`, {number: href}; None keeps the HTML); return the parent's
        number."""
        self.sort_key = rulebook.sort_key(self.number, chapters)
        self.depth = rulebook.depth(self.number, chapters)
        if links is not None:
            self.body_html = rulebook.render_markdown(self.body, links)
        return rulebook.parent_number(self.number, chapters)

    def save(self, *args, links=None, **kwargs):
        """Derive sort key, depth and parent from the number, set the anchor once, and render
        the body (cross-links from `links`, {number: href}, or else from the database)."""
        if links is None:
            links = section_links(self.game)
        parent = self.derive(chapters=self.game.rules_chapters, links=links)
        if parent is None:
            self.parent = None
        elif self.parent_id is None or self.parent.number != parent:
            self.parent = (
                RuleSection.objects.live().filter(game_id=self.game_id, number=parent).first()
            )
        if not self.anchor:
            self.anchor = free_anchor(self.game, rulebook.anchor_for(self.number))
        super().save(*args, **kwargs)


class GlossaryTerm(models.Model):
    """A word of the rules, its other names (English and Russian) and the section defining it."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="glossary_terms")
    term = models.CharField(max_length=120, validators=[one_line])
    slug = models.SlugField(max_length=120, allow_unicode=True, blank=True)
    aliases = models.JSONField(
        default=list, blank=True, help_text='Other names, e.g. ["Waiting zone", "зона Ожидания"].'
    )
    definition = models.TextField(help_text="Markdown, short.", validators=[several_lines])
    definition_html = models.TextField(blank=True, editable=False)
    section = models.ForeignKey(
        RuleSection,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="glossary_terms",
        help_text="The section that defines the term.",
    )

    class Meta:
        ordering = ["game", "term"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="glossary_term_unique_slug"),
            models.UniqueConstraint(Lower("term"), "game", name="glossary_term_unique_term"),
            models.CheckConstraint(condition=~Q(term=""), name="glossary_term_not_empty"),
            models.CheckConstraint(condition=~Q(slug=""), name="glossary_slug_not_empty"),
        ]

    def __str__(self):
        return self.term

    def clean(self):
        if not self.slug:
            self.slug = slugify(self.term, allow_unicode=True)
        aliases = self.aliases if self.aliases is not None else []
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise ValidationError({"aliases": 'A list of names, e.g. ["Waiting zone"].'})
        self.aliases = list(dict.fromkeys(a.strip() for a in aliases if a.strip()))
        if self.section_id and self.game_id and self.section.game_id != self.game_id:
            raise ValidationError({"section": "This section belongs to another game."})

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.term, allow_unicode=True)
        self.definition_html = rulebook.render_markdown(self.definition, section_links(self.game))
        super().save(*args, **kwargs)


class Ruling(models.Model):
    """An official answer about one card."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="rulings")
    question = models.TextField()
    answer = models.TextField()
    source = models.CharField(
        max_length=300, blank=True, help_text="Where it comes from: text or URL."
    )
    date = models.DateField()

    class Meta:
        ordering = ["date", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(question=""), name="ruling_question_not_empty"),
        ]

    def __str__(self):
        return f"{self.card}: {self.question[:60]}"
