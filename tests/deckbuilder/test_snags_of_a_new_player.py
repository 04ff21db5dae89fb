"""Snags a new player hit (issue 25): each one, as the player met it."""

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from cards.models import Game
from tests import factories
from tests.deckbuilder.test_services import fow_deck  # noqa: F401 (a fixture)
from tests.html import html_of, text_of

pytestmark = pytest.mark.django_db


class Landmarks(HTMLParser):
    """The landmarks of a page that carry a name (`<section>` named by aria-labelledby or
    aria-label, `<nav>`, `<aside>`, `<form>` with a name), as (tag, name) pairs."""

    def __init__(self):
        super().__init__()
        self.named: list[tuple[str, str]] = []  # (tag, id it is labelled by or its label)
        self.texts: dict[str, list[str]] = {}
        self.open: list[str] = []  # ids of the elements whose text is being read

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in {"section", "nav", "aside", "form"}:
            if attrs.get("aria-labelledby"):
                self.named.append((tag, "#" + attrs["aria-labelledby"]))
            elif attrs.get("aria-label"):
                self.named.append((tag, attrs["aria-label"]))
        if attrs.get("id"):
            self.texts[attrs["id"]] = []
        self.open.append(attrs.get("id"))

    def handle_endtag(self, tag):
        if self.open:
            self.open.pop()

    def handle_data(self, data):
        for element_id in self.open:
            if element_id:
                self.texts[element_id].append(data)

    def names(self) -> list[tuple[str, str]]:
        def name(label):
            if label.startswith("#"):
                return " ".join("".join(self.texts.get(label[1:], [])).split())
            return label

        return [(tag, name(label)) for tag, label in self.named]


def landmark_names(response) -> list[tuple[str, str]]:
    parser = Landmarks()
    parser.feed(html_of(response))
    return parser.names()


def test_a_deck_of_several_sections_names_each_landmark_once(client, fow_deck):  # noqa: F811
    client.force_login(fow_deck.owner)
    for url in (fow_deck.get_absolute_url(), reverse("deck-edit", args=[fow_deck.share_id])):
        names = landmark_names(client.get(url))
        assert names, url
        assert len(names) == len(set(names)), url


def test_a_private_decks_link_says_decks_may_be_private_and_offers_to_log_in(client, alice, game):
    deck = factories.deck(alice, game, visibility="private")
    response = client.get(deck.get_absolute_url())
    assert response.status_code == 404
    page = text_of(response)
    assert "deck" in page and "private deck opens only for its owner" in page
    assert f"/accounts/login/?next=/decks/{deck.share_id}/" in html_of(response)


@pytest.mark.parametrize(
    ("slug", "phrase"),
    [("of-gods-and-men", "an Of Gods and Men format"), ("irdya", "an Irdya card game format")],
)
def test_a_game_whose_name_starts_with_a_vowel_takes_an(client, slug, phrase):
    game = Game.objects.get(slug=slug)
    response = client.get(game.default_format().get_absolute_url())
    assert phrase in text_of(response)
    assert f"a {game.name}" not in text_of(response)


def test_a_card_of_gods_deck_page_still_reads_a(client, alice, game):
    deck = factories.deck(alice, game)
    page = text_of(client.get(deck.get_absolute_url()))
    assert "A Card of Gods deck by alice" in page


def test_a_game_without_leaders_does_not_offer_to_name_the_deck_after_its_leader(client, alice):
    client.force_login(alice)
    page = text_of(client.get(reverse("deck-new"), {"game": "of-gods-and-men"}))
    assert "after its leader" not in page
    assert "Leave it blank to name it “Of Gods and Men deck”" in page
    led = text_of(client.get(reverse("deck-new"), {"game": "card-of-gods"}))
    assert "name the deck after its expedition leader" in led


def test_the_card_count_in_parentheses_has_no_stray_space(client, alice, game):
    deck = factories.deck(alice, game)
    page = text_of(client.get(deck.get_absolute_url()))
    assert "(10/10 cards)" in page
    assert "cards )" not in page


def test_a_size_with_no_upper_bound_reads_40_plus(client, alice):
    berserk = Game.objects.get(slug="berserk-heroes")
    deck = factories.deck(alice, berserk, {}, lead=None, visibility="unlisted")
    page = text_of(client.get(deck.get_absolute_url()))
    assert "0/40+ cards" in page and "≥" not in page
