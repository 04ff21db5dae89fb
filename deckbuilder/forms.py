"""Forms of the deck pages: they check input shapes and resolve slugs; rules are the engine's."""

from typing import NamedTuple

from django import forms
from django.core.validators import MaxLengthValidator
from django.db.models import Q
from django.urls import reverse

from cards import vocabulary
from cards.filters import find_by_name
from cards.models import SEARCH_MAX_LENGTH, Card, Format, Game, Leader
from cards.text import article, one_line, several_lines

from . import services
from .models import Visibility
from .services import MAX_COPIES


class OneOfField(forms.ChoiceField):
    """One of a game's formats or leaders, by slug, among `objects` (the game's cached
    vocabulary, cards.vocabulary): listing and checking them runs no query. Cleaned, the object
    (None when left out)."""

    def __init__(self, *, objects=(), **kwargs):
        super().__init__(**kwargs)
        self.objects = objects

    @property
    def objects(self) -> list:
        return self._objects

    @objects.setter
    def objects(self, objects) -> None:
        self._objects = list(objects)
        self._by_slug = {obj.slug: obj for obj in self._objects}
        self.choices = [(obj.slug, str(obj)) for obj in self._objects]

    def clean(self, value):
        slug = super().clean(value)
        return self._by_slug.get(slug) if slug else None


# What a ModelChoiceField says of a value it does not know (these fields were ones).
NOT_LISTED = "Select a valid choice. That choice is not one of the available choices."


class LeaderChoiceField(OneOfField):
    """A leader of one game, given by slug (the template shows each with colours, factions)."""

    def __init__(self, **kwargs):
        super().__init__(
            widget=forms.RadioSelect,
            error_messages={
                "required": "Choose a leader.",
                "invalid_choice": "Choose one of the leaders listed.",
            },
            **kwargs,
        )


class LeaderNameField(OneOfField):
    """A leader of one game, typed in a text input: its name in any case or its slug, else the
    start of one name. A name or slug is looked up among `objects` (no query); other text goes
    to cards.filters.find_by_name, as the card filters' leader does, which reads the start of
    a name or says what is wrong with the text typed (several names start with it, or none).

    The input suggests names (a <datalist> filled by the `suggest` endpoint, with htmx; see
    `suggest_from`): no <select> of every leader. Without JavaScript it is a plain text input."""

    LIST_ID = "settings-leader-list"  # the <datalist>'s id (the builder's filters hold their own)

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "Name or its start.")
        super().__init__(
            widget=forms.TextInput(
                attrs={
                    "list": self.LIST_ID,
                    "maxlength": SEARCH_MAX_LENGTH,
                    "autocomplete": "off",
                    "hx-trigger": "focus once, input changed delay:200ms",
                    "hx-target": f"#{self.LIST_ID}",
                    "hx-swap": "innerHTML",
                    "hx-sync": "this:replace",
                }
            ),
            validators=[MaxLengthValidator(SEARCH_MAX_LENGTH)],
            **kwargs,
        )
        self.plural = "leaders"

    def suggest_from(self, game: Game) -> None:
        """Fill the suggestions from `game`'s leaders, and name them as the game does."""
        self.widget.attrs["hx-get"] = reverse("suggest", args=[game.slug, "leaders"])
        self.plural = (game.leaders_name or "leaders").lower()

    def clean(self, value):
        text = " ".join(self.to_python(value).split())
        forms.Field.validate(self, text)  # required; any other text is looked up below
        if not text:
            return None
        self.run_validators(text)
        key = text.casefold()
        found = self._by_slug.get(key) or next(
            (obj for obj in self.objects if obj.name.casefold() == key), None
        )
        if found is not None:
            return found
        games = {obj.game_id for obj in self.objects}
        rows = Leader.objects.filter(game_id__in=games).only("pk", "slug", "name")
        noun = (self.label or "leader").lower()
        row = find_by_name(rows, text, noun=noun, plural=self.plural)[0]
        return next((obj for obj in self.objects if obj.pk == row.pk), row)


class FormatChoiceField(OneOfField):
    """A format of the deck's game, by slug; left out, the game's default format."""

    def __init__(self, **kwargs):
        super().__init__(
            widget=forms.RadioSelect,
            error_messages={
                "required": "Choose a format.",
                "invalid_choice": "Choose one of the formats listed.",
            },
            **kwargs,
        )


