"""Shared test world, built once per test database: a small Card of Gods pool and named users.

alice owns things, bob is another user, staff curates. Tests change the world freely: each test
runs in a transaction that is rolled back.
"""

import json
from pathlib import Path

import pytest

from cards import services
from cards.models import Game

SAMPLE = Path(__file__).resolve().parent.parent / "cards" / "sample" / "card-of-gods.json"

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


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    from django.contrib.auth.models import User

    with django_db_blocker.unblock():
        build_world()
        User.objects.create_user("alice", "alice@example.com", "alice-password")
        User.objects.create_user("bob", "bob@example.com", "bob-password")
        User.objects.create_user("staff", "staff@example.com", "staff-password", is_staff=True)


@pytest.fixture
def game(db):
    return Game.objects.get(slug="card-of-gods")


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
    """Browser tests last: their live server flushes the database the others share."""
    items.sort(key=lambda item: "/e2e/" in str(item.path).replace("\\", "/"))
