"""The deck-rules engine on plain data: every rule of Card of Gods, its edges, and formats.

Pure: no database. Cards and leaders are built as CardInfo / LeaderInfo directly.
"""

import json
from pathlib import Path

import pytest

from cards import legality
from cards.legality import RULES, CardInfo, LeaderInfo

SAMPLE = Path(__file__).resolve().parents[2] / "cards" / "sample" / "card-of-gods.json"
# Its first version: the source document's rules (the sample's second adds a ban).
COG = json.loads(SAMPLE.read_text())["game"]["formats"][0]["versions"][0]["rules"]
MAIN = [{"slug": "main", "name": "Deck"}]


# Card of Gods formats have one deck section: these tests give the rules, the section is implied.
def one_section(rules) -> legality.Format:
    return legality.Format.from_data({"sections": MAIN, "rules": rules})


def check(rules, leader, deck):
    return legality.check(one_section(rules), leader, deck)


def card_problems(rules, leader, card):
    return legality.card_problems(one_section(rules), leader, card)


def validate_format(rules):
    return legality.validate_format({"sections": MAIN, "rules": rules})


RICHARD = LeaderInfo("richard", "Richard", frozenset({"yellow"}), frozenset({"Engeln"}))
GOTTFRIED = LeaderInfo(
    "gottfried", "Gottfried", frozenset({"black", "yellow", "red"}), frozenset({"Kriegmark"})
)
KELLANTRA = LeaderInfo("kellantra", "Kellantra", frozenset({"green"}), frozenset({"Keld"}))
NOBODY = LeaderInfo("nobody", "Nobody")  # no colour, no faction


def card(name, rarity="common", colours=(), factions=(), slug=None):
    return CardInfo(
        slug=slug or name.lower().replace(" ", "-"),
        name=name,
        rarity=rarity,
        colours=frozenset(colours),
        factions=frozenset(factions),
    )


def fillers(n, colours=("green",), prefix="Filler"):
    """n distinct common cards (one copy each) of the given colours."""
    return [(card(f"{prefix} {i}", colours=colours), 1) for i in range(n)]


def codes(report):
    return [p.code for p in report.problems]


def pairs(report):
    return [(p.code, p.card) for p in report.problems]


# --- the Card of Gods format itself ------------------------------------------------------------


def test_sample_format_is_the_documented_rule_list_in_order():
    assert [r["rule"] for r in COG] == [
        "leader_required",
        "deck_size",
        "copy_limit",
        "colour_identity",
        "faction_gate",
    ]
    rules = [{k: v for k, v in rule.items() if k != "section"} for rule in COG]
    assert {"rule": "deck_size", "exactly": 10} in rules
    assert {
        "rule": "copy_limit",
        "by": "rarity",
        "limits": {"common": 3, "uncommon": 2, "rare": 1},
    } in rules


def test_a_legal_ten_card_deck_has_no_problems():
    report = check(COG, KELLANTRA, fillers(10))
    assert report.legal is True
    assert report.card_count == 10
    assert report.problems == []
    assert report.as_dict() == {"legal": True, "card_count": 10, "problems": []}


# --- deck_size --------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "legal"), [(9, False), (10, True), (11, False)])
def test_deck_size_is_exactly_ten(size, legal):
    report = check(COG, KELLANTRA, fillers(size))
    assert report.card_count == size
    assert report.legal is legal
    assert codes(report) == ([] if legal else ["deck_size"])


def test_deck_size_counts_copies_not_distinct_cards():
    deck = [(card("Weed", colours={"green"}), 3), *fillers(7)]
    report = check(COG, KELLANTRA, deck)
    assert report.card_count == 10 and report.legal


def test_deck_size_message_says_wanted_and_actual():
    (problem,) = check(COG, KELLANTRA, fillers(9)).problems
    assert problem.card is None
    assert "exactly 10 cards" in problem.message and "9" in problem.message


def test_empty_deck_is_illegal_for_its_size_only():
    report = check(COG, KELLANTRA, [])
    assert report.card_count == 0
    assert codes(report) == ["deck_size"]


