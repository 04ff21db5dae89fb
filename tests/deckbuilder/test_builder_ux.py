"""The builder and deck page as players use them: quick add by name, the sample hand in the
URL, the share link, and htmx answers that only touch what the page shows."""

import re

import pytest
from django.urls import reverse

from deckbuilder.models import Visibility
from tests.deckbuilder.test_pages import HTMX, counts_of, edit_url, make_deck
from tests.html import element, ids_in, text_in

pytestmark = pytest.mark.django_db


def quick_add(client, deck, name, **extra):
    return client.post(edit_url(deck), {"name": name, "op": "add"}, **extra)


# --- quick add by name ---------------------------------------------------------------------


def test_quick_add_takes_a_name_in_any_case(client, alice, game):
    deck = make_deck(alice, game)
    client.force_login(alice)
    response = quick_add(client, deck, "  hEaLing ")
    assert response.status_code == 302
    assert counts_of(deck) == {"healing": 1}


def test_quick_add_takes_the_start_of_one_name(client, alice, game):
    deck = make_deck(alice, game)
    client.force_login(alice)
    quick_add(client, deck, "plant a")
    quick_add(client, deck, "Plant")
    assert counts_of(deck) == {"plant-a-seed": 2}


def test_quick_add_of_an_ambiguous_start_lists_the_cards_and_changes_nothing(client, alice, game):
    deck = make_deck(alice, game)
    client.force_login(alice)
    response = quick_add(client, deck, "P")
    assert response.status_code == 400
    error = text_in(response, "quick-add-error")
    assert "'P' matches several cards: Plant A Seed, Punishment. Type more" in error
    assert counts_of(deck) == {}
    assert 'value="P"' in element(response, "quick-add-name")


def test_quick_add_of_an_unknown_name_suggests_cards_containing_it(client, alice, game):
    deck = make_deck(alice, game)
    client.force_login(alice)
    response = quick_add(client, deck, "seed", **HTMX)
    assert response.status_code == 400
    error = text_in(response, "quick-add-error")
    assert "Unknown card 'seed'. Did you mean Plant A Seed?" in error
    assert "Not changed" in text_in(response, "deck-status")
    assert counts_of(deck) == {}


def test_quick_add_with_htmx_updates_the_panel_and_announces_the_card(client, alice, game):
    deck = make_deck(alice, game)
    client.force_login(alice)
    response = quick_add(client, deck, "healing", **HTMX)
    assert response.status_code == 200
    assert "Healing: 1 in deck." in text_in(response, "deck-status")
    assert "1× Healing" in text_in(response, "deck-panel")


# --- htmx answers touch only what the page lists --------------------------------------------


def test_a_change_to_a_card_not_listed_sends_no_swap_for_its_row(client, alice, game):
    """An out-of-band swap whose target is missing is an htmx error (oobErrorNoTarget)."""
    deck = make_deck(alice, game, {"healing": 2})
    client.force_login(alice)
    data = {"card": "healing", "op": "remove", "shown": ["plant-a-seed"]}
    response = client.post(edit_url(deck), data, **HTMX)
    ids = ids_in(response)
    assert "count-main-healing" not in ids and "card-problems-healing" not in ids
    assert {"deck-panel", "deck-status"} <= ids


def test_a_change_to_a_listed_card_swaps_its_count(client, alice, game):
    deck = make_deck(alice, game, {"healing": 2})
    client.force_login(alice)
    data = {"card": "healing", "op": "remove", "shown": ["healing", "plant-a-seed"]}
    response = client.post(edit_url(deck), data, **HTMX)
    assert text_in(response, "count-main-healing") == "1"


def test_builder_buttons_keep_focus_and_name_the_listed_cards(client, alice, game):
    deck = make_deck(alice, game, {"healing": 1})
    client.force_login(alice)
    page = client.get(edit_url(deck)).content.decode()
    assert "hx-disabled-elt" not in page  # a disabled button drops the keyboard focus
    assert page.count('hx-include="[name=shown]"') >= 3
    assert '<input type="hidden" name="shown" value="healing">' in page


def test_builder_has_skip_links_tabs_and_a_live_status(client, alice, game):
    deck = make_deck(alice, game)
    client.force_login(alice)
    response = client.get(edit_url(deck))
    page = response.content.decode()
    assert 'href="#deck-panel"' in page and 'href="#builder-cards"' in page
    assert re.search(r'role="tab"[^>]*aria-controls="deck-panel"', page)
    assert 'id="deck-status" role="status"' in page
    assert {"builder-cards", "deck-panel", "panel-heading", "quick-add-name"} <= ids_in(response)


# --- sample hand ---------------------------------------------------------------------------


def hand_names(response) -> list[str]:
    return re.findall(r'class="hand-name"[^>]*>([^<]+)</a>', element(response, "hand-cards"))


def test_the_hand_in_the_url_draws_the_same_cards_every_time(client, alice, game):
    deck = make_deck(alice, game, {"healing": 2, "plant-a-seed": 3, "quiet-prayer": 3})
    url = reverse("deck-detail", args=[deck.share_id])
    client.force_login(alice)
    first = client.get(url, {"hand": 7})
    assert first.status_code == 200
    assert hand_names(first) == hand_names(client.get(url, {"hand": 7}))
    assert len(hand_names(first)) == deck.format.hand_size == 5
    more = client.get(url, {"hand": 7, "draw": 2})
    assert hand_names(more)[:5] == hand_names(first) and len(hand_names(more)) == 7


def test_the_hand_size_comes_from_the_format(client, alice, game):
    deck = make_deck(alice, game, {"healing": 2, "plant-a-seed": 3, "quiet-prayer": 3})
    deck.format.hand_size = 3
    deck.format.save()
    client.force_login(alice)
    response = client.get(reverse("deck-detail", args=[deck.share_id]), {"hand": 1})
    assert len(hand_names(response)) == 3


def test_drawing_stops_at_the_last_card(client, alice, game):
    deck = make_deck(alice, game, {"healing": 2})
    client.force_login(alice)
    response = client.get(reverse("deck-detail", args=[deck.share_id]), {"hand": 3, "draw": 9})
    assert sorted(hand_names(response)) == ["Healing", "Healing"]
    assert "hand-draw" not in ids_in(response)  # nothing more to draw


def test_a_bad_hand_in_the_url_is_a_400_that_says_why(client, alice, game):
    deck = make_deck(alice, game, {"healing": 2})
    client.force_login(alice)
    response = client.get(reverse("deck-detail", args=[deck.share_id]), {"hand": "x"})
    assert response.status_code == 400
    assert "could not be drawn" in text_in(response, "sample-hand")


def test_the_builder_shows_the_sample_hand_too(client, alice, game):
    deck = make_deck(alice, game, {"healing": 2, "plant-a-seed": 3})
    client.force_login(alice)
    response = client.get(edit_url(deck, "hand=5"))
    assert len(hand_names(response)) == 5


# --- share link ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "visibility, says",
    [(Visibility.UNLISTED, "anyone with the link"), (Visibility.PRIVATE, "only you can open it")],
)
def test_the_deck_page_shows_its_link_with_a_copy_button(client, alice, game, visibility, says):
    deck = make_deck(alice, game, visibility=visibility)
    client.force_login(alice)
    response = client.get(reverse("deck-detail", args=[deck.share_id]))
    field = element(response, "share-url")
    assert f'value="http://testserver/decks/{deck.share_id}/"' in field
    assert 'data-copy="#share-url"' in response.content.decode()
    assert says in text_in(response, "share")
