"""Whole pages for anonymous readers (cards.pagecache): kept under a key naming everything they
show (the request, the release, the versions the database holds), served again without a render
while nothing changed, revalidated with a 304, never kept for a signed-in reader, and never
written for what does not exist or what the page does not read."""

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
from cards.models import Card, Ruling
from cards.pagecache import anonymous_page
from deckbuilder import services
from deckbuilder.models import Deck, Visibility
from tests.deckbuilder.test_decks_with_card import make_deck

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"
G = {"game": GAME}
PAGES = {  # every kind of anonymous page the cache serves, with the queries of a page kept
    "game": (reverse("game-detail", kwargs=G), 1),
    "card browser": (reverse("card-list", kwargs=G) + "?q=heal", 1),
    "leaders": (reverse("leader-list", kwargs=G), 1),
    "leader": (reverse("leader-detail", kwargs={**G, "slug": "gottfried"}), 1),
    "rules": (reverse("rule-index", kwargs=G), 1),
    "API cards": (f"/api/games/{GAME}/cards/?q=heal", 1),
}


@pytest.fixture(autouse=True)
def page_cache(settings):
    settings.PAGE_CACHE = True  # as served (the tests' default too)


@pytest.fixture
def writes(client, game, monkeypatch):
    """The keys written to any cache from now on, once the game's vocabulary and lexicon are
    read (kept per version of the game: cards.vocabulary)."""
    client.get(reverse("card-list", kwargs=G) + "?q=heal")
    caches["pages"].clear()
    written = []
    for alias in ("default", "pages"):
        store = caches[alias]
        for method in ("set", "add", "set_many"):
            real = getattr(store, method)

            def record(key, *args, real=real, **kwargs):
                written.extend(key if isinstance(key, dict) else [key])
                return real(key, *args, **kwargs)

            monkeypatch.setattr(store, method, record)
    return written


def queries(client, url, **headers):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, headers=headers)
    return response, len(ctx.captured_queries)


@pytest.mark.parametrize("page", PAGES)
def test_an_anonymous_page_is_served_again_with_its_versions_read_and_the_same_bytes(
    client, game, page
):
    url, kept_queries = PAGES[page]
    first, _ = queries(client, url)
    again, count = queries(client, url)
    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert count == kept_queries  # the versions of what it shows, nothing else
    assert again["ETag"] == first["ETag"]
    assert "no-cache" in again["Cache-Control"]
    assert "HX-Request" in again["Vary"]


@pytest.mark.parametrize("page", PAGES)
def test_a_browser_holding_the_page_is_told_304_without_a_render(client, game, page):
    url, kept_queries = PAGES[page]
    etag = client.get(url)["ETag"]
    caches["pages"].clear()  # a 304 needs no stored page: the key says what it holds
    response, count = queries(client, url, if_none_match=etag)
    assert response.status_code == 304 and response.content == b""
    assert response["ETag"] == etag and count == kept_queries


def test_an_edited_card_is_shown_on_the_next_request(client, game):
    url = PAGES["card browser"][0] + "&view=text"  # the view that shows each card's text
    assert "Restore 9 life" not in client.get(url).content.decode()
    healing = Card.objects.get(game__slug=GAME, slug="healing")
    healing.text = "Restore 9 life."
    healing.save()
    assert "Restore 9 life" in client.get(url).content.decode()


def test_an_edited_ruling_is_shown_on_the_card_page_at_once(client, sample_rules):
    ruling = Ruling.objects.filter(card__game__slug=GAME).select_related("card").first()
    url = reverse("card-detail", kwargs={**G, "slug": ruling.card.slug})
    assert "Only on a full moon" not in client.get(url).content.decode()
    ruling.answer = "Only on a full moon."
    ruling.save()
    assert "Only on a full moon" in client.get(url).content.decode()
    ruling.delete()
    assert "Only on a full moon" not in client.get(url).content.decode()


def test_a_deck_made_public_shows_on_the_next_request(client, game, alice):
    deck = make_deck(alice, "Thunder and gloom", visibility=Visibility.UNLISTED)
    decks, card = reverse("deck-list"), reverse("card-detail", kwargs={**G, "slug": "despair"})
    assert "Thunder and gloom" not in client.get(decks).content.decode()
    assert "Thunder and gloom" not in client.get(card).content.decode()
    services.deck_update(deck=deck, visibility=Visibility.PUBLIC)
    assert "Thunder and gloom" in client.get(decks).content.decode()
    assert "Thunder and gloom" in client.get(card).content.decode()


