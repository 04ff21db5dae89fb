"""The builder kept whole for its owner (cards.pagecache.private_page): served again without a
render while the deck's row and the reference data are the same, rendered again after any
change, with the reader's own CSRF token, and never to anyone else."""

import re

import pytest
from django.contrib.auth.models import User
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.core.cache import caches
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext

from cards.models import Card, Game
from cards.pagecache import csrf_stand_in, private_page
from deckbuilder import services
from deckbuilder.models import Deck, Visibility
from tests.deckbuilder.test_decks_with_card import make_deck

pytestmark = pytest.mark.django_db

TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
ANY_TOKEN = re.compile(rb"\b[A-Za-z0-9]{64}\b")  # in the forms and htmx's headers


@pytest.fixture(autouse=True)
def page_cache(settings):
    settings.PAGE_CACHE = True
    caches["pages"].clear()


@pytest.fixture
def deck(game, alice):
    return make_deck(alice, "Thunder and gloom", visibility=Visibility.UNLISTED)


@pytest.fixture
def owner(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    return client


def builder(deck):
    return f"/decks/{deck.share_id}/edit/"


def get(client, url, **headers):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, headers=headers)
    return response, len(ctx.captured_queries)


def test_the_owner_gets_the_builder_again_without_a_render(owner, deck):
    first, rendered = get(owner, builder(deck))
    again, kept = get(owner, builder(deck))
    assert first.status_code == again.status_code == 200
    # the session, the user, the deck (with its game and the games' version): nothing else
    assert kept == 3 < rendered
    assert ANY_TOKEN.sub(b"", again.content) == ANY_TOKEN.sub(b"", first.content)
    assert again["ETag"] == first["ETag"]
    assert "private" in again["Cache-Control"] and "no-cache" in again["Cache-Control"]
    assert "Cookie" in again["Vary"]


def test_a_kept_builder_holds_the_readers_own_token_that_a_change_accepts(owner, deck):
    owner.get(builder(deck))
    page = owner.get(builder(deck)).content
    assert csrf_stand_in().encode() not in page
    token = TOKEN.findall(page)[0].decode()
    healing = Card.objects.get(game=deck.game, slug="healing")
    response = owner.post(
        builder(deck),
        {"csrfmiddlewaretoken": token, "card": healing.slug, "section": "main", "op": "add"},
    )
    assert response.status_code == 302
    assert deck.entries.get(card=healing).count == 1


def test_a_change_to_the_deck_is_shown_on_the_next_request(owner, deck):
    assert "Thunder and rain" not in owner.get(builder(deck)).content.decode()
    services.deck_update(deck=deck, name="Thunder and rain")
    page, count = get(owner, builder(deck))
    assert "Thunder and rain" in page.content.decode() and count > 3


def test_a_count_changed_is_shown_on_the_next_request(owner, deck):
    fiery = Card.objects.get(game=deck.game, slug="fiery-earth")  # 2 in the deck, no problem
    count = re.compile(rb'id="count-main-fiery-earth" data-count="(\d+)"')
    assert count.search(owner.get(builder(deck)).content)[1] == b"2"
    services.deck_set_count(deck=deck, card=fiery, count=lambda n: n - 1)
    assert count.search(owner.get(builder(deck)).content)[1] == b"1"


def test_an_edited_card_is_shown_on_the_next_request(
    owner, deck, django_capture_on_commit_callbacks
):
    owner.get(builder(deck) + "?all=1")
    healing = Card.objects.get(game=deck.game, slug="healing")
    healing.text = "Restore 9 life."
    with django_capture_on_commit_callbacks(execute=True):
        healing.save()
    assert "Restore 9 life" in owner.get(builder(deck) + "?all=1").content.decode()


def test_each_filter_is_a_page_of_its_own(owner, deck):
    plain = owner.get(builder(deck)).content
    searched = owner.get(builder(deck) + "?q=heal").content
    assert ANY_TOKEN.sub(b"", plain) != ANY_TOKEN.sub(b"", searched)


