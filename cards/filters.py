"""The card filters, shared by the card browser page and the API (one definition for both)."""

import difflib
import re

import django_filters
from django import forms
from django.db.models import Case, F, IntegerField, Q, Value, When
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from . import vocabulary
from .models import Card, Game, Keyword, Leader, printed_in_q

COLOURLESS = "colourless"

SORTS = {
    "name": ("name", "Name A–Z"),
    "-name": ("-name", "Name Z–A"),
    "cost": ("total_cost", "Cost, low first"),
    "-cost": ("-total_cost", "Cost, high first"),
    "rarity": ("rarity__position", "Rarity, common first"),
    "-rarity": ("-rarity__position", "Rarity, rare first"),
    "type": ("type__position", "Type"),
}


def stat_sorts(game: Game) -> dict[str, tuple]:
    """Sorting by each stat of the game, cards without it last: {key: (ordering, label)}."""
    sorts = {}
    for stat in game.stat_list:
        value = F(f"stats__{stat.slug}")
        sorts[stat.slug] = (value.asc(nulls_last=True), f"{stat.name}, low first")
        sorts[f"-{stat.slug}"] = (value.desc(nulls_last=True), f"{stat.name}, high first")
    return sorts


# How many names an "ambiguous" or "did you mean" message lists at most.
NAMES_LISTED = 8
# How many rows a name lookup reads at most (enough to tell one name from several).
LOOKUP_ROWS = 50


def _name_list(names: list[str], more: bool = False) -> str:
    shown = names[:NAMES_LISTED]
    return ", ".join(shown) + ("…" if more or len(names) > NAMES_LISTED else "")


def find_by_name(queryset, value: str, *, noun: str, plural: str | None = None) -> list:
    """The rows of `queryset` (with `slug` and `name`) that `value` names: its slug or its name
    (a card's or leader's, or one of its other faces') in any case, else the one name it is the
    start of (all rows bearing that name: the same name may exist in several games). One
    query; a second, for suggestions, when none matches.

    Raises a ValidationError (code "invalid_choice") that says what went wrong: several names
    start with the value (they are listed), or none does (close names are suggested)."""
    plural = plural or f"{noun}s"
    exact = Q(slug__iexact=value) | Q(name__iexact=value)
    starts = Q(name__istartswith=value)
    if hasattr(queryset.model, "faces"):  # a card or leader: the names of its other faces too
        exact |= Q(faces__name__iexact=value)
        starts |= Q(faces__name__istartswith=value)
        queryset = queryset.distinct()
    rows = list(
        queryset.filter(exact | starts)
        .annotate(
            inexact=Case(When(exact, then=Value(0)), default=Value(1), output_field=IntegerField())
        )
        .order_by("inexact", "name", "pk")[:LOOKUP_ROWS]
    )
    found = [row for row in rows if not row.inexact]
    if found:
        return found
    names = list(dict.fromkeys(row.name for row in rows))  # in order, without repeats
    if len(names) == 1:
        return rows
    # The value and names go in params, never into the message itself: django-filter formats
    # every message with `%`, and a `%` in them would break that (a 500).
    if names:
        raise forms.ValidationError(
            "%(value)r matches several %(plural)s: %(names)s. Type more of the name.",
            code="invalid_choice",
            params={
                "value": value,
                "plural": plural,
                "names": _name_list(names, more=len(rows) == LOOKUP_ROWS),
            },
        )
    every = {name.casefold(): name for name in queryset.values_list("name", flat=True)}
    close = difflib.get_close_matches(value.casefold(), list(every), n=3, cutoff=0.6)
    contained = [  # names holding the value, e.g. "seed" for "Plant A Seed"
        k for k in sorted(every) if len(value) > 2 and value.casefold() in k and k not in close
    ]
    guesses = [every[k] for k in close + contained][:NAMES_LISTED]
    if guesses:
        raise forms.ValidationError(
            "Unknown %(noun)s %(value)r. Did you mean %(names)s?",
            code="invalid_choice",
            params={
                "noun": noun,
                "value": value,
                "names": " or ".join([", ".join(guesses[:-1]), guesses[-1]])
                if len(guesses) > 1
                else guesses[0],
            },
        )
    raise forms.ValidationError(
        "Unknown %(noun)s %(value)r.", code="invalid_choice", params={"noun": noun, "value": value}
    )


