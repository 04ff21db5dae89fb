"""The migration to formats as data keeps every deck: built on the schema before it (one format
per game, no deck sections), migrated forward, every deck is in its game's default format with
its cards in the first section and its stored verdict.

And `migrate` makes the default cache table whatever the cache settings are when it runs."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings

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


# --- the cache table -----------------------------------------------------------------------------

CACHE_TABLE = "django_cache"  # CACHE_URL's default, db://django_cache
OTHER_TABLE = "deckbuilder_test_cache"
NO_DEFAULT_DB_CACHE = {  # CACHE_URL=dummy:// (or redis://…), and another db:// cache
    "default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"},
    "pages": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": OTHER_TABLE},
}


def tables() -> set[str]:
    return set(connection.introspection.table_names())


def drop_table(name: str):
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {connection.ops.quote_name(name)}")


@pytest.fixture
def without_cache_table():
    """No django_cache table, as on a site migrated with CACHE_URL=redis://…; made again after
    (as settings make it for the other tests), and the other test table dropped."""
    drop_table(CACHE_TABLE)
    yield
    call_command("createcachetable", CACHE_TABLE, verbosity=0)
    if OTHER_TABLE in tables():
        drop_table(OTHER_TABLE)


@pytest.mark.parametrize(
    "migrated_from",
    [
        ("deckbuilder", "0003_deck_format_required"),  # a new site: 0004_cache_table runs
        ("deckbuilder", "0007_deck_versions"),  # a site that ran 0004 under another cache
    ],
    ids=["new-site", "site-migrated-under-another-cache"],
)
def test_migrate_makes_the_default_cache_table_whatever_cache_migrate_ran_with(
    without_cache_table, migrated_from
):
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        migrate([migrated_from])
        assert CACHE_TABLE not in tables()
        with override_settings(CACHES=NO_DEFAULT_DB_CACHE):
            migrate(latest)
    finally:
        migrate(latest)
    assert {CACHE_TABLE, OTHER_TABLE} <= tables()  # the default, and the db:// cache configured
