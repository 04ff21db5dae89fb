"""API of formats and deck sections (formats.md, api.md "Formats and deck sections"), over the
four sample games of the test world and Card of Gods: games with their vocabulary and formats,
a format as data, validate with formats and sections (every example of formats.md, exactly),
decks with sections, text export/import with section headers, and permissions of a sectioned
deck."""

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from cards import catalogue, legality
from cards import services as card_services
from cards.models import Card, Format, Game
from deckbuilder.models import Deck, DeckCard, Visibility
from tests.conftest import api_client

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[2] / "cards" / "sample"
DECKS = "/api/decks/"
GAMES = ("berserk-heroes", "card-of-gods", "force-of-will", "irdya", "of-gods-and-men")


def validate_url(game: str) -> str:
    return f"/api/games/{game}/validate/"


def rows(counts: dict[str, int], section: str | None = None) -> list[dict]:
    """Validate/deck entries; with `section` each names it, without it none does."""
    extra = {"section": section} if section else {}
    return [{"card": slug, "count": n, **extra} for slug, n in counts.items()]


def sectioned(deck: dict[str, dict[str, int]]) -> list[dict]:
    """{section: {card: n}} as entries that each name their section."""
    return [row for section, counts in deck.items() for row in rows(counts, section)]


def found(problems) -> list[tuple]:
    """(code, section, card) of each problem, in the order given."""
    return [(p["code"], p["section"], p["card"]) for p in problems]


def contents(deck_json) -> set[tuple[str, str, int]]:
    """(card, section, count) of each entry of a deck response."""
    return {(row["card"], row["section"], row["count"]) for row in deck_json["cards"]}


def as_contents(deck: dict[str, dict[str, int]]) -> set[tuple[str, str, int]]:
    return {(card, section, n) for section, counts in deck.items() for card, n in counts.items()}


def sample_definition(game: str) -> dict:
    if game == "card-of-gods":
        return json.loads((SAMPLE / "card-of-gods.json").read_text())["game"]
    return json.loads((SAMPLE / f"{game}.json").read_text(encoding="utf-8"))["game"]


def assert_resolves(client, url: str):
    """GET the page of a rule URL: 200, and its anchor is an id on that page."""
    parts = urlsplit(url)
    assert parts.scheme == "http" and parts.netloc == "testserver", url
    assert parts.fragment, url
    response = client.get(parts.path)
    assert response.status_code == 200, url
    assert f'id="{parts.fragment}"' in response.content.decode(), url


# --- the decks of the examples ---------------------------------------------------------------

# Force of Will: ten main-deck cards (no stones), four of each.
FOW_RULER = "seraphine-of-the-dawn-bell"
FOW_RULER_NAME = "Seraphine of the Dawn Bell"
FOW_MAIN_40 = {
    "lantern-acolyte": 4,
    "dawnspire-paladin": 4,
    "vow-of-the-bright-shield": 4,
    "sanctum-of-echoing-bells": 4,
    "cinder-hound": 4,
    "emberforge-marshal": 4,
    "kindled-spear": 4,
    "blazing-standard": 4,
    "crater-of-the-first-flame": 4,
    "tidepool-scholar": 4,
}
FOW_STONES_10 = {"magic-stone-of-light": 8, "twilight-geode": 2}  # 8 of a Basic stone
FOW_SIDE = {"undertow": 2, "magic-stone-of-light": 2}  # a basic stone may go in the side deck
FOW_LEGAL = {"main": FOW_MAIN_40, "stones": FOW_STONES_10, "side": FOW_SIDE}

# Berserk: Ilvane (forests) with neutral and forests cards, three of each (one single).
BERSERK_HERO = "ilvane-thornwarden"
BERSERK_40 = {
    "village-militia": 3,  # neutral, Horde
    "wandering-sellsword": 3,  # neutral
    "old-road-golem": 3,
    "healing-draught": 3,
    "sudden-ambush": 3,
    "travellers-cloak": 3,
    "crossroads-shrine": 3,
    "thornback-boar": 3,  # forests
    "greenwood-archer": 3,
    "oakheart-guardian": 3,
    "elder-of-the-grove": 3,
    "rootsnare": 3,
    "verdant-renewal": 3,
    "barkskin-mantle": 1,
}

# Of Gods and Men: 40 cards, none of them Pantheon.
OGAM_40_WITHOUT_PANTHEON = {
    "captain-loran-vey": 3,
    "seren-the-far-sighted": 3,
    "lady-maelis-of-torrow": 3,
    "sir-edric-halvane": 3,
    "ashwood-longbowmen": 3,
    "hill-slingers": 3,
    "border-outriders": 3,
    "red-lancers": 3,
    "shieldwall-spearmen": 3,
    "temple-guard": 3,
    "ironbark-shield": 3,
    "sudden-downpour": 3,
    "whispering-forest": 3,
    "iron-peaks": 1,
}
# The same with one Pantheon card instead of the single Iron Peaks.
OGAM_LEGAL = {
    **{slug: n for slug, n in OGAM_40_WITHOUT_PANTHEON.items() if slug != "iron-peaks"},
    "ardeon-the-sunfather": 1,
}

