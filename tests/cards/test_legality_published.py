"""The rule kinds of formats as games publish them (formats.md): deck sizes from a list, gated
sections, type limits, exclusive keywords, card pools, ban lists by printing number, banned
combinations, and cards of several types.

Pure: no database. Cards and leaders are built as CardInfo / LeaderInfo by hand or generated.
"""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards import legality
from cards.legality import CardInfo, LeaderInfo

# Force of Will constructed as CR 12.7 402-404 reads, in the rule kinds of formats.md.
SECTIONS = [
    {"slug": "main", "name": "Main deck"},
    {"slug": "stones", "name": "Magic stone deck"},
    {"slug": "side", "name": "Side deck"},
    {"slug": "extra", "name": "Extra deck"},
    {"slug": "runes", "name": "Rune deck"},
    {"slug": "stranger", "name": "Stranger deck"},
]
TYPE_NAMES = {
    "resonator": "Resonator",
    "chant": "Chant",
    "rune": "Rune",
    "master-rune": "Master Rune",
    "magic-stone": "Magic stone",
}
RUNE_SIZES = {"rule": "deck_size", "deck": "runes", "sizes": [0, 5], "section": "402.6a"}
GATES = [
    {"rule": "section_gate", "deck": "extra", "keyword": "Grimoire", "section": "402.5c"},
    {"rule": "section_gate", "deck": "runes", "keyword": "Divinity", "section": "402.6a-1"},
    {"rule": "section_gate", "deck": "stranger", "keyword": "Stranger", "section": "402.7a-1"},
]
MASTER_RUNES = {"rule": "type_limit", "across": ["runes"], "type": "master-rune", "max": 1}
PAIRS = [["Tales", "Villains"], ["Will of Hope", "Will of Despair"]]
EXCLUSIVE = {"rule": "exclusive_keywords", "pairs": PAIRS, "section": "402.2c"}


def fmt_of(rules, banlist=None, sections=SECTIONS) -> legality.Format:
    data = {"sections": sections, "rules": rules, "banlist": banlist or {}}
    return legality.Format.from_data(data, type_names=TYPE_NAMES, leader_label="Ruler")


def card(name, type="resonator", keywords=(), types=(), printings=(), sets=(), groups=()):
    return CardInfo(
        slug=name.lower().replace(" ", "-"),
        name=name,
        type=type,
        keywords=frozenset(keywords),
        types=tuple(types),
        printings=frozenset(printings),
        sets=frozenset(sets),
        groups=frozenset(groups),
    )


def ruler(name, keywords=(), printings=(), sets=(), groups=()):
    return LeaderInfo(
        slug=name.lower().replace(" ", "-"),
        name=name,
        keywords=frozenset(keywords),
        printings=frozenset(printings),
        sets=frozenset(sets),
        groups=frozenset(groups),
    )


def triples(report):
    return [(p.code, p.card, p.section) for p in report.problems]


KAGUYA = ruler("Kaguya")  # no keyword
FAUST = ruler("Faust", keywords={"Grimoire"})
ARLA = ruler("Arla", keywords={"Divinity"})
ALICE = ruler("Alice", keywords={"Tales"})


def runes(n, prefix="Rune"):
    return [(card(f"{prefix} {i}", "rune"), 1, "runes") for i in range(n)]


# --- deck_size with sizes -------------------------------------------------------------------


@pytest.mark.parametrize(("size", "legal"), [(0, True), (3, False), (5, True)])
def test_rune_deck_of_three_breaks_sizes_zero_or_five(size, legal):
    report = legality.check(fmt_of([RUNE_SIZES]), ARLA, runes(size))
    assert triples(report) == ([] if legal else [("deck_size", None, "runes")])


def test_sizes_message_names_every_allowed_count():
    (problem,) = legality.check(fmt_of([RUNE_SIZES]), ARLA, runes(3)).problems
    assert problem.message == "The Rune deck needs 0 or 5 cards; it has 3."
    assert problem.ref == "402.6a"
    stranger = {"rule": "deck_size", "deck": "stranger", "sizes": [10, 0, 5]}
    (problem,) = legality.check(fmt_of([stranger]), None, [(card("S"), 1, "stranger")]).problems
    assert problem.message == "The Stranger deck needs 0, 5 or 10 cards; it has 1."


def test_sizes_of_one_count_needs_exactly_that_many():
    rule = {"rule": "deck_size", "deck": "runes", "sizes": [5]}
    (problem,) = legality.check(fmt_of([rule]), None, runes(4)).problems
    assert problem.message == "The Rune deck needs exactly 5 cards; it has 4."


def test_size_label_of_sizes_lists_the_counts():
    assert legality.size_label(fmt_of([RUNE_SIZES]), "runes") == "0 or 5"


# --- section_gate -----------------------------------------------------------------------------


EXTRA = [(card("Extra One"), 1, "extra"), (card("Extra Two"), 2, "extra")]


def test_extra_deck_is_closed_to_a_ruler_without_grimoire():
    report = legality.check(fmt_of(GATES), KAGUYA, EXTRA)
    assert triples(report) == [("section_closed", None, "extra")]
    assert report.problems[0].ref == "402.5c"
    assert report.problems[0].message == (
        "The Extra deck may hold cards only when the Ruler has the keyword Grimoire, which Kaguya"
        " does not; it holds 3."
    )


@pytest.mark.parametrize("keyword", ["Grimoire", "grimoire", "GRIMOIRE"])
def test_extra_deck_is_open_to_a_grimoire_ruler_whatever_the_case(keyword):
    assert legality.check(fmt_of(GATES), ruler("Faust", {keyword}), EXTRA).legal


