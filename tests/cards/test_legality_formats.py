"""The engine on every rule kind of formats.md, with deck sections, and every example of its
"Examples (a reader's check)" on the sample games' real formats.

Pure: no database. Formats are read from cards/sample/*.json; cards and leaders are built as
CardInfo / LeaderInfo by hand.
"""

import json
from collections import Counter
from pathlib import Path

import pytest

from cards import legality
from cards.legality import CardInfo, LeaderInfo

SAMPLES = Path(__file__).resolve().parents[2] / "cards" / "sample"
GAMES = ("card-of-gods", "force-of-will", "berserk-heroes", "of-gods-and-men", "irdya")


def definition(game: str) -> dict:
    return json.loads((SAMPLES / f"{game}.json").read_text())["game"]


def versions(fmt: dict) -> list[dict]:
    """A format's versions as the definition gives them (none given: the format is its one)."""
    return [{**fmt, **v} for v in fmt.get("versions", [fmt])]


def sample_format(game: str, slug: str = "") -> legality.Format:
    """A sample game's format (default: its default) as the site builds it, in the game's words:
    its first version (a later one adds a sample ban)."""
    data = definition(game)
    fmt = next(f for f in data["formats"] if f["slug"] == slug or not slug and f["default"])
    return legality.Format.from_data(
        versions(fmt)[0],
        type_names={t["slug"]: t["name"] for t in data["card_types"]},
        leader_label=data["leader_label"],
        colour_label=data["colour_label"],
    )


CASUAL = sample_format("force-of-will", "casual")
CONSTRUCTED = sample_format("force-of-will", "constructed")
BERSERK = sample_format("berserk-heroes")
OGAM = sample_format("of-gods-and-men")
IRDYA = sample_format("irdya")
COG = sample_format("card-of-gods")

FOW_SECTIONS = [
    {"slug": "main", "name": "Main deck"},
    {"slug": "stones", "name": "Magic stone deck"},
    {"slug": "side", "name": "Side deck"},
]
ONE_SECTION = [{"slug": "main", "name": "Deck"}]


def fmt_of(rules, sections=FOW_SECTIONS, banlist=None, **kwargs) -> legality.Format:
    data = {"sections": sections, "rules": rules, "banlist": banlist or {}}
    return legality.Format.from_data(data, **kwargs)


def one_section(rules, banlist=None, **kwargs) -> legality.Format:
    return fmt_of(rules, ONE_SECTION, banlist, **kwargs)


def card(name, type="", keywords=(), colours=(), factions=(), rarity="", loyalty=None, slug=""):
    return CardInfo(
        slug=slug or name.lower().replace(" ", "-"),
        name=name,
        rarity=rarity,
        colours=frozenset(colours),
        factions=frozenset(factions),
        type=type,
        keywords=frozenset(keywords) | frozenset(factions),
        loyalty=loyalty,
    )


def triples(report):
    return [(p.code, p.card, p.section) for p in report.problems]


def codes(report):
    return [p.code for p in report.problems]


RULER = LeaderInfo("kaguya", "Kaguya")


# A Force of Will deck of 40 main (10 resonators x 4) and 10 stones (8 Basic + 2 non-basic).
def resonators(n=10, copies=4, prefix="Resonator"):
    return [(card(f"{prefix} {i}", "resonator"), copies, "main") for i in range(n)]


BASIC_STONE = card("Fire Magic Stone", "magic-stone", keywords={"Basic"})
NON_BASIC = card("Little Red Stone", "magic-stone")
OTHER_NON_BASIC = card("Moonlit Stone", "magic-stone")


def fow_deck(side=()):
    return [
        *resonators(),
        (BASIC_STONE, 8, "stones"),
        (NON_BASIC, 1, "stones"),
        (OTHER_NON_BASIC, 1, "stones"),
        *side,
    ]


# --- formats.md "Examples (a reader's check)", on the real sample formats ---------------------


def test_example_fow_40_main_10_stones_no_side_with_8_basic_stones_is_legal_in_casual():
    report = legality.check(CASUAL, RULER, fow_deck())
    assert report.problems == []
    assert report.legal and report.card_count == 50
    assert report.section_counts == {"main": 40, "stones": 10, "side": 0}


def test_example_fow_deck_without_side_deck_breaks_constructed_side_size_only():
    """Constructed is Casual with a side deck of 1 to 15 (CR 403.1a)."""
    report = legality.check(CONSTRUCTED, RULER, fow_deck())
    assert triples(report) == [("deck_size", None, "side")]
    assert report.problems[0].ref == "9.5.2"
    side = [(card("Spare Resonator", "resonator"), 1, "side")]
    assert legality.check(CONSTRUCTED, RULER, fow_deck(side)).legal


@pytest.fixture(params=["casual", "constructed"])
def fow(request):
    """A Force of Will format, and a side deck that is legal in it."""
    side = [] if request.param == "casual" else [(card("Spare Resonator", "resonator"), 1, "side")]
    return sample_format("force-of-will", request.param), side


def test_example_fow_five_copies_of_a_non_basic_stone_is_copy_limit_in_stones(fow):
    fmt, side = fow
    deck = [*resonators(), (BASIC_STONE, 5, "stones"), (NON_BASIC, 5, "stones"), *side]
    report = legality.check(fmt, RULER, deck)
    assert triples(report) == [("copy_limit", NON_BASIC.slug, "stones")]
    assert report.problems[0].ref == "9.9"
    assert report.problems[0].message == (
        "Little Red Stone: at most 4 copies in the Magic stone deck and the Side deck, deck has 5"
    )


def test_example_fow_3_in_main_and_2_in_side_is_copy_limit_across_main_and_side(fow):
    fmt, _ = fow
    twice = card("Alice, Girl in Wonderland", "resonator")
    deck = [*resonators(9, 4), (twice, 3, "main"), (card("One", "chant"), 1, "main")]
    deck += [(BASIC_STONE, 10, "stones"), (twice, 2, "side")]
    report = legality.check(fmt, RULER, deck)
    assert {s: report.section_counts[s] for s in ("main", "stones", "side")} == {
        "main": 40,
        "stones": 10,
        "side": 2,
    }
    # the copies lie in two sections: the problem names none
    assert triples(report) == [("copy_limit", twice.slug, None)]
    # Constructed counts the extra deck and the rune deck too (CR 404.1): its own section
    constructed = fmt.slug == "constructed"
    assert report.problems[0].ref == ("9.8.1" if constructed else "9.8")
    where = (
        "the Main deck, the Side deck, the Extra deck and the Rune deck"
        if constructed
        else "the Main deck and the Side deck"
    )
    assert f"at most 4 copies in {where}, deck has 5" in report.problems[0].message


