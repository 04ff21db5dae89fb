"""Generated decks and cards: the engine agrees with a plain restatement of the rules, and the
database filter (`Card.objects.usable_by`) agrees with the engine's `card_problems`.
"""

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cards import legality, services
from cards.legality import CardInfo, LeaderInfo
from cards.models import Card, Game, Leader

SAMPLE = Path(__file__).resolve().parents[2] / "cards" / "sample" / "card-of-gods.json"
COG = json.loads(SAMPLE.read_text())["game"]["format"]
COLOURS = ["yellow", "red", "green", "black"]
DOMAIN_OF = {"yellow": "creation", "red": "destruction", "green": "life", "black": "death"}
FACTIONS = ["Engeln", "Keld", "Kriegmark", "Abyss"]
RARITIES = ["common", "uncommon", "rare"]
LIMITS = {"common": 3, "uncommon": 2, "rare": 1}

subsets = st.frozensets


def leaders():
    return st.builds(
        LeaderInfo,
        slug=st.just("leader"),
        name=st.just("Leader"),
        colours=subsets(st.sampled_from(COLOURS)),
        factions=subsets(st.sampled_from(FACTIONS)),
    )


def decks(max_cards=6):
    card = st.builds(
        CardInfo,
        slug=st.just(""),
        name=st.text("abcdefgh", min_size=1, max_size=6),
        rarity=st.sampled_from(RARITIES),
        colours=subsets(st.sampled_from(COLOURS), max_size=3),
        factions=subsets(st.sampled_from(FACTIONS), max_size=2),
    )
    entries = st.lists(
        st.tuples(card, st.integers(1, 5)),
        max_size=max_cards,
        unique_by=lambda entry: entry[0].name,
    )
    # Give each card a slug of its own (the name is unique, so is the slug).
    return entries.map(
        lambda rows: [
            (CardInfo(f"s-{c.name}", c.name, c.rarity, c.colours, c.factions), n) for c, n in rows
        ]
    )


def restated_cog_problems(leader, deck):
    """The Card of Gods rules as the spec states them, written without the engine."""
    problems = []
    if leader is None:
        problems.append(("leader_required", None))
    if sum(n for _, n in deck) != 10:
        problems.append(("deck_size", None))
    for card, n in deck:  # names are unique here, so per card is per name
        if n > LIMITS[card.rarity]:
            problems.append(("copy_limit", card.slug))
    if leader is not None:
        for card, _ in deck:
            if not card.colours <= leader.colours:
                problems.append(("colour_mismatch", card.slug))
        for card, _ in deck:
            if not card.factions <= leader.factions:
                problems.append(("faction_mismatch", card.slug))
    return problems


LEGAL_FOR_KELLANTRA = (
    LeaderInfo("k", "Kellantra", frozenset({"green"}), frozenset({"Keld"})),
    [
        (CardInfo("s-a", "a", "common", frozenset({"green"}), frozenset({"Keld"})), 3),
        (CardInfo("s-b", "b", "uncommon", frozenset({"green"})), 2),
        (CardInfo("s-c", "c", "rare"), 1),
        (CardInfo("s-d", "d", "common", frozenset({"green"})), 3),
        (CardInfo("s-e", "e", "rare", frozenset({"green"})), 1),
    ],
)


@settings(max_examples=300, deadline=None)
@example(*LEGAL_FOR_KELLANTRA)
@given(st.one_of(st.none(), leaders()), decks())
def test_engine_verdict_equals_the_restated_card_of_gods_rules(leader, deck):
    report = legality.check(COG, leader, deck)
    expected = restated_cog_problems(leader, deck)
    got = [(p.code, p.card) for p in report.problems]
    assert Counter(got) == Counter(expected)
    assert got == expected  # same order too: format order, then deck order
    assert report.legal is (expected == [])
    assert report.card_count == sum(n for _, n in deck)


def test_the_legal_example_is_legal():
    """The @example above really is a legal deck, so the property covers `legal: true`."""
    assert restated_cog_problems(*LEGAL_FOR_KELLANTRA) == []
    assert legality.check(COG, *LEGAL_FOR_KELLANTRA).legal


@st.composite
def formats(draw):
    """Any ordered selection of rules, with random parameters."""
    rules = []
    size = draw(st.sampled_from(["exactly", "min", "max", "range"]))
    n, m = sorted(draw(st.lists(st.integers(0, 25), min_size=2, max_size=2)))
    rules.append(
        {"rule": "deck_size"}
        | {
            "exactly": {"exactly": n},
            "min": {"min": n},
            "max": {"max": m},
            "range": {"min": n, "max": m},
        }[size]
    )
    by = draw(st.sampled_from(["rarity", "name"]))
    limit = {"rule": "copy_limit", "by": by}
    if draw(st.booleans()):
        limit["default"] = draw(st.integers(0, 5))
    if by == "rarity":
        limit["limits"] = draw(
            st.dictionaries(st.sampled_from(RARITIES), st.integers(0, 5), max_size=3)
        )
    rules.append(limit)
    rules += [{"rule": "leader_required"}, {"rule": "colour_identity"}, {"rule": "faction_gate"}]
    chosen = draw(st.lists(st.sampled_from(rules), unique_by=lambda r: r["rule"]))
    assert legality.validate_format(chosen) == []
    return chosen


