"""REST API of the reference data: games, cards, leaders (read: anyone; write: staff), and the
rules reference: the tree of sections, one section, search and the glossary (read: anyone)."""

from django.core.exceptions import ValidationError
from django.db.models import Count
from django.db.models.functions import Lower
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.functional import cached_property
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.response import Response
from rest_framework.settings import api_settings

from . import art, filters, legality, rulebook, services, vocabulary
from .filters import CardFilter
from .legality import STATUSES  # the class body's `legality` is the field
from .models import (
    SEARCH_MAX_LENGTH,
    Card,
    CardSet,
    Colour,
    Format,
    Game,
    GlossaryTerm,
    Leader,
    Printing,
    Rarity,
    RuleSection,
    as_tree,
    rows_of,
    section_href,
    snippet,
    validate_cost,
    validate_stats,
)
from .pagecache import anonymous_page


class IsStaffOrReadOnly(permissions.BasePermission):
    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)


class ColourSerializer(serializers.ModelSerializer):
    class Meta:
        model = Colour
        fields = ["slug", "name", "symbol", "domain", "domain_name"]


class RaritySerializer(serializers.ModelSerializer):
    class Meta:
        model = Rarity
        fields = ["slug", "name", "symbol"]


class TermSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()


class SectionSerializer(TermSerializer):
    """A deck section of a format."""


class FormatSummarySerializer(serializers.ModelSerializer):
    default = serializers.BooleanField(source="is_default")
    sections = SectionSerializer(many=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = Format
        fields = ["slug", "name", "default", "sections", "url"]

    def get_url(self, fmt) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("format-detail", kwargs={"game": fmt.game.slug, "slug": fmt.slug})
        )


class FormatSerializer(FormatSummarySerializer):
    """A format as data: its sections, rules in order and ban list."""

    rules = serializers.ListField(child=serializers.DictField())
    banlist = serializers.DictField(child=serializers.IntegerField())

    class Meta(FormatSummarySerializer.Meta):
        fields = [*FormatSummarySerializer.Meta.fields, "rules", "banlist", "notes"]


class GameSerializer(serializers.ModelSerializer):
    leader_label = serializers.SerializerMethodField()
    # As shown: the plurals filled in where the game leaves them to the default.
    leaders_label = serializers.SerializerMethodField(help_text="Plural of the leader label.")
    cards_label = serializers.SerializerMethodField(help_text="Plural of the card label.")
    colours = ColourSerializer(many=True, read_only=True, source="colour_list")
    rarities = RaritySerializer(many=True, read_only=True, source="rarity_list")
    card_types = TermSerializer(many=True, read_only=True, source="type_list")
    stats = TermSerializer(many=True, read_only=True, source="stat_list")
    formats = serializers.SerializerMethodField()
    factions = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "slug",
            *services.GAME_FIELDS,  # the game's words, as its definition holds them
            "card_types",
            "colours",
            "rarities",
            "stats",
            "factions",
            "formats",
            "url",
        ]

    def get_leader_label(self, game) -> str | None:
        return game.leader_label or None

    def get_leaders_label(self, game) -> str | None:
        return game.leaders_name or None

    def get_cards_label(self, game) -> str:
        return game.cards_name

    @extend_schema_field(FormatSummarySerializer(many=True))
    def get_formats(self, game) -> list[dict]:
        formats = game.format_list
        for fmt in formats:
            fmt.game = game
        return FormatSummarySerializer(formats, many=True, context=self.context).data

    def get_factions(self, game) -> list[str]:
        return [k.name for k in game.keyword_list if k.is_faction]

    def get_url(self, game) -> str:
        return self.context["request"].build_absolute_uri(game.get_absolute_url())


class KeywordNamesField(serializers.ListField):
    child = serializers.CharField(max_length=60)

    def get_attribute(self, instance):
        return rows_of(instance, "keywords")

    def to_representation(self, keywords):
        return [k.name for k in keywords]