def test_a_renamed_owner_is_shown_on_the_next_request(owner, deck, alice):
    owner.get(builder(deck))
    User.objects.filter(pk=alice.pk).update(username="alice2")
    assert "alice2" in owner.get(builder(deck)).content.decode()


@pytest.mark.parametrize("who", ["anonymous", "bob", "staff"])
def test_nobody_else_is_served_the_owners_kept_builder(owner, deck, who, request):
    owner.get(builder(deck))
    other = Client()
    if who != "anonymous":
        other.force_login(request.getfixturevalue(who))
    response = other.get(builder(deck))
    expected = {"anonymous": 302, "bob": 403, "staff": 403}[who]  # sign in / not theirs
    assert response.status_code == expected and b'id="builder-page"' not in response.content


def test_a_browser_holding_the_builder_is_told_304(owner, deck):
    etag = owner.get(builder(deck))["ETag"]
    response, count = get(owner, builder(deck), if_none_match=etag)
    assert response.status_code == 304 and count == 3


# --- private_page alone -------------------------------------------------------------------


class Draws:
    """A render counting its calls; it puts the CSRF token it is given in the page."""

    def __init__(self, status=200):
        self.count, self.status = 0, status

    def __call__(self, token):
        self.count += 1
        return HttpResponse(f"token={token}", status=self.status)


def request_for(rf, user, message=None):
    request = rf.get("/mine/")
    request.user = user
    SessionMiddleware(lambda r: None).process_request(request)
    MessageMiddleware(lambda r: None).process_request(request)
    if message:
        request._messages.add(20, message)
    return request


def test_a_page_is_drawn_once_with_the_stand_in_and_served_with_the_token(rf, alice):
    draw = Draws()
    first = private_page(request_for(rf, alice), ["deck", 1], draw)
    again = private_page(request_for(rf, alice), ["deck", 1], draw)
    assert draw.count == 1
    for response in (first, again):
        assert csrf_stand_in() not in response.content.decode()
        assert re.fullmatch(r"token=\w{64}", response.content.decode())


def test_another_state_or_reader_is_drawn_again(rf, alice, bob):
    draw = Draws()
    private_page(request_for(rf, alice), ["deck", 1], draw)
    private_page(request_for(rf, alice), ["deck", 2], draw)
    private_page(request_for(rf, bob), ["deck", 2], draw)
    assert draw.count == 3


@pytest.mark.parametrize("status", [400, 404])
def test_an_answer_other_than_200_is_never_kept_and_holds_the_real_token(rf, alice, status):
    draw = Draws(status)
    for _ in range(2):
        response = private_page(request_for(rf, alice), ["deck", 1], draw)
        assert re.fullmatch(r"token=\w{64}", response.content.decode())
    assert draw.count == 2 and response.status_code == status


def test_a_page_with_messages_pending_is_neither_kept_nor_served_from_the_cache(rf, alice):
    draw = Draws()
    private_page(request_for(rf, alice, "Deck saved."), ["deck", 1], draw)
    private_page(request_for(rf, alice), ["deck", 1], draw)
    private_page(request_for(rf, alice, "Deck saved."), ["deck", 1], draw)
    assert draw.count == 3


def test_nothing_is_kept_with_the_page_cache_off(rf, alice, settings):
    settings.PAGE_CACHE = False
    draw = Draws()
    for _ in range(2):
        assert private_page(request_for(rf, alice), ["deck", 1], draw).content == b"token=None"
    assert draw.count == 2


def test_a_game_added_to_the_navigation_is_shown_on_the_next_request(owner, deck):
    owner.get(builder(deck))
    Game.objects.create(slug="brand-new", name="Brand New Game")
    assert "Brand New Game" in owner.get(builder(deck)).content.decode()


# --- the rows, kept apart from any one deck's page ----------------------------------------


def card_reads(client, url) -> tuple[str, list[str]]:
    """The page, and the queries that read cards' rows (`cards_card` with their text)."""
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(url).content.decode()
    reads = [q["sql"] for q in ctx.captured_queries if q["sql"].startswith('SELECT "cards_card"')]
    return page, [sql for sql in reads if '"cards_card"."text"' in sql]