def test_a_leaders_faction_counts_as_its_keyword():
    faction_ruler = LeaderInfo("f", "F", factions=frozenset({"Grimoire"}))
    assert legality.check(fmt_of(GATES), faction_ruler, EXTRA).legal


def test_an_empty_gated_section_is_no_problem_for_any_ruler():
    assert legality.check(fmt_of(GATES), KAGUYA, [(card("Main"), 1, "main")]).legal


def test_section_gate_says_nothing_without_a_leader_leader_required_does():
    rules = [{"rule": "leader_required"}, *GATES]
    report = legality.check(fmt_of(rules), None, [*EXTRA, *runes(5)])
    assert triples(report) == [("leader_required", None, None)]


def test_each_closed_section_is_reported_once():
    deck = [*EXTRA, *runes(5), (card("Stranger"), 1, "stranger")]
    report = legality.check(fmt_of(GATES), FAUST, deck)
    assert triples(report) == [
        ("section_closed", None, "runes"),
        ("section_closed", None, "stranger"),
    ]


def test_closed_sections_without_a_leader_closes_every_gated_section_and_says_why():
    closed = legality.closed_sections(fmt_of(GATES), None)
    assert list(closed) == ["extra", "runes", "stranger"]
    assert closed["runes"] == "Only a Ruler with the keyword Divinity may use the Rune deck."


def test_closed_sections_for_a_ruler_are_the_gates_it_lacks_the_keyword_of():
    closed = legality.closed_sections(fmt_of(GATES), FAUST)
    assert list(closed) == ["runes", "stranger"]
    assert closed["stranger"] == (
        "Only a Ruler with the keyword Stranger may use the Stranger deck. Faust does not have it."
    )
    everything = ruler("All", {"grimoire", "Divinity", "Stranger"})
    assert legality.closed_sections(fmt_of(GATES), everything) == {}
    assert legality.closed_sections(fmt_of([RUNE_SIZES]), None) == {}


# --- type_limit -------------------------------------------------------------------------------


def test_two_master_runes_break_a_type_limit_of_one():
    odin = (card("Odin", "master-rune"), 1, "runes")
    deck = [*runes(3), odin, (card("Thor", "master-rune"), 1, "runes")]
    report = legality.check(fmt_of([RUNE_SIZES, MASTER_RUNES]), ARLA, deck)
    assert triples(report) == [("type_limit", None, "runes")]
    assert (
        report.problems[0].message == "At most 1 Master Rune card in the Rune deck; the deck has 2."
    )
    assert legality.check(fmt_of([RUNE_SIZES, MASTER_RUNES]), ARLA, [*runes(4), odin]).legal


def test_type_limit_counts_copies_across_sections_and_names_no_section_when_spread():
    rule = {"rule": "type_limit", "type": "master-rune", "max": 1}
    odin = card("Odin", "master-rune")
    assert triples(legality.check(fmt_of([rule]), None, [(odin, 2, "runes")])) == [
        ("type_limit", None, "runes")
    ]
    spread = [(odin, 1, "runes"), (odin, 1, "side")]
    report = legality.check(fmt_of([rule]), None, spread)
    assert triples(report) == [("type_limit", None, None)]
    assert report.problems[0].message == "At most 1 Master Rune card; the deck has 2."


def test_type_limit_by_keyword_ignores_case_and_cards_outside_its_sections():
    rule = {"rule": "type_limit", "keyword": "Legend", "max": 2, "across": ["main", "side"]}
    legend = card("Legend", keywords={"legend"})
    report = legality.check(fmt_of([rule]), None, [(legend, 3, "main"), (legend, 4, "extra")])
    assert triples(report) == [("type_limit", None, "main")]
    assert report.problems[0].message == (
        "At most 2 cards with the keyword Legend in the Main deck and the Side deck;"
        " the deck has 3."
    )
    assert legality.check(fmt_of([rule]), None, [(legend, 2, "main"), (legend, 9, "extra")]).legal


def test_type_limit_reads_every_type_of_a_card():
    two_faced = card("Odin", "rune", types=("rune", "master-rune"))
    deck = [(two_faced, 1, "runes"), (card("Thor", "master-rune"), 1, "runes")]
    assert [p.code for p in legality.check(fmt_of([MASTER_RUNES]), ARLA, deck).problems] == [
        "type_limit"
    ]


# --- exclusive_keywords -----------------------------------------------------------------------


TALE = card("Snow White", keywords={"Tales"})
VILLAIN = card("Wicked Queen", keywords={"Villains"})
HOPE = card("Hope", keywords={"Will of Hope"})
DESPAIR = card("Despair", keywords={"Will of Despair"})


def test_tales_ruler_with_a_villains_card_is_exclusive_keywords_for_that_card():
    deck = [(TALE, 4, "main"), (VILLAIN, 1, "side"), (VILLAIN, 1, "main")]
    report = legality.check(fmt_of([EXCLUSIVE]), ALICE, deck)
    assert triples(report) == [("exclusive_keywords", VILLAIN.slug, "main")]
    assert report.problems[0].ref == "402.2c"
    assert report.problems[0].message == (
        "Wicked Queen has the keyword Villains, and Alice has Tales: a deck may not hold both."
    )


def test_a_villains_ruler_refuses_every_tales_card_even_the_majority():
    report = legality.check(fmt_of([EXCLUSIVE]), ruler("Hook", {"villains"}), [(TALE, 4, "main")])
    assert triples(report) == [("exclusive_keywords", TALE.slug, "main")]