class TermField(serializers.SlugRelatedField):
    """A word of the serializer's game (colour, rarity, card type) by slug, found among the
    game's terms: no query where they are prefetched, as the API's views and imports do."""

    def __init__(self, terms: str, **kwargs):
        self.terms = terms  # the game's related name: colours, rarities, card_types
        model = Game._meta.get_field(terms).related_model
        unknown = f"Unknown {model._meta.verbose_name} {{value!r}} in this game."
        super().__init__(
            slug_field="slug",
            queryset=model.objects.none(),  # for the schema; values are found in the game
            error_messages={"does_not_exist": unknown},
            **kwargs,
        )

    def to_internal_value(self, data):
        if isinstance(data, list | dict):
            self.fail("invalid")
        terms = rows_of(self.root.game, self.terms)
        found = next((term for term in terms if term.slug == str(data)), None)
        if found is None:
            self.fail("does_not_exist", slug_name="slug", value=str(data))
        return found


class TermsField(serializers.ManyRelatedField):
    """Several words of the game (TermField), shown from the rows the object holds."""

    def get_attribute(self, instance):
        return rows_of(instance, self.source) if instance.pk is not None else []


def art_url(request, picture) -> str:
    """The absolute address of the largest rendition of `picture` (an Art: cards.art), in its
    fallback format (JPEG or PNG: every client reads it)."""
    url = picture.largest_url()
    return request.build_absolute_uri(url) if request is not None else url


def printing_record(printing, request) -> dict:
    """A printing as the API shows it: its record, its `image` the address of its art where
    it has art (else the source string stored, as the exchange file has it)."""
    record = printing.as_record()
    if printing.art_id:
        record["image"] = art_url(request, printing.art)
    return record


class PrintingSerializer(serializers.Serializer):
    """One printing: {"set": code, "number", "rarity", "image", "artist", "flavour"}; the set
    (by code) and the rarity (by slug or printed code), any case, are the game's. Its `image`
    is read as the source of its art (a URL, or in an import a path beside the file: the
    import stores the art, cards.importers) and shown as its art's address."""

    set = serializers.CharField(max_length=20)
    number = serializers.CharField(max_length=30)
    rarity = serializers.CharField(max_length=40, required=False, allow_null=True, allow_blank=True)
    image = serializers.CharField(
        max_length=500, required=False, allow_blank=True, validators=[art.validate_source]
    )
    artist = serializers.CharField(max_length=200, required=False, allow_blank=True)
    flavour = serializers.CharField(required=False, allow_blank=True)

    def to_representation(self, printing) -> dict:
        return printing_record(printing, self.context.get("request"))

    def validate_set(self, code):
        game = self.root.game
        found = next((s for s in rows_of(game, "sets") if s.code.lower() == code.lower()), None)
        if found is None:
            raise serializers.ValidationError(
                f"No set {code!r} in {game.name}: give it in the file's sets, or add it first."
            )
        return found

    def validate_number(self, number):
        if any(c in number for c in ",\n\r"):
            raise serializers.ValidationError("A printing number is one line, without commas.")
        return number

    def validate_rarity(self, value):
        if not value:
            return None
        value = value.lower()
        found = next(
            (r for r in self.root.game.rarity_list if value in (r.slug, r.code.lower())), None
        )
        if found is None:
            raise serializers.ValidationError(f"Unknown rarity {value!r} in this game.")
        return found


