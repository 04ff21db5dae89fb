"""Public decks with a card, on the card's page: the `decks` template tag library (the cards app
never imports deckbuilder) and the section of templates/cards/card_detail.html."""

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.template import Context, Template
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cards import services as card_services
from cards.models import Card, Game, Leader
from deckbuilder import services
from deckbuilder.models import Deck, Visibility
from deckbuilder.templatetags.decks import public_decks_with
from tests.factories import GOTTFRIED_TEN
from tests.html import html_of, text_of

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"
CARDS_APP = Path(__file__).resolve().parents[2] / "cards"
# Gottfried may use all of these: a legal ten (a public deck must be legal).
# Kellantra's legal ten (with a green common the test world lacks: see kellantra_ten).
KELLANTRA_TEN = {"plant-a-seed": 3, "healing": 2, "quiet-prayer": 3, "wild-growth": 2}


def card(slug) -> Card:
    return Card.objects.get(game__slug=GAME, slug=slug)


def make_deck(owner, name, visibility=Visibility.PUBLIC, counts=GOTTFRIED_TEN, lead="gottfried"):
    return services.deck_create(
        owner=owner,
        game=Game.objects.get(slug=GAME),
        leader=Leader.objects.get(game__slug=GAME, slug=lead),
        name=name,
        visibility=visibility,
        contents={(card(slug), "main"): n for slug, n in counts.items()},
    )


def kellantra_ten() -> dict[str, int]:
    game = Game.objects.get(slug=GAME)
    card_services.save_card(
        game=game,
        fields={
            "name": "Wild Growth",
            "rarity": game.rarities.get(slug="common"),
            "cost": {"life": 1},
        },
        keywords=[],
    )
    return KELLANTRA_TEN


def age(deck, days):
    """Make `deck` look last changed `days` ago (updated is auto_now: set it past save)."""
    Deck.objects.filter(pk=deck.pk).update(updated=timezone.now() - timedelta(days=days))


def card_url(slug):
    return reverse("card-detail", args=[GAME, slug])


def test_the_tag_counts_public_decks_holding_the_card_and_gives_the_5_most_recent(
    alice, bob, django_assert_num_queries
):
    decks = [make_deck(alice if i % 2 else bob, f"Deck {i}") for i in range(7)]
    for i, deck in enumerate(decks):
        age(deck, days=i)  # Deck 0 is the newest
    make_deck(alice, "Private one", Visibility.PRIVATE)
    make_deck(alice, "Unlisted one", Visibility.UNLISTED)
    without = make_deck(bob, "Without despair", Visibility.PUBLIC, kellantra_ten(), "kellantra")

    despair = card("despair")
    with django_assert_num_queries(1):  # the count rides along with the 5 rows
        using = public_decks_with(despair)
        names = [(d.name, d.owner.username, d.leader.name) for d in using["decks"]]
    assert using["count"] == 7
    assert names == [
        ("Deck 0", "bob", "Gottfried"),
        ("Deck 1", "alice", "Gottfried"),
        ("Deck 2", "bob", "Gottfried"),
        ("Deck 3", "alice", "Gottfried"),
        ("Deck 4", "bob", "Gottfried"),
    ]
    assert public_decks_with(card("healing")) == {"count": 1, "decks": [without]}


def test_the_tag_takes_one_query_when_no_public_deck_holds_the_card(
    alice, django_assert_num_queries
):
    make_deck(alice, "Private one", Visibility.PRIVATE)
    despair = card("despair")
    with django_assert_num_queries(1):
        assert public_decks_with(despair) == {"count": 0, "decks": []}


def test_the_tag_works_with_load_and_as_in_a_template(alice):
    make_deck(alice, "Burn")
    template = Template(
        "{% load decks %}{% public_decks_with card as using %}"
        "{{ using.count }}:{% for d in using.decks %}{{ d.name }}{% endfor %}"
    )
    assert template.render(Context({"card": card("despair")})) == "1:Burn"


def test_the_card_page_lists_public_decks_with_the_card_and_links_to_all_of_them(
    client, alice, bob
):
    for i in range(6):
        age(make_deck(bob if i % 2 else alice, f"Burn {i}"), days=i)
    make_deck(alice, "Hidden burn", Visibility.UNLISTED)
    response = client.get(card_url("despair"))
    assert response.status_code == 200
    page, html = text_of(response), html_of(response)
    assert "Public decks with this god card" in page
    section = page[page.index("Public decks with this god card") :]
    for i in range(5):
        assert f"Burn {i} — Expedition Leader: Gottfried · by {'bob' if i % 2 else 'alice'}" in (
            section
        )
    assert "Burn 5" not in section and "Hidden burn" not in page
    all_url = f"{reverse('deck-list')}?card=despair&amp;game={GAME}"
    assert f'<a href="{all_url}">All 6 decks with this god card</a>' in html
    for deck in Deck.objects.filter(name__in=[f"Burn {i}" for i in range(5)]):
        assert f'href="{deck.get_absolute_url()}"' in html

    listing = client.get(f"{reverse('deck-list')}?card=despair&game={GAME}")
    assert listing.status_code == 200
    assert all(f"Burn {i}" in text_of(listing) for i in range(6))
    assert "Hidden burn" not in text_of(listing)


def test_the_card_page_says_when_no_public_deck_uses_the_card(client, alice):
    make_deck(alice, "Private burn", Visibility.PRIVATE)
    page = text_of(client.get(card_url("despair")))
    assert "Public decks with this god card No public deck uses this god card yet." in page
    assert "Private burn" not in page and "All 0 decks" not in page


def card_page_queries(client, slug) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(card_url(slug)).status_code == 200
    return len(queries)


def test_the_card_page_runs_the_same_queries_for_1_and_8_decks(client, alice, bob):
    make_deck(alice, "Alone", counts=kellantra_ten(), lead="kellantra")  # healing: 1 deck
    for i in range(8):
        make_deck(bob if i % 2 else alice, f"Burn {i}")  # despair: 8 decks
    card_page_queries(client, "healing")  # warm the per-process caches
    card_page_queries(client, "despair")
    assert card_page_queries(client, "healing") == card_page_queries(client, "despair")


def test_the_cards_app_never_imports_deckbuilder():
    for path in CARDS_APP.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            assert not any(m.split(".")[0] == "deckbuilder" for m in modules), path
