"""The API's card, written out (cards.api.CardSerializer.to_representation), is what DRF's
fields make of it: every sample card of every game, dressed for a list or read alone."""

import json

import pytest
from rest_framework import serializers
from rest_framework.test import APIRequestFactory

from cards import vocabulary
from cards.api import CardSerializer
from cards.models import Card, Game

pytestmark = pytest.mark.django_db


def both(card, game) -> tuple[str, str]:
    request = APIRequestFactory().get("/api/")
    serializer = CardSerializer(context={"request": request, "game": game})
    written = serializer.to_representation(card)
    walked = serializers.ModelSerializer.to_representation(serializer, card)
    return json.dumps(written), json.dumps(walked)  # key order and types too


@pytest.mark.parametrize("dressed", [True, False], ids=["listed", "alone"])
def test_every_sample_card_is_represented_as_drf_represents_it(dressed):
    seen = {"cards": 0, "rarity": 0, "no rarity": 0, "loyalty": 0, "factions": 0}
    Card.objects.filter(slug="healing").update(rarity=None)  # every sample card has one
    for game in Game.objects.all():
        vocabulary.of(game)
        cards = Card.objects.filter(game=game)
        cards = cards.for_listing(vocabulary.of(game)) if dressed else cards.select_related("game")
        for card in cards:
            written, walked = both(card, game)
            assert written == walked, card.slug
            seen["cards"] += 1
            seen["rarity" if card.rarity_id else "no rarity"] += 1
            seen["loyalty"] += card.loyalty_faction_id is not None
            seen["factions"] += bool(card.factions)
    assert all(seen.values()), seen  # every shape was compared


def test_a_listed_cards_colours_and_keywords_are_read_without_a_query(
    game, django_assert_num_queries
):
    """Dressed cards hold the rows of their relations, the same as the relations give."""
    words = vocabulary.of(game)
    listed = Card.objects.filter(game=game, slug="blood-pact").for_listing(words)
    with django_assert_num_queries(1):
        card = listed.get()
        colours, keywords = card.colour_list, card.keyword_list
    with django_assert_num_queries(1):
        (iterated,) = listed.order_by("name")[:1]
        assert (iterated.colour_list, iterated.keyword_list) == (colours, keywords)
    stored = Card.objects.get(pk=card.pk)
    assert colours == list(stored.colours.all()) and len(colours) == 3
    assert keywords == list(stored.keywords.all())