def test_zero_counts_are_ignored():
    deck = [*fillers(10), (card("Ghost", colours={"black"}, factions={"Abyss"}), 0)]
    report = check(COG, KELLANTRA, deck)
    assert report.legal and report.card_count == 10


# --- copy_limit --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rarity", "limit"), [("common", 3), ("uncommon", 2), ("rare", 1)], ids=str
)
def test_copy_limit_at_the_limit_is_legal(rarity, limit):
    deck = [(card("Many", rarity, {"green"}), limit), *fillers(10 - limit)]
    assert check(COG, KELLANTRA, deck).legal


@pytest.mark.parametrize(
    ("rarity", "limit"), [("common", 3), ("uncommon", 2), ("rare", 1)], ids=str
)
def test_copy_limit_one_over_is_reported_for_that_card(rarity, limit):
    deck = [(card("Many", rarity, {"green"}), limit + 1), *fillers(9 - limit)]
    report = check(COG, KELLANTRA, deck)
    assert report.card_count == 10
    assert pairs(report) == [("copy_limit", "many")]
    message = report.problems[0].message
    assert rarity in message and str(limit) in message and str(limit + 1) in message


def test_copy_limit_message_matches_the_spec_example():
    deck = [(card("Healing", "uncommon", {"green"}), 3), *fillers(7)]
    (problem,) = check(COG, KELLANTRA, deck).problems
    assert problem.as_dict() == {
        "code": "copy_limit",
        "card": "healing",
        "message": "Healing is uncommon: at most 2 copies, deck has 3",
        "section": "main",
        "ref": "5.4",
    }


def test_copies_are_counted_by_name_across_printings():
    first = card("Lightning", "common", {"green"}, slug="lightning")
    reprint = card("lightning", "common", {"green"}, slug="lightning-promo")  # same name, any case
    report = check(COG, KELLANTRA, [(first, 2), (reprint, 2), *fillers(6)])
    assert pairs(report) == [("copy_limit", "lightning")]
    assert "deck has 4" in report.problems[0].message


def test_two_printings_within_the_limit_together_are_legal():
    first = card("Lightning", "common", {"green"}, slug="lightning")
    reprint = card("Lightning", "common", {"green"}, slug="lightning-promo")
    assert check(COG, KELLANTRA, [(first, 2), (reprint, 1), *fillers(7)]).legal


def test_copy_limit_by_rarity_leaves_unknown_rarities_unlimited():
    deck = [(card("Odd", "mythic", {"green"}), 10)]
    assert check(COG, KELLANTRA, deck).legal


def test_copy_limit_by_name_with_a_default_of_three():
    fmt = [{"rule": "copy_limit", "by": "name", "default": 3}]
    legal = check(fmt, None, [(card("A", "rare"), 3), (card("B", "mythic"), 3)])
    assert legal.legal
    report = check(fmt, None, [(card("A", "rare"), 4), (card("B", "common"), 3)])
    assert pairs(report) == [("copy_limit", "a")]
    assert "at most 3 copies, deck has 4" in report.problems[0].message


def test_copy_limit_of_one_says_copy_in_the_singular():
    deck = [(card("Punishment", "rare", {"green"}), 2), *fillers(8)]
    (problem,) = check(COG, KELLANTRA, deck).problems
    assert "at most 1 copy," in problem.message


# --- colour_identity ---------------------------------------------------------------------------


def test_two_colour_card_with_one_colour_matched_is_illegal():
    fiery = card("Fiery Earth", "uncommon", {"red", "yellow"})
    report = check(COG, RICHARD, [(fiery, 1), *fillers(9, {"yellow"})])
    assert pairs(report) == [("colour_mismatch", "fiery-earth")]
    assert report.problems[0].message.startswith("Fiery Earth is red, which Richard")


def test_two_colour_card_with_both_colours_matched_is_legal():
    fiery = card("Fiery Earth", "uncommon", {"red", "yellow"})
    assert check(COG, GOTTFRIED, [(fiery, 1), *fillers(9, {"yellow"})]).legal