def test_a_deck_page_shows_its_change_its_copies_and_its_owners_new_name(client, game, alice, bob):
    deck = make_deck(alice, "Thunder and gloom")
    url = deck.get_absolute_url()
    first = client.get(url).content
    services.deck_update(deck=deck, name="Thunder and rain")
    page = client.get(url).content.decode()
    assert "Thunder and rain" in page and page.encode() != first
    listed = reverse("deck-list") + "?sort=copied"
    assert "copied once" not in client.get(listed).content.decode()
    services.deck_copy(deck=Deck.objects.get(pk=deck.pk), owner=bob)
    assert "copied once" in client.get(listed).content.decode()
    card = reverse("card-detail", kwargs={**G, "slug": "despair"})
    assert "by alice" in client.get(card).content.decode()
    alice.username = "alicia"
    alice.save()
    assert "alicia" in client.get(url).content.decode()
    assert "by alicia" in client.get(card).content.decode()


def test_a_signed_in_reader_gets_a_page_of_their_own(client, game, alice):
    url, kept_queries = PAGES["leader"]
    anonymous = client.get(url)
    client.force_login(alice)
    mine, count = queries(client, url)
    assert (
        "Signed in as" in mine.content.decode() and "Signed in as" not in anonymous.content.decode()
    )
    assert "ETag" not in mine and count > kept_queries


def test_a_new_hand_is_a_redirect_to_a_fresh_seed_so_the_deck_page_holds_none(client, game, alice):
    deck = make_deck(alice, "Thunder and gloom")
    page = client.get(deck.get_absolute_url()).content.decode()
    assert "?hand=new#sample-hand" in page
    response = client.get(deck.get_absolute_url() + "?hand=new&draw=2")
    assert response.status_code == 302
    assert re.fullmatch(r".*\?hand=\d+#sample-hand", response["Location"])
    assert client.get(response["Location"].split("#")[0]).status_code == 200


# --- what moves a page, and what does not ----------------------------------------------------


@pytest.mark.parametrize("visibility", [Visibility.UNLISTED, Visibility.PUBLIC])
def test_a_deck_page_moves_with_its_own_deck(client, game, alice, visibility):
    deck = make_deck(alice, "Thunder and gloom", visibility=visibility)
    url = deck.get_absolute_url()
    first = client.get(url).content
    again, count = queries(client, url)
    assert again.content == first and count == 2  # the games' version, the deck's row
    services.deck_update(deck=deck, name="Thunder and rain")
    assert "Thunder and rain" in client.get(url).content.decode()


def test_a_deck_written_leaves_the_pages_that_do_not_show_it_kept(client, game, alice, bob):
    mine = make_deck(alice, "Thunder and gloom", visibility=Visibility.PUBLIC)
    other = make_deck(bob, "Sun and rain", visibility=Visibility.PUBLIC)
    pages = dict(PAGES.values()) | {
        other.get_absolute_url(): 2,
        reverse("rule-glossary", kwargs=G): 1,
    }
    etags = {url: client.get(url)["ETag"] for url in pages}
    services.deck_update(deck=mine, name="Thunder and rain")
    client.post(
        reverse("signup"), {"username": "carol", "password1": "x7!Lp0q#", "password2": "x7!Lp0q#"}
    )
    client.logout()
    for url, kept_queries in pages.items():
        response, count = queries(client, url)
        assert (response["ETag"], count) == (etags[url], kept_queries), url
    assert "Thunder and rain" in client.get(mine.get_absolute_url()).content.decode()


def test_a_missing_or_private_deck_page_is_404_and_writes_no_cache(client, game, alice, writes):
    deck = make_deck(alice, "Thunder and gloom", visibility=Visibility.PRIVATE)
    for url in (deck.get_absolute_url(), "/decks/nosuchdeckatall1/", f"/decks/{'x' * 300}/"):
        assert client.get(url).status_code == 404
    assert client.get("/games/no-such-game/cards/").status_code == 404
    assert client.get(reverse("card-detail", kwargs={**G, "slug": "nothing"})).status_code == 404
    assert writes == []