class FaceSerializer(serializers.Serializer):
    """Another face of a card or leader: {"name", "types", "cost", "colours", "keywords",
    "stats", "text"}, in the words of the game (type and colour slugs)."""

    name = serializers.CharField(max_length=120)
    types = serializers.ListField(child=serializers.CharField(max_length=50), required=False)
    cost = serializers.JSONField(required=False)
    colours = serializers.ListField(child=serializers.CharField(max_length=50), required=False)
    keywords = serializers.ListField(child=serializers.CharField(max_length=60), required=False)
    stats = serializers.JSONField(required=False)
    text = serializers.CharField(required=False, allow_blank=True)

    def to_representation(self, face) -> dict:
        return face.as_record()

    def _known(self, values, terms: str, noun: str) -> list[str]:
        known = {t.slug for t in rows_of(self.root.game, terms)}
        unknown = [v for v in values if v not in known]
        if unknown:
            raise serializers.ValidationError(
                f"Unknown {noun} {', '.join(map(repr, unknown))} in this game."
            )
        return list(dict.fromkeys(values))

    def validate_types(self, types):
        return self._known(types, "card_types", "card type")

    def validate_colours(self, colours):
        return self._known(colours, "colours", "colour")

    def validate_keywords(self, keywords):
        return list(dict.fromkeys(k.strip() for k in keywords if k.strip()))

    def validate_cost(self, value):
        try:
            return validate_cost(self.root.game, value)
        except ValidationError as e:
            raise serializers.ValidationError(e.messages) from None

    def validate_stats(self, value):
        try:
            return validate_stats(self.root.game, value)
        except ValidationError as e:
            raise serializers.ValidationError(e.messages) from None

    def validate_name(self, name):
        if "\n" in name or "\r" in name or not name.strip():
            raise serializers.ValidationError("A face's name is one line.")
        return name.strip()


class FacesField(serializers.ListField):
    """A card's or leader's other faces, in order."""

    child = FaceSerializer()

    def get_attribute(self, instance):
        return rows_of(instance, "faces") if instance.pk is not None else []


class TypesField(serializers.ListField):
    """A card's types as printed on its front, the first being its `type`."""

    def get_attribute(self, instance):
        return instance.type_list if instance.pk is not None else []


class PrintingsField(serializers.ListField):
    """A card's or leader's printings, in order (the first is the one shown)."""

    child = PrintingSerializer()

    def get_attribute(self, instance):
        return rows_of(instance, "printings") if instance.pk is not None else []

    def to_internal_value(self, data):
        printings = super().to_internal_value(data)
        seen = set()
        for printing in printings:
            if printing["number"].lower() in seen:
                raise serializers.ValidationError(f"{printing['number']!r} is listed twice.")
            seen.add(printing["number"].lower())
        return printings


class GameScopedSerializer(serializers.ModelSerializer):
    """Shared by cards and leaders: slug from the name, names unique within the game, colours
    of the game.

    An import puts `taken` in the context: {("slug", slug) or ("name", lower-case name): pk} of
    the game's cards (or leaders), read once for a whole file, so a row costs no query."""

    slug = serializers.SlugField(max_length=120, required=False)
    colours = TermsField(child_relation=TermField("colours"), required=False)
    keywords = KeywordNamesField(required=False)
    factions = serializers.SerializerMethodField()
    faces = FacesField(required=False)
    printings = PrintingsField(required=False)
    url = serializers.SerializerMethodField()

    @property
    def game(self) -> Game:
        return self.context["game"]

    def get_factions(self, obj) -> list[str]:
        return [k.name for k in obj.factions]

    def get_url(self, obj) -> str:
        # A list's objects differ only by their slug: one reverse and absolute URI per game,
        # not one per object (a page of cards spent ~1 ms there). The URL's slug converter
        # takes only [-a-zA-Z0-9_], which an address never quotes.
        known = self.__dict__.setdefault("_url_parts", {})
        key = (type(obj), obj.game_id)
        if key not in known:
            url = self.context["request"].build_absolute_uri(obj.get_absolute_url())
            known[key] = url.rsplit(f"/{obj.slug}/", 1)
        head, tail = known[key]
        return f"{head}/{obj.slug}/{tail}"

    def validate(self, attrs):
        name = attrs.get("name", getattr(self.instance, "name", ""))
        if "slug" not in attrs and not self.instance:
            attrs["slug"] = slugify(name)
            if not attrs["slug"]:
                raise serializers.ValidationError(
                    {"name": ["Name must contain a letter or digit."]}
                )
        if "name" in attrs and self._taken("name", name):
            raise serializers.ValidationError({"name": [f"{name!r} already exists in this game."]})
        if "slug" in attrs and self._taken("slug", attrs["slug"]):
            raise serializers.ValidationError({"slug": [f"{attrs['slug']!r} is already taken."]})
        if attrs.get("printings"):
            self._check_numbers([p["number"] for p in attrs["printings"]])
        return attrs

    def _check_numbers(self, numbers: list[str]) -> None:
        """A printing number is another card's or leader's (an import gives `numbers` in its
        context: {lower-case number: (model name, pk)} of the game's printings)."""
        mine = (self.Meta.model._meta.model_name, self.instance.pk if self.instance else None)
        if (known := self.context.get("numbers")) is None:
            rows = Printing.objects.annotate(lower=Lower("number")).filter(
                game=self.game, lower__in=[n.lower() for n in numbers]
            )
            known = {
                row.lower: ("card", row.card_id) if row.card_id else ("leader", row.leader_id)
                for row in rows
            }
        errors = [
            f"{number!r} is a printing of another {known[number.lower()][0]}."
            for number in numbers
            if known.get(number.lower(), mine) != mine
        ]
        if errors:
            raise serializers.ValidationError({"printings": errors})

    def _taken(self, field: str, value: str) -> bool:
        """Whether another record of the game has this slug, or this name in any case."""
        mine = self.instance.pk if self.instance else None
        if (taken := self.context.get("taken")) is not None:
            return taken.get((field, value.lower() if field == "name" else value), mine) != mine
        lookup = "name__iexact" if field == "name" else field
        others = self.Meta.model.objects.filter(game=self.game, **{lookup: value})
        return others.exclude(pk=mine).exists()