def test_a_deck_change_renders_again_only_the_rows_it_changes(owner, deck):
    url = builder(deck) + "?all=1"
    owner.get(url)
    services.deck_update(deck=deck, name="Renamed")  # no row shows the name
    page, reads = card_reads(owner, url)
    assert "Renamed" in page and reads == []
    healing = Card.objects.get(game=deck.game, slug="healing")
    services.deck_set_count(deck=deck, card=healing, count=lambda n: n + 1)
    page, reads = card_reads(owner, url)
    assert len(reads) == 1 and f"IN ({healing.pk})" in reads[0]
    caches["pages"].clear()
    assert ANY_TOKEN.sub(b"", page.encode()) == ANY_TOKEN.sub(b"", owner.get(url).content)


def test_decks_with_the_same_leader_share_their_rows_each_with_its_own_token(
    owner, deck, bob, game
):
    owner.get(builder(deck) + "?all=1")
    theirs = make_deck(bob, "Bob's gloom", visibility=Visibility.UNLISTED)
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    page, reads = card_reads(client, builder(theirs) + "?all=1")
    assert reads == []  # every row was kept: the same cards, counts and leader
    token = TOKEN.findall(page.encode())[-1].decode()
    healing = Card.objects.get(game=game, slug="healing")
    response = client.post(
        builder(theirs),
        {"csrfmiddlewaretoken": token, "card": healing.slug, "section": "main", "op": "add"},
    )
    assert response.status_code == 302 and theirs.entries.filter(card=healing).exists()


def test_a_verdict_stored_anew_shows_on_the_cards_rows(owner, deck):
    """As when the rules changed and the decks' verdicts are refreshed after the version moved:
    the row is kept under the problems it shows, not only the game's version."""
    owner.get(builder(deck))
    problem = {"code": "test", "message": "Fiery Earth is made up.", "card": "fiery-earth"}
    Deck.objects.filter(pk=deck.pk).update(problems=[problem])
    controls = owner.get(builder(deck)).content.decode()
    controls = controls[controls.index('id="controls-fiery-earth"') :]
    assert "Fiery Earth is made up." in controls[: controls.index("</li>")]


def test_a_page_that_sets_a_cookie_is_not_kept_and_keeps_its_cookie(rf, alice):
    def draw(token):
        draw.count += 1
        response = HttpResponse(f"token={token}")
        response.set_cookie("seen", "1")
        return response

    draw.count = 0
    for _ in range(2):
        response = private_page(request_for(rf, alice), ["deck", 1], draw)
        assert response.cookies["seen"].value == "1"
        assert re.fullmatch(r"token=\w{64}", response.content.decode())
    assert draw.count == 2


def count_queries_of(client, url) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    counts = ("COUNT(*) FROM (SELECT", "capped_count(")  # cards.pagination's two ways
    return [
        q["sql"]
        for q in ctx.captured_queries
        if any(c in q["sql"] for c in counts) and "cards_card" in q["sql"]
    ]


def listed(response) -> int:
    """The number of cards the builder says it lists."""
    return int(re.search(rb'class="results-count"[^>]*>\s*(\d+) card', response.content)[1])


def test_the_count_of_usable_cards_is_kept_until_the_cards_change(owner, deck, staff_api):
    """A new address (a filter, a page) or a change to the deck renders the builder again, but
    the count of the cards the leader may use is kept under the game's rules_version: counted
    again only when the reference data changes, and then right."""
    assert len(count_queries_of(owner, builder(deck) + "?v=1")) == 1
    assert count_queries_of(owner, builder(deck) + "?v=2") == []
    services.deck_set_count(deck=deck, card=Card.objects.get(slug="healing"), count=1)
    assert count_queries_of(owner, builder(deck) + "?v=3") == []
    shown = listed(owner.get(builder(deck) + "?v=4"))

    created = staff_api.post(
        f"/api/games/{deck.game.slug}/cards/",
        {"name": "Gloom Bolt", "cost": {"destruction": 1}, "rarity": "common"},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert len(count_queries_of(owner, builder(deck) + "?v=5")) == 1
    assert listed(owner.get(builder(deck) + "?v=6")) == shown + 1