def test_ruler_of_no_side_with_both_sides_in_deck_reports_the_side_with_fewer_copies():
    deck = [
        (TALE, 3, "main"),
        (VILLAIN, 1, "main"),
        (card("Hook", keywords={"Villains"}), 1, "side"),
    ]
    report = legality.check(fmt_of([EXCLUSIVE]), KAGUYA, deck)
    assert triples(report) == [
        ("exclusive_keywords", VILLAIN.slug, "main"),
        ("exclusive_keywords", "hook", "side"),
    ]
    assert report.problems[0].message == (
        "Wicked Queen has the keyword Villains, and the deck holds Tales cards (3 copies to 2):"
        " a deck may not hold both."
    )


def test_a_tie_reports_the_second_keyword_of_the_pair():
    deck = [(HOPE, 2, "main"), (DESPAIR, 2, "main")]
    report = legality.check(fmt_of([EXCLUSIVE]), None, deck)
    assert triples(report) == [("exclusive_keywords", DESPAIR.slug, "main")]


def test_a_card_holding_both_sides_of_a_pair_is_always_a_problem():
    both = card("Janus", keywords={"Tales", "Villains"})
    for leader in (None, KAGUYA, ALICE):
        report = legality.check(fmt_of([EXCLUSIVE]), leader, [(both, 1, "main"), (TALE, 4, "main")])
        assert triples(report) == [("exclusive_keywords", "janus", "main")], leader
    (problem,) = legality.card_problems(fmt_of([EXCLUSIVE]), KAGUYA, both)
    assert problem.message == "Janus has the keywords Tales and Villains: a deck may not hold both."


def test_each_pair_is_judged_on_its_own_and_a_card_is_reported_once():
    evil = card("Evil", keywords={"Villains", "Will of Despair"})
    leader = ruler("Both", {"Tales", "Will of Hope"})
    report = legality.check(fmt_of([EXCLUSIVE]), leader, [(evil, 1, "main"), (HOPE, 1, "main")])
    assert triples(report) == [("exclusive_keywords", "evil", "main")]


def test_exclusive_keywords_counts_only_its_across_sections():
    rule = {**EXCLUSIVE, "across": ["main", "side"]}
    assert legality.check(fmt_of([rule]), ALICE, [(VILLAIN, 1, "stranger")]).legal
    deck = [(TALE, 1, "main"), (VILLAIN, 1, "stranger")]
    assert legality.check(fmt_of([rule]), None, deck).legal
    assert not legality.check(fmt_of([EXCLUSIVE]), None, deck).legal


def test_exclusive_keywords_requirement_forbids_the_other_side_of_the_leaders_keywords():
    wanted = legality.requirement(EXCLUSIVE, ALICE)
    pairs = frozenset({("Tales", "Villains"), ("Will of Hope", "Will of Despair")})
    assert wanted == legality.NoneOf("keywords", frozenset({"Villains"}), pairs)
    assert legality.requirement(EXCLUSIVE, None) == legality.NoneOf("keywords", frozenset(), pairs)
    assert not wanted.holds(card("V", keywords={"VILLAINS"}))
    assert wanted.holds(TALE) and wanted.holds(HOPE) and wanted.holds(DESPAIR)
    fmt = fmt_of([EXCLUSIVE])
    assert [(p.code, p.card, p.ref) for p in legality.card_problems(fmt, ALICE, VILLAIN)] == [
        ("exclusive_keywords", VILLAIN.slug, "402.2c")
    ]
    assert legality.card_problems(fmt, KAGUYA, VILLAIN) == []


# --- pool ---------------------------------------------------------------------------------------


POOL = {"rule": "pool", "sets": ["CMF", "TAT"], "groups": ["Alice"], "section": "12.7"}
IN_SET = card("Fairy", sets={"CMF", "MOA"}, groups={"Grimm"})
IN_GROUP = card("Rabbit", sets={"SKL"}, groups={"Alice"})
OUTSIDE = card("Old", sets={"MPR"}, groups={"Valhalla"})


def test_a_card_outside_the_pool_by_set_is_not_in_pool_and_one_inside_by_group_is_legal():
    deck = [(IN_SET, 1, "main"), (IN_GROUP, 1, "main"), (OUTSIDE, 2, "side"), (OUTSIDE, 1, "main")]
    report = legality.check(fmt_of([POOL]), KAGUYA, deck)
    assert triples(report) == [("not_in_pool", OUTSIDE.slug, "main")]
    assert report.problems[0].message == (
        "Old has no printing in the sets CMF, TAT or the set group Alice."
    )


def test_a_card_without_printings_is_outside_every_pool():
    report = legality.check(fmt_of([{"rule": "pool", "sets": ["CMF"]}]), None, [(card("X"), 1)])
    assert triples(report) == [("not_in_pool", "x", "main")]


def test_pool_judges_the_cards_with_no_leader_chosen():
    report = legality.check(fmt_of([POOL]), None, [(OUTSIDE, 1, "main")])
    assert triples(report) == [("not_in_pool", OUTSIDE.slug, "main")]
    assert [p.code for p in legality.card_problems(fmt_of([POOL]), None, OUTSIDE)] == [
        "not_in_pool"
    ]


def test_a_leader_outside_the_pool_is_not_in_pool_and_one_without_printing_data_is_not_judged():
    old = ruler("Old Ruler", sets={"MPR"})
    report = legality.check(fmt_of([POOL]), old, [(IN_SET, 1, "main")])
    assert triples(report) == [("not_in_pool", None, None)]
    assert report.problems[0].message == (
        "Old Ruler (Ruler) has no printing in the sets CMF, TAT or the set group Alice."
    )
    assert legality.check(fmt_of([POOL]), ruler("Grimm", groups={"Alice"}, sets={"X"}), []).legal
    assert legality.check(fmt_of([POOL]), KAGUYA, []).legal


