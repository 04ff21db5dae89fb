"""Whole pages for anonymous readers (cards.pagecache): served again without a render or a
query of their own while nothing they show changed, rendered again on the first request after a
change is committed, revalidated with a 304, and never kept for a signed-in reader."""

import pickle
import re
import zlib

import pytest
from django.contrib import messages
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.core.cache import caches
from django.db import connection
from django.http import HttpResponse, HttpResponseNotFound
from django.middleware.csrf import get_token
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import pagecache
from cards.models import Card
from cards.pagecache import anonymous_page
from deckbuilder import services
from deckbuilder.models import Deck, Visibility
from tests.deckbuilder.test_decks_with_card import make_deck

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"
G = {"game": GAME}
PAGES = {  # every kind of anonymous page the cache serves
    "game": reverse("game-detail", kwargs=G),
    "card browser": reverse("card-list", kwargs=G) + "?q=heal",
    "card": reverse("card-detail", kwargs={**G, "slug": "healing"}),
    "leaders": reverse("leader-list", kwargs=G),
    "leader": reverse("leader-detail", kwargs={**G, "slug": "gottfried"}),
    "rules": reverse("rule-index", kwargs=G),
    "public decks": reverse("deck-list"),
    "API cards": f"/api/games/{GAME}/cards/?q=heal",
}


