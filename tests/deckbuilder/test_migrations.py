"""The migration to formats as data keeps every deck: built on the schema before it (one format
per game, no deck sections), migrated forward, every deck is in its game's default format with
its cards in the first section and its stored verdict."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from cards.models import Game
from deckbuilder.models import Deck

pytestmark = pytest.mark.django_db(transaction=True)  # moves the schema: runs last, alone

BEFORE = [("cards", "0007_game_rules_version"), ("deckbuilder", "0001_initial")]
FORMAT = [
    {"rule": "leader_required", "section": "5.2"},
    {"rule": "deck_size", "exactly": 10, "section": "5.3"},
    {"rule": "copy_limit", "by": "rarity", "limits": {"common": 3}, "section": "5.4"},
]
PROBLEMS = [
    {"code": "deck_size", "message": "The deck needs exactly 10 cards; it has 4.", "card": None},
    {
        "code": "copy_limit",
        "message": "Bolt is common: at most 3 copies, deck has 4",
        "card": "bolt",
    },
]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_decks_move_to_the_default_format_with_their_cards_and_verdict():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    old = migrate(BEFORE)
    try:
        game = old.get_model("cards", "Game").objects.create(
            slug="old-game", name="Old Game", card_label="Spell", format=FORMAT
        )
        rarity = old.get_model("cards", "Rarity").objects.create(game=game, slug="common")
        card = old.get_model("cards", "Card").objects.create(
            game=game, slug="bolt", name="Bolt", rarity=rarity
        )
        leader = old.get_model("cards", "Leader").objects.create(game=game, slug="lea", name="Lea")
        owner = old.get_model("auth", "User").objects.create(username="olduser")
        deck = old.get_model("deckbuilder", "Deck").objects.create(
            share_id="old-deck-share-id",
            owner=owner,
            game=game,
            leader=leader,
            name="Old",
            legal=False,
            card_count=4,
            problems=PROBLEMS,
            visibility="unlisted",
        )
        deck.entries.create(card=card, count=4)
    finally:
        migrate(latest)

    game = Game.objects.get(slug="old-game")
    fmt = game.default_format()
    assert (fmt.slug, fmt.is_default, fmt.slugs, fmt.rules) == ("standard", True, ["main"], FORMAT)
    assert [(c.slug, c.type.slug) for c in game.cards.all()] == [("bolt", "spell")]
    deck = Deck.objects.get(share_id="old-deck-share-id")
    assert (deck.format, deck.legal, deck.card_count, deck.visibility) == (
        fmt,
        False,
        4,
        "unlisted",
    )
    assert [(e.card.slug, e.section, e.count) for e in deck.entries.all()] == [("bolt", "main", 4)]
    assert deck.problems == [
        {**PROBLEMS[0], "section": "main", "ref": "5.3"},
        {**PROBLEMS[1], "section": "main", "ref": "5.4"},
    ]