def test_a_query_the_page_does_not_read_is_answered_and_never_kept(client, game, writes):
    for n in range(3):
        for url in (reverse("rule-print", kwargs=G), reverse("card-list", kwargs=G)):
            response = client.get(f"{url}?z={n}")
            assert response.status_code == 200 and "ETag" not in response
    assert writes == []
    kept = client.get(reverse("card-list", kwargs=G) + "?q=heal&page=1&atk_min=0")
    assert kept.status_code == 200 and "ETag" in kept and len(writes) == 1


def test_the_same_query_in_another_order_is_the_same_page(client, game, writes):
    url = reverse("card-list", kwargs=G)
    first = client.get(f"{url}?q=heal&sort=name")
    again, count = queries(client, f"{url}?sort=name&q=heal")
    assert again["ETag"] == first["ETag"] and count == 1 and len(writes) == 1


def test_every_key_is_a_bounded_digest(client, game, alice, writes):
    deck = make_deck(alice, "Thunder and gloom", visibility=Visibility.PUBLIC)
    client.get(deck.get_absolute_url())
    client.get(reverse("card-list", kwargs=G) + "?q=" + "heal" * 50)
    assert writes and all(len(key) <= 40 for key in writes)


def test_a_cache_that_forgets_at_any_moment_never_breaks_a_page(client, game, alice, settings):
    settings.CACHES = {
        alias: {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
        for alias in ("default", "pages")
    }
    deck = make_deck(alice, "Thunder and gloom", visibility=Visibility.PUBLIC)
    for url in [deck.get_absolute_url(), *[url for url, _ in PAGES.values()]]:
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("restore_first", [False, True], ids=["part first", "restore first"])
def test_htmx_history_restore_gets_the_whole_page_and_a_part_stays_a_part(
    client, sample_rules, restore_first
):
    url = reverse("rule-contents", kwargs={**G, "number": "1"})
    part = {"hx_request": "true"}
    restore = {**part, "hx_history_restore_request": "true"}
    asked = [restore, part] if restore_first else [part, restore]
    answers = {id(h): client.get(url, headers=h) for h in asked}
    assert answers[id(restore)].status_code == answers[id(part)].status_code == 200
    assert b"<html" in answers[id(restore)].content
    assert b"<html" not in answers[id(part)].content
    assert "HX-History-Restore-Request" in answers[id(part)]["Vary"]


def test_a_static_file_changed_keys_every_page_anew(tmp_path, settings):
    for folder in pagecache.RELEASE_FOLDERS:
        (tmp_path / folder).mkdir()
    (tmp_path / "templates" / "page.html").write_text("old")
    (tmp_path / "cards" / "views.py").write_text("old")
    (tmp_path / "static" / "site.css").write_text("body {}")
    settings.BASE_DIR = tmp_path
    seen = []
    changes = [None, ("templates/page.html", "new"), ("cards/views.py", "new")]
    for change in [*changes, ("static/site.css", "body { color: red }"), None]:
        if change:
            (tmp_path / change[0]).write_text(change[1])
        pagecache.release.cache_clear()
        seen.append(pagecache.release())
    pagecache.release.cache_clear()
    assert seen[0] != seen[1] != seen[2] != seen[3] == seen[4]


def test_pages_kept_by_another_release_are_not_served(client, game, monkeypatch):
    url, kept_queries = PAGES["leader"]
    client.get(url)
    monkeypatch.setattr(pagecache, "release", lambda: "another deploy")
    _, count = queries(client, url)
    assert count > kept_queries  # rendered again


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


def test_a_page_is_kept_compressed(client, game, writes, monkeypatch):
    kept = {}
    real = caches["pages"].set
    monkeypatch.setattr(
        caches["pages"], "set", lambda k, v, t: kept.update({k: v}) or real(k, v, t)
    )
    page = client.get(PAGES["card browser"][0]).content
    [(packed, _headers)] = kept.values()
    assert zlib.decompress(packed) == page and len(packed) < len(page) / 3


def test_each_process_keeps_a_bounded_number_of_pages(settings):
    if not settings.CACHES["pages"]["BACKEND"].endswith("LocMemCache"):
        pytest.skip("PAGE_CACHE_URL names a shared cache: its entries expire (SECONDS)")
    assert settings.CACHES["pages"]["OPTIONS"]["MAX_ENTRIES"] == 2000
