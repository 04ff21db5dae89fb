"""The card filters, shared by the card browser page and the API (one definition for both)."""

import django_filters
from django import forms
from django.db.models import F, Q
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from .models import Card, Game, Keyword, Leader

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
    for stat in game.stats.all():
        value = F(f"stats__{stat.slug}")
        sorts[stat.slug] = (value.asc(nulls_last=True), f"{stat.name}, low first")
        sorts[f"-{stat.slug}"] = (value.desc(nulls_last=True), f"{stat.name}, high first")
    return sorts


class SlugOrNameChoiceField(forms.CharField):
    """A keyword given by slug ("priory-of-hope") or by name ("Priory of Hope"), any case."""

    def __init__(self, *args, queryset=None, **kwargs):
        self.queryset = queryset
        super().__init__(*args, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        found = self.queryset.filter(Q(slug__iexact=value) | Q(name__iexact=value)).first()
        if found is None:
            # The value goes in params, never into the message itself: django-filter formats
            # every message with `%`, and a `%` in the value would break that (a 500).
            raise forms.ValidationError(
                "Unknown value %(value)r.", code="invalid_choice", params={"value": value}
            )
        return found


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
    faction = SlugOrNameFilter(method="filter_keyword", label="Faction")
    keyword = SlugOrNameFilter(method="filter_keyword", label="Keyword")
    leader = SlugOrNameFilter(method="filter_leader", label="Usable by leader")
    # Not "format": DRF reads that query parameter as the response format (?format=json).
    in_format = django_filters.ChoiceFilter(
        method="filter_format", label="Format of the leader filter (default: the game's)"
    )
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

    def __init__(self, data=None, queryset=None, *, game: Game, **kwargs):
        super().__init__(data, queryset, **kwargs)
        for copied in self.filters.values():  # a form field built before (e.g. by the API
            copied.__dict__.pop("_field", None)  # schema) would not see this game's choices
        self.game = game
        self.sorts = {**SORTS, **stat_sorts(game)}
        self.filters["sort"].extra["choices"] = [(k, label) for k, (_, label) in self.sorts.items()]
        self.filters["type"].extra["choices"] = [(t.slug, t.name) for t in game.card_types.all()]
        self.filters["in_format"].extra["choices"] = [(f.slug, f.name) for f in game.formats.all()]
        # Labels in the game's words (error summaries name the fields by them).
        self.filters["colour"].label = game.colour_label or "Colour"
        self.filters["leader"].label = f"Usable by {(game.leader_label or 'leader').lower()}"
        self.filters["cost_min"].label = f"{game.cost_label} from"
        self.filters["cost_max"].label = f"{game.cost_label} to"
        for stat in game.stats.all():  # a range per stat: atk_min / atk_max
            for end, lookup in (("min", "gte"), ("max", "lte")):
                self.filters[f"{stat.slug}_{end}"] = IntegerFilter(
                    field_name=f"stats__{stat.slug}",
                    lookup_expr=lookup,
                    label=f"{stat.name} {'from' if end == 'min' else 'to'}",
                    min_value=0,
                )
        colours = list(game.colours.all())
        self.filters["colour"].extra["choices"] = [
            (c.slug, f"{c.symbol} {c.name}") for c in colours
        ] + [(COLOURLESS, "◇ Colourless")]
        self.filters["rarity"].extra["choices"] = [(r.slug, r.name) for r in game.rarities.all()]
        keywords = Keyword.objects.filter(game=game)
        self.filters["faction"].extra["queryset"] = keywords.filter(is_faction=True)
        self.filters["keyword"].extra["queryset"] = keywords
        self.filters["leader"].extra["queryset"] = Leader.objects.filter(game=game)

    def filter_q(self, queryset, name, value):
        return queryset.search(value)

    def filter_colour(self, queryset, name, value: str):
        if not value:
            return queryset
        colours = [c for c in self.game.colours.all() if c.slug in value]
        return queryset.with_any_colour(colours, include_colourless=COLOURLESS in value)

    def filter_keyword(self, queryset, name, value):
        return queryset.with_keyword(value) if value else queryset

    def filter_leader(self, queryset, name, value):
        if not value:
            return queryset
        slug = self.form.cleaned_data.get("in_format")
        formats = list(self.game.formats.all())
        fmt = next((f for f in formats if f.slug == slug), None) or self.game.default_format()
        return queryset.usable_by(value, fmt)

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
        keywords = list(Keyword.objects.filter(game=self.game))
        keys = [k for k in self.filters if k not in ("sort", "in_format", *exclude)]
        return {
            "type_options": [
                {"value": t.slug, "type": t, "checked": t.slug in chosen_types}
                for t in self.game.card_types.all()
            ],
            "stat_fields": [
                (stat, self.form[f"{stat.slug}_min"], self.form[f"{stat.slug}_max"])
                for stat in self.game.stats.all()
            ],
            "colour_options": [
                {"value": c.slug, "colour": c, "checked": c.slug in chosen_colours}
                for c in self.game.colours.all()
            ]
            + [{"value": COLOURLESS, "colour": None, "checked": COLOURLESS in chosen_colours}],
            "rarity_options": [
                {"value": r.slug, "rarity": r, "checked": r.slug in chosen_rarities}
                for r in self.game.rarities.all()
            ],
            "factions": [k for k in keywords if k.is_faction],
            "keywords": keywords,
            "sorts": self.form.fields["sort"].choices,
            "current_sort": data.get("sort") or "name",
            "active_filters": sum(1 for key in keys if any(v.strip() for v in data.getlist(key))),
        }

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
