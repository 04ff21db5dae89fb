"""format_changes.diff: what a format's version changes from the one before, in words."""

from cards import legality
from cards.format_changes import Changes, diff

SECTIONS = [{"slug": "main", "name": "Deck"}]
SIZE = {"rule": "deck_size", "exactly": 10, "section": "5.3"}


def fmt(rules=(), banlist=None, sections=SECTIONS) -> legality.Format:
    return legality.Format.from_data(
        {"sections": sections, "rules": list(rules), "banlist": banlist or {}},
        leader_label="Ruler",
    )


def bans(changes: Changes) -> dict[str, str]:
    return {b.ref: b.words for b in changes.bans}


def test_the_same_rules_written_elsewhere_change_nothing():
    moved = {**SIZE, "section": "9.9", "site_default": True}
    changes = diff(fmt([SIZE], {"hook": 0}), fmt([moved], {"hook": 0}))
    assert not changes and changes == Changes()


def test_bans_say_banned_unbanned_and_limits_card_by_card():
    before = fmt(banlist={"hook": 0, "axe": 2, "orb": 0, "gem": 1})
    after = fmt(banlist={"sword": 0, "axe": 1, "orb": 1, "gem": 3})
    assert bans(diff(before, after)) == {
        "hook": "unbanned",
        "sword": "banned",
        "axe": "limited to 1 copy (was 2)",
        "orb": "unbanned, limited to 1 copy",
        "gem": "limited to 3 copies (was 1)",
    }
    assert bans(diff(fmt(banlist={"axe": 2}), fmt())) == {"axe": "no longer limited (was 2 copies)"}


def test_banlist_rules_count_as_the_ban_list_and_leader_bans_name_the_leader_word():
    rule = {"rule": "banlist", "cards": {"hook": 1}, "leaders": {"arla": 0}}
    changes = diff(fmt(banlist={"hook": 0}), fmt([rule]))
    assert bans(changes) == {"hook": "unbanned, limited to 1 copy", "arla": "banned as Ruler"}
    assert [b.leader for b in changes.bans] == [False, True]
    assert not changes.rules_added  # a ban list is read card by card, not as a rule


def test_the_pool_says_which_sets_and_groups_come_in_and_go_out():
    before = fmt([{"rule": "pool", "sets": ["AAA", "BBB"], "groups": ["Alpha"]}])
    after = fmt([{"rule": "pool", "sets": ["BBB", "CCC"], "groups": ["Beta"]}])
    changes = diff(before, after)
    assert (changes.sets_in, changes.sets_out) == (["CCC"], ["AAA"])
    assert (changes.groups_in, changes.groups_out) == (["Beta"], ["Alpha"])
    assert not changes.rules_changed


def test_a_pool_added_is_a_rule_added_in_words():
    changes = diff(fmt([SIZE]), fmt([SIZE, {"rule": "pool", "sets": ["AAA"]}]))
    assert changes.rules_added == [
        "Only cards with a printing in the set AAA may be used, the Ruler too."
    ]
    assert not changes.sets_in


def test_rules_added_removed_and_changed_are_described_by_their_own_version():
    before = fmt([SIZE, {"rule": "leader_required"}])
    after = fmt([{**SIZE, "exactly": 12}, {"rule": "faction_gate"}])
    changes = diff(before, after)
    assert changes.rules_changed == [
        ("The deck holds exactly 10 cards.", "The deck holds exactly 12 cards.")
    ]
    assert changes.rules_added == [
        "A card of a faction needs a Ruler of that faction (of every one it names)."
    ]
    assert changes.rules_removed == ["A deck has exactly one Ruler."]


def test_two_rules_of_one_kind_are_compared_in_their_own_deck_sections():
    two = [*SECTIONS, {"slug": "side", "name": "Side deck"}]
    main, side = (
        {"rule": "deck_size", "deck": "main", "min": 40},
        {"rule": "deck_size", "deck": "side", "max": 15},
    )
    changes = diff(fmt([main, side], sections=two), fmt([main, {**side, "max": 10}], sections=two))
    assert changes.rules_changed == [
        ("The Side deck holds at most 15 cards.", "The Side deck holds at most 10 cards.")
    ]


def test_deck_sections_added_and_removed_are_named():
    two = [*SECTIONS, {"slug": "side", "name": "Side deck"}]
    assert diff(fmt(), fmt(sections=two)).sections_added == ["Side deck"]
    assert diff(fmt(sections=two), fmt()).sections_removed == ["Side deck"]
