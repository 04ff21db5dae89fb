"""The builder's deck settings take the leader as typed text with suggestions, not a <select>.

A game may have hundreds of leaders: a <select> with one <option> each cost the builder page
about a tenth of its time. The settings form now has a text input (the leader's name, its slug
or the start of its name) whose <datalist> the `suggest` endpoint fills with htmx, as the card
browser's "Usable by leader" filter does; without JavaScript it is a plain text input.
"""

import re
from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services as card_services
from cards import vocabulary
from deckbuilder.forms import DeckSettingsForm
from deckbuilder.models import Deck
from tests.deckbuilder.test_pages import edit_url, make_deck
from tests.html import element, html_of, text_of

pytestmark = pytest.mark.django_db

SUGGEST = "/games/card-of-gods/suggest/leaders/"


def settings(deck, **changes) -> dict:
    """The settings form as the builder shows it for `deck`, with `changes`."""
    return {
        "action": "settings",
        "name": deck.name,
        "description": deck.description,
        "format": deck.format.slug,
        "leader": deck.leader.name,
        "visibility": deck.visibility,
        **changes,
    }


def leader_input(response) -> str:
    [tag] = re.findall(r'<input type="text" name="leader"[^>]*>', element(response, "settings"))
    return tag


def more_leaders(game, count):
    card_services.save_leaders(
        game=game,
        writes=[
            card_services.LeaderWrite({"name": f"Hermit {i:03}"}, [], []) for i in range(count)
        ],
    )


def test_settings_form_has_no_select_of_leaders_but_a_suggesting_input_with_the_leaders_name(
    client, alice, game
):
    more_leaders(game, 40)
    client.force_login(alice)
    response = client.get(edit_url(make_deck(alice, game)))
    assert response.status_code == 200
    form = element(response, "settings")
    assert '<select name="leader"' not in form
    assert "Hermit 007" not in html_of(response)  # no option per leader anywhere on the page
    tag = leader_input(response)
    for attribute in (
        'value="Kellantra"',
        'id="id_leader"',
        'list="settings-leader-list"',
        'maxlength="200"',
        'autocomplete="off"',
        f'hx-get="{SUGGEST}"',
        'hx-trigger="focus once, input changed delay:200ms"',
        'hx-target="#settings-leader-list"',
        'hx-swap="innerHTML"',
        'hx-sync="this:replace"',
        'aria-describedby="id_leader_helptext"',
        "required",
    ):
        assert attribute in tag
    assert "aria-invalid" not in tag
    datalist = '<datalist id="settings-leader-list"><option value="Kellantra"></option></datalist>'
    assert datalist in form  # the current name; htmx swaps in the suggestions
    assert '<label for="id_leader">Expedition Leader:</label>' in form  # the game's word
    assert '<div class="hint helptext" id="id_leader_helptext">Name or its start.</div>' in form
    # every id once, though the page also holds the card filters (and their own datalists)
    ids = Counter(re.findall(r'\sid="([^"]+)"', html_of(response)))
    assert [i for i, n in ids.items() if n > 1] == []


def test_the_suggestions_the_input_asks_for_are_the_leaders_names_starting_with_the_text(
    client, alice, game
):
    # htmx sends the input's own value, under its name
    html = html_of(client.get(SUGGEST, {"leader": "gott"}))
    assert '<option value="Gottfried">' in html
    assert "Kellantra" not in html


def test_saving_settings_with_the_leader_name_in_another_case_changes_the_leader(
    client, alice, game
):
    client.force_login(alice)
    deck = make_deck(alice, game)
    response = client.post(edit_url(deck), settings(deck, leader="  gOTTfried "))
    assert response.status_code == 302
    deck.refresh_from_db()
    assert deck.leader.slug == "gottfried"
    page = client.get(response["Location"])
    assert 'value="Gottfried"' in leader_input(page)
    assert "Deck saved." in text_of(page)


@pytest.mark.parametrize(
    ("typed", "leader"),
    [("richard", "richard"), ("gott", "gottfried")],
    ids=["its slug", "the start of one name"],
)
def test_saving_settings_with_a_leaders_slug_or_name_start_chooses_that_leader(
    client, alice, game, typed, leader
):
    client.force_login(alice)
    deck = make_deck(alice, game)
    response = client.post(edit_url(deck), settings(deck, leader=typed))
    assert response.status_code == 302
    deck.refresh_from_db()
    assert deck.leader.slug == leader


def test_the_leaders_name_or_slug_is_found_without_a_query(game):
    vocabulary.of(game)  # the page has it already
    data = {"name": "Seeds", "leader": "KELLANTRA", "visibility": "private"}
    by_name = DeckSettingsForm(data, game=game)
    by_slug = DeckSettingsForm({**data, "leader": "gottfried"}, game=game)
    with CaptureQueriesContext(connection) as queries:
        assert by_name.is_valid() and by_slug.is_valid()
    assert len(queries) == 0
    assert (by_name.cleaned_data["leader"].slug, by_slug.cleaned_data["leader"].slug) == (
        "kellantra",
        "gottfried",
    )
    # the leader of the game's vocabulary, with its colours (what the engine reads)
    assert by_name.cleaned_data["leader"] is vocabulary.of(game).leader_by_slug["kellantra"]


@pytest.mark.parametrize(
    "typed, message",
    [
        ("Nobody Here", "Unknown expedition leader 'Nobody Here'."),
        ("Kelantra", "Unknown expedition leader 'Kelantra'. Did you mean Kellantra?"),
        ("Her", "'Her' matches several expedition leaders: Hermit 000, Hermit 001. Type more"),
        ("", "Choose an expedition leader."),
    ],
    ids=["unknown", "misspelt", "ambiguous", "empty"],
)
def test_an_unknown_leader_is_refused_with_a_400_naming_the_text_and_nothing_changes(
    client, alice, game, typed, message
):
    more_leaders(game, 2)
    client.force_login(alice)
    deck = make_deck(alice, game, {"healing": 1})
    before = Deck.objects.values().get(pk=deck.pk)
    response = client.post(edit_url(deck), settings(deck, name="Renamed", leader=typed))
    assert response.status_code == 400
    html = html_of(response).replace("&#x27;", "'")
    assert re.search(rf'<ul class="errorlist" id="id_leader_error"><li>{re.escape(message)}', html)
    assert f'<a href="#id_leader">Expedition Leader</a>: {message}' in html  # the summary
    tag = leader_input(response)
    if typed:
        assert f'value="{typed}"' in tag  # what was typed, to correct
    assert 'aria-invalid="true"' in tag
    assert 'aria-describedby="id_leader_helptext id_leader_error"' in tag
    assert Deck.objects.values().get(pk=deck.pk) == before


def test_builder_runs_the_same_five_queries_with_3_and_200_leaders(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game, {"healing": 1})

    def queries() -> int:
        client.get(edit_url(deck))  # the caches are warm in steady state
        with CaptureQueriesContext(connection) as captured:
            response = client.get(edit_url(deck))
        assert response.status_code == 200
        assert 'value="Kellantra"' in leader_input(response)
        return len(captured)

    few = queries()
    more_leaders(game, 197)
    assert game.leaders.count() == 200
    assert (few, queries()) == (5, 5)


def test_new_deck_page_keeps_its_leader_radio_buttons(client, alice, game):
    client.force_login(alice)
    html = html_of(client.get(reverse("deck-new") + "?game=card-of-gods"))
    assert re.search(r'<input type="radio" name="leader" value="kellantra"', html)
    assert 'list="settings-leader-list"' not in html