# Irdya: Hesra Vane has loyalty {"Loyalists": 2}; 39 cards of no faction.
IRDYA_HERO = "hesra-vane"
IRDYA_NEUTRAL_39 = {
    slug: 3
    for slug in (
        "hired-sellsword",
        "wandering-healer",
        "river-ferryman",
        "stone-sentinel",
        "arcane-bolt",
        "forced-march",
        "tithe-of-the-crossroads",
        "envoys-parley",
        "ambush-at-the-ford",
        "sudden-fog",
        "lucky-find",
        "rite-of-the-long-night",
        "circle-of-warding",
    )
}


def test_the_example_decks_have_the_sizes_they_claim():
    assert sum(FOW_MAIN_40.values()) == 40 and sum(FOW_STONES_10.values()) == 10
    assert sum(BERSERK_40.values()) == 40
    assert sum(OGAM_40_WITHOUT_PANTHEON.values()) == sum(OGAM_LEGAL.values()) == 40
    assert sum(IRDYA_NEUTRAL_39.values()) == 39


# --- games and formats -----------------------------------------------------------------------

# formats.md, "Names the API keeps": leader label, card types, colours, stats, formats (default
# first).
VOCABULARY = {
    "card-of-gods": ("Expedition Leader", ["god-card"], ["yellow", "red", "green", "black"], []),
    "force-of-will": (
        "Ruler",
        [
            "resonator",
            "chant",
            "addition",
            "regalia",
            "magic-stone",
            "rune",
            "master-rune",
            "j-ruler",
        ],
        ["light", "fire", "water", "wind", "darkness"],
        ["atk", "def"],
    ),
    "berserk-heroes": (
        "Hero",
        ["creature", "spell", "equipment", "event"],
        ["steppes", "forests", "mountains", "swamps", "darkness"],
        ["strike", "life"],
    ),
    "of-gods-and-men": (
        None,
        ["pantheon", "hero", "unit", "artifact", "magic", "terrain"],
        [],
        ["strength", "hp", "command"],
    ),
    "irdya": ("Hero", ["creature", "spell", "event", "ritual", "mount"], [], ["atk", "def"]),
}
ONE_SECTION = [{"slug": "main", "name": "Deck"}]
FOW_SECTIONS = [
    {"slug": "main", "name": "Main deck"},
    {"slug": "stones", "name": "Magic stone deck"},
    {"slug": "side", "name": "Side deck"},
]
# Constructed (CR 12.7 402-404): the extra, rune and stranger decks too
FOW_CONSTRUCTED_SECTIONS = [
    *FOW_SECTIONS,
    {"slug": "extra", "name": "Extra deck"},
    {"slug": "runes", "name": "Rune deck"},
    {"slug": "stranger", "name": "Stranger deck"},
]
FORMATS = {
    "card-of-gods": [("standard", True, [{"slug": "main", "name": "Deck of Gods"}])],
    "force-of-will": [
        ("casual", True, FOW_SECTIONS),
        ("constructed", False, FOW_CONSTRUCTED_SECTIONS),
        ("wanderer-sample", False, FOW_CONSTRUCTED_SECTIONS),
    ],
    "berserk-heroes": [("standard", True, ONE_SECTION)],
    "of-gods-and-men": [("standard", True, ONE_SECTION)],
    "irdya": [("standard", True, ONE_SECTION)],
}


def assert_vocabulary(game: dict):
    leader_label, card_types, colours, stats = VOCABULARY[game["slug"]]
    assert game["leader_label"] == leader_label
    assert [t["slug"] for t in game["card_types"]] == card_types
    assert all(t["name"] for t in game["card_types"])
    assert [c["slug"] for c in game["colours"]] == colours
    assert [s["slug"] for s in game["stats"]] == stats
    assert all(s["name"] for s in game["stats"])
    assert game["rarities"] and all({"slug", "name"} <= r.keys() for r in game["rarities"])
    assert [(f["slug"], f["default"], f["sections"]) for f in game["formats"]] == [
        (slug, default, sections) for slug, default, sections in FORMATS[game["slug"]]
    ]
    assert all(f["name"] for f in game["formats"])


def test_games_list_carries_each_games_vocabulary_and_formats(api):
    response = api.get("/api/games/")
    assert response.status_code == 200
    games = response.json()["results"]
    assert sorted(g["slug"] for g in games) == sorted(GAMES)
    for game in games:
        assert_vocabulary(game)


@pytest.mark.parametrize("slug", GAMES)
def test_one_game_carries_its_vocabulary_and_formats(api, slug):
    response = api.get(f"/api/games/{slug}/")
    assert response.status_code == 200
    assert_vocabulary(response.json())


def test_card_of_gods_keeps_its_rarities(api):
    game = api.get("/api/games/card-of-gods/").json()
    assert [r["slug"] for r in game["rarities"]] == ["common", "uncommon", "rare"]


FORMAT_PAIRS = [(game, slug) for game, formats in FORMATS.items() for slug, _, _ in formats]


@pytest.mark.parametrize(("game", "slug"), FORMAT_PAIRS)
def test_a_format_is_served_as_the_data_the_game_definition_gives(api, game, slug):
    [expected] = [f for f in sample_definition(game)["formats"] if f["slug"] == slug]
    if "versions" in expected:  # they decide; the sample's latest is in force by now
        latest = expected["versions"][-1]
        expected = {**expected, **{k: latest[k] for k in ("sections", "rules", "banlist", "notes")}}
    response = api.get(f"/api/games/{game}/formats/{slug}/")
    assert response.status_code == 200, response.content
    data = response.json()
    for key in ("slug", "name", "default", "sections", "rules", "banlist", "notes"):
        assert data[key] == expected.get(key, {} if key == "banlist" else None), key