def restated_problems(fmt, leader, deck):
    problems = []
    total = sum(n for _, n in deck)
    for rule in fmt:
        kind = rule["rule"]
        if kind == "leader_required" and leader is None:
            problems.append(("leader_required", None))
        elif kind == "deck_size":
            low = rule.get("min", rule.get("exactly", 0))
            high = rule.get("max", rule.get("exactly", float("inf")))
            if not low <= total <= high:
                problems.append(("deck_size", None))
        elif kind == "copy_limit":
            for card, n in deck:
                if rule["by"] == "rarity":
                    limit = rule.get("limits", {}).get(card.rarity, rule.get("default"))
                else:
                    limit = rule.get("default")
                if limit is not None and n > limit:
                    problems.append(("copy_limit", card.slug))
        elif kind == "colour_identity" and leader is not None:
            problems += [("colour_mismatch", c.slug) for c, _ in deck if c.colours - leader.colours]
        elif kind == "faction_gate" and leader is not None:
            problems += [
                ("faction_mismatch", c.slug) for c, _ in deck if c.factions - leader.factions
            ]
    return problems


@settings(max_examples=300, deadline=None)
@given(formats(), st.one_of(st.none(), leaders()), decks())
def test_engine_verdict_equals_the_restated_rules_for_any_format(fmt, leader, deck):
    report = legality.check(fmt, leader, deck)
    expected = restated_problems(fmt, leader, deck)
    assert Counter((p.code, p.card) for p in report.problems) == Counter(expected)
    assert [(p.code, p.card) for p in report.problems] == expected
    assert report.legal is (expected == [])


@settings(max_examples=200, deadline=None)
@given(leaders(), decks(max_cards=1).filter(bool))
def test_card_problems_are_the_subset_rule_problems_of_a_one_card_deck(leader, deck):
    ((card, _),) = deck
    alone = [(p.code, p.card) for p in legality.card_problems(COG, leader, card)]
    in_deck = [
        (p.code, p.card)
        for p in legality.check(COG, leader, deck).problems
        if p.code in {"colour_mismatch", "faction_mismatch"}
    ]
    assert alone == in_deck
    assert (alone == []) is (card.colours <= leader.colours and card.factions <= leader.factions)


# --- the database filter and the engine: one definition yields both --------------------------

_names = itertools.count()
DB_FORMATS = [
    COG,
    [{"rule": "colour_identity"}],
    [{"rule": "faction_gate"}],
    [{"rule": "deck_size", "exactly": 10}],
]


@pytest.mark.django_db
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    cards=st.lists(
        st.tuples(
            st.sampled_from(RARITIES),
            subsets(st.sampled_from(COLOURS)),
            subsets(st.sampled_from([*FACTIONS, "Plant"]), max_size=3),
        ),
        min_size=1,
        max_size=4,
    ),
    new_leader=st.tuples(subsets(st.sampled_from(COLOURS)), subsets(st.sampled_from(FACTIONS))),
    fmt=st.sampled_from(DB_FORMATS),
)
def test_usable_by_agrees_with_the_engine_on_generated_cards(game, cards, new_leader, fmt):
    Game.objects.filter(pk=game.pk).update(format=fmt)  # no signal: nothing else to refresh
    created = []
    for rarity, colours, keywords in cards:
        created.append(
            services.save_card(
                game=game,
                fields={
                    "name": f"Generated {next(_names)}",
                    "rarity": game.rarities.get(slug=rarity),
                    "cost": {DOMAIN_OF[c]: 1 for c in colours},
                },
                keywords=sorted(keywords),
            )
        )
    colours, factions = new_leader
    services.save_leader(
        game=game,
        fields={"name": f"Leader {next(_names)}"},
        colours=list(game.colours.filter(slug__in=colours)),
        keywords=sorted(factions),
    )
    pks = [c.pk for c in created]
    pool = list(Card.objects.filter(pk__in=pks).for_listing())
    leader_qs = Leader.objects.select_related("game").prefetch_related("colours", "keywords")
    leaders = list(leader_qs.filter(game=game))
    assert {"richard", "gottfried", "kellantra"} <= {leader.slug for leader in leaders}
    for leader in leaders:
        assert leader.game.format == fmt
        by_db = set(
            Card.objects.usable_by(leader).filter(pk__in=pks).values_list("slug", flat=True)
        )
        by_engine = {
            card.slug
            for card in pool
            if legality.card_problems(fmt, leader.info(), card.info()) == []
        }
        assert by_db == by_engine, (leader.slug, fmt)