def test_pool_requirement_is_in_pool_of_its_sets_and_groups():
    assert legality.requirement(POOL, KAGUYA) == legality.InPool(
        frozenset({"CMF", "TAT"}), frozenset({"Alice"})
    )
    only_groups = legality.requirement({"rule": "pool", "groups": ["Grimm"]}, None)
    assert only_groups == legality.InPool(frozenset(), frozenset({"Grimm"}))
    assert only_groups.holds(IN_SET) and not only_groups.holds(IN_GROUP)


# --- banlist by printing number, leaders --------------------------------------------------------


REPRINT = card("Reflect", printings={"CMF-071", "RDE-002"}, sets={"CMF", "RDE"})


@pytest.mark.parametrize("ref", ["RDE-002", "rde-002", "reflect"])
def test_a_reprint_is_banned_through_any_printings_number_or_its_slug(ref):
    fmt = fmt_of([{"rule": "banlist", "cards": {ref: 0}}])
    report = legality.check(fmt, KAGUYA, [(REPRINT, 1, "side")])
    assert triples(report) == [("banned", REPRINT.slug, "side")]
    assert report.problems[0].message == "Reflect is banned in this format."


def test_a_restriction_by_printing_number_counts_the_cards_copies_in_every_section():
    fmt = fmt_of([], banlist={"CMF-071": 1})
    report = legality.check(fmt, KAGUYA, [(REPRINT, 1, "main"), (REPRINT, 1, "side")])
    assert triples(report) == [("banned", REPRINT.slug, "main")]
    assert (
        report.problems[0].message == "Reflect is restricted to 1 copy in this format, deck has 2"
    )
    assert legality.check(fmt, KAGUYA, [(REPRINT, 1, "side")]).legal


def test_the_lowest_limit_wins_when_a_card_is_listed_twice():
    fmt = fmt_of([], banlist={"reflect": 3, "RDE-002": 1})
    assert legality.copy_limit(fmt, REPRINT, "main") == 1
    assert [p.code for p in legality.check(fmt, None, [(REPRINT, 2, "main")]).problems] == [
        "banned"
    ]


def test_copy_limit_of_a_card_honours_printing_numbers_of_the_format_banlist():
    assert legality.copy_limit(fmt_of([], banlist={"cmf-071": 0}), REPRINT, "main") == 0
    assert legality.copy_limit(fmt_of([], banlist={"CMF-999": 0}), REPRINT, "main") is None


@pytest.mark.parametrize("ref", ["CMF-013", "cmf-013j", "grimm"])
def test_a_leader_banned_by_printing_number_or_slug_is_banned(ref):
    grimm = ruler("Grimm", printings={"CMF-013", "CMF-013J"})
    fmt = fmt_of([{"rule": "banlist", "leaders": {ref: 0}, "section": "W"}])
    report = legality.check(fmt, grimm, [])
    assert [(p.code, p.card, p.section, p.ref) for p in report.problems] == [
        ("banned", None, None, "W")
    ]
    assert report.problems[0].message == "Grimm is banned as a Ruler in this format."
    assert legality.check(fmt, KAGUYA, []).legal
    assert legality.check(fmt, None, []).legal


def test_a_leader_listed_with_a_count_other_than_zero_is_not_banned():
    grimm = ruler("Grimm", printings={"CMF-013"})
    assert legality.check(fmt_of([{"rule": "banlist", "leaders": {"CMF-013": 1}}]), grimm, []).legal


# --- combination_ban ---------------------------------------------------------------------------


BAD = card("Bad Card", printings={"TSW-001"})
OTHER = card("Other Card", printings={"TSW-002"})
PAIR_BAN = {"rule": "combination_ban", "groups": [["bad-card", "TSW-002"]], "section": "W"}


def test_two_cards_banned_together_are_banned_combination_only_when_both_are_in():
    report = legality.check(fmt_of([PAIR_BAN]), KAGUYA, [(BAD, 1, "main"), (OTHER, 1, "side")])
    assert [(p.code, p.card, p.section, p.ref) for p in report.problems] == [
        ("banned_combination", OTHER.slug, "side", "W")
    ]
    assert report.problems[0].message == (
        "Bad Card and Other Card may not be in one deck (banned together)."
    )
    assert legality.check(fmt_of([PAIR_BAN]), KAGUYA, [(BAD, 4, "main")]).legal
    assert legality.check(fmt_of([PAIR_BAN]), KAGUYA, [(OTHER, 4, "main")]).legal


def test_a_leader_and_a_card_banned_together_are_banned_combination():
    grimm = ruler("Grimm", printings={"CMF-013", "CMF-013J"})
    rule = {"rule": "combination_ban", "groups": [["CMF-013J", "TSW-001"]]}
    report = legality.check(fmt_of([rule]), grimm, [(BAD, 1, "stones")])
    assert triples(report) == [("banned_combination", BAD.slug, "stones")]
    assert report.problems[0].message == (
        "The Ruler Grimm and Bad Card may not be in one deck (banned together)."
    )
    assert legality.check(fmt_of([rule]), KAGUYA, [(BAD, 1, "stones")]).legal
    assert legality.check(fmt_of([rule]), grimm, [(OTHER, 1, "stones")]).legal


def test_each_banned_group_present_is_one_problem():
    rule = {"rule": "combination_ban", "groups": [["bad-card", "other-card"], ["x", "bad-card"]]}
    deck = [(BAD, 1, "main"), (OTHER, 1, "main"), (card("X"), 1, "main")]
    report = legality.check(fmt_of([rule]), None, deck)
    assert triples(report) == [
        ("banned_combination", OTHER.slug, "main"),
        ("banned_combination", BAD.slug, "main"),
    ]


