"""REST API of decks: validate (anyone), create/read/update/delete, copy, text export/import.

Serializers check shapes and resolve slugs; every rule is the engine's (via services).
"""

import dataclasses
import re
from datetime import date

from django.db.models import Exists, OuterRef, Prefetch
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import exceptions, permissions, renderers, serializers, status, viewsets
from rest_framework.decorators import action, api_view, permission_classes
from rest_framework.response import Response

from cards import catalogue, legality, matching
from cards.models import Format, Game, Leader
from cards.text import one_line, several_lines

from . import services
from .models import Deck, DeckCard, Visibility

# --- input ------------------------------------------------------------------------------------


class PreconditionFailed(exceptions.APIException):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "The deck changed since you read it: fetch it again, then retry."
    default_code = "precondition_failed"


IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description="The deck's `ETag` as read: the write answers 412 if the deck changed since.",
)


MAX_ROWS = 200  # card rows in one request
PRINTING_LENGTH = DeckCard._meta.get_field("printing").max_length
SLUG = re.compile(r"[-a-zA-Z0-9_]+")  # SlugField's, with nothing around it to trim


class CardCountList(serializers.ListSerializer):
    """CardCountSerializer(many=True). Well-formed rows, the common case, are taken in plain
    Python: a dict whose `card` (and `section`, if given) is a slug of at most 120 (40)
    characters, whose `count` is a JSON integer from 1 to MAX_COPIES and whose `printing`, if
    given, is null or a printable string of at most PRINTING_LENGTH characters. That makes validate
    ~30% faster (docs/performance.md). Anything else goes through the serializer of each row,
    so every error answer is DRF's (tests/deckbuilder/test_card_rows.py)."""

    def to_internal_value(self, data):
        if (data or self.allow_empty) and not self.min_length:
            rows = _plain_rows(data, self.max_length)
            if rows is not None:
                return rows
        return super().to_internal_value(data)


def _plain_rows(data, longest: int | None) -> list[dict] | None:
    """The validated rows of a list of at most `longest` well-formed rows; None otherwise."""
    if type(data) is not list or longest is not None and len(data) > longest:
        return None
    rows = [row for row in map(_plain_row, data) if row is not None]
    return rows if len(rows) == len(data) else None


def _plain_row(row) -> dict | None:
    """The validated row of a well-formed one (see CardCountList); None otherwise."""
    if type(row) is not dict:
        return None
    card, count, section = row.get("card"), row.get("count"), row.get("section")
    if type(card) is not str or len(card) > 120 or not SLUG.fullmatch(card):
        return None
    if type(count) is not int or not 1 <= count <= services.MAX_COPIES:
        return None
    plain = {"card": card, "count": count}
    if "printing" in row:
        printing = row["printing"]
        if printing is None:
            plain["printing"] = None
        elif type(printing) is str and len(printing) <= PRINTING_LENGTH and printing.isprintable():
            plain["printing"] = printing.strip()
        else:
            return None
    if section is None:
        return None if "section" in row else plain
    if type(section) is not str or len(section) > 40 or not SLUG.fullmatch(section):
        return None
    plain["section"] = section
    return plain


class CardCountSerializer(serializers.Serializer):
    card = serializers.SlugField(max_length=120)
    count = serializers.IntegerField(min_value=1, max_value=services.MAX_COPIES)
    section = serializers.SlugField(
        max_length=40, required=False, help_text="A deck section of the format; default: its first."
    )
    printing = serializers.CharField(
        max_length=PRINTING_LENGTH,
        required=False,
        allow_blank=True,
        allow_null=True,
        help_text="A printing number of the card: the art shown (validation ignores it). On a "
        "deck's write, a row without it keeps the entry's; empty or null: none.",
    )

    class Meta:
        list_serializer_class = CardCountList

    def to_internal_value(self, data):
        if isinstance(data, dict) and isinstance(data.get("count"), (str, float, bool)):
            # "3", 2.0 and true are not counts: ask for a JSON integer.
            raise serializers.ValidationError({"count": ["A whole number from 1 to 99."]})
        return super().to_internal_value(data)


