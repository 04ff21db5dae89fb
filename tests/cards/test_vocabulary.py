"""Cards and leaders carry what each game needs (issue 7, point 3), through the API: a card type
from the game's vocabulary, colours derived from the cost (with a generic amount) or given
directly, the game's stats (shown, filtered, sorted), Irdya loyalty, games without leaders, and
filters that take names or slugs. The Card of Gods API keeps working as before."""

import pytest
from rest_framework.test import APIClient

from cards.models import Card, Leader

pytestmark = pytest.mark.django_db


def cards_url(game: str, slug: str = "") -> str:
    return f"/api/games/{game}/cards/" + (f"{slug}/" if slug else "")


def leaders_url(game: str, slug: str = "") -> str:
    return f"/api/games/{game}/leaders/" + (f"{slug}/" if slug else "")


def listed(response) -> list[dict]:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["next"] is None, "the test expects one page"
    return body["results"]


def slugs(response) -> set[str]:
    return {card["slug"] for card in listed(response)}


def refused(response, field: str) -> str:
    """Assert a 400 naming `field`; return its messages as one string."""
    assert response.status_code == 400, response.content
    body = response.json()
    assert field in body, body
    return " ".join(str(m) for m in body[field])


# --- games describe their vocabulary --------------------------------------------------------


def test_games_carry_their_labels_types_stats_and_formats(api):
    games = {g["slug"]: g for g in api.get("/api/games/", {"page_size": 100}).json()["results"]}
    fow, ogam = games["force-of-will"], games["of-gods-and-men"]
    assert fow["leader_label"] == "Ruler"
    assert [t["slug"] for t in fow["card_types"]] == [
        "resonator",
        "chant",
        "addition",
        "regalia",
        "magic-stone",
        "rune",
        "master-rune",
        "j-ruler",
    ]
    assert [s["slug"] for s in fow["stats"]] == ["atk", "def"]
    assert [(f["slug"], f["default"]) for f in fow["formats"]] == [
        ("casual", True),
        ("constructed", False),
        ("wanderer-sample", False),
    ]
    assert [s["slug"] for s in fow["formats"][0]["sections"]] == ["main", "stones", "side"]
    assert ogam["leader_label"] is None
    assert games["card-of-gods"]["leader_label"] == "Expedition Leader"


# --- card types -----------------------------------------------------------------------------

OLD_CARD_BODY = {  # a Card of Gods card as API clients wrote it before card types existed
    "name": "Ember Rain",
    "rarity": "common",
    "cost": {"destruction": 2},
    "keywords": ["Castilla", "Fire"],
    "text": "Make an Attack on each enemy.",
}


