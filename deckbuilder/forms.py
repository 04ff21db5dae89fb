"""Forms of the deck pages: they check input shapes and resolve slugs; rules are the engine's."""

from django import forms
from django.db.models import Q

from cards.models import Card, Game, Leader

from .models import Visibility
from .services import MAX_COPIES


class LeaderChoiceField(forms.ModelChoiceField):
    """A leader of one game, given by slug (the template shows each with colours, factions)."""

    def __init__(self, queryset, **kwargs):
        super().__init__(
            queryset,
            to_field_name="slug",
            empty_label=None,
            widget=forms.RadioSelect,
            error_messages={
                "required": "Choose a leader.",
                "invalid_choice": "Choose one of the leaders listed.",
            },
            **kwargs,
        )


class DeckNewForm(forms.Form):
    """A new deck: a leader of the chosen game and a name (blank: "<Leader> deck")."""

    leader = LeaderChoiceField(Leader.objects.none(), label="Leader")
    name = forms.CharField(
        label="Deck name",
        max_length=120,
        required=False,
        help_text="Leave it blank to call the deck after its leader; you can change it later.",
    )

    def __init__(self, *args, game: Game, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game
        self.fields["leader"].queryset = Leader.objects.filter(game=game)
        self.fields["leader"].label = game.leader_label

    def clean(self):
        data = super().clean()
        if data.get("leader") and not data.get("name", "").strip():
            data["name"] = f"{data['leader'].name} deck"
        return data


class DeckSettingsForm(forms.Form):
    """Name, description, leader and visibility of a deck (saved with services.deck_update)."""

    name = forms.CharField(label="Name", max_length=120)
    description = forms.CharField(
        label="Description",
        max_length=5000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    leader = forms.ModelChoiceField(
        Leader.objects.none(), to_field_name="slug", label="Leader", empty_label=None
    )
    visibility = forms.ChoiceField(
        label="Who can see it",
        choices=Visibility.choices,
        widget=forms.RadioSelect,
        help_text="Only a legal deck can be public.",
    )

    def __init__(self, *args, game: Game, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["leader"].queryset = Leader.objects.filter(game=game)
        self.fields["leader"].label = game.leader_label


class CountForm(forms.Form):
    """The builder's +/−: a card of the deck's game and either `op` (add/remove) or `count`."""

    card = forms.SlugField(max_length=120)
    op = forms.ChoiceField(choices=[("add", "Add one"), ("remove", "Remove one")], required=False)
    count = forms.IntegerField(min_value=0, max_value=MAX_COPIES, required=False)

    def __init__(self, *args, game: Game, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game

    def clean_card(self):
        slug = self.cleaned_data["card"]
        card = Card.objects.filter(game=self.game, slug=slug).first()
        if card is None:
            raise forms.ValidationError(f"No card {slug!r} in {self.game.name}.")
        return card

    def clean(self):
        data = super().clean()
        if not data.get("op") and data.get("count") is None:
            raise forms.ValidationError("Say how many copies: op=add, op=remove or a count.")
        return data

    def new_count(self, current: int) -> int:
        """The count to store, given the count the deck holds now."""
        data = self.cleaned_data
        if data.get("op") == "add":
            return min(current + 1, MAX_COPIES)
        if data.get("op") == "remove":
            return max(current - 1, 0)
        return data["count"]


class PublicDeckFilterForm(forms.Form):
    """Filters of the public deck list (GET): game, leader and card, by slug (or card name)."""

    game = forms.ModelChoiceField(
        Game.objects.all(), to_field_name="slug", required=False, empty_label="Any game"
    )
    leader = forms.SlugField(label="Leader", max_length=120, required=False)
    card = forms.CharField(label="Contains the card", max_length=120, required=False)

    def clean_card(self):
        value = self.cleaned_data["card"].strip()
        if not value:
            return None
        cards = Card.objects.filter(Q(slug=value) | Q(name__iexact=value))
        if not cards.exists():
            raise forms.ValidationError(f"No card named {value!r}.")
        return value

    def card_condition(self) -> Q:
        """Decks holding the chosen card (by slug or name), for an Exists() over DeckCard."""
        value = self.cleaned_data["card"]
        return Q(card__slug=value) | Q(card__name__iexact=value)
