"""Deck history without the noise (issue 25, snag 4): rapid edits are one version, and a change
that changes nothing the history holds adds none. A deck built from scratch in a burst of
clicks is one version, not one per click on several pages.

The window is settings.HISTORY_MERGE_SECONDS (60 here, the default); time-machine moves the
clock between changes."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.urls import reverse

from cards import services as card_services
from cards.models import Card, Game, Leader
from deckbuilder import services
from deckbuilder.models import Deck, Visibility
from tests import factories
from tests.conftest import api_client
from tests.factories import GOTTFRIED_TEN
from tests.html import text_of

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"
START = datetime(2025, 9, 18, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def a_minute(settings):
    settings.HISTORY_MERGE_SECONDS = 60


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def card(slug) -> Card:
    return Card.objects.get(game__slug=GAME, slug=slug)


def leader(slug) -> Leader:
    return Leader.objects.get(game__slug=GAME, slug=slug)


def new_deck(owner, counts=None, visibility=Visibility.PRIVATE) -> Deck:
    game = Game.objects.get(slug=GAME)
    return factories.deck(owner, game, counts or {}, visibility=visibility, name="Gf")


def versions(deck) -> list[tuple[int, dict]]:
    """(number, {card: count}) of each version, oldest first."""
    return [
        (v.number, {r["card"]: r["count"] for r in v.contents})
        for v in deck.versions.order_by("number")
    ]


def version_of(deck) -> int:
    return Deck.objects.values_list("version", flat=True).get(pk=deck.pk)


def add(deck, slug, count, clock, seconds):
    clock.shift(timedelta(seconds=seconds))
    services.deck_set_count(deck=deck, card=card(slug), count=count)


# --- rapid edits are one version --------------------------------------------------------------


def test_changes_each_within_a_minute_of_the_last_are_one_version_timed_at_the_last(alice, clock):
    deck = new_deck(alice)
    add(deck, "despair", 1, clock, 10)
    add(deck, "healing", 2, clock, 50)
    add(deck, "despair", 3, clock, 55)  # 115 s after the first: the minute runs from the last
    assert versions(deck) == [(1, {}), (2, {"despair": 3, "healing": 2})]
    version = deck.versions.latest()
    assert version.created == START + timedelta(seconds=115) == Deck.objects.get(pk=deck.pk).updated
    assert version.card_count == 5
    assert version_of(deck) == 4  # the ETag still moved at every change


def test_a_change_more_than_a_minute_after_the_last_is_a_new_version(alice, clock):
    deck = new_deck(alice, {"despair": 1})
    add(deck, "healing", 1, clock, 61)
    add(deck, "healing", 2, clock, 30)
    assert versions(deck) == [(1, {"despair": 1}), (2, {"despair": 1, "healing": 2})]


def test_versions_are_per_deck_even_when_two_players_edit_at_once(alice, bob, clock):
    mine, theirs = new_deck(alice), new_deck(bob)
    add(mine, "despair", 1, clock, 70)
    add(theirs, "healing", 1, clock, 1)
    add(mine, "despair", 2, clock, 1)
    assert versions(mine) == [(1, {}), (2, {"despair": 2})]
    assert versions(theirs) == [(1, {}), (2, {"healing": 1})]


def test_a_change_by_someone_else_in_between_ends_the_merging(alice, staff, clock):
    """Only the owner edits a deck; staff moderating it in between is another hand: the owner's
    next change starts a new version."""
    game = Game.objects.get(slug=GAME)
    swapped = {**GOTTFRIED_TEN, "punishment": 0, "quiet-prayer": 1}
    deck = new_deck(alice, GOTTFRIED_TEN, visibility=Visibility.PUBLIC)
    clock.shift(timedelta(seconds=5))
    services.deck_update(deck=deck, contents=factories.cards(game, swapped))  # version 2
    clock.shift(timedelta(seconds=5))
    services.deck_unpublish(deck=deck, by=staff, reason="Spam name.")  # version 3, no history
    clock.shift(timedelta(seconds=5))
    services.deck_update(deck=deck, contents=factories.cards(game, GOTTFRIED_TEN))
    assert [(n, cards.get("punishment")) for n, cards in versions(deck)] == [
        (1, 1),
        (2, None),
        (4, 1),
    ]


def test_a_leader_or_format_change_is_always_a_version_of_its_own(alice, clock):
    casual = card_services.save_format(
        game=Game.objects.get(slug=GAME),
        data={"slug": "casual", "name": "Casual", "sections": [{"slug": "main", "name": "Deck"}]},
    )
    deck = new_deck(alice, {"despair": 1})
    add(deck, "healing", 1, clock, 5)  # version 2 (never merged into the deck as created)
    clock.shift(timedelta(seconds=5))
    services.deck_update(deck=deck, leader=leader("kellantra"))
    add(deck, "despair", 0, clock, 5)  # merged into the leader's version
    clock.shift(timedelta(seconds=5))
    services.deck_update(deck=deck, leader=leader("gottfried"))
    clock.shift(timedelta(seconds=5))
    services.deck_update(deck=deck, format=casual)
    assert [(v.number, v.leader.slug, v.format.slug) for v in deck.versions.order_by("number")] == [
        (1, "gottfried", "standard"),
        (2, "gottfried", "standard"),
        (3, "kellantra", "standard"),
        (5, "gottfried", "standard"),
        (6, "gottfried", "casual"),
    ]
    assert versions(deck)[1] == (2, {"despair": 1, "healing": 1})  # still there to restore


def test_a_restore_is_a_version_of_its_own_and_what_it_replaced_stays(alice, clock):
    deck = new_deck(alice, {"despair": 1})
    add(deck, "healing", 2, clock, 70)  # version 2
    clock.shift(timedelta(seconds=5))
    restored = services.deck_restore_version(deck=deck, number=1)
    assert restored.number == 3
    assert versions(deck) == [
        (1, {"despair": 1}),
        (2, {"despair": 1, "healing": 2}),
        (3, {"despair": 1}),
    ]


# --- no-ops -----------------------------------------------------------------------------------


def test_saving_the_settings_unchanged_writes_nothing(client, alice, clock):
    deck = new_deck(alice, {"despair": 1})
    clock.shift(timedelta(minutes=5))
    client.force_login(alice)
    form = {
        "action": "settings",
        "name": deck.name,
        "description": deck.description,
        "format": deck.format.slug,
        "leader": deck.leader.name,
        "visibility": deck.visibility,
    }
    response = client.post(reverse("deck-edit", args=[deck.share_id]), form)
    assert response.status_code == 302
    assert versions(deck) == [(1, {"despair": 1})] and version_of(deck) == 1
    assert Deck.objects.get(pk=deck.pk).updated == START


def test_setting_a_count_to_what_it_is_writes_nothing(alice, clock):
    deck = new_deck(alice, {"despair": 2})
    add(deck, "despair", 2, clock, 300)
    assert versions(deck) == [(1, {"despair": 2})] and version_of(deck) == 1


def test_a_put_of_the_deck_as_it_is_keeps_its_etag_and_adds_no_version(alice, clock):
    deck = new_deck(alice, {"despair": 2})
    clock.shift(timedelta(minutes=5))
    api = api_client(alice)
    url = f"/api/decks/{deck.share_id}/"
    etag = api.get(url).headers["ETag"]
    body = {
        "name": "Gf",
        "description": "",
        "game": GAME,
        "leader": "gottfried",
        "visibility": "private",
        "cards": [{"card": "despair", "count": 2}],
    }
    response = api.put(url, body, format="json", HTTP_IF_MATCH=etag)
    assert response.status_code == 200, response.content
    assert response.headers["ETag"] == etag
    assert versions(deck) == [(1, {"despair": 2})]
    body["cards"] = [{"card": "despair", "count": 3}]
    changed = api.put(url, body, format="json", HTTP_IF_MATCH=etag)
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_a_description_or_visibility_change_moves_the_etag_but_adds_no_version(alice, clock):
    """A version holds the name, format, leader and cards: the history would show nothing."""
    deck = new_deck(alice, {"despair": 1})
    clock.shift(timedelta(minutes=5))
    services.deck_update(deck=deck, description="Black control.")
    services.deck_update(deck=deck, visibility=Visibility.UNLISTED)
    assert versions(deck) == [(1, {"despair": 1})] and version_of(deck) == 3
    add(deck, "healing", 1, clock, 5)  # the settings save ended version 1's minute
    assert [n for n, _ in versions(deck)] == [1, 4]


# --- the page ---------------------------------------------------------------------------------


def test_a_deck_built_in_a_burst_of_clicks_is_one_version_after_the_empty_one(client, alice, clock):
    deck = new_deck(alice)
    client.force_login(alice)
    edit = reverse("deck-edit", args=[deck.share_id])
    for i in range(24):  # one click every two seconds
        clock.shift(timedelta(seconds=2))
        slug = ["despair", "healing", "lightning"][i % 3]
        assert client.post(edit, {"card": slug, "op": "add"}).status_code == 302
    clock.shift(timedelta(minutes=10))
    page = text_of(client.get(reverse("deck-history", args=[deck.share_id])))
    assert "2 versions — newest first" in page
    assert "Version 2 Current" in page and "+8 Despair" in page and "Created with 0 cards" in page
    assert "Next" not in page  # no second page


def test_restoring_a_version_the_deck_already_is_says_so_and_adds_none(client, alice, clock):
    deck = new_deck(alice, {"despair": 1})
    add(deck, "healing", 1, clock, 70)  # version 2
    add(deck, "healing", 0, clock, 70)  # version 3: as version 1 again
    client.force_login(alice)
    page = text_of(client.post(reverse("deck-restore", args=[deck.share_id, 1]), follow=True))
    assert "The deck already holds the cards, format and expedition leader of version 1." in page
    assert [n for n, _ in versions(deck)] == [1, 2, 3] and version_of(deck) == 3


def test_the_deck_as_created_stays_a_version_of_its_own(alice, clock):
    """An imported (copied, created) deck changed at once: the import is still restorable."""
    deck = new_deck(alice, {"despair": 1})
    add(deck, "healing", 1, clock, 5)
    add(deck, "healing", 2, clock, 5)
    assert versions(deck) == [(1, {"despair": 1}), (2, {"despair": 1, "healing": 2})]
