"""Shared test world, built once per test database: a small Card of Gods pool, the four other
sample games as shipped, and named users.

alice owns things, bob is another user, staff curates. Tests change the world freely: each test
runs in a transaction that is rolled back.
"""

import itertools
import json
from pathlib import Path

import pytest

from cards import rulebook, services
from cards.models import Game

SAMPLE = Path(__file__).resolve().parent.parent / "cards" / "sample" / "card-of-gods.json"
RULES = SAMPLE.parent / "rules"

LEADERS = [
    {"name": "Richard", "colours": ["yellow"], "keywords": ["Engeln", "Knight"]},
    {"name": "Gottfried", "colours": ["black", "yellow", "red"], "keywords": ["Kriegmark"]},
    {"name": "Kellantra", "colours": ["green"], "keywords": ["Keld", "Druid"]},
]
CARDS = [
    {
        "name": "Plant A Seed",
        "rarity": "common",
        "cost": {"life": 1},
        "keywords": ["Keld", "Plant"],
        "text": "Grow a sapling beside an allied miniature.",
    },
    {
        "name": "Healing",
        "rarity": "uncommon",
        "cost": {"life": 2},
        "text": "Heal all lost wounds of the target.",
    },
    {
        "name": "Despair",
        "rarity": "common",
        "cost": {"death": 2},
        "makes_attack": True,
        "text": "Make an Attack against the target miniature.",
    },
    {
        "name": "Lightning",
        "rarity": "common",
        "cost": {"destruction": 1},
        "makes_attack": True,
        "condition": "Beginning of enemy activation.",
        "text": "Make an Attack with a bolt.",
    },
    {
        "name": "Fiery Earth",
        "rarity": "uncommon",
        "cost": {"destruction": 1, "creation": 1},
        "text": "The ground burns until the end of activation.",
    },
    {
        "name": "Punishment",
        "rarity": "rare",
        "cost": {"creation": 2},
        "text": "Each time the target attacks this activation, it suffers a wound.",
    },
    {"name": "Quiet Prayer", "rarity": "common", "cost": {}, "text": "Draw strength from silence."},
    {
        "name": "Hymn of Engeln",
        "rarity": "rare",
        "cost": {"creation": 1},
        "keywords": ["Engeln"],
        "text": "Allied Engeln miniatures gain courage.",
    },
    {
        "name": "Blood Pact",
        "rarity": "rare",
        "cost": {"death": 1, "destruction": 1, "creation": 1},
        "text": "Pay in blood, strike in fire, rise in light.",
    },
]


def build_world() -> Game:
    game = services.save_game(definition=json.loads(SAMPLE.read_text())["game"])
    for leader in LEADERS:
        colours = list(game.colours.filter(slug__in=leader["colours"]))
        services.save_leader(
            game=game, fields={"name": leader["name"]}, colours=colours, keywords=leader["keywords"]
        )
    for card in CARDS:
        card = dict(card)
        keywords = card.pop("keywords", [])
        card["rarity"] = game.rarities.get(slug=card["rarity"])
        services.save_card(game=game, fields=card, keywords=keywords)
    return game


def load_rules(game: Game) -> None:
    """The sample rules of `game`, its glossary and the rulings of the cards in this world,
    imported with the functions `manage.py load_sample_data` uses."""
    text = rulebook.decode((RULES / f"{game.slug}.md").read_bytes())
    services.import_rules(game=game, text=text)
    glossary = json.loads((RULES / f"{game.slug}.glossary.json").read_text(encoding="utf-8"))
    services.import_glossary(game=game, entries=glossary)
    rulings = json.loads((RULES / f"{game.slug}.rulings.json").read_text(encoding="utf-8"))
    cards = set(game.cards.values_list("slug", flat=True))
    services.import_rulings(game=game, entries=[r for r in rulings if r["card"] in cards])


_RULES_ROWS: dict[int, list] = {}  # per test process: the rows the first import wrote


def _rules_models():
    from cards.models import GlossaryTerm, RuleSection, Ruling

    # (model, lookup of the game, fields not copied: PostgreSQL's trigger sets the vector)
    return [
        (RuleSection, "game_id", {"search_vector"}),
        (GlossaryTerm, "game_id", set()),
        (Ruling, "card__game_id", set()),
    ]