def test_a_group_naming_the_same_card_twice_is_no_combination():
    rule = {"rule": "combination_ban", "groups": [["bad-card", "TSW-001"], ["x", "x"]]}
    assert legality.check(fmt_of([rule]), None, [(BAD, 1, "main"), (card("X"), 1, "main")]).legal


# --- cards of several types ---------------------------------------------------------------------


def sections_but(excluded):
    return [s["slug"] for s in SECTIONS if s["slug"] not in excluded]


CHANT_RUNE = card("Rune of Odin", "chant", types=("chant", "rune"))
RUNE_SECTION = {"rule": "section_types", "deck": "runes", "types": ["rune", "master-rune"]}
MAIN_SECTION = {"rule": "section_types", "deck": "main", "types": ["resonator", "chant"]}


def test_a_card_of_types_chant_and_rune_may_go_in_a_section_that_takes_rune():
    fmt = fmt_of([RUNE_SECTION, MAIN_SECTION])
    assert legality.check(fmt, None, [(CHANT_RUNE, 1, "runes"), (CHANT_RUNE, 1, "main")]).legal
    assert legality.allowed_sections(fmt, CHANT_RUNE) == sections_but([])


def test_a_card_of_none_of_the_sections_types_names_all_its_types():
    stone_face = card("Two Faced", "resonator", types=("resonator", "magic-stone"))
    report = legality.check(fmt_of([RUNE_SECTION]), None, [(stone_face, 1, "runes")])
    assert triples(report) == [("wrong_section", "two-faced", "runes")]
    assert report.problems[0].message == (
        "Two Faced (Resonator, Magic stone) cannot go in the Rune deck, which takes: Rune,"
        " Master Rune."
    )
    assert legality.allowed_sections(fmt_of([RUNE_SECTION]), stone_face) == sections_but(["runes"])


def test_types_of_is_the_type_then_the_faces_types_once_each():
    assert legality.types_of(card("A", "chant")) == ("chant",)
    assert legality.types_of(CHANT_RUNE) == ("chant", "rune")
    assert legality.types_of(card("B", "rune", types=("chant",))) == ("rune", "chant")
    assert legality.types_of(CardInfo("c", "C")) == ()


def test_requires_type_and_copy_limit_filters_read_a_faces_type():
    required = {"rule": "requires_type", "type": "rune", "deck": "main"}
    assert legality.check(fmt_of([required]), None, [(CHANT_RUNE, 1, "main")]).legal
    unlimited = {"rule": "copy_limit", "default": 1, "unlimited": {"type": "rune"}}
    assert legality.check(fmt_of([unlimited]), None, [(CHANT_RUNE, 9, "main")]).legal
    assert legality.copy_limit(fmt_of([unlimited]), CHANT_RUNE) is None


def test_old_positional_card_and_leader_info_still_build():
    info = CardInfo("s", "N", "rare", frozenset(), frozenset(), "chant", frozenset({"K"}), None)
    assert info.types == () and info.printings == info.sets == info.groups == frozenset()
    leader = LeaderInfo("l", "L", frozenset({"red"}), frozenset(), frozenset())
    assert leader.keywords == leader.printings == leader.sets == leader.groups == frozenset()


# --- every rule in one format: each still reports ------------------------------------------------


def test_check_reports_the_problems_of_every_new_rule_together_in_format_order():
    rules = [
        {"rule": "leader_required"},
        RUNE_SIZES,
        *GATES,
        MASTER_RUNES,
        EXCLUSIVE,
        POOL,
        {"rule": "banlist", "cards": {"RDE-002": 0}, "leaders": {"kaguya": 0}},
        PAIR_BAN,
    ]
    deck = [
        (card("Odin", "master-rune", sets={"CMF"}), 2, "runes"),
        (card("Queen", keywords={"Villains"}, sets={"CMF"}), 1, "main"),
        (card("Tale", keywords={"Tales"}, sets={"CMF"}), 2, "main"),
        (REPRINT, 1, "side"),
        (BAD, 1, "main"),
        (OTHER, 1, "main"),
    ]
    report = legality.check(fmt_of(rules), KAGUYA, deck)
    assert triples(report) == [
        ("deck_size", None, "runes"),
        ("section_closed", None, "runes"),
        ("type_limit", None, "runes"),
        ("exclusive_keywords", "queen", "main"),
        ("not_in_pool", BAD.slug, "main"),
        ("not_in_pool", OTHER.slug, "main"),
        ("banned", None, None),
        ("banned", REPRINT.slug, "side"),
        ("banned_combination", OTHER.slug, "main"),
    ]


# --- validate_format ----------------------------------------------------------------------------


def data(*rules, banlist=None):
    return {"sections": SECTIONS, "rules": list(rules), "banlist": banlist or {}}


CARD_TYPES = list(TYPE_NAMES)
ONE_OF_EACH_NEW_KIND = [
    RUNE_SIZES,
    *GATES,
    MASTER_RUNES,
    {"rule": "type_limit", "keyword": "Legend", "max": 2},
    EXCLUSIVE,
    {**EXCLUSIVE, "across": ["main", "side", "extra"]},
    POOL,
    {"rule": "pool", "sets": ["CMF"]},
    {"rule": "pool", "groups": ["Alice"]},
    {"rule": "banlist", "cards": {"CMF-071": 0, "reflect": 1}, "leaders": {"CMF-013J": 0}},
    PAIR_BAN,
    {"rule": "combination_ban", "groups": [["a", "b", "c"], ["CMF-013J", "TSW-001"]]},
]