@extend_schema_field(OpenApiTypes.STR)
class FactionField(serializers.Field):
    """A faction keyword of the serializer's game, by name or slug (any case)."""

    def to_representation(self, value):
        return str(value)

    def to_internal_value(self, data):
        if not isinstance(data, str) or not data.strip() or len(data) > 60:
            raise serializers.ValidationError("A faction's name.")
        value = data.strip()
        game = self.root.game
        faction = next(  # the game's keywords: no query where they are prefetched (imports)
            (
                k
                for k in game.keyword_list
                if k.is_faction and value.lower() in (k.name.lower(), k.slug.lower())
            ),
            None,
        )
        if faction is None:
            raise serializers.ValidationError(f"No faction {value!r} in {game.name}.")
        return faction


class CardLoyaltySerializer(serializers.Serializer):
    """{"faction": "Loyalists", "points": 2}: the hero's loyalty the card needs."""

    faction = FactionField()
    points = serializers.IntegerField(min_value=1, max_value=3)

    @property
    def game(self):
        return self.root.game


class LeaderLoyaltyField(serializers.DictField):
    """{"Loyalists": 3, "Knalgans": 1}: a leader's loyalty points (1-3) per faction."""

    child = serializers.IntegerField(min_value=1, max_value=3)

    def to_internal_value(self, data):
        points = super().to_internal_value(data)
        field = FactionField()
        field.bind("faction", self.parent)
        loyalty, errors = {}, []
        for name, n in points.items():
            try:
                loyalty[field.to_internal_value(name)] = n
            except serializers.ValidationError as e:
                errors += e.detail
        if errors:
            raise serializers.ValidationError(errors)
        return loyalty


class StatsField(serializers.JSONField):
    def to_internal_value(self, data):
        try:
            return validate_stats(self.parent.game, super().to_internal_value(data))
        except ValidationError as e:
            raise serializers.ValidationError(e.messages) from None