def load_rules_fast(game: Game) -> None:
    """load_rules, once per test process: later calls write the same rows again (same ids,
    in the test's transaction) instead of parsing and rendering everything anew."""
    rows = _RULES_ROWS.get(game.pk)
    if rows is None:
        load_rules(game)
        _RULES_ROWS[game.pk] = [
            (
                model,
                [
                    {k: v for k, v in row.items() if k not in skip}
                    for row in model.objects.filter(**{lookup: game.pk}).values()
                ],
            )
            for model, lookup, skip in _rules_models()
        ]
        return
    for model, values in rows:
        model.objects.bulk_create([model(**row) for row in values])
    from cards import signals

    signals.bump(game.pk)  # as the import does: the pages' cached vocabulary holds the glossary


OTHER_GAMES = ("force-of-will", "berserk-heroes", "of-gods-and-men", "irdya")


def load_other_games() -> None:
    """The four other sample games, whole (definition, pool, rules), as `make run` loads them."""
    from cards.management.commands.load_sample_data import load_sample

    for slug in OTHER_GAMES:
        load_sample(SAMPLE.parent / f"{slug}.json")


def build_users() -> None:
    from django.contrib.auth.models import User

    User.objects.create_user("alice", "alice@example.com", "alice-password")
    User.objects.create_user("bob", "bob@example.com", "bob-password")
    User.objects.create_user("staff", "staff@example.com", "staff-password", is_staff=True)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        build_world()
        load_other_games()
        build_users()


def api_client(user=None):
    """An API client, signed in as `user` when given."""
    from rest_framework.test import APIClient

    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def api():
    return api_client()


@pytest.fixture
def staff_api(staff):
    return api_client(staff)


@pytest.fixture
def plain_static_files(settings):
    """Static files without a collectstatic manifest (tests run with DEBUG off)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def staff_client(client, staff, plain_static_files):
    """The test client signed in as staff, for the admin pages."""
    client.force_login(staff)
    return client


@pytest.fixture
def game(db):
    return Game.objects.get(slug="card-of-gods")


@pytest.fixture
def sample_rules(game):
    """The game with the sample rules, glossary and rulings, loaded for this test only.

    Not in the session world: tests of rule numbering and importing start from no rules."""
    load_rules_fast(game)
    return game


@pytest.fixture
def alice(db):
    from django.contrib.auth.models import User

    return User.objects.get(username="alice")


@pytest.fixture
def bob(db):
    from django.contrib.auth.models import User

    return User.objects.get(username="bob")


@pytest.fixture
def staff(db):
    from django.contrib.auth.models import User

    return User.objects.get(username="staff")


def pytest_collection_modifyitems(items):
    """Transactional tests last (browser tests, the migration test): they flush the database
    the others share, so the world is gone after them."""

    def transactional(item) -> bool:
        marker = item.get_closest_marker("django_db")
        return bool(marker and marker.kwargs.get("transaction"))

    items.sort(key=transactional)


@pytest.fixture(scope="session")
def _media_root(tmp_path_factory):
    return tmp_path_factory.mktemp("media")


_MEDIA_FOLDERS = itertools.count()


@pytest.fixture(autouse=True)
def media(settings, _media_root):
    """Uploaded art goes to a folder of this test's own (made when first written), never into
    the tree: MEDIA_ROOT, which the file-system storage reads. Its path."""
    root = _media_root / str(next(_MEDIA_FOLDERS))
    settings.MEDIA_ROOT = str(root)
    return root


@pytest.fixture
def uncached(settings):
    """Pages rendered for every request (cards.pagecache off): what a page itself queries."""
    settings.PAGE_CACHE = False


@pytest.fixture(autouse=True)
def _fresh_caches():
    """Each test sees its own data: rolled-back tests can reuse a rules_version number (and a
    game or deck id, on SQLite), so what a process caches under them goes: the engine's
    catalogue, the vocabulary (in this process, and in the shared cache when it is Redis, which
    the test's rollback does not reach) and the pages (on, as in production)."""
    from django.core.cache import caches
    from django.core.cache.backends.db import DatabaseCache

    from cards import catalogue, vocabulary

    catalogue.clear()
    vocabulary.clear()
    if not isinstance(caches["default"], DatabaseCache):  # a table is rolled back with the test
        caches["default"].clear()
    caches["pages"].clear()
