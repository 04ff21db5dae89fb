"""Game words in what the rules engine says (issue 25, snag 6): Berserk matches cards to its
Hero by element, Force of Will by attribute, Card of Gods by colour; the engine's messages and
its description of the rule take the game's word (Game.colour_label) from the format it judges
with, as the site builds it (FormatVersion.engine). The problem codes stay the same."""

import dataclasses

import pytest
from django.urls import reverse

from cards import legality
from cards.models import Card, Game, Leader
from deckbuilder import services
from tests.html import text_of

pytestmark = pytest.mark.django_db


def test_a_berserk_card_of_another_element_is_refused_in_elements(alice):
    game = Game.objects.get(slug="berserk-heroes")
    hero = Leader.objects.get(game=game, name="Ilvane Thornwarden")  # Forests
    lurker = Card.objects.get(game=game, name="Marsh Lurker")  # Swamps
    deck = services.deck_create(
        owner=alice, game=game, name="Forest", leader=hero, contents={(lurker, "main"): 1}
    )
    [problem] = [p for p in deck.verdict().problems if p["code"] == "colour_mismatch"]
    assert problem["message"] == (
        "Marsh Lurker is swamps and shares no element with Ilvane Thornwarden (forests)"
    )


def test_a_leader_of_no_element_reads_no_element():
    game = Game.objects.get(slug="berserk-heroes")
    engine = game.default_format().engine()
    hero = Leader.objects.get(game=game, name="Ilvane Thornwarden").info()
    hero = dataclasses.replace(hero, colours=frozenset())
    lurker = Card.objects.get(game=game, name="Marsh Lurker").info()
    [problem] = legality.card_problems(engine, hero, lurker)
    assert problem.code == "colour_mismatch"
    assert problem.message.endswith("shares no element with Ilvane Thornwarden (no element)")


def format_page(client, slug) -> str:
    fmt = Game.objects.get(slug=slug).default_format()
    return text_of(client.get(reverse("format-detail", args=[slug, fmt.slug])))


def test_the_format_page_describes_the_rule_in_the_games_word(client):
    berserk = format_page(client, "berserk-heroes")
    assert "Every card shares an element with the Hero, or has none (neutral)." in berserk
    assert "colour" not in berserk.lower().replace("colour_mismatch", "")  # the code stays
    cog = format_page(client, "card-of-gods")
    assert "Every colour of every card is one of the Expedition Leader's colours" in cog


def test_a_leader_not_listed_is_refused_in_the_games_word_for_leaders(client, alice):
    client.force_login(alice)
    data = {"game": "berserk-heroes", "name": "Nobody", "leader": "nobody-at-all"}
    response = client.post(reverse("deck-new"), data)
    assert response.status_code == 400
    assert "Choose one of the heroes listed." in text_of(response)
