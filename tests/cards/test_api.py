"""The reference API: shapes, filters, staff-only writes and bad input (400, nothing written)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from cards import pagination, services
from cards.models import Card, Game, Leader

CARDS = "/api/games/card-of-gods/cards/"
LEADERS = "/api/games/card-of-gods/leaders/"
pytestmark = pytest.mark.django_db


def slugs(response):
    assert response.status_code == 200, response.content
    return {card["slug"] for card in response.json()["results"]}


def test_games_list_shows_the_vocabulary(api):
    games = api.get("/api/games/").json()["results"]
    cog = next(g for g in games if g["slug"] == "card-of-gods")
    assert cog["name"] == "Card of Gods"
    assert [c["slug"] for c in cog["colours"]] == ["yellow", "red", "green", "black"]
    assert [r["slug"] for r in cog["rarities"]] == ["common", "uncommon", "rare"]
    assert "Keld" in cog["factions"]


def test_card_has_the_contract_shape(api):
    card = api.get(CARDS + "plant-a-seed/").json()
    assert {
        "slug",
        "name",
        "rarity",
        "cost",
        "colours",
        "keywords",
        "factions",
        "condition",
        "text",
        "url",
    } <= card.keys()
    assert card["cost"] == {"life": 1}
    assert card["colours"] == ["green"]
    assert card["factions"] == ["Keld"]
    assert card["url"].endswith("/games/card-of-gods/cards/plant-a-seed/")


def test_leader_has_the_contract_shape(api):
    leader = api.get(LEADERS + "gottfried/").json()
    assert {"slug", "name", "colours", "keywords", "factions", "text", "url"} <= leader.keys()
    assert set(leader["colours"]) == {"black", "yellow", "red"}
    assert leader["factions"] == ["Kriegmark"]


def test_unknown_game_and_card_answer_404(api):
    assert api.get("/api/games/nope/cards/").status_code == 404
    assert api.get(CARDS + "nope/").status_code == 404
    assert api.get(LEADERS + "nope/").status_code == 404


def test_list_is_paginated_with_a_page_size_cap(api):
    body = api.get(CARDS, {"page_size": 2}).json()
    assert body["count"] == Card.objects.filter(game__slug="card-of-gods").count()
    assert len(body["results"]) == 2 and body["next"]
    assert len(api.get(CARDS, {"page_size": 1000}).json()["results"]) == min(100, body["count"])


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "make an attack"}, {"despair", "lightning"}),
        ({"q": "HEAL"}, {"healing"}),
        ({"q": "sapling"}, {"plant-a-seed"}),
        ({"colour": "green"}, {"plant-a-seed", "healing"}),
        ({"colour": ["green", "black"]}, {"plant-a-seed", "healing", "despair", "blood-pact"}),
        ({"colour": "colourless"}, {"quiet-prayer"}),
        ({"rarity": "rare"}, {"punishment", "hymn-of-engeln", "blood-pact"}),
        ({"faction": "keld"}, {"plant-a-seed"}),
        ({"faction": "Engeln"}, {"hymn-of-engeln"}),
        ({"keyword": "plant"}, {"plant-a-seed"}),
        ({"cost_min": 3}, {"blood-pact"}),
        ({"cost_max": 0}, {"quiet-prayer"}),
        ({"q": "attack", "colour": "red"}, {"lightning"}),
    ],
)
def test_card_filters(api, params, expected):
    assert slugs(api.get(CARDS, params)) == expected


@pytest.mark.parametrize(
    ("leader", "expected"),
    [
        ("kellantra", {"plant-a-seed", "healing", "quiet-prayer"}),
        ("richard", {"punishment", "hymn-of-engeln", "quiet-prayer"}),
        (
            "gottfried",
            {"despair", "lightning", "fiery-earth", "punishment", "blood-pact", "quiet-prayer"},
        ),
    ],
)
def test_leader_filter_keeps_cards_of_matching_colours_and_factions(api, leader, expected):
    assert slugs(api.get(CARDS, {"leader": leader, "page_size": 100})) == expected


def test_leader_filter_agrees_with_a_plain_restatement_of_the_rules(api, game):
    for leader in Leader.objects.filter(game=game).prefetch_related("colours", "keywords"):
        colours = {c.slug for c in leader.colours.all()}
        keywords = {k.pk for k in leader.keywords.all()}
        expected = {
            card.slug
            for card in Card.objects.filter(game=game).prefetch_related("colours", "keywords")
            if {c.slug for c in card.colours.all()} <= colours
            and all(k.pk in keywords for k in card.keywords.all() if k.is_faction)
        }
        assert slugs(api.get(CARDS, {"leader": leader.slug, "page_size": 100})) == expected


def test_sort_by_cost_descending(api):
    results = api.get(CARDS, {"sort": "-cost"}).json()["results"]
    costs = [card["total_cost"] for card in results]
    assert costs == sorted(costs, reverse=True) and costs[0] == 3


@pytest.mark.parametrize(
    "params",
    [
        {"colour": "purple"},
        {"rarity": "epic"},
        {"faction": "nope"},
        {"keyword": "nope"},
        {"leader": "nope"},
        {"cost_min": "abc"},
        {"sort": "price"},
        {"faction": "plant"},
    ],
)
def test_bad_filter_values_answer_400_naming_the_filter(api, params):
    response = api.get(CARDS, params)
    assert response.status_code == 400
    assert set(params) <= response.json().keys()


@pytest.mark.parametrize("params", [{}, {"q": "filler"}], ids=["all", "search"])
@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_card_list_takes_the_same_queries_whatever_the_page_size(api, game, params):
    for i in range(30):
        services.save_card(
            game=game,
            fields={"name": f"Filler {i}", "cost": {"life": 1}, "rarity": game.rarities.first()},
            keywords=["Keld", f"Extra {i}"],
        )
    # The first request after a change reads the game's vocabulary (and lexicon) again.
    api.get(CARDS, params)
    counts = []
    for size in (2, 30):
        with CaptureQueriesContext(connection) as ctx:
            response = api.get(CARDS, {"page_size": size, **params})
        assert len(response.json()["results"]) == size
        assert response.json()["count"] >= 30  # the API's count stays exact
        counts.append(len(ctx.captured_queries))
    # the game (its vocabulary from the cache) and the page of cards with its count (their
    # colours and keywords in their rows); a word search on PostgreSQL is counted first (its
    # count decides its order: cards.pagination)
    searched_apart = "q" in params and connection.vendor == "postgresql"
    assert counts == [3, 3] if searched_apart else counts == [2, 2]
    filler = next(c for c in response.json()["results"] if c["name"] == "Filler 1")
    assert filler["keywords"] == ["Extra 1", "Keld"] and filler["colours"] == ["green"]


# --- writes -------------------------------------------------------------------------------

NEW_CARD = {
    "name": "Ember Rain",
    "rarity": "common",
    "cost": {"destruction": 2},
    "keywords": ["Castilla", "Fire"],
    "text": "Make an Attack on each enemy.",
}


def test_staff_creates_a_card_with_derived_colours_and_new_keywords(staff_api):
    response = staff_api.post(CARDS, NEW_CARD, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["slug"] == "ember-rain"
    assert body["colours"] == ["red"]
    assert body["factions"] == ["Castilla"]
    assert set(body["keywords"]) == {"Castilla", "Fire"}


def test_staff_updates_and_deletes_a_card(staff_api):
    response = staff_api.patch(CARDS + "healing/", {"cost": {"life": 1, "death": 1}}, format="json")
    assert response.status_code == 200, response.content
    assert set(response.json()["colours"]) == {"green", "black"}
    assert staff_api.delete(CARDS + "healing/").status_code == 204
    assert not Card.objects.filter(slug="healing").exists()


def test_staff_creates_and_updates_a_leader(staff_api):
    body = {"name": "Morwen", "colours": ["green", "black"], "keywords": ["Abyss"]}
    response = staff_api.post(LEADERS, body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["factions"] == ["Abyss"]
    response = staff_api.patch(LEADERS + "morwen/", {"colours": ["red"]}, format="json")
    assert response.json()["colours"] == ["red"]
    assert response.json()["keywords"] == ["Abyss"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", CARDS),
        ("put", CARDS + "healing/"),
        ("patch", CARDS + "healing/"),
        ("delete", CARDS + "healing/"),
        ("post", LEADERS),
        ("patch", LEADERS + "richard/"),
        ("delete", LEADERS + "richard/"),
    ],
)
@pytest.mark.parametrize(("user", "status"), [(None, 401), ("alice", 403)])
def test_only_staff_may_write(method, path, user, status, django_user_model):
    client = APIClient()
    if user:
        client.force_authenticate(django_user_model.objects.get(username=user))
    before = (Card.objects.count(), Leader.objects.count())
    response = getattr(client, method)(path, NEW_CARD, format="json")
    assert response.status_code == status
    assert (Card.objects.count(), Leader.objects.count()) == before
    assert Card.objects.get(slug="healing").cost == {"life": 2}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"cost": {"air": 1}}, "cost"),
        ({"cost": {"life": 0}}, "cost"),
        ({"cost": {"life": -1}}, "cost"),
        ({"cost": {"life": "2"}}, "cost"),
        ({"cost": {"life": 1.5}}, "cost"),
        ({"cost": {"life": True}}, "cost"),
        ({"cost": [1, 2]}, "cost"),
        ({"rarity": "epic"}, "rarity"),
        ({"name": ""}, "name"),
        ({"name": "healing"}, "name"),
        ({"name": "!!!"}, "name"),
        ({"keywords": "Keld"}, "keywords"),
        ({"slug": "has spaces"}, "slug"),
        ({"slug": "healing"}, "slug"),
    ],
)
def test_bad_card_writes_answer_400_and_write_nothing(staff_api, change, field):
    before = Card.objects.count()
    response = staff_api.post(CARDS, {**NEW_CARD, **change}, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert Card.objects.count() == before


def test_bad_card_update_changes_nothing(staff_api):
    response = staff_api.patch(
        CARDS + "healing/", {"cost": {"life": 0}, "text": "x"}, format="json"
    )
    assert response.status_code == 400
    healing = Card.objects.get(slug="healing")
    assert (healing.cost, healing.text) == ({"life": 2}, "Heal all lost wounds of the target.")


def test_renaming_a_card_to_its_own_name_in_another_case_is_allowed(staff_api):
    response = staff_api.patch(CARDS + "healing/", {"name": "HEALING"}, format="json")
    assert response.status_code == 200, response.content


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "X", "colours": ["pink"]}, "colours"),
        ({"name": "richard"}, "name"),
        ({"name": "X", "colours": "green"}, "colours"),
        ({"colours": ["green"]}, "name"),
    ],
)
def test_bad_leader_writes_answer_400_and_write_nothing(staff_api, body, field):
    before = Leader.objects.count()
    response = staff_api.post(LEADERS, body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert Leader.objects.count() == before


def test_malformed_json_answers_400(staff_api):
    response = staff_api.post(CARDS, "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


def test_schema_and_docs_are_served_from_our_own_static_files(api):
    assert api.get("/api/schema/").status_code == 200
    docs = api.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower()


def test_a_list_longer_than_the_cap_is_counted_to_the_cap_and_pages_on_to_its_end(
    api, game, monkeypatch
):
    monkeypatch.setattr(pagination, "COUNT_CAP", 5)  # cards.pagination: 1,000 in production
    total = Card.objects.filter(game__slug="card-of-gods").count()
    assert total > 5
    body = api.get(CARDS, {"page_size": 4}).json()
    assert (body["count"], body["count_exact"]) == (5, False)
    seen = [card["slug"] for card in body["results"]]
    while body["next"]:
        body = api.get(body["next"]).json()
        seen += [card["slug"] for card in body["results"]]
    assert len(seen) == len(set(seen)) == total


def test_a_list_within_the_cap_has_its_exact_count(api, game):
    body = api.get(CARDS, {"q": "healing"}).json()
    assert body["count_exact"] is True
    assert body["count"] == len(body["results"]) >= 1


@pytest.mark.parametrize("kind", ["cards", "leaders"])
def test_every_listed_card_and_leader_links_its_own_page(api, kind):
    """The links of a list are made from one reversed address per game: each still names its
    own card (or leader) and game, and opens its page."""
    for game in Game.objects.all():
        answer = api.get(f"/api/games/{game.slug}/{kind}/", {"page_size": 100}).json()
        model = Card if kind == "cards" else Leader
        for item in answer["results"]:
            shown = model.objects.get(game=game, slug=item["slug"])
            assert item["url"] == f"http://testserver{shown.get_absolute_url()}"
