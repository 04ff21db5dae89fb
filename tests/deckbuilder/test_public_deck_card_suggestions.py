"""The public decks' card filter suggests card names before a game is chosen (issue 25, snag
8): any game's names, each saying whose, at most SUGGESTIONS, in a constant number of queries;
and a card name given with no game finds the decks of every game holding a card of that name."""

import re
from html import unescape

from django.urls import reverse

from cards import services as card_services
from cards.models import Card, Game
from cards.views import SUGGESTIONS
from deckbuilder.models import Deck, Visibility
from tests.factories import deck as make_deck

URL = reverse("deck-list")
ANY = reverse("suggest-any", args=["cards"])
HIDDEN = Visibility.PRIVATE


def card(game: Game, name: str) -> Card:
    return card_services.save_card(
        game=game,
        fields={"name": name, "rarity": game.rarities.first(), "cost": {"life": 1}},
        keywords=[],
    )


def options(response) -> list[tuple[str, str]]:
    """(value, text) of each <option>, and nothing else in the answer."""
    assert response.status_code == 200, response.content
    html = response.content.decode()
    found = re.findall(r'<option value="([^"]*)">([^<]*)</option>', html)
    assert re.sub(r'<option value="[^"]*">[^<]*</option>', "", html).strip() == ""
    return [(unescape(value), unescape(text)) for value, text in found]


def test_with_no_game_the_card_box_asks_for_any_games_suggestions(client, db):
    html = client.get(URL).content.decode()
    box = re.search(r'<input type="text" name="card"[^>]*>', html).group(0)
    assert f'hx-get="{ANY}"' in box and 'list="deck-card-list"' in box
    assert '<datalist id="deck-card-list">' in html


def test_suggestions_across_games_name_each_card_once_with_the_games_bearing_it(client, game):
    card(game, "Eclipse")  # Berserk's sample has an Eclipse too
    assert options(client.get(ANY, {"card": "eclip"})) == [
        ("Eclipse", "Eclipse — Berserk. Heroes, Card of Gods"),
        ("Eclipse Oath", "Eclipse Oath — Force of Will"),
    ]
    assert options(client.get(ANY, {"q": "quiet pray"})) == [
        ("Quiet Prayer", "Quiet Prayer — Card of Gods")
    ]


def test_suggestions_across_games_are_bounded_in_two_queries(
    client, game, django_assert_num_queries
):
    for i in range(SUGGESTIONS + 5):
        card(game, f"Zap {i:02d}")
    with django_assert_num_queries(2):  # the names, the faces' names
        found = options(client.get(ANY, {"q": "zap"}))
    assert [value for value, _ in found] == [f"Zap {i:02d}" for i in range(SUGGESTIONS)]


def test_a_card_name_with_no_game_finds_decks_of_every_game_holding_a_card_of_that_name(
    client, alice, game
):
    berserk = Game.objects.get(slug="berserk-heroes")
    card(game, "Eclipse")
    drafts = [
        make_deck(alice, game, {"eclipse": 1}, lead=None, name="Gods eclipse", visibility=HIDDEN),
        make_deck(
            alice, berserk, {"eclipse": 1}, lead=None, name="Berserk eclipse", visibility=HIDDEN
        ),
    ]
    # drafts are illegal: listed as decks that were public before a change of the rules
    Deck.objects.filter(pk__in=[d.pk for d in drafts]).update(visibility=Visibility.PUBLIC)
    make_deck(alice, game, name="No eclipse")
    response = client.get(URL, {"card": "eclipse"})
    assert response.status_code == 200
    assert {d.name for d in response.context["decks"]} == {"Gods eclipse", "Berserk eclipse"}