def _game_fields(form: forms.Form, game: Game) -> None:
    """Point a deck form's format and leader fields at `game` (no leader field if it has none),
    whose formats and leaders come from its cached vocabulary."""
    words = vocabulary.of(game)
    form.fields["format"].objects = words.formats
    if game.has_leaders:
        leader = form.fields["leader"]
        leader.objects = words.leaders
        leader.label = game.leader_label
        leader.error_messages["required"] = f"Choose {_a(game.leader_label)}."
        listed = f"Choose one of the {game.leaders_name.lower()} listed."
        leader.error_messages["invalid_choice"] = listed
        if isinstance(leader, LeaderNameField):
            leader.suggest_from(game)
    else:
        del form.fields["leader"]


def _a(noun: str) -> str:
    return f"{article(noun)} {noun.lower()}"


class DeckNewForm(forms.Form):
    """A new deck: a format and a leader (where the game has them) of the chosen game, and a
    name (blank: "<Leader> deck", or "<Format> deck" without a leader)."""

    format = FormatChoiceField(label="Format", required=False)
    leader = LeaderChoiceField(label="Leader")
    name = forms.CharField(
        label="Deck name",
        max_length=120,
        required=False,
        validators=[one_line],
    )

    def __init__(self, *args, game: Game, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game
        _game_fields(self, game)
        if not game.has_leaders:  # named after the game: there is no leader to name it after
            self.fields[
                "name"
            ].help_text = f"Leave it blank to name it “{game.name} deck”; you can change it later."
        else:
            self.fields["name"].help_text = (
                f"Leave it blank to name the deck after its {game.leader_label.lower()}; "
                "you can change it later."
            )

    def clean(self):
        data = super().clean()
        if not data.get("format") and "format" not in self.errors:
            data["format"] = self.game.default_format()
        if not data.get("name", "").strip():
            if data.get("leader"):
                data["name"] = f"{data['leader'].name} deck"
            elif data.get("format"):
                data["name"] = f"{self.game.name} deck"
        return data


class DeckSettingsForm(forms.Form):
    """Name, description, format, leader and visibility of a deck (services.deck_update)."""

    name = forms.CharField(label="Name", max_length=120, validators=[one_line])
    description = forms.CharField(
        label="Description",
        max_length=5000,
        required=False,
        validators=[several_lines],
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    format = OneOfField(
        label="Format",
        required=False,
        help_text="Cards in a section the new format lacks move to its first section.",
        error_messages={"invalid_choice": NOT_LISTED},
    )
    leader = LeaderNameField(label="Leader")
    visibility = forms.ChoiceField(
        label="Who can see it",
        choices=Visibility.choices,
        widget=forms.RadioSelect,
        help_text="Only a legal deck can be public.",
    )

    def __init__(self, *args, game: Game, **kwargs):
        super().__init__(*args, **kwargs)
        _game_fields(self, game)

    def clean(self):
        data = super().clean()
        if data.get("format") is None:
            data.pop("format", None)  # left out: the deck keeps its format
        return data


def card_by_name(game: Game, text: str) -> Card:
    """The card of `game` a player means by `text`: its slug, its name in any case, or the
    start of one name (cards.filters.find_by_name: otherwise an error naming the candidates)."""
    cards = Card.objects.filter(game=game).only("pk", "slug", "name", "game_id")
    return find_by_name(cards, " ".join(text.split()), noun="card")[0]


class PendingSwap(NamedTuple):
    """Half a swap the builder waits to complete (views._change_count), named in the page's
    address (`swap=<way>:<section>:<card>`), which every +/− form of the page posts to: way
    `out`, a card picked to leave (the next + names the card to put in its place), or `in`, a
    card waiting to enter (the next − names the card to take out)."""

    way: str
    section: str
    card: Card

    CANCEL = "cancel"

    @property
    def value(self) -> str:
        return f"{self.way}:{self.section}:{self.card.slug}"

    def completed_by(self, card: Card, section: str, step: int):
        """What a change of `step` copies of `card` in `section` makes of this swap: the
        ((card, section) out, (card, section) into) it completes; CANCEL when it names the
        waiting card itself (+ on the card to leave, − on the one to enter); None when it is
        another change."""
        if (self.way, step) not in {("out", 1), ("in", -1)}:
            return None
        if (card.pk, section) == (self.card.pk, self.section):
            return self.CANCEL
        here, waiting = (card, section), (self.card, self.section)
        return (waiting, here) if self.way == "out" else (here, waiting)


def pending_swap(text: str, *, game: Game, fmt: Format, cards=()) -> PendingSwap | None:
    """The swap `text` names (PendingSwap.value; None when empty), its card found among
    `cards` (already read) or else read; ValidationError naming what is wrong."""
    if not text:
        return None
    way, _, rest = text.partition(":")
    section, _, slug = rest.partition(":")
    if way not in {"out", "in"} or not section or not slug:
        raise forms.ValidationError("A swap reads out:<section>:<card> or in:<section>:<card>.")
    if section not in fmt.slugs:
        raise forms.ValidationError(f"No section {section!r} in {fmt.name}.")
    card = next((c for c in cards if c.slug == slug), None)
    card = card or Card.objects.filter(game=game, slug=slug).first()
    if card is None:
        raise forms.ValidationError(f"No card {slug!r} in {game.name}.")
    return PendingSwap(way, section, card)


class CountForm(forms.Form):
    """The builder's +/−: a card of the deck's game (its slug, or `name` as a player types it
    in the quick-add box), a section of its format (default: the first) and either `op`
    (add/remove) or `count`; `swap`, the swap the page waits to complete (PendingSwap)."""

    card = forms.SlugField(max_length=120, required=False)
    name = forms.CharField(max_length=120, required=False, strip=True)
    section = forms.SlugField(max_length=40, required=False)
    op = forms.ChoiceField(choices=[("add", "Add one"), ("remove", "Remove one")], required=False)
    count = forms.IntegerField(min_value=0, max_value=MAX_COPIES, required=False)
    swap = forms.CharField(max_length=200, required=False)

    def __init__(self, *args, deck, cards=(), **kwargs):
        """`cards`: cards of the deck's game already read (the deck's own), found without a
        query."""
        super().__init__(*args, **kwargs)
        self.game, self.format = deck.game, deck.format
        self.cards = {card.slug: card for card in cards}

    def clean_card(self):
        slug = self.cleaned_data["card"]
        if not slug:
            return None
        card = self.cards.get(slug) or Card.objects.filter(game=self.game, slug=slug).first()
        if card is None:
            raise forms.ValidationError(f"No card {slug!r} in {self.game.name}.")
        return card

    def clean_swap(self):
        text = self.cleaned_data["swap"]
        return pending_swap(text, game=self.game, fmt=self.format, cards=self.cards.values())

    def clean_name(self):
        text = self.cleaned_data["name"]
        return card_by_name(self.game, text) if text else None

    def clean_section(self):
        section = self.cleaned_data["section"] or self.format.slugs[0]
        if section not in self.format.slugs:
            raise forms.ValidationError(f"No section {section!r} in {self.format.name}.")
        return section

    def clean(self):
        data = super().clean()
        if not data.get("op") and data.get("count") is None:
            raise forms.ValidationError("Say how many copies: op=add, op=remove or a count.")
        if data.get("card") is None and data.get("name") is not None:
            data["card"] = data["name"]
        if data.get("card") is None and not self.errors:
            raise forms.ValidationError("Type the name of the card to add.")
        return data

    def new_count(self, current: int) -> int:
        """The count to store, given the count the deck holds now."""
        data = self.cleaned_data
        if data.get("op") == "add":
            return min(current + 1, MAX_COPIES)
        if data.get("op") == "remove":
            return max(current - 1, 0)
        return data["count"]


class DeckImportForm(forms.Form):
    """A deck from text (the export format) and a name. The game and the format may be left to
    the text: those its header names (the export's first line), else the game its lines name
    most often and that game's default format (services.deck_text_target, whose complaints
    become these fields' errors). The formats are one <select> of every game's, grouped by
    game, each `game/format` (a bare format slug is read as the chosen game's). The lines are
    read by services.parse_deck_text, which names each bad line."""

    game = forms.ModelChoiceField(
        Game.objects.all(),
        to_field_name="slug",
        label="Game",
        required=False,
        empty_label="Detect from the text",
        help_text="Left to detect: the game the text's first line names (“# Game — Format …”, "
        "as exported), else the game whose cards its lines name.",
    )
    format = forms.CharField(  # checked against the choices in clean_format
        label="Format",
        required=False,
        widget=forms.Select,
        help_text="“From the text”: the format the text's first line names, else the game's "
        "default one.",
    )
    name = forms.CharField(label="Deck name", max_length=120, required=False, validators=[one_line])
    text = forms.CharField(
        label="The deck as text",
        max_length=20000,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false"}),
        help_text="The leader's name on the first line (games with leaders), then one “N Card "
        "Name” a line (or a printing number, “4 CMF-058”, or both, “4 Card Name (CMF-058)”); "
        "each further deck section after a line naming it, e.g. “Side deck:”. Lines starting "
        "with “#” or “//” are comments.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        formats = Format.objects.select_related("game").order_by("game__name", "position", "slug")
        self.formats = {f"{f.game.slug}/{f.slug}": f for f in formats}
        groups: dict[str, list] = {}
        for value, fmt in self.formats.items():
            groups.setdefault(fmt.game.name, []).append((value, fmt.name))
        self.fields["format"].widget.choices = [
            ("", "From the text, else the game's default"),
            *groups.items(),
        ]

    def clean_format(self) -> Format | None:
        value = self.cleaned_data["format"]
        game = self.cleaned_data.get("game")
        if value and "/" not in value and game is not None:
            value = f"{game.slug}/{value}"
        if value and value not in self.formats:
            raise forms.ValidationError("Choose one of the formats listed.")
        return self.formats.get(value)

    def clean(self):
        data = super().clean()
        if data.get("text") and not self.has_error("game") and not self.has_error("format"):
            try:
                data["game"], data["format"] = services.deck_text_target(
                    text=data["text"], game=data.get("game"), format=data.get("format")
                )
            except services.TextTargetError as e:
                self.add_error(e.field, str(e))
        return data


DECK_SORTS = {
    # "Newest" is the deck last published or changed: `updated` (the list's index orders by it).
    "new": (("-updated", "-pk"), "Newest first (last updated)"),
    "copied": (("-copies", "-updated", "-pk"), "Most copied first"),
}


class PublicDeckFilterForm(forms.Form):
    """Filters of the public deck list (GET): game, format, the format a deck is legal in now
    (`legal_in`, whatever format it was built in: a format of the chosen game), leader and
    card, and the order. Leader and card take a slug, a name in any case or the start of one
    name (of the chosen game's leaders and cards, or any game's): cards.filters.find_by_name,
    which says when the text is the start of several names and suggests close ones when it
    names nothing."""

    game = forms.ModelChoiceField(
        Game.objects.all(),
        to_field_name="slug",
        required=False,
        empty_label="Any game",
        error_messages={"invalid_choice": "No game %(value)r."},
    )
    in_format = forms.SlugField(label="Format", max_length=40, required=False)
    legal_in = forms.SlugField(label="Legal in", max_length=40, required=False)
    leader = forms.CharField(label="Leader", max_length=120, required=False)
    card = forms.CharField(label="Contains the card", max_length=120, required=False)
    sort = forms.ChoiceField(
        label="Sort",
        choices=[(key, label) for key, (_, label) in DECK_SORTS.items()],
        required=False,
        error_messages={
            "invalid_choice": "Unknown sort %(value)r: use “new” (newest first) or “copied” "
            "(most copied first)."
        },
    )

    def _find(self, name: str, model, noun: str) -> list:
        value = self.cleaned_data[name].strip()
        if not value:
            return []
        rows = model.objects.only("pk", "slug", "name")
        if self.cleaned_data.get("game"):
            rows = rows.filter(game=self.cleaned_data["game"])
        return find_by_name(rows, value, noun=noun)

    def clean_legal_in(self) -> Format | None:
        """The format of the chosen game (from its cached vocabulary: no query)."""
        slug = self.cleaned_data["legal_in"]
        if not slug:
            return None
        game = self.cleaned_data.get("game")
        if game is None:
            raise forms.ValidationError("Choose a game first: “Legal in” is one of its formats.")
        formats = vocabulary.of(game).formats
        found = next((f for f in formats if f.slug == slug), None)
        if found is None:
            names = ", ".join(f.name for f in formats)
            raise forms.ValidationError(
                f"{game.name} has no format “{slug}”; its formats: {names}."
            )
        return found

    def clean_leader(self) -> list[Leader]:
        """The leaders named (one name; several games may have a leader of that name)."""
        return self._find("leader", Leader, "leader")

    def clean_card(self) -> list[Card]:
        """The cards named (one name; several games may have a card of that name)."""
        return self._find("card", Card, "card")

    def ordering(self) -> tuple[str, ...]:
        return DECK_SORTS[self.cleaned_data.get("sort") or "new"][0]

    def card_condition(self) -> Q:
        """Decks holding the chosen card, for an Exists() over DeckCard."""
        return Q(card__in=[card.pk for card in self.cleaned_data["card"]])


class UnpublishForm(forms.Form):
    reason = forms.CharField(
        label="Reason (the owner reads it)",
        max_length=1000,
        validators=[several_lines],
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class SampleHandForm(forms.Form):
    """?hand=<seed>&draw=<more>: a sample hand the URL reproduces (analysis.sample_hand)."""

    hand = forms.IntegerField(min_value=1, max_value=2**31 - 1, required=False)
    draw = forms.IntegerField(min_value=0, max_value=MAX_COPIES * 10, required=False)