class CardSerializer(GameScopedSerializer):
    type = TermField("card_types", required=False)
    types = TypesField(child=TermField("card_types"), required=False, min_length=1, max_length=8)
    rarity = TermField("rarities", required=False, allow_null=True)
    cost = serializers.JSONField(required=False)
    stats = StatsField(required=False)
    loyalty = CardLoyaltySerializer(required=False, allow_null=True)
    legality = serializers.SerializerMethodField()

    class Meta:
        model = Card
        fields = [
            "slug",
            "name",
            "type",
            "types",
            "rarity",
            "cost",
            "colours",
            "total_cost",
            "stats",
            "keywords",
            "factions",
            "loyalty",
            "condition",
            "text",
            "flavour",
            "effect_source",
            "makes_attack",
            "image",
            "faces",
            "printings",
            "legality",
            "url",
        ]
        read_only_fields = ["total_cost"]

    @extend_schema_field(
        {
            "type": "object",
            "additionalProperties": {"type": "string", "enum": list(STATUSES)},
            "description": "Each format of the game (by slug): where the card alone stands "
            "under its version in force today.",
        }
    )
    def get_legality(self, card) -> dict[str, str]:
        # Each format's engine once per serializer (a list's cards share it), none per card.
        engines = self.__dict__.get("_engines")
        if engines is None:
            engines = self._engines = [(f.slug, f.engine()) for f in self.game.format_list]
        info = card.info()
        return {slug: legality.card_status(engine, info)[0] for slug, engine in engines}

    def to_representation(self, card) -> dict:
        """The card as DRF's fields above represent it, from its record (a test compares the
        two for every sample card): a page of cards is the API's most asked answer, and
        walking 18 fields a card took about half of its time."""
        request = self.context.get("request")
        shown = card.as_record() | {
            "total_cost": card.total_cost,
            "factions": self.get_factions(card),
            "legality": self.get_legality(card),
            "url": self.get_url(card),
            "printings": [printing_record(p, request) for p in card.printing_list],
        }
        return {name: shown[name] for name in self.Meta.fields}

    def validate_cost(self, value):
        try:
            return validate_cost(self.game, value)
        except ValidationError as e:  # django ValidationError -> DRF field error
            raise serializers.ValidationError(e.messages) from None

    def validate(self, attrs):
        attrs = super().validate(attrs)
        game, creating = self.game, self.instance is None
        if "types" in attrs:  # the first is `type`
            types = list(dict.fromkeys(attrs["types"]))
            if attrs.setdefault("type", types[0]) != types[0]:
                raise serializers.ValidationError({"type": ["Not the first of its types."]})
        if creating and "type" not in attrs:
            types = game.type_list[:2]
            if len(types) != 1:  # a game with one card type: that one (Card.save)
                raise serializers.ValidationError({"type": ["This field is required."]})
        return attrs

    def to_write(self, data: dict) -> services.CardWrite:
        """Validated data as services.save_cards takes it (an import validates many rows with
        one serializer, its `instance` set to each row's card in turn)."""
        data = dict(data)
        keywords = data.pop("keywords", None)
        if keywords is None:
            keywords = [k.name for k in self.instance.keyword_list] if self.instance else []
        colours = data.pop("colours", None)
        printings, faces = data.pop("printings", None), data.pop("faces", None)
        types = data.pop("types", None)
        more_types = types[1:] if types is not None else None
        if "loyalty" in data:
            loyalty = data.pop("loyalty") or {}
            data["loyalty_faction"] = loyalty.get("faction")
            data["loyalty_points"] = loyalty.get("points")
        return services.CardWrite(
            data, keywords, colours, self.instance, printings, faces, more_types
        )

    def save(self, **kwargs):
        write = self.to_write(self.validated_data)
        self.instance = services.save_cards(game=self.game, writes=[write])[0]
        return self.instance


class LeaderSerializer(GameScopedSerializer):
    loyalty = LeaderLoyaltyField(required=False)
    # The source of its art, as a printing's `image` (PrintingSerializer); shown as its art's
    # address where it has art.
    image = serializers.CharField(
        max_length=200, required=False, allow_blank=True, validators=[art.validate_source]
    )

    class Meta:
        model = Leader
        fields = [
            "slug",
            "name",
            "colours",
            "keywords",
            "factions",
            "loyalty",
            "text",
            "image",
            "faces",
            "printings",
            "url",
        ]

    def validate(self, attrs):
        if not self.game.has_leaders:
            raise serializers.ValidationError(f"{self.game.name} has no leaders.")
        return super().validate(attrs)

    def to_representation(self, leader) -> dict:
        shown = super().to_representation(leader)
        if leader.art_id:
            shown["image"] = art_url(self.context.get("request"), leader.art)
        return shown

    def to_write(self, data: dict) -> services.LeaderWrite:
        """Validated data as services.save_leaders takes it (as CardSerializer.to_write)."""
        data = dict(data)
        keywords = data.pop("keywords", None)
        colours = data.pop("colours", None)
        loyalty = data.pop("loyalty", None)
        printings, faces = data.pop("printings", None), data.pop("faces", None)
        if self.instance:
            if keywords is None:
                keywords = [k.name for k in self.instance.keyword_list]
            if colours is None:
                colours = self.instance.colour_list
        return services.LeaderWrite(
            data, colours or [], keywords or [], loyalty, self.instance, printings, faces
        )

    def save(self, **kwargs):
        write = self.to_write(self.validated_data)
        self.instance = services.save_leaders(game=self.game, writes=[write])[0]
        return self.instance


class GameViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Game.objects.prefetch_related(
        "colours", "rarities", "keywords", "card_types", "stats", "formats"
    )
    serializer_class = GameSerializer
    lookup_field = "slug"
    lookup_url_kwarg = "game"


class FormatViewSet(viewsets.ReadOnlyModelViewSet):
    """A game's formats as data: deck sections, rules in order, ban list."""

    serializer_class = FormatSerializer
    lookup_field = "slug"
    lookup_url_kwarg = "slug"  # not "format": DRF reads that kwarg as a renderer suffix
    lookup_value_regex = "[-a-zA-Z0-9_]+"
    queryset = Format.objects.none()
    filter_backends = []

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        game = get_object_or_404(Game, slug=self.kwargs["game"])
        return Format.objects.filter(game=game).select_related("game")


@method_decorator(anonymous_page(reads=filters.reads), name="dispatch")  # kept for anonymous
class GameScopedViewSet(viewsets.ModelViewSet):
    permission_classes = [IsStaffOrReadOnly]
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"

    @cached_property
    def game(self) -> Game:
        """The game with its vocabulary attached (cached: cards.vocabulary)."""
        return vocabulary.game_or_404(self.request, self.kwargs["game"])

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "game": self.game}


@extend_schema_view(list=extend_schema(description="Cards of a game, filtered and paginated."))
class CardViewSet(GameScopedViewSet):
    serializer_class = CardSerializer
    filterset_class = CardFilter

    queryset = Card.objects.none()  # for the schema; requests use get_queryset

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return Card.objects.filter(game=self.game).for_listing(vocabulary.of(self.game))


class LeaderViewSet(GameScopedViewSet):
    serializer_class = LeaderSerializer

    queryset = Leader.objects.none()

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return Leader.objects.filter(game=self.game).select_related("game").for_rules()


# --- sets and printings ---------------------------------------------------------------------