class ModelCatalogue:
    """Resolves a game's slugs to model objects, for decks that are stored."""

    def __init__(self, game: Game):
        self.game, self.name, self.has_leaders = game, game.name, game.has_leaders

    def format(self, slug: str | None = None) -> Format | None:
        if slug is None:
            return self.game.default_format()
        return Format.objects.filter(game=self.game, slug=slug).first()

    def leader(self, slug: str) -> Leader | None:
        return Leader.objects.filter(game=self.game, slug=slug).first()

    def cards(self, slugs) -> dict:
        return {
            c.slug: c for c in services.cards_for_rules().filter(game=self.game, slug__in=slugs)
        }


class DeckContentSerializer(serializers.Serializer):
    """A format, a leader and card counts per section of one game, resolved through
    context["catalogue"]: model objects (ModelCatalogue) for stored decks, the engine's data
    (cards.catalogue) to validate. `cards` become {(card, section): count}."""

    format = serializers.SlugField(
        max_length=40, required=False, help_text="A format of the game; default: its default."
    )
    leader = serializers.SlugField(max_length=120, allow_null=True, required=False)
    cards = CardCountSerializer(many=True, required=False, max_length=MAX_ROWS)

    @property
    def catalogue(self):
        return self.context["catalogue"]

    def validate_format(self, slug):
        fmt = self.catalogue.format(slug)
        if fmt is None:
            raise serializers.ValidationError(f"No format {slug!r} in {self.catalogue.name}.")
        return fmt

    def validate_leader(self, slug):
        if slug is None:
            return None
        if not self.catalogue.has_leaders:
            raise serializers.ValidationError(f"{self.catalogue.name} has no leaders.")
        leader = self.catalogue.leader(slug)
        if leader is None:
            raise serializers.ValidationError(f"No leader {slug!r} in {self.catalogue.name}.")
        return leader

    def validate(self, attrs):
        """Cards per section: every section must be one of the format's (the given format, or
        else the deck's or the game's default), and a card appears once per section."""
        rows = attrs.get("cards")
        if rows is None:
            return attrs
        fmt = (
            attrs.get("format") or getattr(self.instance, "format", None) or self.catalogue.format()
        )
        found = self.catalogue.cards(row["card"] for row in rows)
        errors, contents, printings = [], {}, {}
        for row in rows:
            slug, section = row["card"], row.get("section") or fmt.slugs[0]
            if slug not in found:
                errors.append(f"No card {slug!r} in {self.catalogue.name}.")
            elif section not in fmt.slugs:
                errors.append(
                    f"No section {section!r} in {fmt.name} (sections: {', '.join(fmt.slugs)})."
                )
            elif (found[slug], section) in contents:
                errors.append(f"{slug!r} is listed twice in {section!r}: give one count per card.")
            else:
                contents[(found[slug], section)] = row["count"]
                if "printing" in row:
                    printings[(found[slug], section)] = row["printing"] or ""
        if errors:  # each message once, however many rows repeat it
            raise serializers.ValidationError({"cards": list(dict.fromkeys(errors))})
        attrs["cards"] = contents
        attrs["printings"] = printings  # as given: DeckWriteSerializer checks them
        return attrs


class ValidateSerializer(DeckContentSerializer):
    """`leader` is required (null for none yet) in a game with leaders; a game without leaders
    takes none."""

    leader = serializers.SlugField(max_length=120, allow_null=True, required=False)
    cards = CardCountSerializer(many=True, max_length=MAX_ROWS)
    as_of = serializers.DateField(
        required=False,
        help_text="Judge by the format's version in force on this day (YYYY-MM-DD; default: "
        "today in the site's time zone). A day before its first version is refused.",
    )

    def to_internal_value(self, data):
        """A well-formed body, the common case (see _plain_body), is taken without building
        DRF's fields: validate's cost is mostly the framework's (docs/performance.md). Anything
        else, or a slug of nothing, goes through the fields: every error answer is DRF's."""
        attrs = _plain_body(data)
        if attrs is not None:
            try:
                if "format" in attrs:
                    attrs["format"] = self.validate_format(attrs["format"])
                if "leader" in attrs:
                    attrs["leader"] = self.validate_leader(attrs["leader"])
                return attrs
            except serializers.ValidationError:
                pass
        return super().to_internal_value(data)

    def run_validators(self, value):
        """No validators and no read-only fields here: nothing to run (DRF's own would build
        every field to find that out)."""

    def validate(self, attrs):
        if self.catalogue.has_leaders and "leader" not in self.initial_data:
            raise serializers.ValidationError({"leader": ["This field is required."]})
        return super().validate(attrs)


