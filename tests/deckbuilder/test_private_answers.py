"""What a signed-in reader is answered is theirs: `Cache-Control: private` (no shared cache or
proxy keeps it), and the builder is drawn for this session (its forms carry this session's CSRF
token, whatever the browser kept)."""

import re

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from deckbuilder.models import Visibility
from tests.deckbuilder.test_decks_with_card import make_deck

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_deck(game, alice):
    return make_deck(alice, "Thunder and gloom", visibility=Visibility.PRIVATE)


def _private(response) -> bool:
    return "private" in [d.strip() for d in response.get("Cache-Control", "").split(",")]


@pytest.mark.parametrize(
    "url",
    ["/decks/mine/", "{deck}", "{deck}export.txt", "{deck}edit/", "/games/card-of-gods/cards/"],
)
def test_every_page_for_a_signed_in_reader_is_private(client, alice, private_deck, url):
    client.force_login(alice)
    response = client.get(url.format(deck=private_deck.get_absolute_url()))
    assert response.status_code == 200 and _private(response)


def test_an_api_answer_for_a_token_is_private(alice, private_deck):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    response = api.get(f"/api/decks/{private_deck.share_id}/")
    assert response.status_code == 200 and _private(response)


def test_an_anonymous_reader_is_answered_without_private(client, game):
    assert not _private(client.get("/games/card-of-gods/cards/"))


def _token(page: bytes) -> str:
    return re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()


def test_the_builder_after_signing_in_again_posts_with_the_new_session(
    alice, private_deck, settings
):
    settings.PAGE_CACHE = True  # as served
    client = Client(enforce_csrf_checks=True)
    url = private_deck.get_absolute_url() + "edit/"
    client.force_login(alice)
    first = client.get(url)
    client.logout()
    client.force_login(alice)
    again = client.get(url, headers={"if-none-match": first.get("ETag", '"none"')})
    assert again.status_code == 200  # never a 304: the page the browser kept is of a session gone
    data = {"csrfmiddlewaretoken": _token(again.content), "card": "healing"}
    added = client.post(url, {**data, "section": "main", "op": "add"})
    assert added.status_code in (200, 302), added.status_code