@pytest.mark.parametrize("rule", ONE_OF_EACH_NEW_KIND, ids=str)
def test_validate_format_accepts_each_new_kind(rule):
    assert legality.validate_format(data(rule), card_types=CARD_TYPES) == []


def test_validate_format_accepts_printing_numbers_in_the_formats_own_banlist():
    assert legality.validate_format(data(banlist={"CMF-071": 0, "TSW-109J": 1})) == []


@pytest.mark.parametrize(
    ("rule", "fragment"),
    [
        (
            {"rule": "deck_size", "deck": "runes", "sizes": []},
            "bad value for 'sizes': []; expected a non-empty list of card counts",
        ),
        ({"rule": "deck_size", "sizes": [0, -5]}, "bad value for 'sizes'"),
        ({"rule": "deck_size", "sizes": 5}, "bad value for 'sizes'"),
        ({"rule": "deck_size", "sizes": ["5"]}, "bad value for 'sizes'"),
        (
            {"rule": "deck_size", "sizes": [0, 5], "max": 5},
            "'sizes' cannot go with 'min', 'max' or 'exactly'",
        ),
        ({"rule": "deck_size", "sizes": [5], "exactly": 5}, "'sizes' cannot go with"),
        ({"rule": "section_gate", "keyword": "Grimoire"}, "(section_gate): 'deck' is required"),
        ({"rule": "section_gate", "deck": "extra"}, "(section_gate): 'keyword' is required"),
        ({"rule": "section_gate", "deck": "sideboard", "keyword": "X"}, "bad value for 'deck'"),
        ({"rule": "section_gate", "deck": "extra", "keyword": " "}, "bad value for 'keyword'"),
        ({"rule": "type_limit", "type": "rune"}, "(type_limit): 'max' is required"),
        ({"rule": "type_limit", "max": 1}, "(type_limit): 'type' or 'keyword' is required"),
        (
            {"rule": "type_limit", "max": 1, "type": "rune", "keyword": "Rune"},
            "give 'type' or 'keyword', not both",
        ),
        ({"rule": "type_limit", "max": 1, "type": "land"}, "bad value for 'type'"),
        ({"rule": "type_limit", "max": -1, "type": "rune"}, "bad value for 'max'"),
        ({"rule": "type_limit", "max": 1, "type": "rune", "across": []}, "bad value for 'across'"),
        ({"rule": "exclusive_keywords"}, "(exclusive_keywords): 'pairs' is required"),
        (
            {"rule": "exclusive_keywords", "pairs": [["Tales"]]},
            "expected a list of pairs of two different keywords",
        ),
        ({"rule": "exclusive_keywords", "pairs": [["A", "B", "C"]]}, "bad value for 'pairs'"),
        ({"rule": "exclusive_keywords", "pairs": [["Tales", "tales"]]}, "bad value for 'pairs'"),
        ({"rule": "exclusive_keywords", "pairs": [["Tales", ""]]}, "bad value for 'pairs'"),
        ({"rule": "exclusive_keywords", "pairs": ["Tales", "Villains"]}, "bad value for 'pairs'"),
        ({"rule": "exclusive_keywords", "pairs": []}, "bad value for 'pairs'"),
        (
            {"rule": "exclusive_keywords", "pairs": PAIRS, "across": ["runez"]},
            "bad value for 'across'",
        ),
        ({"rule": "pool"}, "(pool): 'sets' or 'groups' is required"),
        ({"rule": "pool", "sets": "CMF"}, "bad value for 'sets'"),
        ({"rule": "pool", "sets": []}, "bad value for 'sets'"),
        ({"rule": "pool", "groups": [""]}, "bad value for 'groups'"),
        ({"rule": "pool", "sets": ["CMF"], "cards": ["x"]}, "unknown parameter 'cards'"),
        (
            {"rule": "banlist", "leaders": ["grimm"]},
            "expected a map of leader slugs or printing numbers to 0",
        ),
        ({"rule": "banlist", "leaders": {"grimm": -1}}, "bad value for 'leaders'"),
        ({"rule": "combination_ban"}, "(combination_ban): 'groups' is required"),
        (
            {"rule": "combination_ban", "groups": [["only-one"]]},
            "expected a list of groups, each a list of two or more",
        ),
        ({"rule": "combination_ban", "groups": [["a", 7]]}, "bad value for 'groups'"),
        ({"rule": "combination_ban", "groups": ["a", "b"]}, "bad value for 'groups'"),
        ({"rule": "combination_ban", "groups": []}, "bad value for 'groups'"),
    ],
)
def test_validate_format_rejects_bad_parameters_of_the_new_kinds(rule, fragment):
    errors = legality.validate_format(data(rule), card_types=CARD_TYPES)
    assert any(fragment in e for e in errors), errors


LEGACY = {
    "leader_required",
    "deck_size",
    "copy_limit",
    "section_types",
    "colour_identity",
    "faction_gate",
    "loyalty_gate",
    "requires_type",
    "banlist",
}


def test_every_new_kind_has_its_code():
    assert {k: legality.CODES[k] for k in legality.RULES if k not in LEGACY} == {
        "section_gate": "section_closed",
        "type_limit": "type_limit",
        "exclusive_keywords": "exclusive_keywords",
        "pool": "not_in_pool",
        "combination_ban": "banned_combination",
    }
    assert set(legality.CODES) == set(legality.RULES)
    assert {"exclusive_keywords", "pool"} <= set(legality.LEADER_RULES)