def test_the_formats_list_of_a_game_gives_every_format_in_order(api):
    response = api.get("/api/games/force-of-will/formats/")
    assert response.status_code == 200
    formats = response.json()["results"]
    assert [f["slug"] for f in formats] == ["casual", "constructed", "wanderer-sample"]
    assert [r["rule"] for r in formats[1]["rules"]][:2] == ["leader_required", "deck_size"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/force-of-will/formats/nope/",
        "/api/games/card-of-gods/formats/casual/",  # a format of another game
        "/api/games/nope/formats/standard/",
    ],
)
def test_an_unknown_format_is_404(api, path):
    assert api.get(path).status_code == 404


# --- validate: every example of formats.md, exactly -------------------------------------------

EXAMPLES = {
    # Force of Will (default format: casual)
    "fow 40 main + 10 stones (8 basic) + 0 side: legal": (
        "force-of-will",
        {"leader": FOW_RULER, "cards": sectioned({"main": FOW_MAIN_40, "stones": FOW_STONES_10})},
        [],
    ),
    "fow 5 copies of a non-basic stone: copy_limit (stones)": (
        "force-of-will",
        {
            "leader": FOW_RULER,
            "cards": sectioned(
                {
                    "main": FOW_MAIN_40,
                    "stones": {"magic-stone-of-light": 5, "twilight-geode": 5},
                }
            ),
        },
        [("copy_limit", "stones", "twilight-geode")],
    ),
    "fow 3 in main and 2 in side: copy_limit (across main and side)": (
        "force-of-will",
        {
            "leader": FOW_RULER,
            "cards": sectioned(
                {
                    "main": {**FOW_MAIN_40, "lantern-acolyte": 3, "undertow": 1},
                    "stones": FOW_STONES_10,
                    "side": {"lantern-acolyte": 2},
                }
            ),
        },
        [("copy_limit", None, "lantern-acolyte")],
    ),
    "fow a magic stone in main: wrong_section": (
        "force-of-will",
        {
            "leader": FOW_RULER,
            "cards": sectioned(
                {
                    "main": {**FOW_MAIN_40, "lantern-acolyte": 3, "twilight-geode": 1},
                    "stones": FOW_STONES_10,
                }
            ),
        },
        [("wrong_section", "main", "twilight-geode")],
    ),
    "fow 39 main: deck_size (main)": (
        "force-of-will",
        {
            "leader": FOW_RULER,
            "cards": sectioned(
                {"main": {**FOW_MAIN_40, "lantern-acolyte": 3}, "stones": FOW_STONES_10}
            ),
        },
        [("deck_size", "main", None)],
    ),
    # Berserk
    "berserk forests hero with neutral and forests cards: legal": (
        "berserk-heroes",
        {"leader": BERSERK_HERO, "cards": rows(BERSERK_40)},
        [],
    ),
    "berserk with a swamps card: colour_mismatch": (
        "berserk-heroes",
        {
            "leader": BERSERK_HERO,
            "cards": rows({**BERSERK_40, "barkskin-mantle": 0, "marsh-lurker": 1}),
        },
        [("colour_mismatch", "main", "marsh-lurker")],
    ),
    "berserk 5 of a Horde card: legal": (
        "berserk-heroes",
        {"leader": BERSERK_HERO, "cards": rows({**BERSERK_40, "village-militia": 5})},
        [],
    ),
    "berserk 6 of a Horde card: copy_limit": (
        "berserk-heroes",
        {"leader": BERSERK_HERO, "cards": rows({**BERSERK_40, "village-militia": 6})},
        [("copy_limit", "main", "village-militia")],
    ),
    "berserk 4 of a plain card: copy_limit": (
        "berserk-heroes",
        {"leader": BERSERK_HERO, "cards": rows({**BERSERK_40, "wandering-sellsword": 4})},
        [("copy_limit", "main", "wandering-sellsword")],
    ),
    # Of Gods and Men
    "ogam 40 cards without a Pantheon: required_card_missing": (
        "of-gods-and-men",
        {"cards": rows(OGAM_40_WITHOUT_PANTHEON)},
        [("required_card_missing", "main", None)],
    ),
    "ogam 40 cards with a Pantheon and no leader: legal": (
        "of-gods-and-men",
        {"cards": rows(OGAM_LEGAL)},
        [],
    ),
    # Irdya
    "irdya loyalists 2 hero, a loyalists card needing 2: legal": (
        "irdya",
        {"leader": IRDYA_HERO, "cards": rows({**IRDYA_NEUTRAL_39, "crownsworn-knight": 1})},
        [],
    ),
    "irdya loyalists 2 hero, a loyalists card needing 3: loyalty_too_low": (
        "irdya",
        {"leader": IRDYA_HERO, "cards": rows({**IRDYA_NEUTRAL_39, "oath-of-the-lion-throne": 1})},
        [("loyalty_too_low", "main", "oath-of-the-lion-throne")],
    ),
    "irdya loyalists 2 hero, a knalgans card needing 1: loyalty_too_low": (
        "irdya",
        {"leader": IRDYA_HERO, "cards": rows({**IRDYA_NEUTRAL_39, "hammerhold-guardsman": 1})},
        [("loyalty_too_low", "main", "hammerhold-guardsman")],
    ),
}


