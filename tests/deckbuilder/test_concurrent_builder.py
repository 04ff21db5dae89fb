"""The builder's +/− reads and locks the deck in one statement (PostgreSQL's row lock), so
changes made at the same moment to one deck queue up and every one of them counts: no lost
entry, no version number given twice, a card count that adds up."""

import threading

import pytest
from django.db import connection
from django.test import Client

from cards.models import Card, Game
from deckbuilder import services
from deckbuilder.models import Deck

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not connection.vendor == "postgresql",
        reason="the row lock is PostgreSQL's: SQLite writers queue for the whole database "
        "(test_concurrent_writes)",
    ),
]


def test_plus_made_at_the_same_moment_on_one_deck_all_count():
    from django.contrib.auth.models import User

    from tests.conftest import build_users, build_world

    if not Game.objects.filter(slug="card-of-gods").exists():  # flushed by an earlier test
        build_world()
        build_users()
    game = Game.objects.get(slug="card-of-gods")
    alice = User.objects.get(username="alice")
    deck = services.deck_create(owner=alice, game=game, name="Raced")  # no leader, private
    slugs = list(Card.objects.filter(game=game).values_list("slug", flat=True))
    assert len(slugs) >= 8
    start, answers = threading.Barrier(len(slugs)), {}

    def add(slug):
        try:
            client = Client()
            client.force_login(alice)
            start.wait(timeout=30)
            url = f"/decks/{deck.share_id}/edit/"
            answers[slug] = client.post(url, {"card": slug, "op": "add"}).status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=add, args=(slug,)) for slug in slugs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert answers == dict.fromkeys(slugs, 302)
    deck = Deck.objects.get(pk=deck.pk)
    assert {e.card.slug: e.count for e in deck.entries.select_related("card")} == dict.fromkeys(
        slugs, 1
    )
    assert (deck.version, deck.card_count) == (1 + len(slugs), len(slugs))
    # as created, then the burst of changes as one version (each merged into it in turn)
    assert sorted(deck.versions.values_list("number", flat=True)) == [1, 2]
    assert {row["card"] for row in deck.versions.get(number=2).contents} == set(slugs)