class SlugOrNameChoiceField(forms.CharField):
    """A keyword (or leader) given by slug ("priory-of-hope"), by name ("Priory of Hope"), any
    case, or by the start of one name ("prio"): see find_by_name."""

    def __init__(self, *args, queryset=None, noun="value", plural=None, **kwargs):
        self.queryset, self.noun, self.plural = queryset, noun, plural
        kwargs.setdefault("max_length", 200)
        super().__init__(*args, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        return find_by_name(self.queryset, value, noun=self.noun, plural=self.plural)[0]


@extend_schema_field(OpenApiTypes.STR)
class SlugOrNameFilter(django_filters.Filter):
    field_class = SlugOrNameChoiceField


class IntegerFilter(django_filters.NumberFilter):
    """A whole number (a JSON key lookup cannot take the Decimal of NumberFilter), at most
    SQLite's largest integer: a larger one would not be an empty result but an OverflowError."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(*args, **kwargs)


class CardFilterForm(forms.Form):
    """The filters' form: each range (cost_min/cost_max, and atk_min/atk_max for each stat)
    must not run backwards. The error goes on the range's low end."""

    def clean(self):
        data = super().clean()
        for name in self.fields:
            if not name.endswith("_min"):
                continue
            high_name = f"{name[:-4]}_max"
            low, high = data.get(name), data.get(high_name)
            if low is not None and high is not None and low > high:
                self.add_error(
                    name,
                    forms.ValidationError(
                        "From %(low)s is more than To %(high)s: swap them or clear one.",
                        code="inverted_range",
                        params={"low": low, "high": high},
                    ),
                )
        return data


class CardFilter(django_filters.FilterSet):
    """Filters of one game's card list; choices come from that game's vocabulary."""

    q = django_filters.CharFilter(method="filter_q", label="Search")
    colour = django_filters.MultipleChoiceFilter(
        method="filter_colour", label="Colour", widget=forms.CheckboxSelectMultiple
    )
    type = django_filters.MultipleChoiceFilter(
        field_name="type__slug",
        label="Type",
        widget=forms.CheckboxSelectMultiple,
        distinct=False,
    )
    rarity = django_filters.MultipleChoiceFilter(
        field_name="rarity__slug",
        label="Rarity",
        widget=forms.CheckboxSelectMultiple,
        distinct=False,  # a foreign key: no duplicate rows to remove
    )
    set = django_filters.MultipleChoiceFilter(
        method="filter_printed", label="Set", widget=forms.CheckboxSelectMultiple
    )
    group = django_filters.MultipleChoiceFilter(
        method="filter_printed", label="Set group", widget=forms.CheckboxSelectMultiple
    )
    faction = SlugOrNameFilter(method="filter_keyword", label="Faction", noun="faction")
    keyword = SlugOrNameFilter(method="filter_keyword", label="Keyword", noun="keyword")
    leader = SlugOrNameFilter(method="filter_leader", label="Usable by leader")
    # Not "format": DRF reads that query parameter as the response format (?format=json).
    in_format = django_filters.ChoiceFilter(
        method="filter_format", label="Format of the leader filter (default: the game's)"
    )
    # A format's slug: the cards legal (or limited) there, or banned there, today.
    legal = django_filters.ChoiceFilter(method="filter_standing", label="Legal in")
    banned = django_filters.ChoiceFilter(method="filter_standing", label="Banned in")
    cost_min = django_filters.NumberFilter(field_name="total_cost", lookup_expr="gte", min_value=0)
    cost_max = django_filters.NumberFilter(field_name="total_cost", lookup_expr="lte", min_value=0)
    sort = django_filters.ChoiceFilter(
        method="filter_sort",
        label="Sort",
        choices=[(key, label) for key, (_, label) in SORTS.items()],
        empty_label=None,
    )

    class Meta:
        model = Card
        fields = []
        form = CardFilterForm

    def __init__(self, data=None, queryset=None, *, game: Game, **kwargs):
        super().__init__(data, queryset, **kwargs)
        # Each filter made anew from its declaration: a copy of the class's filter keeps the
        # form field it built (the API schema builds them), with another game's choices.
        self.filters = {name: self._fresh(f) for name, f in self.filters.items()}
        self.game = game
        self.sorts = {**SORTS, **stat_sorts(game)}
        self.filters["sort"].extra["choices"] = [(k, label) for k, (_, label) in self.sorts.items()]
        self.filters["type"].extra["choices"] = [(t.slug, t.name) for t in game.type_list]
        self.filters["in_format"].extra["choices"] = [(f.slug, f.name) for f in game.format_list]
        for name in ("legal", "banned"):
            self.filters[name].extra["choices"] = [(f.slug, f.name) for f in game.format_list]
            self.filters[name].extra["error_messages"] = {
                # django-filter formats messages with %: a game's name must not add any.
                "invalid_choice": "%(value)r is not a format of "
                + game.name.replace("%", "%%")
                + "."
            }
        # Labels in the game's words (error summaries name the fields by them).
        self.filters["colour"].label = game.colour_label or "Colour"
        leader_noun = (game.leader_label or "leader").lower()
        self.filters["leader"].label = f"Usable by {leader_noun}"
        self.filters["leader"].extra["noun"] = leader_noun
        self.filters["leader"].extra["plural"] = (game.leaders_name or "leaders").lower()
        self.filters["cost_min"].label = f"{game.cost_label} from"
        self.filters["cost_max"].label = f"{game.cost_label} to"
        for stat in game.stat_list:  # a range per stat: atk_min / atk_max
            for end, lookup in (("min", "gte"), ("max", "lte")):
                self.filters[f"{stat.slug}_{end}"] = IntegerFilter(
                    field_name=f"stats__{stat.slug}",
                    lookup_expr=lookup,
                    label=f"{stat.name} {'from' if end == 'min' else 'to'}",
                    min_value=0,
                )
        colours = game.colour_list
        self.filters["colour"].extra["choices"] = [
            (c.slug, f"{c.symbol} {c.name}") for c in colours
        ] + [(COLOURLESS, "◇ Colourless")]
        self.filters["rarity"].extra["choices"] = [(r.slug, r.name) for r in game.rarity_list]
        # Sets by code, any case (a code as printed: CMF, VIN001).
        sets = game.set_list
        self.filters["set"].extra["choices"] = [(s.code.lower(), s.name) for s in sets] + [
            (s.code, s.name) for s in sets if s.code != s.code.lower()
        ]
        groups = dict.fromkeys(s.group for s in sets if s.group)
        self.filters["group"].extra["choices"] = [(g, g) for g in groups]
        keywords = Keyword.objects.filter(game=game)
        self.filters["faction"].extra["queryset"] = keywords.filter(is_faction=True)
        self.filters["keyword"].extra["queryset"] = keywords
        self.filters["leader"].extra["queryset"] = Leader.objects.filter(game=game)

    def _fresh(self, declared):
        fresh = type(declared)(
            field_name=declared.field_name,
            lookup_expr=declared.lookup_expr,
            label=declared.label,
            method=declared.method,
            distinct=declared.distinct,
            exclude=declared.exclude,
            **declared.extra,  # the filterset's own copy of the class's filter
        )
        fresh.model, fresh.parent = declared.model, self
        return fresh

    def filter_q(self, queryset, name, value):
        return queryset.search(value, vocabulary.lexicon(self.game))

    def filter_colour(self, queryset, name, value: str):
        if not value:
            return queryset
        colours = [c for c in self.game.colour_list if c.slug in value]
        return queryset.with_any_colour(colours, include_colourless=COLOURLESS in value)

    def filter_printed(self, queryset, name, value: str):
        """Cards with a printing in one of the sets (by code) or set groups chosen."""
        if not value:
            return queryset
        wanted = {v.lower() for v in value} if name == "set" else set(value)
        ids = [
            s.pk
            for s in self.game.set_list
            if (s.code.lower() if name == "set" else s.group) in wanted
        ]
        return queryset.filter(printed_in_q(ids))

    def filter_keyword(self, queryset, name, value):
        return queryset.with_keyword(value) if value else queryset

    def filter_leader(self, queryset, name, value):
        if not value:
            return queryset
        slug = self.form.cleaned_data.get("in_format")
        formats = self.game.format_list
        fmt = next((f for f in formats if f.slug == slug), None) or self.game.default_format()
        # The leader with its colours, factions and loyalty, from the game's cached vocabulary
        # when the page attached it (else usable_by reads them).
        words = getattr(self.game, "words", None)
        return queryset.usable_by((words and words.leader(value.pk)) or value, fmt)

    def filter_standing(self, queryset, name, value: str):
        """`legal`: cards legal or limited in the format, today; `banned`: those banned there
        (legality.card_status, on the database: Card.objects.legal_in / banned_in)."""
        fmt = next((f for f in self.game.format_list if f.slug == value), None)
        if fmt is None:
            return queryset
        engine = fmt.engine()  # the version in force today
        if name == "legal":
            return queryset.legal_in(engine, self.game)
        return queryset.banned_in(engine, self.game)

    def filter_format(self, queryset, name, value: str):
        return queryset  # read by filter_leader

    def filter_sort(self, queryset, name, value):
        return queryset.order_by(self.sorts[value][0], "name") if value else queryset

    def form_options(self, exclude=()) -> dict:
        """What a filter form shows (templates/partials/card_filters.html): the choices with
        this request's picks, and how many of the filters (but `exclude`) are in use."""
        data = self.data
        chosen_colours, chosen_rarities = set(data.getlist("colour")), set(data.getlist("rarity"))
        chosen_types = set(data.getlist("type"))
        chosen_sets = {v.lower() for v in data.getlist("set")}
        chosen_groups = set(data.getlist("group"))
        keywords = self.game.keyword_list  # no query with the vocabulary attached
        keys = [k for k in self.filters if k not in ("sort", "in_format", *exclude)]
        return {
            "type_options": [
                {"value": t.slug, "type": t, "checked": t.slug in chosen_types}
                for t in self.game.type_list
            ],
            "stat_fields": [
                (stat, self.form[f"{stat.slug}_min"], self.form[f"{stat.slug}_max"])
                for stat in self.game.stat_list
            ],
            "colour_options": [
                {"value": c.slug, "colour": c, "checked": c.slug in chosen_colours}
                for c in self.game.colour_list
            ]
            + [{"value": COLOURLESS, "colour": None, "checked": COLOURLESS in chosen_colours}],
            "rarity_options": [
                {"value": r.slug, "rarity": r, "checked": r.slug in chosen_rarities}
                for r in self.game.rarity_list
            ],
            "set_options": [
                {"value": s.code.lower(), "set": s, "checked": s.code.lower() in chosen_sets}
                for s in self.game.set_list
            ],
            "group_options": [
                {"value": g, "checked": g in chosen_groups}
                for g in dict.fromkeys(s.group for s in self.game.set_list if s.group)
            ],
            "factions": [k for k in keywords if k.is_faction],
            "keywords": keywords,
            "formats": self.game.format_list,  # for "Legal in" and "Banned in"
            "chosen_standing": {name: data.get(name, "") for name in ("legal", "banned")},
            "sorts": self.form.fields["sort"].choices,
            "current_sort": data.get("sort") or "name",
            "active_filters": sum(1 for key in keys if any(v.strip() for v in data.getlist(key))),
            **self.named_choices(),
        }

    NAMED = ("faction", "keyword", "leader")

    def named_choices(self) -> dict:
        """What the faction, keyword and leader filters hold, for the form to show: `chosen`,
        the slug of the faction and the full names of the keyword and leader found (the text
        as typed where nothing was found); `read_as`, each text that was the start of a name
        (or a slug), with the field's label and the name it was read as."""
        found = getattr(self.form, "cleaned_data", {})
        chosen, read_as = {}, []
        for name in self.NAMED:
            typed = self.data.get(name, "").strip()
            match = found.get(name) if name not in self.form.errors else None
            if match is None:
                chosen[name] = typed
                continue
            chosen[name] = match.slug if name == "faction" else match.name
            if typed.casefold() not in (match.name.casefold(), match.slug):
                read_as.append(
                    {"label": self.filters[name].label, "typed": typed, "name": match.name}
                )
        return {"chosen": chosen, "read_as": read_as}

    @property
    def qs(self):
        queryset = super().qs
        if not self.form.cleaned_data.get("sort"):
            queryset = queryset.order_by("name")
        return queryset


class GameFilterBackend(DjangoFilterBackend):
    """Hands the view's game to the filterset, whose choices depend on it."""

    def get_filterset_kwargs(self, request, queryset, view):
        kwargs = super().get_filterset_kwargs(request, queryset, view)
        kwargs["game"] = view.game
        return kwargs


# Query parameters of card lists besides the filters: the page, the API's page size and format.
LIST_PARAMETERS = frozenset({"page", "page_size", "format"})
STAT_RANGE = re.compile(r"[-\w]+_(min|max)")


def reads(name: str) -> bool:
    """Whether a card list reads the query parameter `name` (cards.pagecache keeps only pages
    asked with parameters they read)."""
    return (
        name in CardFilter.base_filters
        or name in LIST_PARAMETERS
        or bool(STAT_RANGE.fullmatch(name))
    )
