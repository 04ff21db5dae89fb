"""The public deck list: sorted newest (last updated) or most copied first, each deck saying how
many times it was copied; the leader and card filters take a name, a slug or the start of one
name; the filter form applies on change (htmx) and still works as a plain GET form."""

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cards import services as card_services
from cards.models import Card, Leader
from deckbuilder import services
from deckbuilder.models import Deck
from tests.html import html_of, text_of

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"
URL = reverse("deck-list")


def public_deck(owner, game, name, *, lead="kellantra", counts=None, copies=0, age_days=0):
    counts = counts or {"plant-a-seed": 1}
    deck = services.deck_create(
        owner=owner,
        game=game,
        leader=Leader.objects.get(game=game, slug=lead),
        name=name,
        visibility="unlisted",
        contents={(Card.objects.get(game=game, slug=s), "main"): n for s, n in counts.items()},
    )
    # public whatever its legality (as a deck that stayed public), updated `age_days` ago
    Deck.objects.filter(pk=deck.pk).update(
        visibility="public",
        copies=copies,
        updated=timezone.now() - dt.timedelta(days=age_days),
    )
    return deck


def listed(client, query="", status=200):
    response = client.get(URL + query)
    assert response.status_code == status, response.context and response.context["form"].errors
    return [deck.name for deck in response.context["decks"]]


@pytest.fixture
def decks(alice, bob, game):
    public_deck(alice, game, "Old favourite", copies=9, age_days=30)
    public_deck(bob, game, "Fresh", copies=0, age_days=0)
    public_deck(alice, game, "Middle popular", copies=3, age_days=10)
    public_deck(bob, game, "Also three, older", copies=3, age_days=20)
    public_deck(bob, game, "Richard's", lead="richard", counts={"punishment": 1}, age_days=5)


# --- sorting ---------------------------------------------------------------------------------

NEWEST = ["Fresh", "Richard's", "Middle popular", "Also three, older", "Old favourite"]


def test_newest_first_by_default_and_with_sort_new(client, decks):
    assert listed(client) == NEWEST
    assert listed(client, "?sort=new") == NEWEST


def test_sort_new_is_the_last_update_not_the_creation(client, alice, game, decks):
    oldest = Deck.objects.get(name="Old favourite")
    Deck.objects.filter(pk=oldest.pk).update(updated=timezone.now() + dt.timedelta(minutes=1))
    assert listed(client, "?sort=new")[0] == "Old favourite"


def test_most_copied_first_ties_newest_first(client, decks):
    assert listed(client, "?sort=copied") == [
        "Old favourite",  # 9
        "Middle popular",  # 3, 10 days
        "Also three, older",  # 3, 20 days
        "Fresh",  # 0, today
        "Richard's",  # 0, 5 days
    ]


def test_sort_keeps_the_filters_and_the_filters_keep_the_sort(client, decks):
    assert listed(client, "?sort=copied&leader=kellantra") == [
        "Old favourite",
        "Middle popular",
        "Also three, older",
        "Fresh",
    ]
    html = html_of(client.get(URL + "?sort=copied&leader=kellantra"))
    assert re.search(r'<option value="copied" selected>Most copied first</option>', html)


def test_the_sort_select_names_both_orders(client, decks):
    html = html_of(client.get(URL))
    select = re.search(r'<select name="sort" id="id_sort">.*?</select>', html, re.S).group(0)
    assert '<option value="new" selected>Newest first (last updated)</option>' in select
    assert '<option value="copied">Most copied first</option>' in select


@pytest.mark.parametrize("sort", ["oldest", "-copies", "COPIED", "name"])
def test_an_unknown_sort_is_a_400_that_says_which_sorts_exist(client, decks, sort):
    response = client.get(URL + f"?sort={sort}")
    assert response.status_code == 400
    assert response.context["decks"] == []
    text = text_of(response)
    assert (
        f"Sort: Unknown sort '{sort}': use “new” (newest first) or “copied” (most copied first)."
        in text
    )
    assert "No results: the filters have errors" in text


def test_paginated_pages_keep_the_sort(client, alice, game):
    for i in range(21):
        public_deck(alice, game, f"Deck {i:02d}", copies=i)
    first = client.get(URL + "?sort=copied")
    assert [d.name for d in first.context["decks"]][:2] == ["Deck 20", "Deck 19"]
    assert 'href="?sort=copied&amp;page=2"' in html_of(first)
    assert listed(client, "?sort=copied&page=2") == ["Deck 00"]


# --- copies shown ----------------------------------------------------------------------------


def test_each_deck_says_how_many_times_it_was_copied(client, decks):
    text = text_of(client.get(URL))
    assert "Old favourite" in text
    assert re.search(r"Old favourite .*? copied 9 times", text)
    assert re.search(r"Middle popular .*? copied 3 times", text)
    assert re.search(r"Fresh .*? not copied yet", text)


def test_a_copy_made_by_another_player_counts(client, alice, bob, decks):
    fresh = Deck.objects.get(name="Fresh")
    services.deck_copy(deck=fresh, owner=alice)
    text = text_of(client.get(URL))
    assert re.search(r"Fresh .*? copied once", text)