# --- describe -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "sentence"),
    [
        (RUNE_SIZES, "The Rune deck holds 0 or 5 cards."),
        (
            GATES[1],
            "The Rune deck may hold cards only when the Ruler has the keyword Divinity.",
        ),
        (MASTER_RUNES, "At most 1 Master Rune card in the Rune deck."),
        (
            {"rule": "type_limit", "keyword": "Legend", "max": 2},
            "At most 2 cards with the keyword Legend.",
        ),
        (
            EXCLUSIVE,
            "A deck may not mix Tales cards with Villains cards, nor Will of Hope cards with"
            " Will of Despair cards; the Ruler's keywords count too.",
        ),
        (
            POOL,
            "Only cards with a printing in the sets CMF, TAT or the set group Alice may be used,"
            " the Ruler too.",
        ),
        (
            {"rule": "banlist", "cards": {"CMF-071": 0}, "leaders": {"CMF-013J": 0}},
            "Cards on the ban list are limited as listed (0 = banned); banned as Ruler: CMF-013J.",
        ),
        (
            PAIR_BAN,
            "Some cards and Rulers may not all be in one deck: 1 combination banned together.",
        ),
    ],
)
def test_describe_gives_a_sentence_for_each_new_kind(rule, sentence):
    assert legality.describe(rule, fmt_of([rule])) == sentence


# --- properties ---------------------------------------------------------------------------------


KEYWORDS = ["Tales", "Villains", "tales", "Will of Hope", "Will of Despair", "Basic"]
SETS = ["CMF", "TAT", "MPR", "SKL"]
GROUPS = ["Grimm", "Alice", "Valhalla"]
SLUGS = [s["slug"] for s in SECTIONS]
subsets = st.frozensets


def generated_leaders():
    return st.builds(
        LeaderInfo,
        slug=st.just("leader"),
        name=st.just("Leader"),
        keywords=subsets(st.sampled_from(KEYWORDS), max_size=3),
        printings=subsets(st.sampled_from(["L-001", "L-002"]), max_size=1),
        sets=subsets(st.sampled_from(SETS), max_size=2),
        groups=subsets(st.sampled_from(GROUPS), max_size=1),
    )


@st.composite
def generated_decks(draw, max_cards=7):
    """Entries of distinct cards (slug s-<name>, printings <NAME>-1 and <NAME>-2), each in one
    or two sections."""
    names = draw(
        st.lists(st.text("abcdef", min_size=1, max_size=4), max_size=max_cards, unique=True)
    )
    deck = []
    for name in names:
        info = CardInfo(
            f"s-{name}",
            name,
            type=draw(st.sampled_from(["resonator", "rune", "master-rune"])),
            keywords=draw(subsets(st.sampled_from(KEYWORDS), max_size=3)),
            printings=frozenset({f"{name.upper()}-1", f"{name.upper()}-2"}),
            sets=draw(subsets(st.sampled_from(SETS), max_size=2)),
            groups=draw(subsets(st.sampled_from(GROUPS), max_size=1)),
        )
        for section in draw(st.lists(st.sampled_from(SLUGS), min_size=1, max_size=2, unique=True)):
            deck.append((info, draw(st.integers(1, 4)), section))
    return deck


def pairs_rule():
    return st.fixed_dictionaries(
        {"rule": st.just("exclusive_keywords"), "pairs": st.just(PAIRS)},
        optional={"across": st.lists(st.sampled_from(SLUGS), min_size=1, max_size=3, unique=True)},
    )


def reported(report, code):
    return [p.card for p in report.problems if p.code == code]


def restated_exclusive(rule, leader, deck):
    """exclusive_keywords as formats.md states it, written without the engine: the cards (in
    deck order, once each) it reports."""
    across = rule.get("across") or SLUGS
    held = [(c, n) for c, n, s in deck if s in across]
    own = {k.casefold() for k in (leader.keywords if leader else ())}
    bad = []
    for a, b in rule["pairs"]:
        a, b = a.casefold(), b.casefold()

        def has(c, k):
            return k in {w.casefold() for w in c.keywords}

        if a in own or b in own:
            bad += [c.slug for c, _ in held if has(c, b) and a in own or has(c, a) and b in own]
        else:
            copies_a = sum(n for c, n in held if has(c, a))
            copies_b = sum(n for c, n in held if has(c, b))
            if copies_a and copies_b:
                loser = b if copies_b <= copies_a else a
                bad += [c.slug for c, _ in held if has(c, loser)]
        bad += [c.slug for c, _ in held if has(c, a) and has(c, b)]
    return [c.slug for c in dict.fromkeys(c for c, _ in held) if c.slug in bad]


@settings(max_examples=300, deadline=None)
@given(pairs_rule(), st.one_of(st.none(), generated_leaders()), generated_decks())
def test_exclusive_keywords_verdict_equals_the_restated_rule(rule, leader, deck):
    report = legality.check(fmt_of([rule]), leader, deck)
    assert reported(report, "exclusive_keywords") == restated_exclusive(rule, leader, deck)


@settings(max_examples=300, deadline=None)
@given(pairs_rule(), st.one_of(st.none(), generated_leaders()), generated_decks())
def test_card_problems_of_exclusive_keywords_are_reported_by_check_for_those_cards(
    rule, leader, deck
):
    """A card the requirement refuses is reported in any deck holding it in a counted section;
    when the leader holds a side of every pair, those are the only cards reported."""
    fmt = fmt_of([rule])
    across = rule.get("across") or SLUGS
    refused = {c.slug for c, _, s in deck if s in across and legality.card_problems(fmt, leader, c)}
    got = set(reported(legality.check(fmt, leader, deck), "exclusive_keywords"))
    assert refused <= got
    own = {k.casefold() for k in (leader.keywords if leader else ())}
    if all(a.casefold() in own or b.casefold() in own for a, b in PAIRS):
        assert got == refused


