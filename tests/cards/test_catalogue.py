"""The engine's cached view of a game: equal to the models, refreshed when they change."""

import pytest
from rest_framework.test import APIClient

from cards import catalogue, services
from cards.models import Card, Game, Leader

pytestmark = pytest.mark.django_db


GAMES = ["card-of-gods", "force-of-will", "berserk-heroes", "of-gods-and-men", "irdya"]


@pytest.mark.parametrize("slug", GAMES)
def test_cached_infos_equal_what_the_models_say(slug):
    game = Game.objects.get(slug=slug)
    rules = catalogue.game_rules(slug)
    cards = (
        Card.objects.filter(game=game)
        .select_related("rarity", "type", "loyalty_faction")
        .prefetch_related("colours", "keywords")
    )
    assert rules.cards(card.slug for card in cards) == {card.slug: card.info() for card in cards}
    leaders = Leader.objects.filter(game=game).prefetch_related(
        "colours", "keywords", "loyalties__faction"
    )
    assert rules.leader_infos == {leader.slug: leader.info() for leader in leaders}
    assert rules.format() == game.default_format().engine()
    assert list(rules.formats) == [f.slug for f in game.formats.all()]


def test_unknown_game_has_no_rules():
    assert catalogue.game_rules("no-such-game") is None


@pytest.mark.parametrize(
    "change",
    [
        lambda game: services.save_card(
            game=game,
            fields={"cost": {"death": 1}},
            keywords=[],
            card=Card.objects.get(slug="healing"),
        ),
        lambda game: Card.objects.get(slug="healing").keywords.add(game.keywords.get(name="Abyss")),
        lambda game: Leader.objects.get(slug="kellantra").colours.clear(),
        lambda game: Card.objects.get(slug="quiet-prayer").delete(),
        lambda game: Game.objects.get(pk=game.pk).save(),
        lambda game: services.save_format(
            game=game, data={**game.default_format().as_data(), "banlist": {"healing": 0}}
        ),
    ],
    ids=["card cost", "card faction", "leader colours", "card deleted", "game saved", "format"],
)
def test_any_change_the_engine_reads_bumps_the_version_and_refreshes_the_cache(game, change):
    before = catalogue.game_rules("card-of-gods")
    change(game)
    after = catalogue.game_rules("card-of-gods")
    assert after.version > before.version
    assert after is not before


def test_within_the_recheck_time_a_validation_costs_no_query(settings, django_assert_num_queries):
    settings.RULES_CACHE_SECONDS = 60
    client = APIClient()
    body = {"leader": "kellantra", "cards": [{"card": "healing", "count": 2}]}
    assert client.post("/api/games/card-of-gods/validate/", body, format="json").status_code == 200
    with django_assert_num_queries(0):
        response = client.post("/api/games/card-of-gods/validate/", body, format="json")
    assert response.json()["card_count"] == 2


def test_a_new_version_loads_no_card_and_cards_are_read_once_on_demand(
    django_assert_num_queries,
):
    catalogue.clear()
    # the game, its words and sets, formats and their versions, leaders with their printings,
    # rule pages, faces (two)
    with django_assert_num_queries(18):
        rules = catalogue.game_rules("card-of-gods")
    assert rules.card_infos == {}
    with django_assert_num_queries(1):
        found = rules.cards(["healing", "despair", "no-such-card"])
    assert set(found) == {"healing", "despair"}
    with django_assert_num_queries(0):
        assert rules.cards(["healing", "despair"]) == found
    with django_assert_num_queries(1):  # a slug of no card is not remembered
        assert rules.cards(["no-such-card"]) == {}


def test_cards_with_equal_colours_share_one_set():
    rules = catalogue.game_rules("card-of-gods")
    infos = list(rules.cards(Card.objects.values_list("slug", flat=True)).values())
    by_value = {}
    for info in infos:
        assert by_value.setdefault(info.colours, info.colours) is info.colours
    assert len(by_value) < len(infos)
