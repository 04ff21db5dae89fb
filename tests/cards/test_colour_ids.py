"""On PostgreSQL a card's row holds the ids of its colours (`cards_card.colour_ids`, kept by the
triggers of cards/migrations/0013), which the colour filter and `usable_by` read instead of
joining the relation. These tests prove the copy follows the relation however it is written:
the ORM, the bulk services, raw SQL."""

import pytest
from django.db import connection

from cards import services
from cards.models import Card

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("colour_ids is a PostgreSQL column; SQLite filters through the relation")


def row_ids(card) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT colour_ids FROM cards_card WHERE id = %s", [card.pk])
        return cursor.fetchone()[0]


def relation_ids(card) -> list[int]:
    return sorted(card.colours.values_list("pk", flat=True))


def colour(game, slug):
    return game.colours.get(slug=slug)


def test_colour_ids_follow_the_cost_as_a_card_is_created_changed_and_made_colourless(game):
    fields = {"name": "Twin Omen", "rarity": game.rarities.get(slug="common")}
    card = services.save_card(
        game=game, fields={**fields, "cost": {"death": 1, "creation": 2}}, keywords=[]
    )
    assert row_ids(card) == sorted([colour(game, "black").pk, colour(game, "yellow").pk])

    services.save_card(game=game, fields={"cost": {"destruction": 1}}, keywords=[], card=card)
    assert row_ids(card) == [colour(game, "red").pk]

    services.save_card(game=game, fields={"cost": {}}, keywords=[], card=card)
    assert row_ids(card) == []


def test_colour_ids_follow_the_relation_written_through_the_orm_and_raw_sql(game):
    card = Card.objects.get(game=game, name="Punishment")
    red, black, yellow = colour(game, "red"), colour(game, "black"), colour(game, "yellow")
    assert row_ids(card) == [yellow.pk]  # from its cost
    card.colours.add(red, black)
    assert row_ids(card) == sorted([yellow.pk, red.pk, black.pk])
    card.colours.remove(red)
    assert row_ids(card) == sorted([yellow.pk, black.pk])
    card.colours.clear()
    assert row_ids(card) == []
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cards_card_colours (card_id, colour_id) VALUES (%s, %s), (%s, %s)",
            [card.pk, red.pk, card.pk, black.pk],
        )
        assert row_ids(card) == sorted([red.pk, black.pk])
        cursor.execute(
            "UPDATE cards_card_colours SET colour_id = %s WHERE card_id = %s AND colour_id = %s",
            [yellow.pk, card.pk, red.pk],
        )
    assert row_ids(card) == relation_ids(card) == sorted([black.pk, yellow.pk])


def test_every_sample_card_holds_the_ids_of_its_colours():
    cards = list(Card.objects.prefetch_related("colours"))
    assert any(card.colours.all() for card in cards)
    for card in cards:
        assert row_ids(card) == sorted(c.pk for c in card.colours.all()), card.name


def test_colour_filter_and_usable_by_read_the_row(game):
    """The row is what they read: a copy out of step (which the triggers never leave) shows."""
    card = Card.objects.get(game=game, name="Blood Pact")
    red = colour(game, "red")
    assert Card.objects.with_any_colour([red]).filter(pk=card.pk).exists()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cards_card SET colour_ids = '{}' WHERE id = %s", [card.pk])
    assert not Card.objects.with_any_colour([red]).filter(pk=card.pk).exists()