def test_example_fow_magic_stone_in_main_is_wrong_section(fow):
    fmt, side = fow
    deck = [*resonators(9, 4), *resonators(1, 3, "Last"), (NON_BASIC, 1, "main")]
    deck += [(BASIC_STONE, 10, "stones"), *side]
    report = legality.check(fmt, RULER, deck)
    assert triples(report) == [("wrong_section", NON_BASIC.slug, "main")]
    assert report.problems[0].ref == "9.6"
    assert report.problems[0].message == (
        "Little Red Stone (Magic stone) cannot go in the Main deck, which takes: Resonator, Chant,"
        " Addition, Regalia."
    )


def test_example_fow_39_main_is_deck_size_of_main(fow):
    fmt, side = fow
    deck = [*resonators(9, 4), *resonators(1, 3, "Last"), (BASIC_STONE, 10, "stones"), *side]
    report = legality.check(fmt, RULER, deck)
    assert triples(report) == [("deck_size", None, "main")]
    assert report.problems[0].as_dict()["section"] == "main"
    assert report.problems[0].message == "The Main deck needs 40 to 60 cards; it has 39."


FORESTS_HERO = LeaderInfo("ilvane", "Ilvane Thornwarden", frozenset({"forests"}))


def berserk_deck(*extra):
    """Forests and neutral cards, 3 of each, topped up to at least 40 with the extra cards."""
    forests = [(card(f"Forest {i}", "creature", colours={"forests"}), 3) for i in range(6)]
    neutral = [(card(f"Neutral {i}", "spell"), 3) for i in range(7)]
    return [*forests, *neutral, *extra]  # 39 + extra


def test_example_berserk_forests_hero_with_neutral_and_forests_cards_is_legal():
    report = legality.check(BERSERK, FORESTS_HERO, berserk_deck((card("Elf", "creature"), 1)))
    assert report.legal and report.card_count == 40


def test_example_berserk_swamps_card_is_colour_mismatch():
    swamp = card("Bog Lurker", "creature", colours={"swamps"})
    report = legality.check(BERSERK, FORESTS_HERO, berserk_deck((swamp, 1)))
    assert triples(report) == [("colour_mismatch", swamp.slug, "main")]
    assert report.problems[0].ref == "3.5"
    assert report.problems[0].message == (
        "Bog Lurker is swamps and shares no element with Ilvane Thornwarden (forests)"
    )


@pytest.mark.parametrize(("copies", "legal"), [(5, True), (6, False)])
def test_example_berserk_horde_card_may_have_five_copies(copies, legal):
    horde = card("Village Militia", "creature", keywords={"Human", "Horde"})
    report = legality.check(BERSERK, FORESTS_HERO, berserk_deck((horde, copies)))
    assert triples(report) == ([] if legal else [("copy_limit", horde.slug, "main")])
    if not legal:
        assert report.problems[0].message == (
            "Village Militia (Horde): at most 5 copies, deck has 6"
        )


def test_example_berserk_four_of_a_plain_card_is_copy_limit():
    plain = card("Wandering Sellsword", "creature")
    report = legality.check(BERSERK, FORESTS_HERO, berserk_deck((plain, 4)))
    assert triples(report) == [("copy_limit", plain.slug, "main")]
    assert report.problems[0].message == "Wandering Sellsword: at most 3 copies, deck has 4"


def ogam_deck(pantheons=0):
    units = [(card(f"Unit {i}", "unit"), 2) for i in range(20)]  # 40 cards
    return [*units, *[(card(f"God {i}", "pantheon"), 1) for i in range(pantheons)]]


def test_example_ogam_forty_cards_without_a_pantheon_is_required_card_missing_only():
    report = legality.check(OGAM, None, ogam_deck())
    assert triples(report) == [("required_card_missing", None, "main")]
    assert report.problems[0].ref == "11.2"
    assert report.problems[0].message == "The deck needs at least 1 Pantheon card; it has 0."


def test_example_ogam_needs_no_leader():
    report = legality.check(OGAM, None, ogam_deck(pantheons=1))
    assert report.legal and report.card_count == 41


LOYAL_TWO = LeaderInfo("hesra", "Hesra Vane", loyalty=frozenset({("Loyalists", 2)}))


def irdya_deck(*extra):
    return [*[(card(f"Sellsword {i}", "creature"), 3) for i in range(13)], *extra]  # 39 + extra


def test_example_irdya_loyalists_card_needing_two_is_legal_for_loyalty_two():
    needs_two = card("Spearman", "creature", factions={"Loyalists"}, loyalty=("Loyalists", 2))
    assert legality.check(IRDYA, LOYAL_TWO, irdya_deck((needs_two, 1))).legal
    assert legality.card_problems(IRDYA, LOYAL_TWO, needs_two) == []


def test_example_irdya_loyalists_card_needing_three_is_loyalty_too_low():
    needs_three = card("Royal Guard", "creature", factions={"Loyalists"}, loyalty=("Loyalists", 3))
    report = legality.check(IRDYA, LOYAL_TWO, irdya_deck((needs_three, 1)))
    assert triples(report) == [("loyalty_too_low", needs_three.slug, "main")]
    assert report.problems[0].ref == "5.5"
    assert (
        report.problems[0].message == "Royal Guard needs loyalty 3 to Loyalists; Hesra Vane has 2"
    )


def test_example_irdya_knalgans_card_needing_one_is_loyalty_too_low_with_zero_points():
    dwarf = card("Dwarvish Fighter", "creature", factions={"Knalgans"}, loyalty=("Knalgans", 1))
    report = legality.check(IRDYA, LOYAL_TWO, irdya_deck((dwarf, 1)))
    assert triples(report) == [("loyalty_too_low", dwarf.slug, "main")]
    assert "has none" in report.problems[0].message
    (alone,) = legality.card_problems(IRDYA, LOYAL_TWO, dwarf)
    assert (alone.code, alone.card, alone.section, alone.ref) == (
        "loyalty_too_low",
        dwarf.slug,
        None,
        "5.5",
    )


# --- every sample format is valid --------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_each_sample_format_validates_against_its_games_card_types(game):
    data = definition(game)
    types = [t["slug"] for t in data["card_types"]]
    assert data["formats"]
    for fmt in data["formats"]:
        for version in versions(fmt):
            assert legality.validate_format(version, card_types=types) == [], (game, fmt["slug"])
            # and its rule kinds all report known codes
            assert {r["rule"] for r in version["rules"]} <= set(legality.CODES)