class CardSetSerializer(serializers.ModelSerializer):
    card_count = serializers.IntegerField(read_only=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = CardSet
        fields = ["code", "name", "group", "released", "card_count", "url"]

    def get_url(self, card_set) -> str:
        return self.context["request"].build_absolute_uri(card_set.get_absolute_url())


class PrintedSerializer(serializers.Serializer):
    """A printing with what it is a printing of: the card or leader, whole (`full`) or as its
    slug, name and page."""

    def to_representation(self, printing) -> dict:
        owner = printing.owner
        kind = "card" if printing.card_id else "leader"
        if self.context.get("full"):
            serializer = CardSerializer if kind == "card" else LeaderSerializer
            shown = serializer(owner, context=self.context).data
        else:
            url = self.context["request"].build_absolute_uri(owner.get_absolute_url())
            shown = {"slug": owner.slug, "name": owner.name, "url": url}
        return {**printing_record(printing, self.context.get("request")), kind: shown}


class CardSetViewSet(viewsets.ReadOnlyModelViewSet):
    """A game's sets (all of them, in release order); one set with its printings, paginated."""

    serializer_class = CardSetSerializer
    lookup_field = "code"
    lookup_value_regex = "[^/]+"
    queryset = CardSet.objects.none()
    filter_backends = []
    pagination_class = None

    @cached_property
    def game(self) -> Game:
        return vocabulary.game_or_404(self.request, self.kwargs["game"])

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        # Meta.ordering, said again: a query that groups rows does not read it.
        sets = CardSet.objects.filter(game=self.game).annotate(card_count=Count("printings"))
        return sets.order_by(*CardSet._meta.ordering)

    def get_object(self):
        found = self.get_queryset().filter(code__iexact=self.kwargs["code"]).first()
        if found is None:
            raise Http404
        return found

    @extend_schema(responses=CardSetSerializer)
    def retrieve(self, request, *args, **kwargs):
        card_set = self.get_object()
        printings = (
            Printing.objects.filter(set=card_set)
            .select_related("card", "leader", "rarity", "art")
            .order_by("number")
        )
        paginator = api_settings.DEFAULT_PAGINATION_CLASS()  # as every list of the API
        page = paginator.paginate_queryset(printings, request, view=self)
        for printing in page:
            printing.set = card_set
            (printing.card or printing.leader).game = self.game
        data = self.get_serializer(card_set).data
        shown = PrintedSerializer(page, many=True, context=self.get_serializer_context()).data
        data["printings"] = paginator.get_paginated_response(shown).data
        return Response(data)


@extend_schema(responses=OpenApiTypes.OBJECT)
@api_view(["GET"])
def printing_detail(request, game, number):
    """One printing (by number, any case) with its card or leader."""
    found = vocabulary.game_or_404(request, game)
    printing = (
        Printing.objects.filter(game=found, number__iexact=number)
        .select_related("set", "rarity", "card", "leader", "art")
        .first()
    )
    if printing is None:
        raise Http404
    owner = printing.owner
    if printing.card_id:
        owner = Card.objects.filter(pk=owner.pk).for_listing(vocabulary.of(found)).get()
    else:
        owner = vocabulary.of(found).leader(owner.pk) or owner
    kind = "card" if printing.card_id else "leader"
    setattr(printing, kind, owner)
    context = {"request": request, "game": found, "full": True}
    return Response(PrintedSerializer(printing, context=context).data)


# --- the rules reference ----------------------------------------------------------------------


def _section_url(section, request) -> str:
    """The section's permalink (its top-level page, at its anchor), absolute."""
    return request.build_absolute_uri(
        section_href(section.game.slug, section.number, section.anchor)
    )


class RuleNodeSerializer(serializers.Serializer):
    """A section in the tree: number, anchor, title (or the start of its body), page URL with
    the anchor, and its subsections."""

    number = serializers.CharField()
    anchor = serializers.CharField()
    title = serializers.CharField(source="display_title")
    url = serializers.SerializerMethodField()
    children = serializers.SerializerMethodField()

    def get_url(self, section) -> str:
        return _section_url(section, self.context["request"])

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_children(self, section) -> list[dict]:
        return RuleNodeSerializer(section.nodes, many=True, context=self.context).data


class RuleSectionSerializer(RuleNodeSerializer):
    """One section: the tree fields (its subsections as a tree in `children`), its parent's
    number, its body as sanitised HTML and the glossary terms it defines."""

    parent = serializers.SerializerMethodField()
    body = serializers.CharField(source="body_html")
    terms = serializers.SerializerMethodField()

    def get_parent(self, section) -> str | None:
        return rulebook.parent_number(section.number, section.game.rules_chapters)

    def get_terms(self, section) -> list[str]:
        return [t.term for t in section.defined_terms]


class RuleSearchResultSerializer(serializers.Serializer):
    number = serializers.CharField()
    anchor = serializers.CharField()
    title = serializers.CharField(source="display_title")
    url = serializers.SerializerMethodField()
    snippet = serializers.CharField(help_text="Plain text, escaped, with <mark> around matches.")
    rank = serializers.FloatField()

    def get_url(self, section) -> str:
        return _section_url(section, self.context["request"])


class RuleSearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=SEARCH_MAX_LENGTH)


class GlossarySectionSerializer(serializers.Serializer):
    number = serializers.CharField()
    anchor = serializers.CharField()
    title = serializers.CharField(source="display_title")
    url = serializers.SerializerMethodField()

    def get_url(self, section) -> str:
        return _section_url(section, self.context["request"])