def test_off_colour_card_is_reported_once_per_card_whatever_its_count():
    despair = card("Despair", "common", {"black"})
    report = check(COG, KELLANTRA, [(despair, 3), *fillers(7)])
    assert pairs(report) == [("colour_mismatch", "despair")]


@pytest.mark.parametrize("leader", [RICHARD, GOTTFRIED, KELLANTRA, NOBODY], ids=lambda x: x.slug)
def test_colourless_card_fits_every_leader(leader):
    prayer = card("Quiet Prayer", "common")
    assert card_problems(COG, leader, prayer) == []
    report = check(COG, leader, [(card(f"Prayer {i}"), 1) for i in range(10)])
    assert report.legal


def test_leader_without_colours_rejects_every_coloured_card():
    (problem,) = card_problems(COG, NOBODY, card("Healing", "uncommon", {"green"}))
    assert problem.code == "colour_mismatch" and "no colour" in problem.message


# --- faction_gate ------------------------------------------------------------------------------


def test_faction_card_with_the_leaders_faction_is_legal():
    seed = card("Plant A Seed", "common", {"green"}, {"Keld"})
    assert card_problems(COG, KELLANTRA, seed) == []
    assert check(COG, KELLANTRA, [(seed, 3), *fillers(7)]).legal


def test_faction_card_without_the_leaders_faction_is_illegal():
    seed = card("Plant A Seed", "common", {"green"}, {"Keld"})
    druid = LeaderInfo("druid", "Druid", frozenset({"green"}), frozenset({"Abyss"}))
    report = check(COG, druid, [(seed, 3), *fillers(7)])
    assert pairs(report) == [("faction_mismatch", "plant-a-seed")]
    assert "Keld" in report.problems[0].message


def test_card_naming_two_factions_needs_both():
    pact = card("Pact", "rare", {"green"}, {"Keld", "Abyss"})
    one = LeaderInfo("one", "One", frozenset({"green"}), frozenset({"Keld"}))
    both = LeaderInfo("both", "Both", frozenset({"green"}), frozenset({"Keld", "Abyss"}))
    (problem,) = card_problems(COG, one, pact)
    assert problem.code == "faction_mismatch" and "Abyss" in problem.message
    assert "Keld" not in problem.message
    assert card_problems(COG, both, pact) == []


def test_leader_factions_beyond_the_cards_do_not_matter():
    plain = card("Plain", "common", {"yellow"})
    assert card_problems(COG, RICHARD, plain) == []


# --- no leader ---------------------------------------------------------------------------------


def test_no_leader_is_leader_required_without_colour_or_faction_problems():
    deck = [(card("Hex", "common", {"black"}, {"Abyss"}), 1), *fillers(9)]
    report = check(COG, None, deck)
    assert pairs(report) == [("leader_required", None)]
    assert report.card_count == 10 and not report.legal


def test_no_leader_and_wrong_size_reports_both_in_format_order():
    report = check(COG, None, fillers(3))
    assert codes(report) == ["leader_required", "deck_size"]


# --- several problems at once ------------------------------------------------------------------


def test_every_problem_is_reported_in_format_order():
    hex_ = card("Hex", "rare", {"black"}, {"Abyss"})  # over limit, off-colour, off-faction
    seed = card("Plant A Seed", "common", {"green"}, {"Keld"})
    bolt = card("Bolt", "common", {"red"})  # off-colour
    deck = [(hex_, 2), (seed, 4), (bolt, 1), *fillers(5)]
    report = check(COG, KELLANTRA, deck)
    assert report.card_count == 12 and not report.legal
    assert pairs(report) == [
        ("deck_size", None),
        ("copy_limit", "hex"),
        ("copy_limit", "plant-a-seed"),
        ("colour_mismatch", "hex"),
        ("colour_mismatch", "bolt"),
        ("faction_mismatch", "hex"),
    ]


def test_reordering_the_format_reorders_the_problems():
    hex_ = card("Hex", "rare", {"black"}, {"Abyss"})
    reordered = [COG[4], COG[3], COG[2], COG[1], COG[0]]
    report = check(reordered, KELLANTRA, [(hex_, 2)])
    assert codes(report) == ["faction_mismatch", "colour_mismatch", "copy_limit", "deck_size"]