def _without_zero_counts(body: dict) -> dict:
    return {**body, "cards": [row for row in body["cards"] if row["count"]]}


@pytest.mark.parametrize("example", list(EXAMPLES), ids=list(EXAMPLES))
def test_each_example_of_formats_md_gives_exactly_the_codes_it_names(api, client, example):
    game, body, expected = EXAMPLES[example]
    response = api.post(validate_url(game), _without_zero_counts(body), format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert found(report["problems"]) == expected, report["problems"]
    assert report["legal"] is (expected == [])
    for problem in report["problems"]:
        assert problem["message"]
        assert_resolves(client, problem["rule_url"])


def test_validate_without_a_format_judges_against_the_default_format(api):
    body = {"leader": FOW_RULER, "cards": sectioned({"main": FOW_MAIN_40, "stones": FOW_STONES_10})}
    report = api.post(validate_url("force-of-will"), body, format="json").json()
    assert (report["format"], report["legal"]) == ("casual", True)
    assert report["sections"] == {"main": 40, "stones": 10, "side": 0}
    assert report["card_count"] == 50


def test_validate_in_the_constructed_format_wants_a_side_deck(api):
    body = {
        "leader": FOW_RULER,
        "format": "constructed",
        "cards": sectioned({"main": FOW_MAIN_40, "stones": FOW_STONES_10}),
    }
    report = api.post(validate_url("force-of-will"), body, format="json").json()
    assert report["format"] == "constructed"
    assert found(report["problems"]) == [("deck_size", "side", None)]

    body["cards"] = sectioned(FOW_LEGAL)
    report = api.post(validate_url("force-of-will"), body, format="json").json()
    assert (report["legal"], report["problems"]) == (True, [])
    empty = {"extra": 0, "runes": 0, "stranger": 0}  # closed to this Ruler: left empty
    assert report["sections"] == {"main": 40, "stones": 10, "side": 4, **empty}


def test_validate_names_the_default_format_of_a_one_format_game(api):
    body = {"leader": "gottfried", "cards": rows({"despair": 1})}
    report = api.post(validate_url("card-of-gods"), body, format="json").json()
    assert (report["format"], report["sections"]) == ("standard", {"main": 1})
    named = api.post(validate_url("card-of-gods"), {**body, "format": "standard"}, format="json")
    assert named.json() == report


def test_an_entry_without_a_section_goes_in_the_first_section(api):
    body = {
        "leader": FOW_RULER,
        "cards": rows(FOW_MAIN_40) + rows(FOW_STONES_10, "stones"),
    }
    report = api.post(validate_url("force-of-will"), body, format="json").json()
    assert report["sections"] == {"main": 40, "stones": 10, "side": 0}
    assert report["legal"] is True


def test_the_same_card_may_appear_once_in_each_section(api):
    body = {
        "leader": FOW_RULER,
        "cards": sectioned(
            {
                "main": FOW_MAIN_40,
                "stones": FOW_STONES_10,
                "side": {"magic-stone-of-light": 4},
            }
        ),
    }
    response = api.post(validate_url("force-of-will"), body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["sections"] == {"main": 40, "stones": 10, "side": 4}
    assert response.json()["legal"] is True


@pytest.mark.parametrize(
    "cards",
    [
        [
            {"card": "magic-stone-of-light", "count": 4, "section": "stones"},
            {"card": "magic-stone-of-light", "count": 4, "section": "stones"},
        ],
        # no section is the first section: the same card twice in main
        [
            {"card": "lantern-acolyte", "count": 2},
            {"card": "lantern-acolyte", "count": 2, "section": "main"},
        ],
    ],
    ids=["twice-in-stones", "twice-in-main-one-implicit"],
)
def test_the_same_card_twice_in_one_section_is_a_400(api, cards):
    response = api.post(
        validate_url("force-of-will"), {"leader": FOW_RULER, "cards": cards}, format="json"
    )
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["cards"]
    assert "twice" in json.dumps(response.json())


@pytest.mark.parametrize(
    ("game", "body"),
    [
        (
            "force-of-will",
            {"leader": FOW_RULER, "cards": rows({"lantern-acolyte": 1}, "graveyard")},
        ),
        ("card-of-gods", {"leader": "gottfried", "cards": rows({"despair": 1}, "side")}),
        ("force-of-will", {"leader": FOW_RULER, "cards": rows({"lantern-acolyte": 1}, "Side")}),
    ],
    ids=["no-such-section", "a-section-of-another-games-format", "a-section-name-not-slug"],
)
def test_an_unknown_section_is_a_400_field_error(api, game, body):
    response = api.post(validate_url(game), body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["cards"]


@pytest.mark.parametrize(
    ("game", "fmt"),
    [("force-of-will", "nope"), ("card-of-gods", "casual"), ("force-of-will", "")],
    ids=["unknown", "a-format-of-another-game", "empty"],
)
def test_an_unknown_format_is_a_400_field_error(api, game, fmt):
    body = {"leader": None, "format": fmt, "cards": []}
    response = api.post(validate_url(game), body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["format"]


def test_a_leader_for_a_game_without_leaders_is_a_400_field_error(api):
    body = {"leader": "gottfried", "cards": rows(OGAM_LEGAL)}
    response = api.post(validate_url("of-gods-and-men"), body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["leader"]


def test_a_game_without_leaders_validates_with_a_null_leader(api):
    body = {"leader": None, "cards": rows(OGAM_LEGAL)}
    response = api.post(validate_url("of-gods-and-men"), body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["legal"] is True


# --- every code of every format links to a rule that resolves -----------------------------------

# Per (game, format): validate bodies that, together, break every rule of the format.
FOW_BREAKS_EVERY_RULE = {
    "leader": None,
    "cards": sectioned(
        {
            "main": {"lantern-acolyte": 5, "twilight-geode": 1},  # copy_limit, wrong_section
            "stones": {"lantern-acolyte": 1, "stormglass-shard": 5},  # wrong_section, copy_limit
            "side": {"cinder-hound": 4, "kindled-spear": 4, "undertow": 4, "gale-sprite": 4},
        }
    ),
}
# Constructed's extra, rune and stranger decks under a Ruler with none of their keywords, with
# too many cards, copies and master runes, a card of the wrong type in each, and a Tales card
# beside a Villains card.
FOW_BREAKS_THE_CONSTRUCTED_RULES = {
    "leader": FOW_RULER,
    "cards": sectioned(
        {
            "main": {"snow-glass-maiden": 1, "wolf-of-the-crossroads": 1},
            "extra": {
                "gale-sprite": 2,
                "skyreach-archer": 1,
                "tailwind-step": 1,
                "feather-cloak": 1,
                "rune-of-quiet-wings": 1,
            },
            "runes": {"master-rune-of-the-first-bell": 2, "cinder-hound": 1},
            "stranger": {"stranger-from-the-glass-sea": 3, "magic-stone-of-fire": 1},
        }
    ),
}
BREAK_EVERY_RULE = {
    ("card-of-gods", "standard"): [
        {"leader": None, "cards": rows({"despair": 4})},
        {"leader": "gottfried", "cards": rows({"plant-a-seed": 1})},  # green and Keld
    ],
    ("force-of-will", "casual"): [FOW_BREAKS_EVERY_RULE],
    ("force-of-will", "constructed"): [FOW_BREAKS_EVERY_RULE, FOW_BREAKS_THE_CONSTRUCTED_RULES],
    ("force-of-will", "wanderer-sample"): [FOW_BREAKS_EVERY_RULE, FOW_BREAKS_THE_CONSTRUCTED_RULES],
    ("berserk-heroes", "standard"): [
        {"leader": None, "cards": rows({"village-militia": 6})},
        {"leader": BERSERK_HERO, "cards": rows({"marsh-lurker": 1})},
    ],
    ("of-gods-and-men", "standard"): [{"cards": rows({"iron-peaks": 4})}],
    ("irdya", "standard"): [
        {"leader": None, "cards": rows({"hired-sellsword": 4})},
        {"leader": IRDYA_HERO, "cards": rows({"hammerhold-guardsman": 1})},
    ],
}


def test_every_format_of_every_game_is_covered_below():
    assert set(BREAK_EVERY_RULE) == set(Format.objects.values_list("game__slug", "slug"))
    assert set(BREAK_EVERY_RULE) == set(FORMAT_PAIRS)


@pytest.mark.parametrize(
    ("game_slug", "fmt"), list(BREAK_EVERY_RULE), ids=[f"{g}/{f}" for g, f in BREAK_EVERY_RULE]
)
def test_every_code_of_every_format_has_a_rule_url_that_resolves(
    api, client, request, game_slug, fmt
):
    if game_slug == "card-of-gods":
        request.getfixturevalue("sample_rules")  # the other games' rules are in the world
    rules_of_format = Format.objects.get(game__slug=game_slug, slug=fmt).rules
    urls = catalogue.rule_urls(game_slug)
    for rule in rules_of_format:
        assert rule.get("section") in urls, rule  # every rule names a section that exists

    problems = []
    for body in BREAK_EVERY_RULE[(game_slug, fmt)]:
        response = api.post(validate_url(game_slug), {**body, "format": fmt}, format="json")
        assert response.status_code == 200, response.content
        problems += response.json()["problems"]

    assert {p["code"] for p in problems} == {legality.CODES[r["rule"]] for r in rules_of_format}
    assert {p["rule_url"] for p in problems} == {
        f"http://testserver{urls[r['section']]}" for r in rules_of_format
    }
    for url in {p["rule_url"] for p in problems}:
        assert_resolves(client, url)


# --- decks with a format and sections ---------------------------------------------------------


def fow_deck_body(**overrides) -> dict:
    body = {
        "game": "force-of-will",
        "format": "constructed",
        "leader": FOW_RULER,
        "name": "Dawn bells",
        "cards": sectioned(FOW_LEGAL),
    }
    return body | overrides


def create(user, body) -> dict:
    response = api_client(user).post(DECKS, body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_create_a_force_of_will_deck_with_main_stones_and_side(alice):
    deck = create(alice, fow_deck_body())
    assert (deck["game"], deck["format"], deck["leader"]) == (
        "force-of-will",
        "constructed",
        FOW_RULER,
    )
    assert (deck["legal"], deck["problems"], deck["card_count"]) == (True, [], 54)
    assert contents(deck) == as_contents(FOW_LEGAL)
    stored = Deck.objects.get(share_id=deck["id"])
    assert stored.format.slug == "constructed"
    assert set(
        DeckCard.objects.filter(deck=stored).values_list("card__slug", "section", "count")
    ) == (as_contents(FOW_LEGAL))
    again = api_client(alice).get(f"{DECKS}{deck['id']}/").json()
    assert again["cards"] == deck["cards"]
    # entries come in the format's section order
    assert [row["section"] for row in again["cards"]] == sorted(
        (row["section"] for row in again["cards"]), key=["main", "stones", "side"].index
    )


def test_a_created_deck_without_a_format_gets_the_games_default(alice):
    body = fow_deck_body()
    del body["format"]
    deck = create(alice, body)
    assert deck["format"] == "casual" and deck["legal"] is True
    assert contents(deck) == as_contents(FOW_LEGAL)


def test_a_deck_is_judged_in_its_format(alice):
    no_side = fow_deck_body(cards=sectioned({"main": FOW_MAIN_40, "stones": FOW_STONES_10}))
    constructed = create(alice, no_side)
    assert found(constructed["problems"]) == [("deck_size", "side", None)]
    casual = create(alice, {**no_side, "format": "casual"})
    assert casual["legal"] is True


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"format": "nope"}, "format"),
        ({"format": "standard"}, "format"),  # a format of other games
        ({"cards": rows({"lantern-acolyte": 1}, "graveyard")}, "cards"),
        (
            {
                "cards": [
                    {"card": "undertow", "count": 1, "section": "side"},
                    {"card": "undertow", "count": 1, "section": "side"},
                ]
            },
            "cards",
        ),
    ],
    ids=["unknown-format", "other-games-format", "unknown-section", "twice-in-a-section"],
)
def test_create_with_a_bad_format_or_section_is_400_and_writes_nothing(alice, overrides, field):
    before = Deck.objects.count()
    response = api_client(alice).post(DECKS, fow_deck_body(**overrides), format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert Deck.objects.count() == before


def test_an_of_gods_and_men_deck_has_no_leader(alice):
    body = {
        "game": "of-gods-and-men",
        "name": "Sunfather's host",
        "visibility": "public",
        "cards": rows(OGAM_LEGAL),
    }
    deck = create(alice, body)
    assert (deck["leader"], deck["format"], deck["legal"]) == (None, "standard", True)
    assert (deck["visibility"], deck["card_count"]) == ("public", 40)
    assert {row["section"] for row in deck["cards"]} == {"main"}

    before = Deck.objects.count()
    response = api_client(alice).post(DECKS, {**body, "leader": "gottfried"}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["leader"]
    assert Deck.objects.count() == before


def test_patch_to_another_format_with_the_same_sections_keeps_every_card(alice):
    deck = create(alice, fow_deck_body())
    url = f"{DECKS}{deck['id']}/"
    response = api_client(alice).patch(url, {"format": "casual"}, format="json")
    assert response.status_code == 200, response.content
    patched = response.json()
    assert patched["format"] == "casual"
    assert contents(patched) == as_contents(FOW_LEGAL)
    assert (patched["legal"], patched["card_count"]) == (True, 54)


@pytest.fixture
def main_only(db):
    """A one-section format of Force of Will, for this test only."""
    fow = Game.objects.get(slug="force-of-will")
    return card_services.save_format(
        game=fow,
        data={
            "slug": "main-only",
            "name": "Main only",
            "sections": [{"slug": "main", "name": "Main deck"}],
            "rules": [{"rule": "deck_size", "deck": "main", "min": 40}],
        },
    )


def test_patch_to_a_format_without_those_sections_moves_every_card_to_its_first(alice, main_only):
    deck = create(alice, fow_deck_body())
    url = f"{DECKS}{deck['id']}/"
    response = api_client(alice).patch(url, {"format": "main-only"}, format="json")
    assert response.status_code == 200, response.content
    patched = response.json()
    assert patched["format"] == "main-only"
    totals: dict[str, int] = {}
    for section in FOW_LEGAL.values():
        for card, n in section.items():
            totals[card] = totals.get(card, 0) + n
    assert contents(patched) == {(card, "main", n) for card, n in totals.items()}
    assert patched["card_count"] == 54 and patched["legal"] is True


def test_patch_with_a_section_the_format_lacks_is_400_and_writes_nothing(alice, main_only):
    deck = create(alice, fow_deck_body())
    url = f"{DECKS}{deck['id']}/"
    before = set(
        DeckCard.objects.filter(deck__share_id=deck["id"]).values_list(
            "card_id", "section", "count"
        )
    )
    body = {"format": "main-only", "cards": rows({"undertow": 1}, "side")}
    response = api_client(alice).patch(url, body, format="json")
    assert response.status_code == 400 and "cards" in response.json()
    stored = Deck.objects.get(share_id=deck["id"])
    assert stored.format.slug == "constructed"
    assert set(stored.entries.values_list("card_id", "section", "count")) == before


def test_patch_cards_with_sections_of_the_decks_format(alice):
    deck = create(alice, fow_deck_body(cards=[]))
    url = f"{DECKS}{deck['id']}/"
    response = api_client(alice).patch(url, {"cards": sectioned(FOW_LEGAL)}, format="json")
    assert response.status_code == 200, response.content
    assert contents(response.json()) == as_contents(FOW_LEGAL)
    assert response.json()["legal"] is True


@pytest.fixture
def public_decks(alice, bob):
    casual = {"main": FOW_MAIN_40, "stones": FOW_STONES_10}
    return {
        "constructed": create(alice, fow_deck_body(visibility="public")),
        "casual": create(
            bob, fow_deck_body(format="casual", visibility="public", cards=sectioned(casual))
        ),
        "unlisted-constructed": create(alice, fow_deck_body(visibility="unlisted")),
        "ogam": create(
            bob,
            {
                "game": "of-gods-and-men",
                "name": "Host",
                "visibility": "public",
                "cards": rows(OGAM_LEGAL),
            },
        ),
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"in_format": "constructed"}, {"constructed"}),
        ({"in_format": "casual"}, {"casual"}),
        ({"game": "force-of-will"}, {"constructed", "casual"}),
        ({"game": "force-of-will", "in_format": "casual"}, {"casual"}),
        ({"game": "of-gods-and-men", "in_format": "standard"}, {"ogam"}),
        ({"game": "of-gods-and-men", "in_format": "casual"}, set()),
        ({"in_format": "nope"}, set()),
    ],
    ids=lambda value: repr(sorted(value)) if isinstance(value, set) else repr(value),
)
def test_public_list_filters_by_format(api, public_decks, params, expected):
    """`in_format`, not `format`: DRF reads ?format= as the response format."""
    response = api.get(DECKS + "public/", params)
    assert response.status_code == 200, response.content
    by_id = {deck["id"]: name for name, deck in public_decks.items()}
    assert {by_id.get(d["id"], d["id"]) for d in response.json()["results"]} == expected


# --- text export and import with section headers -----------------------------------------------


def card_names(game: str) -> dict[str, str]:
    return dict(Card.objects.filter(game__slug=game).values_list("slug", "name"))


def text_lines(counts: dict[str, int], names: dict[str, str]) -> set[str]:
    return {f"{n} {names[slug]}" for slug, n in counts.items()}


def export(client, deck_id: str) -> str:
    response = client.get(f"{DECKS}{deck_id}/export/", {"format": "text"})
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def test_export_of_a_force_of_will_deck_has_the_ruler_main_then_section_headers(alice, api):
    deck = create(alice, fow_deck_body(visibility="unlisted"))
    header, *lines = export(api, deck["id"]).splitlines()
    names = card_names("force-of-will")

    assert header == (
        "# Force of Will — Constructed (CR 12.7) (game: force-of-will; format: constructed)"
    )
    assert lines[0] == FOW_RULER_NAME
    assert lines.count("Magic stone deck:") == 1 and lines.count("Side deck:") == 1
    stones_at, side_at = lines.index("Magic stone deck:"), lines.index("Side deck:")
    assert 1 < stones_at < side_at
    assert set(lines[1:stones_at]) == text_lines(FOW_MAIN_40, names)
    assert len(lines[1:stones_at]) == len(FOW_MAIN_40)
    assert set(lines[stones_at + 1 : side_at]) == text_lines(FOW_STONES_10, names)
    assert set(lines[side_at + 1 :]) == text_lines(FOW_SIDE, names)
    assert len(lines) == 1 + len(FOW_MAIN_40) + 1 + len(FOW_STONES_10) + 1 + len(FOW_SIDE)


def import_text(user, text: str, **fields):
    body = {"game": "force-of-will", "text": text, **fields}
    return api_client(user).post(DECKS + "import/", body, format="json")


def test_export_then_import_round_trips_every_section(alice, bob):
    deck = create(alice, fow_deck_body(visibility="public"))
    text = export(api_client(bob), deck["id"])
    response = import_text(bob, text, format="constructed", name="Bells again")
    assert response.status_code == 201, response.content
    imported = response.json()
    assert (imported["owner"], imported["name"], imported["format"]) == (
        "bob",
        "Bells again",
        "constructed",
    )
    assert imported["leader"] == FOW_RULER
    assert contents(imported) == contents(deck) == as_contents(FOW_LEGAL)
    assert imported["legal"] is True
    assert export(api_client(bob), imported["id"]) == text


def test_import_without_a_format_uses_the_headers_else_the_games_default(alice):
    deck = create(alice, fow_deck_body())  # Constructed
    text = export(api_client(alice), deck["id"])
    response = import_text(alice, text)
    assert response.status_code == 201, response.content
    assert response.json()["format"] == "constructed"  # the header's
    without_header = text.split("\n", 1)[1]
    response = import_text(alice, without_header)
    assert response.status_code == 201, response.content
    assert response.json()["format"] == "casual"
    assert contents(response.json()) == as_contents(FOW_LEGAL)


@pytest.mark.parametrize(
    ("stones", "side"),
    [
        ("Magic stone deck:", "Side deck:"),
        ("stones:", "side:"),
        ("MAGIC STONE DECK:", "SIDE DECK:"),
        ("Stones:", "sIdE dEcK:"),
    ],
)
def test_import_reads_section_headers_by_name_or_slug_in_any_case(alice, stones, side):
    names = card_names("force-of-will")
    text = "\n".join(
        [
            FOW_RULER_NAME,
            *sorted(text_lines(FOW_MAIN_40, names)),
            stones,
            *sorted(text_lines(FOW_STONES_10, names)),
            side,
            *sorted(text_lines(FOW_SIDE, names)),
        ]
    )
    response = import_text(alice, text, format="constructed")
    assert response.status_code == 201, response.content
    assert contents(response.json()) == as_contents(FOW_LEGAL)
    assert response.json()["legal"] is True


def test_import_names_each_bad_line_by_number_and_writes_nothing(alice):
    text = "\n".join(
        [
            FOW_RULER_NAME,  # 1
            "4 Lantern Acolyte",  # 2 fine
            "2 No Such Card",  # 3 unknown card
            "Graveyard:",  # 4 unknown section header
            "0 Cinder Hound",  # 5 bad count
            "Magic stone deck:",  # 6 fine
            "100 Magic Stone of Light",  # 7 bad count
            "8 Magic Stone of Light",  # 8 fine
            "Side deck:",  # 9 fine
            "2 Undertow",  # 10 fine
        ]
    )
    before = Deck.objects.count()
    response = import_text(alice, text, format="constructed")
    assert response.status_code == 400, response.content
    errors = response.json()["text"]
    assert sorted(int(e.split(":")[0].removeprefix("line ")) for e in errors) == [3, 4, 5, 7]
    [header] = [e for e in errors if e.startswith("line 4:")]
    assert "Graveyard" in header
    assert Deck.objects.count() == before


def test_import_with_an_unknown_format_is_400(alice):
    response = import_text(alice, f"{FOW_RULER_NAME}\n4 Lantern Acolyte\n", format="nope")
    assert response.status_code == 400 and "format" in response.json()


def test_an_of_gods_and_men_export_has_no_leader_line_and_imports_back(alice, bob):
    deck = create(
        alice,
        {
            "game": "of-gods-and-men",
            "name": "Host",
            "visibility": "unlisted",
            "cards": rows(OGAM_LEGAL),
        },
    )
    text = export(api_client(bob), deck["id"])
    header, *lines = text.splitlines()
    assert header == "# Of Gods and Men — Standard (game: of-gods-and-men; format: standard)"
    assert set(lines) == text_lines(OGAM_LEGAL, card_names("of-gods-and-men"))
    assert len(lines) == len(OGAM_LEGAL)

    response = api_client(bob).post(
        DECKS + "import/", {"game": "of-gods-and-men", "text": text}, format="json"
    )
    assert response.status_code == 201, response.content
    imported = response.json()
    assert (imported["leader"], imported["format"], imported["legal"]) == (None, "standard", True)
    assert contents(imported) == contents(deck)


# --- permissions of a sectioned deck ---------------------------------------------------------

SECTIONED_MATRIX = [
    ("anonymous", Visibility.PRIVATE, "read", 404),
    ("anonymous", Visibility.UNLISTED, "read", 200),
    ("anonymous", Visibility.UNLISTED, "export", 200),
    ("anonymous", Visibility.PUBLIC, "update", 401),
    ("anonymous", Visibility.PUBLIC, "copy", 401),
    ("bob", Visibility.PRIVATE, "read", 404),
    ("bob", Visibility.PRIVATE, "export", 404),
    ("bob", Visibility.PRIVATE, "update", 404),
    ("bob", Visibility.PUBLIC, "update", 403),
    ("bob", Visibility.UNLISTED, "delete", 403),
    ("bob", Visibility.PRIVATE, "copy", 404),
    ("bob", Visibility.PUBLIC, "copy", 201),
    ("staff", Visibility.PUBLIC, "update", 403),
    ("owner", Visibility.PRIVATE, "update", 200),
    ("owner", Visibility.PRIVATE, "delete", 204),
    ("owner", Visibility.PRIVATE, "copy", 201),
]


def perform(client, action, deck_id):
    url = f"{DECKS}{deck_id}/"
    if action == "read":
        return client.get(url)
    if action == "export":
        return client.get(url + "export/", {"format": "text"})
    if action == "update":
        return client.patch(url, {"format": "casual", "name": "Taken over"}, format="json")
    if action == "delete":
        return client.delete(url)
    return client.post(url + "copy/")


def snapshot(deck_id):
    deck = Deck.objects.filter(share_id=deck_id).values().first()
    deck.pop("copies")  # a copy made by another player counts on the original, by design
    entries = sorted(
        DeckCard.objects.filter(deck__share_id=deck_id).values_list(
            "card__slug", "section", "count"
        )
    )
    return deck, entries


@pytest.mark.parametrize(
    ("caller", "visibility", "action", "status"),
    SECTIONED_MATRIX,
    ids=["-".join(map(str, m)) for m in SECTIONED_MATRIX],
)
def test_permissions_of_a_sectioned_deck(alice, bob, staff, caller, visibility, action, status):
    deck = create(alice, fow_deck_body(visibility=visibility))
    user = {"anonymous": None, "owner": alice, "bob": bob, "staff": staff}[caller]
    before, count = snapshot(deck["id"]), Deck.objects.count()

    response = perform(api_client(user), action, deck["id"])

    assert response.status_code == status, response.content
    if status >= 400 or action in ("read", "export"):
        assert snapshot(deck["id"]) == before and Deck.objects.count() == count
    if action == "read" and status == 200:
        assert contents(response.json()) == as_contents(FOW_LEGAL)
    if action == "export" and status == 200:
        assert "Magic stone deck:" in response.content.decode().splitlines()
    if action == "update" and status == 200:
        assert response.json()["format"] == "casual"
        assert contents(response.json()) == as_contents(FOW_LEGAL)
    if action == "delete" and status == 204:
        assert not Deck.objects.filter(share_id=deck["id"]).exists()
    if action == "copy" and status == 201:
        copied = response.json()
        assert copied["owner"] == user.username and copied["visibility"] == "private"
        assert (copied["format"], copied["leader"]) == ("constructed", FOW_RULER)
        assert contents(copied) == as_contents(FOW_LEGAL) and copied["legal"] is True
        assert snapshot(deck["id"]) == before