# --- card and leader by the start of a name --------------------------------------------------


@pytest.fixture
def barks(alice, game):
    """A Card of Gods card starting with "Barks" (Berserk has a "Barkskin Mantle" too)."""
    card_services.save_card(
        game=game,
        fields={"name": "Barksdale Oak", "rarity": game.rarities.first(), "cost": {"life": 1}},
        keywords=[],
    )
    return public_deck(alice, game, "Oak deck", counts={"barksdale-oak": 1})


def test_a_card_by_the_start_of_its_name(client, decks, barks):
    assert listed(client, "?card=Barksd") == ["Oak deck"]
    assert listed(client, "?card=barksdale") == ["Oak deck"]
    assert listed(client, "?card=barksdale-oak") == ["Oak deck"]  # the slug
    assert listed(client, "?card=Barksdale+Oak") == ["Oak deck"]
    html = html_of(client.get(URL + "?card=Barksd"))
    assert 'name="card" id="id_card" value="Barksdale Oak"' in html  # the full name found


def test_a_card_start_shared_by_two_games_needs_the_game_or_more_letters(client, decks, barks):
    response = client.get(URL + "?card=Barks")
    assert response.status_code == 400
    assert (
        "Contains the card: 'Barks' matches several cards: Barksdale Oak, Barkskin Mantle. "
        "Type more of the name." in text_of(response)
    )
    assert listed(client, f"?game={GAME}&card=Barks") == ["Oak deck"]


def test_an_unknown_card_suggests_close_names(client, decks, barks):
    response = client.get(URL + "?card=Punishmnet")
    assert response.status_code == 400
    assert "Unknown card 'Punishmnet'. Did you mean Punishment?" in text_of(response)


def test_a_leader_by_name_slug_or_start(client, decks):
    richard = ["Richard's"]
    for value in ("richard", "Richard", "RICH", "ri"):
        assert listed(client, f"?leader={value}") == richard
    response = client.get(URL + "?leader=Kelantra")
    assert response.status_code == 400
    assert "Leader: Unknown leader 'Kelantra'. Did you mean Kellantra?" in text_of(response)


def test_a_leader_start_shared_by_several_leaders_is_a_400_naming_them(client, decks, game):
    card_services.save_leader(game=game, fields={"name": "Kelvin"}, colours=[], keywords=[])
    response = client.get(URL + "?leader=kel")
    assert response.status_code == 400
    assert "'kel' matches several leaders: Kellantra, Kelvin." in text_of(response)


# --- the page applies its filters on change ----------------------------------------------------


def test_the_filter_form_reloads_the_results_on_change(client, decks):
    html = html_of(client.get(URL))
    assert "/static/js/htmx.min.js" in html and '"allowEval": false' in html
    form = re.search(r'<form class="filters deck-filters"[^>]*>', html).group(0)
    for attribute in (
        f'hx-get="{URL}"',
        'hx-trigger="change, submit"',
        'hx-target="#deck-results"',
        'hx-select="#deck-results"',
        'hx-push-url="true"',
        'method="get"',
    ):
        assert attribute in form
    results = html[html.index('id="deck-results"') :]
    assert 'class="results-count"' in results and 'class="deck-rows"' in results
    assert "hx-on" not in html and 'style="' not in html


def test_without_a_game_the_leader_box_lists_every_leader_name(client, decks):
    html = html_of(client.get(URL))
    datalist = re.search(r'<datalist id="deck-leader-list">(.*?)</datalist>', html).group(1)
    assert '<option value="Kellantra">' in datalist and '<option value="Richard">' in datalist
    assert "suggest" not in re.search(r'<input type="text" name="leader"[^>]*>', html).group(0)
    assert '<select name="leader"' not in html


def test_with_a_game_the_boxes_get_that_games_suggestions(client, decks):
    html = html_of(client.get(URL + f"?game={GAME}"))
    leader = re.search(r'<input type="text" name="leader"[^>]*>', html).group(0)
    assert f'hx-get="{reverse("suggest", args=[GAME, "leaders"])}"' in leader
    card = re.search(r'<input type="text" name="card"[^>]*>', html).group(0)
    assert f'hx-get="{reverse("suggest", args=[GAME, "cards"])}"' in card
    assert 'list="deck-card-list"' in card
    html = html_of(client.get(URL + f"?game={GAME}&sort=bogus"))  # another field's error
    leader = re.search(r'<input type="text" name="leader"[^>]*>', html).group(0)
    assert f'hx-get="{reverse("suggest", args=[GAME, "leaders"])}"' in leader


def test_queries_do_not_grow_with_the_number_of_decks(client, alice, game, decks):
    def count(query):
        client.get(URL + query)
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(URL + query).status_code == 200
        return len(ctx.captured_queries)

    query = "?sort=copied&leader=kel&card=plant"
    before = count(query)
    for i in range(10):
        public_deck(alice, game, f"More {i}", copies=i)
    assert count(query) == before