def test_sample_formats_are_the_documented_defaults():
    assert [r["rule"] for r in CASUAL.rules] == [
        "leader_required",
        *["deck_size"] * 3,
        *["section_types"] * 2,
        *["copy_limit"] * 2,
    ]
    assert CASUAL.slugs == ["main", "stones", "side"]
    # Constructed: CR 12.7 402-404 in full, the extra, rune and stranger decks too (formats.md)
    assert CONSTRUCTED.slugs == ["main", "stones", "side", "extra", "runes", "stranger"]
    kinds = Counter(r["rule"] for r in CONSTRUCTED.rules)
    assert kinds == {
        "leader_required": 1,
        "deck_size": 6,
        "section_gate": 3,
        "section_types": 5,
        "copy_limit": 5,
        "type_limit": 1,
        "exclusive_keywords": 1,
    }
    casual_rules = [r for r in CASUAL.rules if r.get("deck") != "side"]
    assert all(r in CONSTRUCTED.rules for r in casual_rules if r["rule"] != "copy_limit")
    side = [r for r in CONSTRUCTED.rules if r["rule"] == "deck_size" and r["deck"] == "side"]
    assert [(r["min"], r["max"]) for r in side] == [(1, 15)]
    assert [r["rule"] for r in OGAM.rules] == ["deck_size", "copy_limit", "requires_type"]
    assert {"rule": "colour_identity", "mode": "shares", "section": "3.5"} in BERSERK.rules
    assert {"rule": "loyalty_gate", "section": "5.5"} in IRDYA.rules


# --- deck_size per section ---------------------------------------------------------------------


SIZES = [
    {"rule": "deck_size", "deck": "main", "min": 2, "max": 3},
    {"rule": "deck_size", "deck": "stones", "exactly": 1},
    {"rule": "deck_size", "deck": "side", "max": 1},
]


@pytest.mark.parametrize(
    ("main", "stones", "side", "wrong"),
    [
        (2, 1, 0, []),
        (3, 1, 1, []),
        (1, 1, 0, ["main"]),
        (4, 1, 0, ["main"]),
        (2, 0, 0, ["stones"]),
        (2, 2, 2, ["stones", "side"]),
        (0, 0, 5, ["main", "stones", "side"]),
    ],
)
def test_deck_size_counts_each_section_on_its_own(main, stones, side, wrong):
    deck = [(card("A"), main, "main"), (card("B"), stones, "stones"), (card("C"), side, "side")]
    report = legality.check(fmt_of(SIZES), None, deck)
    assert triples(report) == [("deck_size", None, s) for s in wrong]
    assert report.section_counts == {"main": main, "stones": stones, "side": side}
    assert report.card_count == main + stones + side


def test_deck_size_messages_name_the_section_in_a_multi_section_format():
    report = legality.check(fmt_of(SIZES), None, [(card("C"), 2, "side")])
    assert [p.message for p in report.problems] == [
        "The Main deck needs 2 to 3 cards; it has 0.",
        "The Magic stone deck needs exactly 1 card; it has 0.",
        "The Side deck needs at most 1 card; it has 2.",
    ]


def test_deck_size_message_says_the_deck_in_a_one_section_format():
    (problem,) = legality.check(BERSERK, FORESTS_HERO, []).problems
    assert problem.section == "main"
    assert problem.message == "The deck needs at least 40 cards; it has 0."


def test_deck_size_without_deck_looks_at_the_first_section():
    fmt = fmt_of([{"rule": "deck_size", "exactly": 2}])
    assert legality.check(fmt, None, [(card("A"), 2, "main"), (card("B"), 9, "side")]).legal
    report = legality.check(fmt, None, [(card("A"), 2, "side")])
    assert triples(report) == [("deck_size", None, "main")]


def test_entries_without_a_section_go_to_the_first_section():
    fmt = fmt_of(SIZES)
    deck = [(card("A"), 2), (card("B"), 1, None), (card("C"), 0), (card("D"), 1, "stones")]
    report = legality.check(fmt, None, deck)
    assert report.section_counts == {"main": 3, "stones": 1, "side": 0}
    assert report.legal  # main 2 to 3, stones exactly 1
    report = legality.check(fmt, None, [*deck, (card("E"), 1)])
    assert triples(report) == [("deck_size", None, "main")]


# --- copy_limit --------------------------------------------------------------------------------


BY_NAME = {"rule": "copy_limit", "by": "name", "default": 2}


def test_copy_limit_by_name_counts_case_insensitively_over_all_sections_by_default():
    first, reprint = card("Bolt", slug="bolt"), card("BOLT", slug="bolt-promo")
    fmt = fmt_of([BY_NAME])
    assert legality.check(fmt, None, [(first, 1, "main"), (reprint, 1, "side")]).legal
    report = legality.check(
        fmt, None, [(first, 1, "main"), (reprint, 1, "stones"), (first, 1, "side")]
    )
    assert triples(report) == [("copy_limit", "bolt", None)]
    assert report.problems[0].message == "Bolt: at most 2 copies, deck has 3"  # all sections


def test_copy_limit_by_rarity_with_default_for_other_rarities():
    rule = {"rule": "copy_limit", "by": "rarity", "limits": {"rare": 1}, "default": 3}
    fmt = one_section([rule])
    rare, common = card("Star", rarity="rare"), card("Dust", rarity="common")
    assert legality.check(fmt, None, [(rare, 1), (common, 3)]).legal
    report = legality.check(fmt, None, [(rare, 2), (common, 4)])
    assert triples(report) == [("copy_limit", "star", "main"), ("copy_limit", "dust", "main")]
    assert report.problems[0].message == "Star is rare: at most 1 copy, deck has 2"


def test_copy_limit_across_counts_only_the_named_sections():
    fmt = fmt_of([{**BY_NAME, "across": ["main", "side"]}])
    bolt = card("Bolt")
    # 5 in stones are not counted by this rule; 2 in main + side are fine
    assert legality.check(
        fmt, None, [(bolt, 5, "stones"), (bolt, 1, "main"), (bolt, 1, "side")]
    ).legal
    report = legality.check(fmt, None, [(bolt, 9, "stones"), (bolt, 2, "main"), (bolt, 1, "side")])
    assert triples(report) == [("copy_limit", "bolt", None)]
    assert report.problems[0].message == (
        "Bolt: at most 2 copies in the Main deck and the Side deck, deck has 3"
    )