def test_card_of_gods_api_takes_the_old_body_and_gives_the_one_type(staff_api, api):
    response = staff_api.post(cards_url("card-of-gods"), OLD_CARD_BODY, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["type"] == "god-card"
    assert (body["slug"], body["rarity"], body["cost"]) == (
        "ember-rain",
        "common",
        OLD_CARD_BODY["cost"],
    )
    assert (body["colours"], body["factions"]) == (["red"], ["Castilla"])
    assert Card.objects.get(game__slug="card-of-gods", slug="ember-rain").type.slug == "god-card"
    # A full replace with the old body keeps the type too.
    put = staff_api.put(
        cards_url("card-of-gods", "healing"),
        {"name": "Healing", "rarity": "rare", "cost": {"life": 3}, "text": "More."},
        format="json",
    )
    assert put.status_code == 200, put.content
    assert put.json()["type"] == "god-card"
    assert api.get(cards_url("card-of-gods", "healing")).json()["rarity"] == "rare"


def test_a_card_saved_without_a_type_in_a_one_type_game_gets_it(game):
    card = Card.objects.create(game=game, name="Typeless", rarity=game.rarities.first())
    assert card.type.slug == "god-card"


def test_a_card_type_must_come_from_the_games_vocabulary(staff_api):
    before = Card.objects.count()
    body = {"name": "Stray", "rarity": "common", "cost": {"fire": 1}}
    for wrong in ("god-card", "dragon"):
        response = staff_api.post(
            cards_url("force-of-will"), {**body, "type": wrong}, format="json"
        )
        assert wrong in refused(response, "type")
    response = staff_api.post(
        cards_url("card-of-gods"), {**OLD_CARD_BODY, "type": "resonator"}, format="json"
    )
    refused(response, "type")
    assert Card.objects.count() == before


def test_a_card_without_a_type_in_a_game_of_several_types_is_refused(staff_api):
    before = Card.objects.count()
    response = staff_api.post(
        cards_url("force-of-will"), {"name": "Stray", "rarity": "common"}, format="json"
    )
    refused(response, "type")
    assert Card.objects.count() == before


def test_a_cards_type_can_be_changed_within_the_game(staff_api):
    response = staff_api.patch(
        cards_url("force-of-will", "feather-cloak"), {"type": "regalia"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["type"] == "regalia"


# --- colours from the cost: attribute symbols plus a generic amount -------------------------


def fow_card(**fields) -> dict:
    return {"name": "Probe", "type": "resonator", "rarity": "common", **fields}


@pytest.mark.parametrize(
    ("cost", "colours", "total"),
    [
        ({"fire": 1, "water": 1, "generic": 2}, ["fire", "water"], 4),
        ({"generic": 3}, [], 3),
        ({"darkness": 2}, ["darkness"], 2),
        ({}, [], 0),
    ],
)
def test_force_of_will_colours_come_from_attribute_symbols_and_generic_adds_none(
    staff_api, cost, colours, total
):
    response = staff_api.post(cards_url("force-of-will"), fow_card(cost=cost), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["colours"], body["total_cost"], body["cost"]) == (colours, total, cost)
    card = Card.objects.get(game__slug="force-of-will", slug="probe")
    assert card.colour_count == len(colours)


def test_a_generic_only_card_is_found_as_colourless(staff_api, api):
    staff_api.post(cards_url("force-of-will"), fow_card(cost={"generic": 3}), format="json")
    found = slugs(api.get(cards_url("force-of-will"), {"colour": "colourless", "page_size": 100}))
    assert "probe" in found and "clockwork-wanderer" in found
    assert "steamcaller-djinn" not in found


def test_the_cost_is_stored_in_the_games_order_with_generic_last(staff_api):
    response = staff_api.post(
        cards_url("force-of-will"),
        fow_card(cost={"generic": 1, "water": 1, "fire": 2}),
        format="json",
    )
    assert response.status_code == 201, response.content
    assert list(response.json()["cost"]) == ["fire", "water", "generic"]


@pytest.mark.parametrize(
    ("game", "cost", "words"),
    [
        ("force-of-will", {"air": 1}, "'air'"),
        ("force-of-will", {"generic": 0}, "whole number"),
        ("force-of-will", {"fire": "1"}, "whole number"),
        ("card-of-gods", {"generic": 1}, "'generic'"),  # this game's costs have no generic part
    ],
)
def test_an_unknown_cost_key_or_bad_amount_is_refused(staff_api, game, cost, words):
    before = Card.objects.count()
    body = fow_card(cost=cost)
    if game == "card-of-gods":
        body = {**OLD_CARD_BODY, "cost": cost}
    assert words in refused(staff_api.post(cards_url(game), body, format="json"), "cost")
    assert Card.objects.count() == before


# --- colours given directly (Berserk elements) ----------------------------------------------


def berserk_card(**fields) -> dict:
    return {
        "name": "Probe",
        "type": "creature",
        "rarity": "common",
        "cost": {"generic": 2},
        **fields,
    }


def test_berserk_elements_are_given_directly_and_can_be_changed(staff_api, api):
    response = staff_api.post(
        cards_url("berserk-heroes"), berserk_card(colours=["forests", "swamps"]), format="json"
    )
    assert response.status_code == 201, response.content
    assert sorted(response.json()["colours"]) == ["forests", "swamps"]
    card = Card.objects.get(game__slug="berserk-heroes", slug="probe")
    assert card.colour_count == 2

    response = staff_api.patch(
        cards_url("berserk-heroes", "probe"), {"colours": ["darkness"]}, format="json"
    )
    assert response.json()["colours"] == ["darkness"]
    found = slugs(api.get(cards_url("berserk-heroes"), {"colour": "darkness", "page_size": 100}))
    assert "probe" in found
    # A cost change leaves given colours alone.
    response = staff_api.patch(
        cards_url("berserk-heroes", "probe"), {"cost": {"generic": 5}}, format="json"
    )
    assert response.json()["colours"] == ["darkness"]


def test_a_berserk_card_without_elements_is_neutral(staff_api):
    response = staff_api.post(cards_url("berserk-heroes"), berserk_card(), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["colours"] == []
    assert Card.objects.get(game__slug="berserk-heroes", slug="probe").colour_count == 0


def test_an_element_of_another_game_is_refused(staff_api):
    before = Card.objects.count()
    response = staff_api.post(
        cards_url("berserk-heroes"), berserk_card(colours=["light"]), format="json"
    )
    assert "light" in refused(response, "colours")
    assert Card.objects.count() == before


def test_colours_given_beside_the_cost_join_the_costs_and_stay_when_it_changes(staff_api):
    body = fow_card(cost={"fire": 1}, colours=["darkness"])
    response = staff_api.post(cards_url("force-of-will"), body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["colours"] == ["fire", "darkness"]
    response = staff_api.patch(
        cards_url("force-of-will", "probe"), {"cost": {"water": 1}}, format="json"
    )
    assert response.json()["colours"] == ["water", "darkness"]  # fire went with the cost
    assert Card.objects.get(game__slug="force-of-will", slug="probe").colour_count == 2


# --- stats ----------------------------------------------------------------------------------


def test_stats_are_stored_in_the_games_order_and_shown(staff_api, api):
    response = staff_api.post(
        cards_url("force-of-will"),
        fow_card(cost={"fire": 1}, stats={"def": 400, "atk": 600}),
        format="json",
    )
    assert response.status_code == 201, response.content
    assert list(response.json()["stats"].items()) == [("atk", 600), ("def", 400)]
    shown = api.get(cards_url("force-of-will", "lantern-acolyte")).json()
    assert shown["stats"] == {"atk": 200, "def": 300}
    assert api.get(cards_url("card-of-gods", "healing")).json()["stats"] == {}


@pytest.mark.parametrize(
    ("game", "stats", "words"),
    [
        ("force-of-will", {"strike": 1}, "'strike'"),  # a stat of Berserk
        ("force-of-will", {"atk": -100}, "whole number"),
        ("force-of-will", {"atk": "600"}, "whole number"),
        ("force-of-will", {"atk": True}, "whole number"),
        ("force-of-will", [600], "object"),
        ("card-of-gods", {"atk": 1}, "'atk'"),  # a game without stats
    ],
)
def test_unknown_or_bad_stats_are_refused(staff_api, game, stats, words):
    before = Card.objects.count()
    body = fow_card(cost={}, stats=stats)
    if game == "card-of-gods":
        body = {**OLD_CARD_BODY, "stats": stats}
    assert words in refused(staff_api.post(cards_url(game), body, format="json"), "stats")
    assert Card.objects.count() == before


def stat_values(game: str, stat: str) -> dict[str, int | None]:
    return {c.slug: (c.stats or {}).get(stat) for c in Card.objects.filter(game__slug=game)}


@pytest.mark.parametrize(
    ("game", "params"),
    [
        ("force-of-will", {"atk_min": 500}),
        ("force-of-will", {"atk_max": 300}),
        ("force-of-will", {"atk_min": 300, "atk_max": 800, "def_min": 400}),
        ("berserk-heroes", {"life_min": 5}),
        ("of-gods-and-men", {"command_min": 2}),
        ("irdya", {"atk_max": 0}),
    ],
)
def test_stat_range_filters_keep_cards_whose_stat_lies_in_the_range(api, game, params):
    values = {key.rsplit("_", 1)[0]: stat_values(game, key.rsplit("_", 1)[0]) for key in params}

    def fits(slug):
        for key, bound in params.items():
            stat, end = key.rsplit("_", 1)
            value = values[stat][slug]
            if value is None or (value < bound if end == "min" else value > bound):
                return False
        return True

    every = Card.objects.filter(game__slug=game).values_list("slug", flat=True)
    expected = {slug for slug in every if fits(slug)}
    assert expected  # the case means something
    assert slugs(api.get(cards_url(game), {**params, "page_size": 100})) == expected


def test_a_stat_filter_refuses_a_value_that_is_not_a_number(api):
    refused(api.get(cards_url("force-of-will"), {"atk_min": "abc"}), "atk_min")


@pytest.mark.parametrize("descending", [False, True])
def test_sorting_by_a_stat_puts_cards_without_it_last(api, descending):
    results = listed(
        api.get(
            cards_url("force-of-will"), {"sort": "-atk" if descending else "atk", "page_size": 100}
        )
    )
    values = [card["stats"].get("atk") for card in results]
    with_atk = [v for v in values if v is not None]
    assert values == with_atk + [None] * (len(values) - len(with_atk))
    assert with_atk == sorted(with_atk, reverse=descending)
    assert len(with_atk) >= 5 and len(with_atk) < len(values)


def test_sorting_and_filtering_by_a_stat_still_work_after_the_api_schema_was_built(api):
    """Building the OpenAPI schema (/api/schema/, /api/docs/) reads the card filters; a game's
    own choices (its stats) must still be offered afterwards."""
    assert api.get("/api/schema/").status_code == 200
    assert listed(api.get(cards_url("force-of-will"), {"sort": "-atk", "page_size": 100}))
    assert listed(api.get(cards_url("force-of-will"), {"type": "magic-stone", "page_size": 100}))


def test_the_type_filter_takes_one_or_more_types(api):
    expected = set(
        Card.objects.filter(game__slug="force-of-will", type__slug="magic-stone").values_list(
            "slug", flat=True
        )
    )
    assert len(expected) >= 2
    assert (
        slugs(api.get(cards_url("force-of-will"), {"type": "magic-stone", "page_size": 100}))
        == expected
    )
    both = slugs(
        api.get(cards_url("force-of-will"), {"type": ["magic-stone", "regalia"], "page_size": 100})
    )
    assert expected < both
    assert all(
        Card.objects.get(game__slug="force-of-will", slug=s).type.slug in {"magic-stone", "regalia"}
        for s in both
    )
    refused(api.get(cards_url("force-of-will"), {"type": "god-card"}), "type")


# --- Irdya loyalty --------------------------------------------------------------------------


def irdya_card(**fields) -> dict:
    return {
        "name": "Probe",
        "type": "creature",
        "rarity": "common",
        "cost": {"generic": 2},
        **fields,
    }


@pytest.mark.parametrize("faction", ["Loyalists", "loyalists", "LOYALISTS"])
def test_an_irdya_card_carries_its_loyalty_requirement(staff_api, api, faction):
    response = staff_api.post(
        cards_url("irdya"),
        irdya_card(loyalty={"faction": faction, "points": 2}, keywords=["Human"]),
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["loyalty"] == {"faction": "Loyalists", "points": 2}
    assert body["factions"] == ["Loyalists"]  # the faction joins the card's keywords
    assert api.get(cards_url("irdya", "probe")).json()["loyalty"] == body["loyalty"]
    card = Card.objects.get(game__slug="irdya", slug="probe")
    assert card.info().loyalty == ("Loyalists", 2)


def test_loyalty_can_be_changed_and_removed(staff_api):
    url = cards_url("irdya", "crownsworn-knight")
    response = staff_api.patch(
        url, {"loyalty": {"faction": "Loyalists", "points": 3}}, format="json"
    )
    assert response.json()["loyalty"] == {"faction": "Loyalists", "points": 3}
    response = staff_api.patch(url, {"loyalty": None}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["loyalty"] is None
    card = Card.objects.get(game__slug="irdya", slug="crownsworn-knight")
    assert (card.loyalty_faction, card.loyalty_points) == (None, None)


def test_cards_without_loyalty_show_none(api):
    assert api.get(cards_url("irdya", "hired-sellsword")).json()["loyalty"] is None
    assert api.get(cards_url("card-of-gods", "healing")).json().get("loyalty") is None


@pytest.mark.parametrize(
    "loyalty",
    [
        {"faction": "Loyalists", "points": 0},
        {"faction": "Loyalists", "points": 4},
        {"faction": "Loyalists", "points": "two"},
        {"faction": "Human", "points": 1},  # a keyword, not a faction
        {"faction": "Keld", "points": 1},  # a faction of Card of Gods
        {"faction": "Loyalists"},
        "Loyalists:2",
    ],
)
def test_a_bad_loyalty_requirement_is_refused(staff_api, loyalty):
    before = Card.objects.count()
    response = staff_api.post(cards_url("irdya"), irdya_card(loyalty=loyalty), format="json")
    refused(response, "loyalty")
    assert Card.objects.count() == before


def test_a_hero_shows_its_loyalty_points_per_faction(api):
    assert api.get(leaders_url("irdya", "edrin-tallbanner")).json()["loyalty"] == {"Loyalists": 3}
    durgan = api.get(leaders_url("irdya", "durgan-ironvein")).json()
    assert durgan["loyalty"] == {"Knalgans": 3, "Rebels": 2, "Loyalists": 1}
    heroes = api.get(leaders_url("irdya"), {"page_size": 100}).json()["results"]
    assert all(hero["loyalty"] for hero in heroes)


def test_staff_creates_and_changes_a_heros_loyalty(staff_api):
    response = staff_api.post(
        leaders_url("irdya"),
        {"name": "Probe Hero", "keywords": ["Human"], "loyalty": {"rebels": 2, "Drakes": 1}},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["loyalty"] == {"Rebels": 2, "Drakes": 1}
    assert set(body["factions"]) == {"Rebels", "Drakes"}
    hero = Leader.objects.get(game__slug="irdya", slug="probe-hero")
    assert hero.info().loyalty == frozenset({("Rebels", 2), ("Drakes", 1)})

    response = staff_api.patch(
        leaders_url("irdya", "probe-hero"), {"loyalty": {"Undead": 3}}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["loyalty"] == {"Undead": 3}


@pytest.mark.parametrize(
    "loyalty",
    [{"Loyalists": 4}, {"Loyalists": 0}, {"Human": 1}, {"Keld": 1}, ["Loyalists"]],
)
def test_a_bad_hero_loyalty_is_refused(staff_api, loyalty):
    before = Leader.objects.count()
    response = staff_api.post(
        leaders_url("irdya"), {"name": "Probe Hero", "loyalty": loyalty}, format="json"
    )
    refused(response, "loyalty")
    assert Leader.objects.count() == before


# --- a game without leaders -----------------------------------------------------------------


def test_of_gods_and_men_has_no_leaders_and_refuses_one(staff_api, api):
    assert listed(api.get(leaders_url("of-gods-and-men"))) == []
    response = staff_api.post(leaders_url("of-gods-and-men"), {"name": "Someone"}, format="json")
    assert response.status_code == 400, response.content
    assert not Leader.objects.filter(game__slug="of-gods-and-men").exists()


def test_of_gods_and_men_cards_are_written_without_colours(staff_api):
    response = staff_api.post(
        cards_url("of-gods-and-men"),
        {
            "name": "Probe",
            "type": "unit",
            "rarity": "common",
            "cost": {"generic": 2},
            "stats": {"strength": 2, "hp": 3},
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert (response.json()["colours"], response.json()["stats"]) == ([], {"strength": 2, "hp": 3})


# --- keyword and faction filters take a name or a slug, any case ----------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"faction": "Brumgar's Horde"},
        {"faction": "brumgars-horde"},
        {"faction": "BRUMGAR'S HORDE"},
        {"faction": "Brumgars-Horde"},
        {"keyword": "brumgar's horde"},
        {"keyword": "BRUMGARS-HORDE"},
    ],
)
def test_keyword_and_faction_filters_take_a_name_or_a_slug_in_any_case(staff_api, api, params):
    body = {**OLD_CARD_BODY, "keywords": ["Brumgar's Horde"]}
    assert staff_api.post(cards_url("card-of-gods"), body, format="json").status_code == 201
    assert slugs(api.get(cards_url("card-of-gods"), params)) == {"ember-rain"}


@pytest.mark.parametrize("value", ["Knalgans", "knalgans", "KNALGANS"])
def test_irdya_faction_filter_finds_the_factions_cards(api, value):
    expected = set(
        Card.objects.filter(game__slug="irdya", keywords__name="Knalgans").values_list(
            "slug", flat=True
        )
    )
    assert len(expected) >= 3
    assert slugs(api.get(cards_url("irdya"), {"faction": value, "page_size": 100})) == expected
    assert slugs(api.get(cards_url("irdya"), {"keyword": value, "page_size": 100})) == expected


@pytest.mark.parametrize("params", [{"faction": "Human"}, {"faction": "Keld"}, {"keyword": "Keld"}])
def test_a_keyword_of_another_game_or_a_plain_keyword_as_faction_is_refused(api, params):
    refused(api.get(cards_url("irdya"), params), next(iter(params)))


# --- writes stay staff-only ----------------------------------------------------------------

WRITES = [
    ("post", cards_url("force-of-will"), fow_card(cost={"fire": 1})),
    ("patch", cards_url("force-of-will", "cinder-hound"), {"stats": {"atk": 1}}),
    ("delete", cards_url("berserk-heroes", "village-militia"), None),
    ("post", cards_url("irdya"), irdya_card(loyalty={"faction": "Drakes", "points": 1})),
    ("post", leaders_url("irdya"), {"name": "Probe Hero", "loyalty": {"Drakes": 1}}),
    ("patch", leaders_url("irdya", "hesra-vane"), {"loyalty": {"Loyalists": 3}}),
    ("post", cards_url("of-gods-and-men"), {"name": "Probe", "type": "unit", "rarity": "common"}),
]


@pytest.mark.parametrize(("method", "path", "body"), WRITES, ids=[f"{m} {p}" for m, p, _ in WRITES])
@pytest.mark.parametrize(("user", "status"), [(None, 401), ("alice", 403)])
def test_only_staff_may_write_the_new_games(method, path, body, user, status, django_user_model):
    client = APIClient()
    if user:
        client.force_authenticate(django_user_model.objects.get(username=user))
    before = (
        list(Card.objects.order_by("pk").values_list("pk", "updated")),
        list(Leader.objects.order_by("pk").values_list("pk", "updated")),
    )
    response = getattr(client, method)(path, body, format="json")
    assert response.status_code == status
    after = (
        list(Card.objects.order_by("pk").values_list("pk", "updated")),
        list(Leader.objects.order_by("pk").values_list("pk", "updated")),
    )
    assert after == before
    assert Leader.objects.get(slug="hesra-vane").info().loyalty == frozenset({("Loyalists", 2)})
