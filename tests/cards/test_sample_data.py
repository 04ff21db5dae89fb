"""The sample pool of Card of Gods (cards/sample/card-of-gods.json) as plain data.

No database: the file is read as JSON and checked against the deck-construction rules of
/work/shared/spec/card-of-gods.md, so that the pool the site ships with is varied and usable.
"""

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from django.utils.text import slugify

SAMPLE = Path(__file__).resolve().parents[2] / "cards" / "sample" / "card-of-gods.json"

COPY_LIMIT = {"common": 3, "uncommon": 2, "rare": 1}
DECK_SIZE = 10
CARD_FIELDS = {
    "slug",
    "name",
    "rarity",
    "cost",
    "keywords",
    "condition",
    "text",
    "flavour",
    "effect_source",
    "makes_attack",
}
LEADER_FIELDS = {"slug", "name", "colours", "keywords", "text"}
GLOSSARY_TERMS = ["Faith", "Devotion", "Discard", "Waiting Activation", "immunity"]


def _load():
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


DATA = _load()
GAME = DATA["game"]
LEADERS = DATA["leaders"]
CARDS = DATA["cards"]
COLOUR_OF_DOMAIN = {c["domain"]: c["slug"] for c in GAME["colours"]}
COLOURS = set(COLOUR_OF_DOMAIN.values())
RARITIES = [r["slug"] for r in GAME["rarities"]]
FACTIONS = {f.casefold(): f for f in GAME["factions"]}


# --- helpers: the colour and faction rules, restated for plain dicts -------------------------


def colours(card) -> set[str]:
    return {COLOUR_OF_DOMAIN[domain] for domain in card["cost"]}


def factions(record) -> set[str]:
    return {FACTIONS[k.casefold()] for k in record["keywords"] if k.casefold() in FACTIONS}


def usable(leader, card) -> bool:
    return colours(card) <= set(leader["colours"]) and factions(card) <= factions(leader)


def by_slug(records, slug):
    matches = [r for r in records if r["slug"] == slug]
    assert matches, f"{slug!r} is missing from the sample pool"
    return matches[0]


def deck_capacity(leader) -> int:
    """How many cards, copies included, this leader may put in a deck at most."""
    return sum(COPY_LIMIT[c["rarity"]] for c in CARDS if usable(leader, c))


def can_build_legal_deck(leader, required_slug) -> bool:
    required = by_slug(CARDS, required_slug)
    return usable(leader, required) and deck_capacity(leader) >= DECK_SIZE


# --- the helpers themselves must be able to say no ------------------------------------------


def test_helpers_reject_a_colour_or_faction_the_leader_lacks():
    leader = {"colours": ["yellow"], "keywords": ["Engeln"]}
    assert usable(leader, {"cost": {}, "keywords": []})
    assert usable(leader, {"cost": {"creation": 2}, "keywords": ["Engeln"]})
    assert not usable(leader, {"cost": {"creation": 1, "death": 1}, "keywords": []})
    assert not usable(leader, {"cost": {"creation": 1}, "keywords": ["Keld"]})
    assert not usable(leader, {"cost": {"creation": 1}, "keywords": ["Engeln", "Castilla"]})


def test_richard_cannot_use_plant_a_seed():
    assert not can_build_legal_deck(by_slug(LEADERS, "richard"), "plant-a-seed")


# --- shape -----------------------------------------------------------------------------------


def test_pool_is_big_enough():
    assert len(LEADERS) >= 10
    assert len(CARDS) >= 60


def test_records_have_the_write_fields():
    for leader in LEADERS:
        assert set(leader) == LEADER_FIELDS, leader["name"]
        assert leader["colours"], f"{leader['name']} matches no colour"
        assert set(leader["colours"]) <= COLOURS, leader["name"]
    for card in CARDS:
        assert set(card) == CARD_FIELDS, card["name"]
        assert card["rarity"] in RARITIES, card["name"]
        assert isinstance(card["makes_attack"], bool), card["name"]
        assert card["text"].strip(), f"{card['name']} has no effect text"
        assert card["condition"].strip(), f"{card['name']} has no condition for playing"
        assert card["flavour"].strip(), f"{card['name']} has no flavour text"


@pytest.mark.parametrize("kind", ["leaders", "cards"])
def test_slugs_and_names_are_unique(kind):
    records = DATA[kind]
    slugs = Counter(r["slug"] for r in records)
    names = Counter(r["name"].casefold() for r in records)
    assert [s for s, n in slugs.items() if n > 1] == []
    assert [s for s, n in names.items() if n > 1] == []


@pytest.mark.parametrize("kind", ["leaders", "cards"])
def test_slugs_are_slugified_names(kind):
    wrong = [(r["name"], r["slug"]) for r in DATA[kind] if r["slug"] != slugify(r["name"])]
    assert wrong == []