def test_copy_limit_problem_names_the_one_section_holding_all_copies_counted():
    fmt = fmt_of([{**BY_NAME, "across": ["main", "side"]}])
    bolt = card("Bolt")
    report = legality.check(fmt, None, [(bolt, 3, "side"), (bolt, 7, "stones")])
    assert triples(report) == [("copy_limit", "bolt", "side")]  # stones are not counted
    report = legality.check(fmt, None, [(bolt, 3, "main")])
    assert triples(report) == [("copy_limit", "bolt", "main")]


def test_two_copy_limits_over_overlapping_sections_each_report():
    report = legality.check(CASUAL, RULER, [(NON_BASIC, 5, "side")])
    limits = [(p.code, p.card, p.section, p.ref) for p in report.problems if p.code == "copy_limit"]
    assert limits == [
        ("copy_limit", NON_BASIC.slug, "side", "9.8"),
        ("copy_limit", NON_BASIC.slug, "side", "9.9"),
    ]


@pytest.mark.parametrize("keyword", ["Basic", "basic", "BASIC"])
def test_copy_limit_unlimited_by_keyword_ignores_case(keyword):
    fmt = fmt_of([{**BY_NAME, "unlimited": {"keyword": keyword}}])
    stone = card("Water Stone", "magic-stone", keywords={"Basic"})
    assert legality.check(fmt, None, [(stone, 20, "stones")]).legal
    plain = card("Moon Stone", "magic-stone", keywords={"Basics"})
    assert codes(legality.check(fmt, None, [(plain, 3, "stones")])) == ["copy_limit"]


def test_copy_limit_unlimited_by_type():
    fmt = fmt_of([{**BY_NAME, "unlimited": {"type": "magic-stone"}}])
    assert legality.check(fmt, None, [(card("Stone", "magic-stone"), 30, "stones")]).legal
    report = legality.check(fmt, None, [(card("Imp", "resonator"), 3, "main")])
    assert triples(report) == [("copy_limit", "imp", "main")]


def test_fow_basic_stones_are_unlimited_in_the_stone_deck_only():
    """CR 402.4b, 404.1-404.2: the side deck holds at most 4 of any name, basic stones included."""
    ok = legality.check(CASUAL, RULER, fow_deck([(BASIC_STONE, 4, "side")]))
    assert ok.legal
    report = legality.check(CASUAL, RULER, fow_deck([(BASIC_STONE, 5, "side")]))
    assert [(p.code, p.card, p.section, p.ref) for p in report.problems] == [
        ("copy_limit", BASIC_STONE.slug, "side", "9.8")
    ]


def test_copy_limit_overrides_raise_the_limit_for_a_keyword():
    rule = {"rule": "copy_limit", "by": "name", "default": 3, "overrides": {"Horde": 5}}
    fmt = one_section([rule])
    horde = card("Rats", keywords={"horde"})  # keywords match in any case
    assert legality.check(fmt, None, [(horde, 5)]).legal
    report = legality.check(fmt, None, [(horde, 6), (card("Plain"), 4)])
    assert triples(report) == [("copy_limit", "rats", "main"), ("copy_limit", "plain", "main")]
    assert report.problems[0].message == "Rats (Horde): at most 5 copies, deck has 6"


def test_copy_limit_highest_override_wins():
    rule = {"rule": "copy_limit", "default": 1, "overrides": {"Horde": 5, "Swarm": 7, "Pack": 2}}
    fmt = one_section([rule])
    both = card("Locusts", keywords={"Horde", "Swarm", "Pack"})
    assert legality.check(fmt, None, [(both, 7)]).legal
    (problem,) = legality.check(fmt, None, [(both, 8)]).problems
    assert problem.message == "Locusts (Swarm): at most 7 copies, deck has 8"
    assert legality.copy_limit(fmt, both) == 7
    assert legality.copy_limit(fmt, card("Pups", keywords={"Pack"})) == 2


def test_copy_limit_override_beats_the_rarity_limit():
    rule = {"rule": "copy_limit", "by": "rarity", "limits": {"rare": 1}, "overrides": {"Horde": 4}}
    fmt = one_section([rule])
    assert legality.check(
        fmt, None, [(card("Horde Lord", rarity="rare", keywords={"Horde"}), 4)]
    ).legal


# --- section_types ------------------------------------------------------------------------------


def test_section_types_reports_each_card_of_a_wrong_type_with_its_section():
    stray = card("Stray", "resonator")
    untyped = card("Nameless")
    deck = [(stray, 2, "stones"), (untyped, 1, "stones"), (BASIC_STONE, 3, "stones")]
    deck += [(stray, 1, "main"), (BASIC_STONE, 1, "side")]  # side takes any type
    report = legality.check(CASUAL, RULER, deck)
    wrong = [(p.card, p.section) for p in report.problems if p.code == "wrong_section"]
    assert wrong == [("stray", "stones"), ("nameless", "stones")]
    nameless = next(
        p for p in report.problems if p.card == "nameless" and p.code == "wrong_section"
    )
    assert nameless.message == (
        "Nameless (no type) cannot go in the Magic stone deck, which takes: Magic stone."
    )
    assert nameless.ref == "9.7"


def test_section_types_in_a_one_section_format_says_the_deck():
    fmt = one_section([{"rule": "section_types", "types": ["unit"]}])
    (problem,) = legality.check(fmt, None, [(card("God", "pantheon"), 1)]).problems
    assert (problem.code, problem.section) == ("wrong_section", "main")
    assert problem.message == "God (pantheon) cannot go in the deck, which takes: unit."


# --- colour_identity ----------------------------------------------------------------------------


SUBSET = [{"rule": "colour_identity", "mode": "subset"}]
SHARES = [{"rule": "colour_identity", "mode": "shares"}]
DEFAULT_MODE = [{"rule": "colour_identity"}]
RED_BLUE = LeaderInfo("rb", "Red Blue", frozenset({"red", "blue"}))
RED = LeaderInfo("r", "Red", frozenset({"red"}))
NO_COLOUR = LeaderInfo("none", "None")