def test_report_as_dict_has_the_api_shape():
    report = check(COG, None, [])
    assert report.as_dict() == {
        "legal": False,
        "card_count": 0,
        "problems": [
            {
                "code": "leader_required",
                "message": report.problems[0].message,
                "card": None,
                "section": None,
                "ref": "5.2",
            },
            {
                "code": "deck_size",
                "message": report.problems[1].message,
                "card": None,
                "section": "main",
                "ref": "5.3",
            },
        ],
    }


def test_an_empty_format_accepts_anything():
    report = check([], None, [(card("Hex", "rare", {"black"}, {"Abyss"}), 50)])
    assert report.legal and report.card_count == 50


# --- deck_size ranges (other games) ------------------------------------------------------------


RANGE = [{"rule": "deck_size", "min": 40, "max": 60}]


@pytest.mark.parametrize(
    ("size", "legal"), [(39, False), (40, True), (50, True), (60, True), (61, False)]
)
def test_deck_size_range(size, legal):
    report = check(RANGE, None, [(card("Any"), size)])
    assert report.legal is legal
    if not legal:
        assert "40 to 60 cards" in report.problems[0].message


def test_deck_size_min_only_and_max_only():
    at_least = [{"rule": "deck_size", "min": 40}]
    at_most = [{"rule": "deck_size", "max": 5}]
    assert not check(at_least, None, [(card("Any"), 39)]).legal
    assert check(at_least, None, [(card("Any"), 400)]).legal
    assert "at least 40 cards" in check(at_least, None, []).problems[0].message
    assert check(at_most, None, [(card("Any"), 5)]).legal
    (problem,) = check(at_most, None, [(card("Any"), 6)]).problems
    assert "at most 5 cards" in problem.message


# --- card_problems ----------------------------------------------------------------------------


def test_card_problems_lists_colour_then_faction():
    hex_ = card("Hex", "rare", {"black"}, {"Abyss"})
    problems = card_problems(COG, KELLANTRA, hex_)
    assert [(p.code, p.card) for p in problems] == [
        ("colour_mismatch", "hex"),
        ("faction_mismatch", "hex"),
    ]


def test_card_problems_ignores_deck_wide_rules():
    rare = card("Punishment", "rare", {"yellow"})
    assert card_problems(COG, RICHARD, rare) == []  # one card: no size or copy problem


def test_card_problems_follows_the_format():
    hex_ = card("Hex", "rare", {"black"}, {"Abyss"})
    only_colour = [{"rule": "colour_identity"}]
    assert [p.code for p in card_problems(only_colour, KELLANTRA, hex_)] == ["colour_mismatch"]
    assert card_problems([{"rule": "deck_size", "exactly": 10}], KELLANTRA, hex_) == []


# --- validate_format --------------------------------------------------------------------------


def test_validate_format_accepts_the_card_of_gods_format():
    assert validate_format(COG) == []


@pytest.mark.parametrize(
    "fmt",
    [
        [],
        [{"rule": "deck_size", "min": 40, "max": 60}],
        [{"rule": "deck_size", "exactly": 0}],
        [{"rule": "copy_limit", "by": "name", "default": 3}],
        [{"rule": "copy_limit", "by": "rarity", "limits": {}, "default": 4}],
        [{"rule": name} for name in RULES if name not in legality.REQUIRED],
    ],
)
def test_validate_format_accepts_good_formats(fmt):
    assert validate_format(fmt) == []