def _plain_body(data) -> dict | None:
    """The fields of a well-formed validate body: a JSON object whose `cards` are at most
    MAX_ROWS plain rows (_plain_row), whose `leader`, if given, is null or a slug of at most
    120 characters and whose `format`, if given, a slug of at most 40; None for any other."""
    rows = _plain_rows(data.get("cards"), MAX_ROWS) if type(data) is dict else None
    if rows is None:
        return None
    attrs = {"cards": rows}
    for name, longest, nullable in (("format", 40, False), ("leader", 120, True)):
        if name not in data:
            continue
        value = data[name]
        if value is None and nullable:
            attrs[name] = None
        elif type(value) is str and len(value) <= longest and SLUG.fullmatch(value):
            attrs[name] = value
        else:
            return None
    return attrs


class DeckWriteSerializer(DeckContentSerializer):
    game = serializers.SlugField(required=False)
    name = serializers.CharField(max_length=120, validators=[one_line])
    description = serializers.CharField(
        max_length=5000, allow_blank=True, required=False, validators=[several_lines]
    )
    visibility = serializers.ChoiceField(choices=Visibility.values, required=False)

    def validate_game(self, slug):
        game = self.catalogue.game
        if slug != game.slug:
            raise serializers.ValidationError(
                "A deck's game cannot change." if self.instance else f"Unknown game {slug!r}."
            )
        return game

    def validate(self, attrs):
        """Each printing named must be one of its card's (one query for all of them): else a
        field error naming it. A row that names none keeps the printing of the deck's entry
        of that card and section; an empty one or null clears it. `printings` become
        {(card, section): number as stored} for the entries that have one."""
        attrs = super().validate(attrs)
        if "cards" not in attrs:
            attrs.pop("printings", None)
            return attrs
        given = attrs["printings"]
        kept = {}
        if self.instance is not None:
            kept = {(e.card_id, e.section): e.printing for e in self.instance.entry_list}
        printings, errors = {}, []
        named = {key: number for key, number in given.items() if number}
        found = matching.printings(self.catalogue.game, named.values()) if named else {}
        for (card, section), number in named.items():
            printing = found.get(number.casefold())
            if printing is None:
                errors.append(f"No printing {number!r} in {self.catalogue.name}.")
            elif printing.card_id != card.pk:
                errors.append(
                    f"{printing.number!r} is a printing of {printing.owner.name}, "
                    f"not of {card.slug!r}."
                )
            else:
                printings[(card, section)] = printing.number
        if errors:
            raise serializers.ValidationError({"cards": list(dict.fromkeys(errors))})
        for card, section in attrs["cards"]:
            if (card, section) not in given and kept.get((card.pk, section)):
                printings[(card, section)] = kept[(card.pk, section)]
        attrs["printings"] = printings
        return attrs


class ImportSerializer(serializers.Serializer):
    game = serializers.SlugRelatedField(slug_field="slug", queryset=Game.objects.all())
    format = serializers.SlugField(max_length=40, required=False)
    text = serializers.CharField(max_length=20000)
    name = serializers.CharField(
        max_length=120, required=False, allow_blank=True, validators=[one_line]
    )

    def validate(self, attrs):
        game = attrs["game"]
        if "format" in attrs:
            attrs["format"] = Format.objects.filter(game=game, slug=attrs["format"]).first()
            if attrs["format"] is None:
                raise serializers.ValidationError({"format": [f"No format of {game.name}."]})
        return attrs