@pytest.fixture(autouse=True)
def page_cache(settings):
    settings.PAGE_CACHE = True
    caches["pages"].clear()


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run what a write does on commit (a test's transaction never commits)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def queries(client, url, **headers):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, headers=headers)
    return response, len(ctx.captured_queries)


@pytest.mark.parametrize("page", PAGES)
def test_an_anonymous_page_is_served_again_with_one_query_and_the_same_bytes(client, game, page):
    first, _ = queries(client, PAGES[page])
    again, count = queries(client, PAGES[page])
    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert count == 1  # the generations, from the shared cache (a table in tests)
    assert again["ETag"] == first["ETag"]
    assert "no-cache" in again["Cache-Control"]
    assert "HX-Request" in again["Vary"]


@pytest.mark.parametrize("page", PAGES)
def test_a_browser_holding_the_page_is_told_304_without_a_render(client, game, page):
    etag = client.get(PAGES[page])["ETag"]
    caches["pages"].clear()  # a 304 needs no stored page: the key says what it holds
    response, count = queries(client, PAGES[page], if_none_match=etag)
    assert response.status_code == 304 and response.content == b""
    assert response["ETag"] == etag and count == 1


def test_an_edited_card_is_shown_on_the_next_request(client, game, committed):
    url = PAGES["card"]
    assert "Restore 9 life" not in client.get(url).content.decode()
    healing = Card.objects.get(game__slug=GAME, slug="healing")
    healing.text = "Restore 9 life."
    with committed():
        healing.save()
    assert "Restore 9 life" in client.get(url).content.decode()


def test_a_write_changes_no_page_before_it_commits(client, game):
    url = PAGES["card"]
    before = client.get(url).content
    healing = Card.objects.get(game__slug=GAME, slug="healing")
    healing.text = "Restore 9 life."
    healing.save()  # not committed (the test's transaction): readers still see the old page
    again, count = queries(client, url)
    assert again.content == before and count == 1


def test_a_deck_made_public_shows_on_the_next_request(client, game, alice, committed):
    deck = make_deck(alice, "Thunder and gloom", visibility=Visibility.UNLISTED)
    decks, card = PAGES["public decks"], reverse("card-detail", kwargs={**G, "slug": "despair"})
    assert "Thunder and gloom" not in client.get(decks).content.decode()
    assert "Thunder and gloom" not in client.get(card).content.decode()
    with committed():
        services.deck_update(deck=deck, visibility=Visibility.PUBLIC)
    assert "Thunder and gloom" in client.get(decks).content.decode()
    assert "Thunder and gloom" in client.get(card).content.decode()


def test_a_deck_page_shows_its_change_and_its_copies(client, game, alice, bob, committed):
    deck = make_deck(alice, "Thunder and gloom")
    url = deck.get_absolute_url()
    first = client.get(url).content
    with committed():
        services.deck_update(deck=deck, name="Thunder and rain")
    page = client.get(url).content.decode()
    assert "Thunder and rain" in page and page.encode() != first
    listed = reverse("deck-list") + "?sort=copied"
    assert "copied once" not in client.get(listed).content.decode()
    with committed():
        services.deck_copy(deck=Deck.objects.get(pk=deck.pk), owner=bob)
    assert "copied once" in client.get(listed).content.decode()


def test_a_signed_in_reader_gets_a_page_of_their_own(client, game, alice):
    url = PAGES["card"]
    anonymous = client.get(url)
    client.force_login(alice)
    mine, count = queries(client, url)
    assert (
        "Signed in as" in mine.content.decode() and "Signed in as" not in anonymous.content.decode()
    )
    assert "ETag" not in mine and count > 1


def test_a_new_hand_is_a_redirect_to_a_fresh_seed_so_the_deck_page_holds_none(client, game, alice):
    deck = make_deck(alice, "Thunder and gloom")
    page = client.get(deck.get_absolute_url()).content.decode()
    assert "?hand=new#sample-hand" in page
    response = client.get(deck.get_absolute_url() + "?hand=new&draw=2")
    assert response.status_code == 302
    assert re.fullmatch(r".*\?hand=\d+#sample-hand", response["Location"])
    assert client.get(response["Location"].split("#")[0]).status_code == 200


# --- what is never stored -------------------------------------------------------------------


class Renders:
    """A view counting its renders, answering what the test asks for."""

    def __init__(self, answer=lambda request: HttpResponse("page")):
        self.count, self.answer = 0, answer
        self.view = anonymous_page(self)

    def __call__(self, request):
        self.count += 1
        return self.answer(request)

    def get(self, rf, **headers):
        request = rf.get("/page/", headers=headers)
        request.user = AnonymousUser()
        SessionMiddleware(lambda r: None).process_request(request)
        MessageMiddleware(lambda r: None).process_request(request)
        return request, self.view(request)


def test_a_plain_page_is_rendered_once(rf, db):
    view = Renders()
    view.get(rf), view.get(rf)
    assert view.count == 1


def test_a_part_of_a_page_for_htmx_is_kept_apart_from_the_page(rf, db):
    view = Renders(lambda request: HttpResponse(request.headers.get("HX-Request", "page")))
    assert view.get(rf)[1].content == b"page"
    assert view.get(rf, hx_request="true")[1].content == b"true"
    assert view.get(rf)[1].content == b"page" and view.count == 2


@pytest.mark.parametrize(
    "answer",
    [
        lambda request: HttpResponse(get_token(request)),  # the CSRF token in the page
        lambda request: HttpResponseNotFound("gone"),
        lambda request: _with_cookie(HttpResponse("page")),
    ],
    ids=["csrf token", "not 200", "sets a cookie"],
)
def test_a_page_for_one_reader_or_not_found_is_never_stored(rf, db, answer):
    view = Renders(answer)
    view.get(rf), view.get(rf)
    assert view.count == 2


def _with_cookie(response):
    response.set_cookie("seen", "1")
    return response


def test_a_page_shown_with_messages_pending_is_rendered_for_them(rf, db):
    view = Renders()
    request, _ = view.get(rf)
    messages.info(request, "Signed out.")
    view.view(request)
    assert view.count == 2


def test_an_api_token_is_never_served_the_anonymous_answer(rf, db):
    view = Renders()
    view.get(rf, authorization="Token abc"), view.get(rf, authorization="Token abc")
    assert view.count == 2


def test_with_the_cache_off_every_page_is_rendered(rf, db, settings):
    settings.PAGE_CACHE = False
    view = Renders()
    view.get(rf), view.get(rf)
    assert view.count == 2


@pytest.mark.parametrize(
    ("before", "after", "moves"),
    [
        (Visibility.PRIVATE, Visibility.PRIVATE, False),
        (Visibility.PRIVATE, Visibility.UNLISTED, False),
        (Visibility.UNLISTED, Visibility.UNLISTED, False),
        (Visibility.UNLISTED, Visibility.PUBLIC, True),
        (Visibility.PUBLIC, Visibility.PRIVATE, True),
        (Visibility.PUBLIC, Visibility.PUBLIC, True),
    ],
)
def test_only_a_listed_deck_written_moves_the_decks_generation(
    game, alice, committed, before, after, moves
):
    deck = make_deck(alice, "Thunder and gloom", visibility=before)
    seen = pagecache.generations()
    with committed():
        services.deck_update(deck=deck, visibility=after, name="Thunder and rain")
    now = pagecache.generations()
    assert (now[1] != seen[1]) is moves and now[0] == seen[0]


def test_a_page_is_kept_compressed(client, game):
    page = client.get(PAGES["card browser"]).content
    [(kept, _headers)] = [pickle.loads(value) for value in caches["pages"]._cache.values()]
    assert zlib.decompress(kept) == page and len(kept) < len(page) / 3


def test_each_process_keeps_a_bounded_number_of_pages(settings):
    assert settings.CACHES["pages"]["OPTIONS"]["MAX_ENTRIES"] == 2000


def test_a_deploy_that_changes_a_template_or_the_code_keys_every_page_anew(tmp_path, settings):
    for folder in ("cards", "deckbuilder", "templates"):
        (tmp_path / folder).mkdir()
    (tmp_path / "templates" / "page.html").write_text("old")
    (tmp_path / "cards" / "views.py").write_text("old")
    settings.BASE_DIR = tmp_path
    seen = []
    for change in [None, ("templates/page.html", "new"), ("cards/views.py", "new"), None]:
        if change:
            (tmp_path / change[0]).write_text(change[1])
        pagecache.release.cache_clear()
        seen.append(pagecache.release())
    pagecache.release.cache_clear()
    assert seen[0] != seen[1] != seen[2] == seen[3]


def test_pages_kept_by_other_code_are_not_served(client, game, monkeypatch):
    url = PAGES["card"]
    client.get(url)
    monkeypatch.setattr(pagecache, "release", lambda: "another deploy")
    _, count = queries(client, url)
    assert count > 1  # rendered again


@pytest.mark.parametrize("visibility", [Visibility.UNLISTED, Visibility.PUBLIC])
def test_a_deck_page_moves_with_its_own_deck(client, game, alice, committed, visibility):
    deck = make_deck(alice, "Thunder and gloom", visibility=visibility)
    url = deck.get_absolute_url()
    first = client.get(url).content
    again, count = queries(client, url)
    assert again.content == first and count == 1  # the generations, its own among them
    with committed():
        services.deck_update(deck=deck, name="Thunder and rain")
    assert "Thunder and rain" in client.get(url).content.decode()


def test_an_unlisted_deck_written_leaves_the_other_pages_kept(client, game, alice, committed):
    mine = make_deck(alice, "Thunder and gloom", visibility=Visibility.UNLISTED)
    other = make_deck(alice, "Sun and rain", visibility=Visibility.PUBLIC)
    pages = [other.get_absolute_url(), PAGES["public decks"], PAGES["card"]]
    for url in pages:
        client.get(url)
    with committed():
        services.deck_update(deck=mine, name="Thunder and rain")
    assert [queries(client, url)[1] for url in pages] == [1, 1, 1]
    assert "Thunder and rain" in client.get(mine.get_absolute_url()).content.decode()


def test_a_private_or_missing_deck_page_is_404_and_never_kept(client, game, alice):
    deck = make_deck(alice, "Thunder and gloom", visibility=Visibility.PRIVATE)
    for url in (deck.get_absolute_url(), "/decks/nosuchdeck/"):
        assert client.get(url).status_code == 404
    assert not caches["pages"]._cache
