"""Moderation: staff unpublish a public deck (it becomes unlisted) with a reason its owner sees;
the admin's history records it; the owner cannot list it again until staff restore it."""

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client

from deckbuilder.models import Deck, Visibility
from tests.conftest import api_client
from tests.deckbuilder.test_api import make_deck

pytestmark = pytest.mark.django_db
REASON = "Its name insults another player."


@pytest.fixture
def public_deck(alice, plain_static_files):
    return make_deck(alice, visibility=Visibility.PUBLIC, name="Loud deck")


def unpublish_api(user, deck, reason=REASON):
    client = api_client(user)
    return client.post(f"/api/decks/{deck.share_id}/unpublish/", {"reason": reason}, format="json")


def unpublish_page(user, deck, reason=REASON):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.post(f"/decks/{deck.share_id}/unpublish/", {"reason": reason})


@pytest.mark.parametrize(
    ("who", "api_status", "page_status"),
    [("anonymous", 401, 302), ("owner", 403, 403), ("other", 403, 403), ("staff", 200, 302)],
)
@pytest.mark.parametrize("path", ["api", "page"])
def test_only_staff_can_unpublish(
    public_deck, alice, bob, staff, who, api_status, page_status, path
):
    user = {"anonymous": None, "owner": alice, "other": bob, "staff": staff}[who]
    response = (unpublish_api if path == "api" else unpublish_page)(user, public_deck)
    assert response.status_code == (api_status if path == "api" else page_status)
    if who == "anonymous" and path == "page":
        assert response["Location"].startswith("/accounts/login/")
    deck = Deck.objects.get(pk=public_deck.pk)
    if who == "staff":
        assert deck.visibility == Visibility.UNLISTED
        assert (deck.unpublished_reason, deck.unpublished_by) == (REASON, staff)
        entry = LogEntry.objects.get(object_id=str(deck.pk))
        assert entry.user == staff and REASON in entry.get_change_message()
    else:
        assert deck.visibility == Visibility.PUBLIC and not deck.unpublished_at
        assert not LogEntry.objects.filter(object_id=str(deck.pk)).exists()


def test_an_unpublished_deck_leaves_the_public_lists_but_its_link_works(public_deck, staff, bob):
    assert unpublish_api(staff, public_deck).status_code == 200
    assert api_client().get("/api/decks/public/").json()["count"] == 0
    assert "Loud deck" not in Client().get("/decks/").content.decode()
    seen = api_client(bob).get(f"/api/decks/{public_deck.share_id}/")
    assert seen.status_code == 200
    assert seen.json()["unpublished"] is None  # the reason is for the owner and staff


def test_the_owner_reads_the_reason_on_the_deck_page_and_in_the_api(public_deck, alice, bob, staff):
    unpublish_api(staff, public_deck)
    owner = Client()
    owner.force_login(alice)
    page = owner.get(f"/decks/{public_deck.share_id}/").content.decode()
    assert "Unpublished by staff" in page and REASON in page
    assert (
        api_client(alice).get(f"/api/decks/{public_deck.share_id}/").json()["unpublished"]["reason"]
        == REASON
    )
    visitor = Client()
    visitor.force_login(bob)
    assert REASON not in visitor.get(f"/decks/{public_deck.share_id}/").content.decode()


def test_the_owner_cannot_make_it_public_again_until_staff_restore_it(public_deck, alice, staff):
    from deckbuilder import services

    unpublish_api(staff, public_deck)
    url = f"/api/decks/{public_deck.share_id}/"
    refused = api_client(alice).patch(url, {"visibility": "public"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "deck_unpublished"
    assert REASON in refused.json()["detail"]
    owner = Client()
    owner.force_login(alice)
    form = {
        "action": "settings",
        "name": "Loud deck",
        "visibility": "public",
        "format": "standard",
        "leader": "gottfried",
    }
    page = owner.post(f"/decks/{public_deck.share_id}/edit/", form)
    assert page.status_code == 400 and "cannot be made public again" in page.content.decode()
    assert Deck.objects.get(pk=public_deck.pk).visibility == Visibility.UNLISTED

    services.deck_restore(deck=public_deck, by=staff)
    allowed = api_client(alice).patch(url, {"visibility": "public"}, format="json")
    assert allowed.status_code == 200 and allowed.json()["visibility"] == "public"


def test_unpublishing_needs_a_public_deck_and_a_plain_reason(alice, staff):
    unlisted = make_deck(alice, visibility=Visibility.UNLISTED)
    response = unpublish_api(staff, unlisted)
    assert response.status_code == 400 and response.json()["code"] == "deck_not_public"
    public = make_deck(alice, visibility=Visibility.PUBLIC)
    assert "reason" in unpublish_api(staff, public, reason="").json()
    assert "reason" in unpublish_api(staff, public, reason="bad \u202e reason").json()
    assert Deck.objects.get(pk=public.pk).visibility == Visibility.PUBLIC


def test_staff_restore_from_the_admin(public_deck, staff, staff_client):
    unpublish_api(staff, public_deck)
    response = staff_client.post(
        "/admin/deckbuilder/deck/",
        {"action": "restore_unpublished", "_selected_action": [public_deck.pk]},
    )
    assert response.status_code == 302
    deck = Deck.objects.get(pk=public_deck.pk)
    assert deck.unpublished_at is None and deck.visibility == Visibility.UNLISTED
    history = staff_client.get(f"/admin/deckbuilder/deck/{deck.pk}/history/").content.decode()
    assert REASON in history and "Restored" in history