# --- output -----------------------------------------------------------------------------------


def with_rule_urls(problems, game_slug: str, request) -> list[dict]:
    """Problems (dicts or legality.Problem) as the API shows them: with `rule_url`, the
    absolute URL of the page (with anchor) of the rule each breaks (None when the rule names no
    section), and without `ref`, the rules-reference number it comes from. Computed for the
    response from the cached catalogue, never stored."""
    problems = [p if isinstance(p, dict) else p.as_dict() for p in problems]
    urls = catalogue.rule_urls(game_slug) if problems else {}
    shown = []
    for problem in problems:
        shown_problem = {k: v for k, v in problem.items() if k != "ref"}
        shown_problem.setdefault("section", None)
        url = urls.get(problem.get("ref"))
        shown_problem["rule_url"] = request.build_absolute_uri(url) if url else None
        shown.append(shown_problem)
    return shown


class ProblemSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    card = serializers.CharField(allow_null=True, help_text="The card's slug, if about one card.")
    section = serializers.CharField(allow_null=True, help_text="The deck section it concerns.")
    rule_url = serializers.URLField(allow_null=True, help_text="The rule's page, with anchor.")


class VersionSerializer(serializers.Serializer):
    """A format's version: the one that judged."""

    from_ = serializers.DateField(allow_null=True, help_text="Its first day; null: always.")
    name = serializers.CharField()

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class FormatVerdictSerializer(serializers.Serializer):
    format = serializers.CharField(help_text="A format of the deck's game (its slug).")
    legal = serializers.BooleanField(
        allow_null=True, help_text="Under the version in force now; null: not judged yet."
    )
    version = VersionSerializer()
    problems = ProblemSerializer(many=True)


class UnpublishedSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=1000, validators=[several_lines])
    at = serializers.DateTimeField(read_only=True)


class DeckSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="share_id", read_only=True)
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    format = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    leader = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    owner = serializers.CharField(source="owner.username", read_only=True)
    cards = serializers.SerializerMethodField()
    legal = serializers.BooleanField(
        read_only=True, help_text="Legal in its format under the version in force now."
    )
    problems = serializers.SerializerMethodField()
    legality = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()
    unpublished = serializers.SerializerMethodField(
        help_text="Why staff took the deck out of the public lists; for its owner and staff."
    )

    class Meta:
        model = Deck
        fields = [
            "id",
            "name",
            "description",
            "game",
            "format",
            "leader",
            "visibility",
            "cards",
            "card_count",
            "legal",
            "problems",
            "legality",
            "owner",
            "url",
            "created",
            "updated",
            "unpublished",
        ]

    @extend_schema_field(CardCountSerializer(many=True))
    def get_cards(self, deck) -> list[dict]:
        order = {slug: i for i, slug in enumerate(deck.format.slugs)}
        entries = sorted(deck.entry_list, key=lambda e: (order.get(e.section, 99), e.card.name))
        rows = []
        for e in entries:
            row = {"card": e.card.slug, "count": e.count, "section": e.section}
            if e.printing:
                row["printing"] = e.printing
            rows.append(row)
        return rows

    @extend_schema_field(UnpublishedSerializer(allow_null=True))
    def get_unpublished(self, deck) -> dict | None:
        user = self.context["request"].user
        if not deck.unpublished_at or not (user.is_staff or user.pk == deck.owner_id):
            return None
        return {"reason": deck.unpublished_reason, "at": deck.unpublished_at}

    def get_url(self, deck) -> str:
        return self.context["request"].build_absolute_uri(deck.get_absolute_url())

    @extend_schema_field(ProblemSerializer(many=True))
    def get_problems(self, deck) -> list[dict]:
        return with_rule_urls(deck.problems, deck.game.slug, self.context["request"])

    @extend_schema_field(FormatVerdictSerializer(many=True))
    def get_legality(self, deck) -> list[dict]:
        request = self.context["request"]
        return [
            {
                "format": row["format"],
                "legal": row["legal"],
                "version": row["version"],
                "problems": with_rule_urls(row["problems"], deck.game.slug, request),
            }
            for row in services.legality_of(deck)
        ]


