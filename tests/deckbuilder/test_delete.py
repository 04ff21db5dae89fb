"""Deleting a deck from its pages: a confirmation page (GET), then POST deletes it through
services.deck_delete and goes back to My decks with a message. The owner only."""

import pytest
from django.urls import reverse

from cards.models import Card, Game, Leader
from deckbuilder import services
from deckbuilder.models import Deck, DeckVersion, Visibility
from tests.factories import GOTTFRIED_TEN
from tests.html import meta, text_of

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"
MATRIX = [
    (visibility, who)
    for visibility in (Visibility.PRIVATE, Visibility.UNLISTED, Visibility.PUBLIC)
    for who in ("anonymous", "owner", "other", "staff")
]


def make_deck(owner, visibility=Visibility.PRIVATE, name="Gottfried ten"):
    cards = {c.slug: c for c in Card.objects.filter(game__slug=GAME, slug__in=GOTTFRIED_TEN)}
    return services.deck_create(
        owner=owner,
        game=Game.objects.get(slug=GAME),
        leader=Leader.objects.get(game__slug=GAME, slug="gottfried"),
        name=name,
        visibility=visibility,
        contents={(cards[slug], "main"): n for slug, n in GOTTFRIED_TEN.items()},
    )


def delete_url(deck):
    return reverse("deck-delete", args=[deck.share_id])


def expected_for_others(visibility, who) -> int:
    """What a user who does not own the deck gets: 404 when they cannot see it at all."""
    return 404 if visibility == Visibility.PRIVATE else 403


@pytest.mark.parametrize(("visibility", "who"), MATRIX)
def test_only_the_owner_sees_the_confirmation_page(client, alice, bob, staff, visibility, who):
    deck = make_deck(alice, visibility)
    if who != "anonymous":
        client.force_login({"owner": alice, "other": bob, "staff": staff}[who])
    response = client.get(delete_url(deck))
    if who == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    elif who == "owner":
        assert response.status_code == 200
    else:
        assert response.status_code == expected_for_others(visibility, who)
    assert Deck.objects.filter(pk=deck.pk).exists()  # a GET never deletes


@pytest.mark.parametrize(("visibility", "who"), MATRIX)
def test_only_the_owner_can_delete_others_get_403_or_404_and_the_deck_stays(
    client, alice, bob, staff, visibility, who
):
    deck = make_deck(alice, visibility)
    if who != "anonymous":
        client.force_login({"owner": alice, "other": bob, "staff": staff}[who])
    response = client.post(delete_url(deck))
    if who == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    elif who == "owner":
        assert response.status_code == 302 and response["Location"] == reverse("my-decks")
    else:
        assert response.status_code == expected_for_others(visibility, who)
    assert Deck.objects.filter(pk=deck.pk).exists() is (who != "owner")


def test_confirmation_page_names_the_deck_shows_its_summary_a_delete_button_and_cancel(
    client, alice
):
    deck = make_deck(alice, Visibility.UNLISTED, name="Fire & Ash")
    client.force_login(alice)
    response = client.get(delete_url(deck))
    html = response.content.decode()
    page = text_of(response)
    assert "Delete “Fire & Ash”? This cannot be undone." in page
    assert "Expedition Leader: Gottfried" in page and "10/10 cards" in page
    assert "✓ Legal" in page and "◎ Unlisted" in page
    assert f'<form method="post" action="{delete_url(deck)}"' in html
    assert '<button type="submit" class="button danger">Delete this deck</button>' in html
    assert f'href="{deck.get_absolute_url()}">Cancel</a>' in html
    assert meta(response, "property", "og:title") == "Delete Fire &amp; Ash?"
    assert meta(response, "name", "robots") == "noindex, nofollow"


def test_delete_goes_to_my_decks_with_a_message_and_takes_the_history_along(client, alice):
    deck = make_deck(alice, name="Doomed")
    services.deck_update(deck=deck, name="Doomed deck")
    keep = make_deck(alice, name="Kept")
    client.force_login(alice)
    response = client.post(delete_url(deck), follow=True)
    assert response.redirect_chain == [(reverse("my-decks"), 302)]
    page = text_of(response)
    assert "Deleted “Doomed deck”." in page
    assert "Kept" in page
    assert not Deck.objects.filter(pk=deck.pk).exists()
    assert not DeckVersion.objects.filter(deck_id=deck.pk).exists()
    assert Deck.objects.filter(pk=keep.pk).exists()
    assert client.get(deck.get_absolute_url()).status_code == 404


def test_deleting_a_deck_already_gone_is_404(client, alice):
    deck = make_deck(alice)
    client.force_login(alice)
    assert client.post(delete_url(deck)).status_code == 302
    assert client.post(delete_url(deck)).status_code == 404
    assert client.get(delete_url(deck)).status_code == 404


def test_delete_takes_get_and_post_only(client, alice):
    deck = make_deck(alice)
    client.force_login(alice)
    assert client.put(delete_url(deck)).status_code == 405
    assert client.delete(delete_url(deck)).status_code == 405
    assert Deck.objects.filter(pk=deck.pk).exists()


def test_a_copy_survives_the_deletion_of_the_deck_it_was_copied_from(client, alice, bob):
    deck = make_deck(alice, Visibility.PUBLIC)
    copy = services.deck_copy(deck=deck, owner=bob)
    client.force_login(alice)
    assert client.post(delete_url(deck)).status_code == 302
    copy = Deck.objects.get(pk=copy.pk)
    assert copy.owner == bob and copy.copied_from is None