def test_costs_use_only_known_domains_with_whole_amounts():
    for card in CARDS:
        assert isinstance(card["cost"], dict), card["name"]
        for domain, amount in card["cost"].items():
            assert domain in COLOUR_OF_DOMAIN, f"{card['name']}: unknown domain {domain!r}"
            assert type(amount) is int and amount >= 1, f"{card['name']}: bad amount {amount!r}"


def test_total_costs_are_between_zero_and_four():
    totals = {c["name"]: sum(c["cost"].values()) for c in CARDS}
    assert {name: t for name, t in totals.items() if not 0 <= t <= 4} == {}


def test_faction_keywords_are_spelled_as_the_game_spells_them():
    # "Brumgar’s Horde" (curly apostrophe) would become a second, non-faction keyword.
    spelling = {slugify(f): f for f in GAME["factions"]}
    for record in LEADERS + CARDS:
        for keyword in record["keywords"]:
            if slugify(keyword) in spelling:
                assert keyword == spelling[slugify(keyword)], record["name"]


def test_texts_are_english():
    cyrillic = re.compile("[\u0400-\u04ff]")
    for record in LEADERS + CARDS:
        for field in ("name", "text", "condition", "flavour"):
            assert not cyrillic.search(record.get(field, "")), f"{record['name']}: {field}"


# --- variety ---------------------------------------------------------------------------------


def test_every_colour_has_a_card():
    present = set().union(*(colours(c) for c in CARDS))
    assert present == COLOURS


def test_pool_has_colourless_two_and_three_colour_cards():
    counts = Counter(len(colours(c)) for c in CARDS)
    assert counts[0] >= 1
    assert counts[2] >= 1
    assert counts[3] >= 1


def test_every_faction_has_a_card():
    present = set().union(*(factions(c) for c in CARDS))
    assert present == set(GAME["factions"])


def test_every_faction_has_a_leader():
    present = set().union(*(factions(leader) for leader in LEADERS))
    assert present == set(GAME["factions"])


def test_rarities_are_balanced():
    counts = Counter(c["rarity"] for c in CARDS)
    share = {r: counts[r] / len(CARDS) for r in RARITIES}
    assert 0.35 <= share["common"] <= 0.55, share
    assert 0.25 <= share["uncommon"] <= 0.45, share
    assert 0.10 <= share["rare"] <= 0.30, share


def test_attack_flag_matches_the_text():
    for card in CARDS:
        says_attack = "make an attack" in card["text"].casefold()
        assert card["makes_attack"] == says_attack, card["name"]
    assert any(c["makes_attack"] for c in CARDS)


@pytest.mark.parametrize("term", GLOSSARY_TERMS)
def test_card_texts_use_glossary_terms(term):
    assert any(term.casefold() in c["text"].casefold() for c in CARDS), term


def test_named_rule_cards_are_present():
    plant = by_slug(CARDS, "plant-a-seed")
    assert plant["name"] == "Plant A Seed"
    assert colours(plant) == {"green"} and "Keld" in plant["keywords"]

    healing = by_slug(CARDS, "healing")
    assert colours(healing) == {"green"} and healing["rarity"] == "uncommon"

    despair = by_slug(CARDS, "despair")
    assert colours(despair) == {"black"} and despair["makes_attack"]

    lightning = by_slug(CARDS, "lightning")
    assert colours(lightning) == {"red"} and lightning["makes_attack"]
    assert lightning["condition"].casefold().startswith("beginning of enemy activation")

    for slug in ("fiery-earth", "punishment"):
        card = by_slug(CARDS, slug)
        assert "until the end of activation" in card["text"].casefold(), slug
        assert "each time" in card["text"].casefold(), f"{slug} names no trigger"


def test_leaders_from_the_rules_match_as_described():
    assert set(by_slug(LEADERS, "richard")["colours"]) == {"yellow"}
    assert set(by_slug(LEADERS, "gottfried")["colours"]) == {"black", "yellow", "red"}
    kellantra = by_slug(LEADERS, "kellantra")
    assert "Keld" in kellantra["keywords"] and "green" in kellantra["colours"]


# --- usability -------------------------------------------------------------------------------


def test_every_card_is_usable_by_some_leader():
    orphans = [c["name"] for c in CARDS if not any(usable(leader, c) for leader in LEADERS)]
    assert orphans == []


def test_every_faction_card_is_usable_by_a_leader_of_its_faction():
    for card in CARDS:
        for faction in factions(card):
            assert any(
                usable(leader, card) and faction in factions(leader) for leader in LEADERS
            ), f"{card['name']} ({faction})"


def test_kellantra_can_build_a_legal_deck_with_plant_a_seed():
    assert can_build_legal_deck(by_slug(LEADERS, "kellantra"), "plant-a-seed")


@pytest.mark.parametrize("leader", ["richard", "gottfried"])
def test_named_leaders_can_build_a_legal_deck(leader):
    assert deck_capacity(by_slug(LEADERS, leader)) >= DECK_SIZE
