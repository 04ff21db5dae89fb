"""REST API of the reference data: games, cards, leaders (read: anyone; write: staff)."""

from django.shortcuts import get_object_or_404
from django.utils.functional import cached_property
from django.utils.text import slugify
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import permissions, serializers, viewsets

from . import services
from .filters import CardFilter
from .models import Card, Colour, Game, Leader, Rarity, validate_cost


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


class GameSerializer(serializers.ModelSerializer):
    colours = ColourSerializer(many=True, read_only=True)
    rarities = RaritySerializer(many=True, read_only=True)
    factions = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "slug",
            "name",
            "description",
            "is_sample",
            "colours",
            "rarities",
            "factions",
            "url",
        ]

    def get_factions(self, game) -> list[str]:
        return [k.name for k in game.keywords.all() if k.is_faction]

    def get_url(self, game) -> str:
        return self.context["request"].build_absolute_uri(game.get_absolute_url())


class KeywordNamesField(serializers.ListField):
    child = serializers.CharField(max_length=60)

    def to_representation(self, keywords):
        return [k.name for k in keywords.all()]


class GameScopedSerializer(serializers.ModelSerializer):
    """Shared by cards and leaders: slug from the name, names unique within the game."""

    slug = serializers.SlugField(max_length=120, required=False)
    keywords = KeywordNamesField(required=False)
    factions = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    @property
    def game(self) -> Game:
        return self.context["game"]

    def get_factions(self, obj) -> list[str]:
        return [k.name for k in obj.factions]

    def get_url(self, obj) -> str:
        return self.context["request"].build_absolute_uri(obj.get_absolute_url())

    def validate(self, attrs):
        model = self.Meta.model
        others = model.objects.filter(game=self.game)
        if self.instance:
            others = others.exclude(pk=self.instance.pk)
        name = attrs.get("name", getattr(self.instance, "name", ""))
        if "slug" not in attrs and not self.instance:
            attrs["slug"] = slugify(name)
            if not attrs["slug"]:
                raise serializers.ValidationError(
                    {"name": ["Name must contain a letter or digit."]}
                )
        if "name" in attrs and others.filter(name__iexact=name).exists():
            raise serializers.ValidationError({"name": [f"{name!r} already exists in this game."]})
        if "slug" in attrs and others.filter(slug=attrs["slug"]).exists():
            raise serializers.ValidationError({"slug": [f"{attrs['slug']!r} is already taken."]})
        return attrs


class CardSerializer(GameScopedSerializer):
    rarity = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Rarity.objects.none(),
        error_messages={"does_not_exist": "Unknown rarity {value!r} in this game."},
    )
    cost = serializers.JSONField(required=False)
    colours = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)

    class Meta:
        model = Card
        fields = [
            "slug",
            "name",
            "rarity",
            "cost",
            "colours",
            "total_cost",
            "keywords",
            "factions",
            "condition",
            "text",
            "flavour",
            "effect_source",
            "makes_attack",
            "image",
            "url",
        ]
        read_only_fields = ["total_cost"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "game" in self.context:
            self.fields["rarity"].queryset = Rarity.objects.filter(game=self.context["game"])

    def validate_cost(self, value):
        try:
            return validate_cost(self.game, value)
        except Exception as e:  # django ValidationError -> DRF field error
            raise serializers.ValidationError(getattr(e, "messages", [str(e)])) from None

    def save(self, **kwargs):
        data = dict(self.validated_data)
        keywords = data.pop("keywords", None)
        if keywords is None:
            keywords = [k.name for k in self.instance.keywords.all()] if self.instance else []
        self.instance = services.save_card(
            game=self.game, fields=data, keywords=keywords, card=self.instance
        )
        return self.instance


class LeaderSerializer(GameScopedSerializer):
    colours = serializers.SlugRelatedField(
        slug_field="slug",
        many=True,
        queryset=Colour.objects.none(),
        required=False,
        error_messages={"does_not_exist": "Unknown colour {value!r} in this game."},
    )

    class Meta:
        model = Leader
        fields = ["slug", "name", "colours", "keywords", "factions", "text", "image", "url"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "game" in self.context:
            self.fields["colours"].child_relation.queryset = Colour.objects.filter(
                game=self.context["game"]
            )

    def save(self, **kwargs):
        data = dict(self.validated_data)
        keywords = data.pop("keywords", None)
        colours = data.pop("colours", None)
        if self.instance:
            keywords = (
                keywords if keywords is not None else [k.name for k in self.instance.keywords.all()]
            )
            colours = colours if colours is not None else list(self.instance.colours.all())
        self.instance = services.save_leader(
            game=self.game,
            fields=data,
            colours=colours or [],
            keywords=keywords or [],
            leader=self.instance,
        )
        return self.instance


class GameViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Game.objects.prefetch_related("colours", "rarities", "keywords")
    serializer_class = GameSerializer
    lookup_field = "slug"
    lookup_url_kwarg = "game"


class GameScopedViewSet(viewsets.ModelViewSet):
    permission_classes = [IsStaffOrReadOnly]
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"

    @cached_property
    def game(self) -> Game:
        return get_object_or_404(
            Game.objects.prefetch_related("colours", "rarities"), slug=self.kwargs["game"]
        )

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
        return Card.objects.filter(game=self.game).for_listing()


class LeaderViewSet(GameScopedViewSet):
    serializer_class = LeaderSerializer

    queryset = Leader.objects.none()

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return (
            Leader.objects.filter(game=self.game)
            .select_related("game")
            .prefetch_related("colours", "keywords")
        )