@pytest.mark.parametrize(
    ("rules", "leader", "colours", "fits"),
    [
        (SUBSET, RED, (), True),
        (SUBSET, NO_COLOUR, (), True),
        (SUBSET, RED, ("red",), True),
        (SUBSET, RED, ("red", "blue"), False),
        (SUBSET, RED_BLUE, ("red", "blue"), True),
        (SUBSET, RED_BLUE, ("green",), False),
        (DEFAULT_MODE, RED, ("red", "blue"), False),
        (DEFAULT_MODE, RED_BLUE, ("blue",), True),
        (SHARES, RED, (), True),
        (SHARES, NO_COLOUR, (), True),
        (SHARES, RED, ("red",), True),
        (SHARES, RED, ("red", "blue"), True),
        (SHARES, RED, ("blue", "green"), False),
        (SHARES, NO_COLOUR, ("red",), False),
    ],
)
def test_colour_identity_modes(rules, leader, colours, fits):
    fmt = one_section(rules)
    bolt = card("Bolt", colours=colours)
    problems = legality.card_problems(fmt, leader, bolt)
    assert [p.code for p in problems] == ([] if fits else ["colour_mismatch"])
    report = legality.check(fmt, leader, [(bolt, 1)])
    assert triples(report) == ([] if fits else [("colour_mismatch", "bolt", "main")])


def test_colour_identity_messages_per_mode():
    two = card("Steam", colours={"red", "blue"})
    (subset,) = legality.card_problems(one_section(SUBSET), RED, two)
    assert subset.message == "Steam is blue, which Red does not match (matches: red)"
    (shares,) = legality.card_problems(one_section(SHARES), RED, card("Ice", colours={"blue"}))
    assert shares.message == "Ice is blue and shares no colour with Red (red)"


# --- faction_gate ---------------------------------------------------------------------------------


def test_faction_gate_needs_every_faction_of_the_card():
    fmt = one_section([{"rule": "faction_gate"}])
    keld = LeaderInfo("k", "Kel", factions=frozenset({"Keld"}))
    assert legality.card_problems(fmt, keld, card("Seed", factions={"Keld"})) == []
    assert legality.card_problems(fmt, keld, card("Neutral")) == []
    (problem,) = legality.card_problems(fmt, keld, card("Pact", factions={"Keld", "Abyss"}))
    assert (problem.code, problem.card) == ("faction_mismatch", "pact")
    assert problem.message == "Pact belongs to Abyss, which is not a faction of Kel"


# --- loyalty_gate ---------------------------------------------------------------------------------


LOYALTY = one_section([{"rule": "loyalty_gate"}])
TWO_FACTIONS = LeaderInfo(
    "ylvaine", "Ylvaine", loyalty=frozenset({("Rebels", 3), ("Loyalists", 1)})
)


@pytest.mark.parametrize(
    ("loyalty", "fits"),
    [
        (None, True),
        (("Rebels", 1), True),
        (("Rebels", 3), True),  # equal points are enough
        (("Loyalists", 1), True),
        (("Loyalists", 2), False),
        (("Undead", 1), False),  # no points in that faction: 0
    ],
)
def test_loyalty_gate(loyalty, fits):
    needs = card("Needs", loyalty=loyalty)
    assert legality.LoyaltyWithin(TWO_FACTIONS.loyalty).holds(needs) is fits
    problems = legality.card_problems(LOYALTY, TWO_FACTIONS, needs)
    assert [p.code for p in problems] == ([] if fits else ["loyalty_too_low"])


def test_loyalty_gate_messages_give_the_leaders_points_or_none():
    (low,) = legality.card_problems(LOYALTY, TWO_FACTIONS, card("X", loyalty=("Loyalists", 3)))
    assert low.message == "X needs loyalty 3 to Loyalists; Ylvaine has 1"
    (none,) = legality.card_problems(LOYALTY, TWO_FACTIONS, card("Y", loyalty=("Undead", 1)))
    assert none.message == "Y needs loyalty 1 to Undead; Ylvaine has none"


def test_leader_rules_are_skipped_without_a_leader():
    fmt = one_section([*SUBSET, {"rule": "faction_gate"}, {"rule": "loyalty_gate"}])
    odd = card("Odd", colours={"red"}, factions={"Keld"}, loyalty=("Keld", 3))
    assert legality.check(fmt, None, [(odd, 1)]).legal


# --- requires_type --------------------------------------------------------------------------------


def test_requires_type_counts_copies_of_the_type_in_its_section():
    rule = {"rule": "requires_type", "type": "pantheon", "min": 2, "deck": "side"}
    fmt = fmt_of([rule], type_names={"pantheon": "Pantheon"})
    god = card("God", "pantheon")
    assert legality.check(fmt, None, [(god, 2, "side")]).legal
    report = legality.check(fmt, None, [(god, 5, "main"), (god, 1, "side")])
    assert triples(report) == [("required_card_missing", None, "side")]
    assert report.problems[0].message == "The Side deck needs at least 2 Pantheon cards; it has 1."


def test_requires_type_min_defaults_to_one_in_the_first_section():
    fmt = one_section([{"rule": "requires_type", "type": "pantheon"}])
    assert legality.check(fmt, None, [(card("God", "pantheon"), 1)]).legal
    report = legality.check(fmt, None, [(card("Man", "unit"), 9)])
    assert triples(report) == [("required_card_missing", None, "main")]
    assert report.problems[0].message == "The deck needs at least 1 pantheon card; it has 0."


# --- banlist ------------------------------------------------------------------------------------


def test_banlist_rule_bans_with_zero_and_restricts_with_n():
    fmt = fmt_of([{"rule": "banlist", "cards": {"doom": 0, "wish": 1}, "section": "9.10"}])
    doom, wish = card("Doom"), card("Wish")
    assert legality.check(fmt, None, [(wish, 1, "side")]).legal
    report = legality.check(fmt, None, [(doom, 1, "side"), (wish, 1, "side"), (wish, 1, "main")])
    assert [(p.code, p.card, p.section, p.ref) for p in report.problems] == [
        ("banned", "doom", "side", "9.10"),
        ("banned", "wish", "main", "9.10"),  # counted over all sections; first section first
    ]
    assert report.problems[0].message == "Doom is banned in this format."
    assert report.problems[1].message == ("Wish is restricted to 1 copy in this format, deck has 2")


def test_the_formats_own_banlist_is_checked_after_its_rules():
    fmt = one_section([BY_NAME], banlist={"doom": 0, "wish": 1})
    deck = [(card("Doom"), 3), (card("Wish"), 2), (card("Free"), 2)]
    report = legality.check(fmt, None, deck)
    assert [(p.code, p.card, p.ref) for p in report.problems] == [
        ("copy_limit", "doom", ""),
        ("banned", "doom", ""),
        ("banned", "wish", ""),
    ]
    assert legality.check(fmt, None, [(card("Wish"), 1), (card("Free"), 2)]).legal