@pytest.mark.parametrize(
    ("fmt", "fragment"),
    [
        ({"rule": "deck_size"}, "list of rules"),
        ("deck_size", "list of rules"),
        (None, "list of rules"),
        ([{"rule": "requires_type"}], "'type' is required"),
        ([{"rule": "section_types", "types": []}], "bad value for 'types'"),
        ([{"rule": "deck_size", "deck": "side"}], "bad value for 'deck'"),
        ([{"rule": "copy_limit", "across": ["main", "side"]}], "bad value for 'across'"),
        ([{"rule": "copy_limit", "unlimited": {"colour": "red"}}], "bad value for 'unlimited'"),
        ([{"rule": "copy_limit", "overrides": {"Horde": "5"}}], "bad value for 'overrides'"),
        ([{"rule": "colour_identity", "mode": "any"}], "bad value for 'mode'"),
        ([{"rule": "banlist", "cards": {"x": -1}}], "bad value for 'cards'"),
        ([{"rule": "deck_size", "min": 5, "max": 4}], "min 5 is more than max 4"),
        ([{"rule": "deck_size", "site_default": "yes"}], "bad value for 'site_default'"),
        ([{"rule": "highlander"}], "Rule 1"),
        ([{"exactly": 10}], "Rule 1"),
        (["deck_size"], "Rule 1"),
        ([{"rule": "deck_size", "exactly": 10}, {"rule": "nope"}], "Rule 2"),
        ([{"rule": "deck_size", "exact": 10}], "unknown parameter 'exact'"),
        ([{"rule": "colour_identity", "strict": True}], "unknown parameter 'strict'"),
        ([{"rule": "deck_size", "exactly": -1}], "bad value for 'exactly'"),
        ([{"rule": "deck_size", "exactly": True}], "bad value for 'exactly'"),
        ([{"rule": "deck_size", "exactly": "10"}], "bad value for 'exactly'"),
        ([{"rule": "deck_size", "exactly": 10.0}], "bad value for 'exactly'"),
        ([{"rule": "deck_size", "min": None}], "bad value for 'min'"),
        ([{"rule": "copy_limit", "by": "colour"}], "bad value for 'by'"),
        ([{"rule": "copy_limit", "limits": {"common": -3}}], "bad value for 'limits'"),
        ([{"rule": "copy_limit", "limits": {"common": False}}], "bad value for 'limits'"),
        ([{"rule": "copy_limit", "limits": {"common": "3"}}], "bad value for 'limits'"),
        ([{"rule": "copy_limit", "limits": [3, 2, 1]}], "bad value for 'limits'"),
        ([{"rule": "copy_limit", "default": -1}], "bad value for 'default'"),
        ([{"rule": ["deck_size"]}], "Rule 1"),
        ([{"rule": {"deck_size": 1}}], "Rule 1"),
    ],
)
def test_validate_format_rejects_bad_formats(fmt, fragment):
    errors = validate_format(fmt)
    assert errors, fmt
    assert any(fragment in e for e in errors), errors


def test_validate_format_reports_every_error():
    fmt = [
        {"rule": "deck_size", "exactly": -1, "colour": "red"},
        {"rule": "nope"},
        {"rule": "copy_limit", "by": "name", "default": 3},
    ]
    errors = validate_format(fmt)
    assert len(errors) == 3
    assert any("Rule 1" in e and "'colour'" in e for e in errors)
    assert any("Rule 1" in e and "'exactly'" in e for e in errors)
    assert any("Rule 2" in e for e in errors)


def test_every_rule_reports_one_known_code():
    assert set(legality.CODES) == set(legality.RULES)


def test_each_problem_names_the_rules_section_of_the_rule_that_found_it():
    fmt = [
        {"rule": "deck_size", "exactly": 10, "section": "4.2"},
        {"rule": "colour_identity", "section": "4.4"},
        {"rule": "faction_gate"},
    ]
    assert validate_format(fmt) == []
    hex_ = card("Hex", "rare", {"black"}, {"Abyss"})
    report = check(fmt, KELLANTRA, [(hex_, 1)])
    assert [(p.code, p.ref) for p in report.problems] == [
        ("deck_size", "4.2"),
        ("colour_mismatch", "4.4"),
        ("faction_mismatch", ""),
    ]


@pytest.mark.parametrize("section", ["", "  ", 4, None])
def test_a_rule_section_must_be_a_non_empty_string(section):
    assert validate_format([{"rule": "deck_size", "exactly": 10, "section": section}])