class ReportSerializer(serializers.Serializer):
    legal = serializers.BooleanField()
    card_count = serializers.IntegerField()
    format = serializers.CharField(help_text="The format judged against.")
    version = VersionSerializer(help_text="The version of the format that judged.")
    sections = serializers.DictField(
        child=serializers.IntegerField(), help_text="Cards (copies) per deck section."
    )
    problems = ProblemSerializer(many=True)


class PlainTextRenderer(renderers.BaseRenderer):
    media_type = "text/plain"
    format = "text"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data.encode() if isinstance(data, str) else str(data.get("detail", data)).encode()


# --- views ------------------------------------------------------------------------------------


def _refused(error: services.DeckUnpublished | services.DeckNotPublic, code: str) -> Response:
    return Response({"code": code, "detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)


def _not_legal(report, game: Game, request) -> Response:
    return Response(
        {
            "code": "deck_not_legal",
            "detail": "Only a legal deck can be public: fix the problems, or keep it unlisted.",
            "problems": with_rule_urls(report.problems, game.slug, request),
        },
        status=status.HTTP_400_BAD_REQUEST,
    )


@extend_schema(request=ValidateSerializer, responses=ReportSerializer)
@api_view(["POST"])
@permission_classes([permissions.AllowAny])
def validate(request, game):
    """Judge a leader and card counts per section against a format of the game (default: its
    default format); nothing is stored."""
    rules = catalogue.game_rules(game)  # usually no query: cached per process
    if rules is None:
        raise Http404
    as_of = request.data.get("as_of") if isinstance(request.data, dict) else None
    if as_of is not None:
        rules = dataclasses.replace(rules, as_of=_as_of(as_of))
    serializer = ValidateSerializer(data=request.data, context={"catalogue": rules})
    serializer.is_valid(raise_exception=True)
    return Response(verdict(serializer.validated_data, rules, request))


def _format_of(game: str | None, slug: str) -> Format:
    """The format `slug` of the game `game` (slugs), for a filter; a 400 that says why not."""
    if not game:
        raise serializers.ValidationError(
            {"legal_in": ["Name the game too (game=<slug>): a format is one game's."]}
        )
    found = Format.objects.filter(game__slug=game, slug=slug).first()
    if found is None:
        known = ", ".join(Format.objects.filter(game__slug=game).values_list("slug", flat=True))
        why = f"The game {game!r} has no format {slug!r} (its formats: {known or 'none'})."
        raise serializers.ValidationError({"legal_in": [why]})
    return found


def _as_of(value) -> date:
    if isinstance(value, str) and len(value) == 10:
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise serializers.ValidationError({"as_of": ["A date such as 2025-09-18 (YYYY-MM-DD)."]})


def verdict(data: dict, rules: catalogue.GameRules, request) -> dict:
    """The validate answer for a ValidateSerializer's data: the engine's report on it under
    the version of its format in force on `rules.as_of` (today when None)."""
    fmt = data.get("format") or rules.format()
    version = rules.version_on(fmt.slug)
    if version is None:
        first = rules.formats[fmt.slug][0]
        raise serializers.ValidationError(
            {"as_of": [f"{fmt.name} starts on {first.starts.isoformat()}: no version before it."]}
        )
    entries = [(card, n, section) for (card, section), n in data["cards"].items()]
    report = legality.check(fmt, data.get("leader"), entries)
    return {
        **report.as_dict(),
        "format": fmt.slug,
        "version": {"from": version.starts, "name": version.name},
        "sections": report.section_counts,
        "problems": with_rule_urls(report.problems, rules.slug, request),
    }


class DeckViewSet(viewsets.GenericViewSet):
    serializer_class = DeckSerializer
    lookup_field = "share_id"
    lookup_url_kwarg = "id"
    # A share id (models.new_share_id: 16 characters; the column holds 22), so that no id
    # names an action of the list ("public", "import"), which takes other methods (405).
    lookup_value_regex = "[-_a-zA-Z0-9]{16,22}"
    permission_classes = [permissions.IsAuthenticated]
    queryset = Deck.objects.none()

    def get_queryset(self):
        entries = DeckCard.objects.select_related("card")
        return Deck.objects.for_display().prefetch_related(Prefetch("entries", queryset=entries))

    def get_permissions(self):
        if self.action in {"retrieve", "export", "public"}:
            return [permissions.AllowAny()]
        if self.action in {"update", "partial_update", "destroy"}:
            return []  # decided per deck, below: 401, 403 or 404
        return super().get_permissions()

    def _visible(self) -> Deck:
        """The deck in the URL if the caller may see it; 404 otherwise (even if it exists)."""
        deck = (
            self.get_queryset()
            .visible_to(self.request.user)
            .filter(share_id=self.kwargs["id"])
            .first()
        )
        if deck is None:
            raise Http404
        return deck

    def _owned(self) -> tuple[Deck, int | None]:
        """The caller's deck, and the version its If-Match names: the service refuses the write
        (412) if the deck moved on meanwhile. Without If-Match (None) the last write wins."""
        deck = self._visible()
        if not self.request.user.is_authenticated:
            raise exceptions.NotAuthenticated
        if deck.owner_id != self.request.user.pk:
            raise exceptions.PermissionDenied("Only the deck's owner can change it.")
        if_match = self.request.headers.get("If-Match")
        if not if_match or if_match.strip() == "*":
            return deck, None
        if deck.etag not in [tag.strip() for tag in if_match.split(",")]:
            raise PreconditionFailed
        return deck, deck.version

    def _respond(self, deck, status_code=status.HTTP_200_OK, reload=True) -> Response:
        if reload:  # a changed deck: fetch it again with its entries prefetched
            deck = self.get_queryset().get(pk=deck.pk)
        data = self.get_serializer(deck).data
        return Response(data, status=status_code, headers={"ETag": deck.etag})

    def _game_of(self, data) -> Game:
        slug = data.get("game") if isinstance(data, dict) else None
        if not isinstance(slug, str) or not slug:
            raise serializers.ValidationError({"game": ["This field is required."]})
        game = Game.objects.filter(slug=slug).first()
        if game is None:
            raise serializers.ValidationError({"game": [f"Unknown game {slug!r}."]})
        return game

    def list(self, request):
        decks = self.get_queryset().filter(owner=request.user)
        page = self.paginate_queryset(decks)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(request=DeckWriteSerializer)
    def create(self, request):
        game = self._game_of(request.data)
        serializer = DeckWriteSerializer(
            data=request.data, context={"catalogue": ModelCatalogue(game)}
        )
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            deck = services.deck_create(
                owner=request.user,
                game=game,
                format=data.get("format"),
                leader=data.get("leader"),
                name=data["name"],
                description=data.get("description", ""),
                visibility=data.get("visibility", Visibility.PRIVATE),
                contents=data.get("cards", {}),
                printings=data.get("printings", {}),
            )
        except services.DeckNotLegal as e:
            return _not_legal(e.report, game, request)
        return self._respond(deck, status.HTTP_201_CREATED)

    def retrieve(self, request, id):
        return self._respond(self._visible(), reload=False)

    @extend_schema(request=DeckWriteSerializer, parameters=[IF_MATCH])
    def update(self, request, id, partial=False):
        deck, expected_version = self._owned()
        serializer = DeckWriteSerializer(
            deck,
            data=request.data,
            partial=partial,
            context={"catalogue": ModelCatalogue(deck.game)},
        )
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        changes.pop("game", None)
        contents = changes.pop("cards", None)
        printings = changes.pop("printings", None)
        try:
            deck = services.deck_update(
                deck=deck,
                expected_version=expected_version,
                contents=contents,
                printings=printings,
                **changes,
            )
        except services.DeckNotLegal as e:
            return _not_legal(e.report, deck.game, request)
        except services.DeckUnpublished as e:
            return _refused(e, "deck_unpublished")
        except services.VersionMismatch:
            raise PreconditionFailed from None
        return self._respond(deck)

    @extend_schema(request=DeckWriteSerializer, parameters=[IF_MATCH])
    def partial_update(self, request, id):
        return self.update(request, id, partial=True)

    @extend_schema(parameters=[IF_MATCH])
    def destroy(self, request, id):
        deck, expected_version = self._owned()
        try:
            services.deck_delete(deck=deck, expected_version=expected_version)
        except services.VersionMismatch:
            raise PreconditionFailed from None
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=UnpublishedSerializer, responses={200: DeckSerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAdminUser])
    def unpublish(self, request, id):
        """Staff only: take a public deck out of the lists (it becomes unlisted) with a reason
        its owner sees; the owner cannot make it public again until staff restore it."""
        serializer = UnpublishedSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            deck = services.deck_unpublish(
                deck=self._visible(), by=request.user, reason=serializer.validated_data["reason"]
            )
        except services.DeckNotPublic as e:
            return _refused(e, "deck_not_public")
        return self._respond(deck)

    @extend_schema(request=None, responses={201: DeckSerializer})
    @action(detail=True, methods=["post"])
    def copy(self, request, id):
        """A private copy of a deck you can see, for yourself."""
        copy = services.deck_copy(deck=self._visible(), owner=request.user)
        return self._respond(copy, status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["text"], default="text")],
        responses={(200, "text/plain"): OpenApiTypes.STR},
    )
    @action(detail=True, methods=["get"], renderer_classes=[PlainTextRenderer])
    def export(self, request, id):
        """The deck as text: a comment line naming its game and format (`# Game — Format (game:
        slug; format: slug)`), the leader's name, then one `N Card Name` a line (`N Card Name
        (NUMBER)` for an entry that names a printing); each further deck section starts with a
        header line naming it (`Side deck:`)."""
        text = services.deck_export_text(self._visible())
        return Response(text, content_type="text/plain; charset=utf-8")

    @extend_schema(request=ImportSerializer, responses={201: DeckSerializer})
    @action(detail=False, methods=["post"], url_path="import")
    def import_text(self, request):
        """A new private deck from a deck text in `game`. The text's header (the export's first
        line, `# Game — Format (game: slug; format: slug)`) must name that game, if it names one;
        its format is the deck's when the body names none."""
        serializer = ImportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            deck = services.deck_import(owner=request.user, **serializer.validated_data)
        except services.TextTargetError as e:
            raise serializers.ValidationError({e.field: [str(e)]}) from e
        except services.TextImportError as e:
            return Response({"text": e.errors}, status=status.HTTP_400_BAD_REQUEST)
        return self._respond(deck, status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[
            OpenApiParameter("game", str),
            OpenApiParameter("in_format", str, description="A format's slug."),
            OpenApiParameter(
                "legal_in",
                str,
                description="A format of `game` (its slug; needs `game`): decks legal in it now, "
                "under its version in force, whatever format they were built in.",
            ),
            OpenApiParameter("leader", str),
            OpenApiParameter("card", str),
        ],
        responses=DeckSerializer(many=True),  # a page of decks
    )
    @action(detail=False, methods=["get"])
    def public(self, request):
        """Public decks, newest first; filter by `game`, `in_format`, `legal_in` (a format of
        the game the deck is legal in now), `leader` and `card` slugs (`in_format`, because
        `format` chooses the response format)."""
        decks = self.get_queryset().public()
        params = request.query_params
        if params.get("game"):
            decks = decks.filter(game__slug=params["game"])
        if params.get("legal_in"):
            decks = decks.legal_in(_format_of(params.get("game"), params["legal_in"]))
        if params.get("in_format"):
            decks = decks.filter(format__slug=params["in_format"])
        if params.get("leader"):
            decks = decks.filter(leader__slug=params["leader"])
        if params.get("card"):
            decks = decks.filter(
                Exists(DeckCard.objects.filter(deck=OuterRef("pk"), card__slug=params["card"]))
            )
        page = self.paginate_queryset(decks)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