# --- leader_required ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "message"),
    [
        (CASUAL, "Choose a Ruler: a deck needs exactly one."),
        (BERSERK, "Choose a Hero: a deck needs exactly one."),
        (COG, "Choose an Expedition Leader: a deck needs exactly one."),
        (one_section([{"rule": "leader_required"}]), "Choose a leader: a deck needs exactly one."),
    ],
)
def test_leader_required_names_the_games_leader(fmt, message):
    problem = legality.check(fmt, None, []).problems[0]
    assert (problem.code, problem.card, problem.section, problem.message) == (
        "leader_required",
        None,
        None,
        message,
    )


# --- cards held in several sections, unknown sections ------------------------------------------


MULTI = fmt_of([*SUBSET, {"rule": "faction_gate"}, {"rule": "loyalty_gate"}], banlist={"hex": 0})


def test_a_card_in_two_sections_is_reported_once_with_its_first_section_in_format_order():
    hex_ = card("Hex", colours={"black"}, factions={"Abyss"}, loyalty=("Abyss", 2))
    deck = [(hex_, 1, "side"), (card("Ok"), 1, "main"), (hex_, 2, "stones")]
    report = legality.check(MULTI, NO_COLOUR, deck)
    assert triples(report) == [
        ("colour_mismatch", "hex", "stones"),
        ("faction_mismatch", "hex", "stones"),
        ("loyalty_too_low", "hex", "stones"),
        ("banned", "hex", "stones"),
    ]
    assert report.section_counts == {"main": 1, "stones": 2, "side": 1}


def test_an_entry_in_an_unknown_section_is_wrong_section_and_not_counted():
    fmt = fmt_of([{"rule": "deck_size", "deck": "side", "exactly": 0}])
    report = legality.check(fmt, None, [(card("Lost"), 2, "sideboard"), (card("Here"), 1, "main")])
    assert triples(report) == [("wrong_section", "lost", "sideboard")]
    assert "'sideboard'" in report.problems[0].message
    assert report.section_counts == {"main": 1, "stones": 0, "side": 0}
    assert report.card_count == 1 and not report.legal


def test_an_unknown_section_in_a_one_section_format_is_wrong_section():
    report = legality.check(
        BERSERK, FORESTS_HERO, [*berserk_deck((card("E"), 1)), (card("X"), 1, "side")]
    )
    assert triples(report) == [("wrong_section", "x", "side")]


def test_section_counts_follow_the_format_order_and_list_empty_sections():
    report = legality.check(CASUAL, RULER, [(card("A", "resonator"), 2, "side")])
    assert list(report.section_counts) == ["main", "stones", "side"]
    assert report.section_counts == {"main": 0, "stones": 0, "side": 2}
    assert legality.check(BERSERK, None, []).section_counts == {"main": 0}


def test_problems_carry_the_rules_reference_section():
    report = legality.check(CASUAL, None, [])
    assert [(p.code, p.section, p.ref) for p in report.problems] == [
        ("leader_required", None, "9.2"),
        ("deck_size", "main", "9.3"),
        ("deck_size", "stones", "9.4"),
    ]
    assert report.as_dict()["problems"][1] == {
        "code": "deck_size",
        "message": "The Main deck needs 40 to 60 cards; it has 0.",
        "card": None,
        "section": "main",
        "ref": "9.3",
    }


# --- card_problems -------------------------------------------------------------------------------


def test_card_problems_asks_only_the_card_versus_leader_rules_in_format_order():
    fmt = fmt_of(
        [
            {"rule": "loyalty_gate", "section": "1"},
            {"rule": "deck_size", "exactly": 40},
            {"rule": "faction_gate", "section": "2"},
            {"rule": "section_types", "deck": "main", "types": ["resonator"]},
            {"rule": "colour_identity", "mode": "shares", "section": "3"},
        ],
        banlist={"hex": 0},
    )
    hex_ = card("Hex", "magic-stone", colours={"black"}, factions={"Abyss"}, loyalty=("Abyss", 1))
    problems = legality.card_problems(fmt, RED, hex_)
    assert [(p.code, p.card, p.section, p.ref) for p in problems] == [
        ("loyalty_too_low", "hex", None, "1"),
        ("faction_mismatch", "hex", None, "2"),
        ("colour_mismatch", "hex", None, "3"),
    ]


@pytest.mark.parametrize("fmt", [CASUAL, CONSTRUCTED, OGAM], ids=["casual", "constructed", "ogam"])
def test_card_problems_are_empty_in_formats_without_leader_rules(fmt):
    odd = card("Odd", colours={"fire"}, factions={"Abyss"}, loyalty=("Abyss", 3))
    assert legality.card_problems(fmt, RULER, odd) == []


def test_requirement_gives_the_check_each_leader_rule_uses():
    assert legality.requirement(SUBSET[0], RED) == legality.AllIn("colours", RED.colours)
    assert legality.requirement(SHARES[0], RED) == legality.SharesOne("colours", RED.colours)
    assert legality.requirement({"rule": "faction_gate"}, RED) == legality.AllIn(
        "factions", frozenset()
    )
    assert legality.requirement({"rule": "loyalty_gate"}, TWO_FACTIONS) == legality.LoyaltyWithin(
        TWO_FACTIONS.loyalty
    )
    assert set(legality.LEADER_RULES) == {
        "colour_identity",
        "faction_gate",
        "loyalty_gate",
        "exclusive_keywords",
        "pool",
    }


# --- copy_limit(fmt, card, section), size_label, allowed_sections ------------------------------


@pytest.mark.parametrize(
    ("fmt", "the_card", "section", "limit"),
    [
        (CASUAL, BASIC_STONE, "stones", None),  # unlimited where only the Basic rule counts
        (CASUAL, BASIC_STONE, "side", 4),  # the main+side rule counts the side deck
        (CASUAL, NON_BASIC, "stones", 4),
        (CASUAL, card("Imp", "resonator"), "main", 4),
        (CASUAL, card("Imp", "resonator"), None, 4),  # the first section
        (BERSERK, card("Rats", keywords={"Horde"}), None, 5),
        (BERSERK, card("Plain"), "main", 3),
        (COG, card("Star", rarity="rare"), None, 1),
        (COG, card("Dust", rarity="common"), None, 3),
        (COG, card("Odd", rarity="mythic"), None, None),  # no limit for that rarity
        (one_section([{"rule": "deck_size", "min": 1}]), card("Any"), None, None),
        (one_section([BY_NAME], banlist={"doom": 0}), card("Doom"), None, 0),
        (one_section([BY_NAME], banlist={"wish": 1}), card("Wish"), None, 1),
        (one_section([], banlist={"wish": 7}), card("Wish"), None, 7),
    ],
)
def test_copy_limit_of_a_card_in_a_section(fmt, the_card, section, limit):
    assert legality.copy_limit(fmt, the_card, section) == limit