@st.composite
def pool_rules(draw):
    rule = {"rule": "pool"}
    if draw(st.booleans()):
        rule["sets"] = draw(st.lists(st.sampled_from(SETS), min_size=1, max_size=3, unique=True))
    if "sets" not in rule or draw(st.booleans()):
        rule["groups"] = draw(
            st.lists(st.sampled_from(GROUPS), min_size=1, max_size=2, unique=True)
        )
    assert legality.validate_format(data(rule)) == []
    return rule


@settings(max_examples=300, deadline=None)
@given(pool_rules(), st.one_of(st.none(), generated_leaders()), generated_decks())
def test_pool_card_problems_are_exactly_the_cards_check_reports(rule, leader, deck):
    fmt = fmt_of([rule])
    report = legality.check(fmt, leader, deck)
    outside = [
        c.slug
        for c in dict.fromkeys(c for c, _, _ in deck)
        if legality.card_problems(fmt, leader, c)
    ]
    assert [p for p in reported(report, "not_in_pool") if p is not None] == outside
    restated = [
        c.slug
        for c in dict.fromkeys(c for c, _, _ in deck)
        if not (c.sets & set(rule.get("sets", ())) or c.groups & set(rule.get("groups", ())))
    ]
    assert outside == restated
    leader_out = (
        leader is not None
        and bool(leader.sets)
        and not (
            leader.sets & set(rule.get("sets", ())) or leader.groups & set(rule.get("groups", ()))
        )
    )
    assert reported(report, "not_in_pool").count(None) == int(leader_out)


@settings(max_examples=300, deadline=None)
@given(st.data(), st.one_of(st.none(), generated_leaders()), generated_decks(5), generated_decks(3))
def test_adding_cards_never_removes_a_combination_ban_problem(data, leader, deck, more):
    known = {c.name for c, _, _ in deck}
    added = [entry for entry in more if entry[0].name not in known]
    # Groups of slugs and printing numbers of these cards and the leader, and of no card.
    names = sorted({ref for c, _, _ in deck + added for ref in (c.slug, *c.printings)})
    refs = st.sampled_from([*names, "leader", "L-001", "l-002", "s-nothing", "NONE-1"])
    groups = data.draw(st.lists(st.lists(refs, min_size=2, max_size=3), min_size=1, max_size=6))
    fmt = fmt_of([{"rule": "combination_ban", "groups": groups}])
    before = Counter(p.message for p in legality.check(fmt, leader, deck).problems)
    after = Counter(p.message for p in legality.check(fmt, leader, deck + added).problems)
    assert not before - after


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                RUNE_SIZES,
                *GATES,
                MASTER_RUNES,
                EXCLUSIVE,
                POOL,
                {"rule": "banlist", "cards": {"A-1": 0}, "leaders": {"L-001": 0}},
                {"rule": "combination_ban", "groups": [["s-a", "B-2"], ["leader", "s-c"]]},
                {"rule": "copy_limit", "default": 1, "across": ["runes"]},
            ]
        ),
        max_size=6,
    ),
    st.one_of(st.none(), generated_leaders()),
    generated_decks(),
)
def test_a_format_reports_every_problem_each_of_its_rules_reports_alone(rules, leader, deck):
    together = legality.check(fmt_of(rules), leader, deck).problems
    alone = [p for rule in rules for p in legality.check(fmt_of([rule]), leader, deck).problems]
    assert together == alone


@settings(max_examples=200, deadline=None)
@given(subsets(st.sampled_from(["Grimoire", "divinity", "STRANGER", "Tales"])), generated_decks())
def test_section_gate_reports_exactly_the_closed_sections_that_hold_cards(keywords, deck):
    leader = LeaderInfo("leader", "Leader", keywords=keywords)
    fmt = fmt_of(GATES)
    closed = legality.closed_sections(fmt, leader)
    holding = {s for _, _, s in deck}
    got = [p.section for p in legality.check(fmt, leader, deck).problems]
    assert got == [s for s in closed if s in holding]


# --- section_types with a keyword: the stranger deck takes Stranger cards only -----------------

STRANGER_ONLY = {
    "rule": "section_types",
    "deck": "stranger",
    "types": ["resonator", "chant"],
    "keyword": "Stranger",
}


def test_the_stranger_deck_takes_a_stranger_card_and_refuses_a_plain_one():
    stranger = card("Stranger of the Gate", keywords={"stranger"})  # any case
    plain = card("Plain Knight")
    report = legality.check(
        fmt_of([STRANGER_ONLY]), None, [(stranger, 2, "stranger"), (plain, 1, "stranger")]
    )
    assert triples(report) == [("wrong_section", "plain-knight", "stranger")]
    assert "with the keyword Stranger" in report.problems[0].message
    assert legality.allowed_sections(fmt_of([STRANGER_ONLY]), plain) == [
        s["slug"] for s in SECTIONS if s["slug"] != "stranger"
    ]
    assert "stranger" in legality.allowed_sections(fmt_of([STRANGER_ONLY]), stranger)


def test_a_stranger_keyword_of_the_wrong_type_is_still_refused():
    rune = card("Stranger Rune", "rune", keywords={"Stranger"})
    report = legality.check(fmt_of([STRANGER_ONLY]), None, [(rune, 1, "stranger")])
    assert [p.code for p in report.problems] == ["wrong_section"]


def test_section_types_with_a_keyword_is_described_and_valid():
    assert legality.validate_format({"sections": SECTIONS, "rules": [STRANGER_ONLY]}) == []
    text = legality.describe(STRANGER_ONLY, fmt_of([STRANGER_ONLY]))
    assert text == (
        "The Stranger deck takes only cards with the keyword Stranger, of these types:"
        " Resonator, Chant."
    )