class GlossaryTermSerializer(serializers.ModelSerializer):
    definition = serializers.CharField(source="definition_html")
    section = GlossarySectionSerializer(allow_null=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = GlossaryTerm
        fields = ["term", "slug", "aliases", "definition", "section", "url"]

    def get_url(self, term) -> str:
        page = reverse("rule-glossary", kwargs={"game": term.game.slug})
        return self.context["request"].build_absolute_uri(f"{page}#{term.slug}")


@method_decorator(anonymous_page(reads={"q", *filters.LIST_PARAMETERS}), name="dispatch")
class RulesReadOnly(viewsets.GenericViewSet):
    """Read-only, for anyone; the game comes from the URL (404 when unknown)."""

    permission_classes = [permissions.AllowAny]
    filter_backends = []

    @cached_property
    def game(self) -> Game:
        return get_object_or_404(Game, slug=self.kwargs["game"])

    def _sections(self, queryset):
        """The sections as a list with their game set (no query per section)."""
        sections = list(queryset)
        for section in sections:
            section.game = self.game
        return sections


@extend_schema_view(
    list=extend_schema(description="The tree of sections (top-level sections, paginated)."),
    retrieve=extend_schema(description="One section with its body (sanitised HTML)."),
)
class RuleViewSet(RulesReadOnly):
    serializer_class = RuleNodeSerializer
    lookup_field = "number"
    lookup_value_regex = r"\d+(?:\.\d+)*[a-z]?"
    queryset = RuleSection.objects.none()

    def list(self, request, game):
        sections = self._sections(RuleSection.objects.live().filter(game=self.game))
        page = self.paginate_queryset(as_tree(sections))
        return self.get_paginated_response(
            RuleNodeSerializer(page, many=True, context=self.get_serializer_context()).data
        )

    @extend_schema(responses=RuleSectionSerializer)
    def retrieve(self, request, game, number):
        try:
            clean = rulebook.normalise_number(number)
        except ValueError:
            raise Http404 from None
        subtree = self._sections(
            RuleSection.objects.live()
            .filter(game=self.game)
            .subtree(clean, self.game.rules_chapters)
        )
        if not subtree or subtree[0].number != clean:
            raise Http404
        [section] = as_tree(subtree)
        section.defined_terms = list(section.glossary_terms.only("term"))
        return Response(RuleSectionSerializer(section, context=self.get_serializer_context()).data)

    @extend_schema(
        parameters=[OpenApiParameter("q", str, required=True)],
        responses=RuleSearchResultSerializer(many=True),
    )
    @action(detail=False, methods=["get"])
    def search(self, request, game):
        """Sections matching `q`, best first, each with a highlighted snippet."""
        game = self.game  # 404 for an unknown game, before the query is checked
        query = RuleSearchQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        text = query.validated_data["q"]
        term = vocabulary.of(game).glossary().defining(text)  # as the search page does
        page = self.paginate_queryset(
            RuleSection.objects.live()
            .filter(game=game)
            .search(text, game.language, defined=term.section.number if term else None)
        )
        sections = self._sections(page)
        for section in sections:
            section.snippet = snippet(section, text)
        data = RuleSearchResultSerializer(
            sections, many=True, context=self.get_serializer_context()
        ).data
        return self.get_paginated_response(data)


class GlossaryViewSet(RulesReadOnly):
    serializer_class = GlossaryTermSerializer
    queryset = GlossaryTerm.objects.none()

    @extend_schema(
        description="The game's glossary terms, A-Z, with definitions (sanitised HTML) and the "
        "section that defines each.",
        responses=GlossaryTermSerializer(many=True),
    )
    def list(self, request, game):
        terms = GlossaryTerm.objects.filter(game=self.game).select_related("section")
        page = self.paginate_queryset(terms.order_by(Lower("term"), "pk"))
        for term in page:
            term.game = self.game
            if term.section is not None:
                term.section.game = self.game
        return self.get_paginated_response(
            GlossaryTermSerializer(page, many=True, context=self.get_serializer_context()).data
        )