@pytest.mark.parametrize(
    ("fmt", "section", "label"),
    [
        (CASUAL, "main", "40–60"),
        (CASUAL, None, "40–60"),
        (CASUAL, "stones", "10–20"),
        (CASUAL, "side", "0–15"),
        (CONSTRUCTED, "side", "1–15"),
        (BERSERK, None, "40+"),
        (COG, "main", "10"),
        (one_section([]), None, ""),
        (fmt_of([{"rule": "deck_size", "deck": "side", "exactly": 0}]), "side", "0"),
        (fmt_of([{"rule": "deck_size", "deck": "side", "exactly": 0}]), "main", ""),
    ],
)
def test_size_label(fmt, section, label):
    assert legality.size_label(fmt, section) == label


@pytest.mark.parametrize(
    ("fmt", "the_card", "sections"),
    [
        (CASUAL, card("Imp", "resonator"), ["main", "side"]),
        (CASUAL, card("Crown", "regalia"), ["main", "side"]),
        (CASUAL, BASIC_STONE, ["stones", "side"]),
        (CASUAL, card("Nameless"), ["side"]),
        (BERSERK, card("Any", "event"), ["main"]),
        (one_section([{"rule": "section_types", "types": ["unit"]}]), card("God", "pantheon"), []),
    ],
)
def test_allowed_sections(fmt, the_card, sections):
    assert legality.allowed_sections(fmt, the_card) == sections


# --- describe -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "rule", "fragments"),
    [
        (CASUAL, {"rule": "leader_required"}, ["exactly one Ruler"]),
        (COG, {"rule": "leader_required"}, ["exactly one Expedition Leader"]),
        (
            CASUAL,
            {"rule": "deck_size", "deck": "stones", "min": 10, "max": 20},
            ["Magic stone deck", "10 to 20 cards"],
        ),
        (BERSERK, {"rule": "deck_size", "min": 40}, ["The deck holds at least 40 cards"]),
        (COG, {"rule": "deck_size", "exactly": 10}, ["exactly 10 cards"]),
        (CASUAL, CASUAL.rules[6], ["At most 4 copies", "Main deck and the Side deck"]),
        (
            CASUAL,
            CASUAL.rules[7],
            ["Magic stone deck and the Side deck", "keyword Basic", "not limited"],
        ),
        (
            CASUAL,
            {"rule": "copy_limit", "default": 4, "unlimited": {"type": "magic-stone"}},
            ["Magic stone cards are not limited"],
        ),
        (BERSERK, BERSERK.rules[2], ["At most 3 copies", "keyword Horde may have 5"]),
        (COG, COG.rules[2], ["by rarity", "common 3 copies", "uncommon 2 copies", "rare 1 copy"]),
        (CASUAL, CASUAL.rules[4], ["Main deck", "Resonator, Chant, Addition, Regalia"]),
        (COG, {"rule": "colour_identity"}, ["Expedition Leader's colours", "with no colour"]),
        (
            BERSERK,
            {"rule": "colour_identity", "mode": "shares"},
            ["shares an element with the Hero", "neutral"],
        ),
        (COG, {"rule": "faction_gate"}, ["faction", "an Expedition Leader"]),
        (IRDYA, {"rule": "loyalty_gate"}, ["Hero's loyalty", "counts as 0"]),
        (OGAM, OGAM.rules[2], ["The deck holds at least 1 Pantheon card"]),
        (
            CASUAL,
            {"rule": "requires_type", "type": "regalia", "min": 2, "deck": "side"},
            ["The Side deck", "2 Regalia cards"],
        ),
        (CASUAL, {"rule": "banlist", "cards": {"x": 0}}, ["ban list", "0 = banned"]),
    ],
)
def test_describe_states_each_rule_in_a_sentence(fmt, rule, fragments):
    text = legality.describe(rule, fmt)
    assert text[0].isupper() and text.endswith("."), text
    for fragment in fragments:
        assert fragment in text, (fragment, text)


ONE_OF_EACH_KIND = [
    {"rule": "leader_required"},
    {"rule": "deck_size", "deck": "side", "max": 15},
    {"rule": "copy_limit", "by": "name", "default": 4, "across": ["main", "side"]},
    {"rule": "section_types", "deck": "stones", "types": ["magic-stone"]},
    {"rule": "colour_identity", "mode": "shares"},
    {"rule": "faction_gate"},
    {"rule": "loyalty_gate"},
    {"rule": "requires_type", "type": "regalia"},
    {"rule": "banlist", "cards": {"x": 0}},
    {"rule": "section_gate", "deck": "side", "keyword": "Grimoire"},
    {"rule": "type_limit", "type": "regalia", "max": 1},
    {"rule": "exclusive_keywords", "pairs": [["Tales", "Villains"]]},
    {"rule": "pool", "groups": ["Grimm"]},
    {"rule": "combination_ban", "groups": [["a", "b"]]},
]


def test_describe_gives_a_sentence_for_every_rule_kind():
    assert sorted(r["rule"] for r in ONE_OF_EACH_KIND) == sorted(legality.RULES)
    sentences = [legality.describe(rule, CASUAL) for rule in ONE_OF_EACH_KIND]
    for rule, text in zip(ONE_OF_EACH_KIND, sentences, strict=True):
        assert text != rule["rule"] and text[0].isupper() and text.endswith("."), text
    assert len(set(sentences)) == len(sentences)
    for fmt in (CASUAL, CONSTRUCTED, BERSERK, OGAM, IRDYA, COG):
        for rule in fmt.all_rules():
            assert legality.describe(rule, fmt).endswith(".")


def test_describe_a_one_section_copy_limit_says_nothing_of_sections():
    assert legality.describe(BERSERK.rules[2], BERSERK) == (
        "At most 3 copies of a card name; a card with the keyword Horde may have 5."
    )


# --- validate_format: the parameters sections and types add -------------------------------------


def fow_data(*rules, sections=FOW_SECTIONS, banlist=None):
    return {"sections": sections, "rules": list(rules), "banlist": banlist or {}}


FOW_TYPES = ["resonator", "chant", "addition", "regalia", "magic-stone"]


@pytest.mark.parametrize(
    "rule",
    [
        {"rule": "deck_size", "deck": "side", "min": 0, "max": 15},
        {"rule": "copy_limit", "by": "name", "default": 4, "across": ["stones", "side"]},
        {"rule": "copy_limit", "default": 4, "unlimited": {"keyword": "Basic"}},
        {"rule": "copy_limit", "default": 4, "unlimited": {"type": "magic-stone"}},
        {"rule": "copy_limit", "default": 3, "overrides": {"Horde": 5, "Swarm": 7}},
        {"rule": "section_types", "deck": "stones", "types": ["magic-stone"]},
        {"rule": "requires_type", "type": "regalia"},
        {"rule": "requires_type", "type": "regalia", "min": 2, "deck": "side"},
        {"rule": "colour_identity", "mode": "shares"},
        {"rule": "colour_identity", "mode": "subset"},
        {"rule": "loyalty_gate", "site_default": True, "section": "5.5"},
        {"rule": "banlist", "cards": {"doom": 0, "wish": 1}},
    ],
)
def test_validate_format_accepts_the_new_parameters(rule):
    assert legality.validate_format(fow_data(rule), card_types=FOW_TYPES) == []


@pytest.mark.parametrize(
    ("rule", "fragment"),
    [
        ({"rule": "deck_size", "deck": "sideboard", "min": 1}, "bad value for 'deck'"),
        ({"rule": "section_types", "deck": "extra", "types": ["chant"]}, "bad value for 'deck'"),
        ({"rule": "requires_type", "type": "chant", "deck": "Main"}, "bad value for 'deck'"),
        ({"rule": "copy_limit", "across": ["main", "extra"]}, "bad value for 'across'"),
        ({"rule": "copy_limit", "across": []}, "bad value for 'across'"),
        ({"rule": "copy_limit", "across": "main"}, "bad value for 'across'"),
        ({"rule": "copy_limit", "unlimited": {"type": "land"}}, "bad value for 'unlimited'"),
        ({"rule": "copy_limit", "unlimited": {"keyword": ""}}, "bad value for 'unlimited'"),
        (
            {"rule": "copy_limit", "unlimited": {"keyword": "Basic", "type": "chant"}},
            "bad value for 'unlimited'",
        ),
        ({"rule": "copy_limit", "unlimited": "Basic"}, "bad value for 'unlimited'"),
        ({"rule": "copy_limit", "overrides": {"Horde": -1}}, "bad value for 'overrides'"),
        ({"rule": "copy_limit", "overrides": ["Horde"]}, "bad value for 'overrides'"),
        ({"rule": "section_types", "types": ["resonator", "land"]}, "bad value for 'types'"),
        ({"rule": "section_types", "types": "resonator"}, "bad value for 'types'"),
        ({"rule": "section_types", "deck": "main"}, "'types' is required"),
        ({"rule": "requires_type", "type": "land"}, "bad value for 'type'"),
        ({"rule": "requires_type", "min": 1}, "'type' is required"),
        ({"rule": "deck_size", "deck": "side", "min": 16, "max": 15}, "min 16 is more than max 15"),
        ({"rule": "colour_identity", "mode": "strict"}, "bad value for 'mode'"),
        ({"rule": "banlist", "cards": {"doom": "0"}}, "bad value for 'cards'"),
    ],
)
def test_validate_format_rejects_bad_new_parameters(rule, fragment):
    errors = legality.validate_format(fow_data(rule), card_types=FOW_TYPES)
    assert any(fragment in e for e in errors), errors


def test_validate_format_checks_types_only_when_the_games_types_are_given():
    rule = {"rule": "section_types", "types": ["land"]}
    assert legality.validate_format(fow_data(rule)) == []
    assert legality.validate_format(fow_data(rule), card_types=FOW_TYPES)
    required = {"rule": "requires_type", "type": "land"}
    assert legality.validate_format(fow_data(required)) == []
    assert legality.validate_format(fow_data(required), card_types=[])


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([], "A format is an object"),
        ({"rules": []}, '"sections" must be a non-empty list'),
        ({"sections": [], "rules": []}, '"sections" must be a non-empty list'),
        ({"sections": [{"slug": "Main", "name": "Deck"}]}, "Section 1"),
        ({"sections": [{"slug": "main"}]}, "Section 1"),
        ({"sections": [{"slug": "main", "name": " "}]}, "Section 1"),
        ({"sections": [{"slug": "main", "name": "A", "size": 3}]}, "Section 1"),
        (
            {"sections": [*ONE_SECTION, {"slug": "main", "name": "B"}]},
            "Section 2: 'main' appears twice",
        ),
        ({"sections": ONE_SECTION, "banlist": {"x": -1}}, '"banlist" must map card slugs'),
        ({"sections": ONE_SECTION, "banlist": ["x"]}, '"banlist" must map card slugs'),
        ({"sections": ONE_SECTION, "rules": {"rule": "deck_size"}}, '"rules" must be a list'),
    ],
)
def test_validate_format_rejects_bad_sections_banlists_and_rule_lists(data, fragment):
    errors = legality.validate_format(data)
    assert any(fragment in e for e in errors), errors


def test_validate_format_reports_errors_of_sections_and_rules_together():
    data = fow_data(
        {"rule": "deck_size", "deck": "extra"},
        {"rule": "requires_type"},
        sections=[*FOW_SECTIONS, {"slug": "side", "name": "Again"}],
    )
    errors = legality.validate_format(data, card_types=FOW_TYPES)
    assert len(errors) == 3, errors
    assert any("Section 4" in e for e in errors)
    assert any("Rule 1" in e and "'deck'" in e for e in errors)
    assert any("Rule 2" in e and "'type' is required" in e for e in errors)


def test_every_rule_kind_has_a_schema_and_a_code():
    assert (
        set(legality.RULES)
        == set(legality.CODES)
        == {
            "leader_required",
            "deck_size",
            "copy_limit",
            "section_types",
            "colour_identity",
            "faction_gate",
            "loyalty_gate",
            "requires_type",
            "banlist",
            "section_gate",
            "type_limit",
            "exclusive_keywords",
            "pool",
            "combination_ban",
        }
    )
    assert legality.CODES["section_types"] == "wrong_section"
    assert legality.CODES["requires_type"] == "required_card_missing"


@pytest.mark.parametrize(
    "rule",
    [
        {"rule": "deck_size"},
        {"rule": "copy_limit"},
        {"rule": "copy_limit", "by": "name"},
        {"rule": "copy_limit", "overrides": {"Horde": 5}},
        {"rule": "copy_limit", "by": "rarity", "limits": {}},
    ],
    ids=str,
)
def test_describe_of_a_valid_rule_without_numbers_never_says_none(rule):
    """These rules are valid (validate_format accepts them) and limit nothing: their page
    sentence must still read as words."""
    assert legality.validate_format({"sections": ONE_SECTION, "rules": [rule]}) == []
    text = legality.describe(rule, one_section([rule]))
    assert "None" not in text, text
