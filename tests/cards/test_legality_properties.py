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
from cards.models import Card, FormatVersion, Game, Leader

SAMPLE = Path(__file__).resolve().parents[2] / "cards" / "sample" / "card-of-gods.json"
# Its first version: the source document's rules (the sample's second adds a ban).
COG = json.loads(SAMPLE.read_text())["game"]["formats"][0]["versions"][0]["rules"]
MAIN = [{"slug": "main", "name": "Deck"}]


def one_section(rules) -> legality.Format:
    return legality.Format.from_data({"sections": MAIN, "rules": rules})


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
    report = legality.check(one_section(COG), leader, deck)
    expected = restated_cog_problems(leader, deck)
    got = [(p.code, p.card) for p in report.problems]
    assert Counter(got) == Counter(expected)
    assert got == expected  # same order too: format order, then deck order
    assert report.legal is (expected == [])
    assert report.card_count == sum(n for _, n in deck)


def test_the_legal_example_is_legal():
    """The @example above really is a legal deck, so the property covers `legal: true`."""
    assert restated_cog_problems(*LEGAL_FOR_KELLANTRA) == []
    assert legality.check(one_section(COG), *LEGAL_FOR_KELLANTRA).legal


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
    assert legality.validate_format({"sections": MAIN, "rules": chosen}) == []
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
    report = legality.check(one_section(fmt), leader, deck)
    expected = restated_problems(fmt, leader, deck)
    assert Counter((p.code, p.card) for p in report.problems) == Counter(expected)
    assert [(p.code, p.card) for p in report.problems] == expected
    assert report.legal is (expected == [])


@settings(max_examples=200, deadline=None)
@given(leaders(), decks(max_cards=1).filter(bool))
def test_card_problems_are_the_subset_rule_problems_of_a_one_card_deck(leader, deck):
    ((card, _),) = deck
    alone = [(p.code, p.card) for p in legality.card_problems(one_section(COG), leader, card)]
    in_deck = [
        (p.code, p.card)
        for p in legality.check(one_section(COG), leader, deck).problems
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
    # no signal: nothing else to refresh
    FormatVersion.objects.filter(format__game=game).update(rules=fmt)
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
        assert leader.game.default_format().rules == fmt
        by_db = set(
            Card.objects.usable_by(leader).filter(pk__in=pks).values_list("slug", flat=True)
        )
        by_engine = {
            card.slug
            for card in pool
            if legality.card_problems(one_section(fmt), leader.info(), card.info()) == []
        }
        assert by_db == by_engine, (leader.slug, fmt)


# --- the other games: colour_identity (both modes), faction_gate, loyalty_gate ---------------


def unsaved_format(game, rules) -> legality.Format:
    """A format with these rules, not stored: `usable_by` reads only its rules."""
    return legality.Format.from_data({"sections": MAIN, "rules": rules})


def assert_filter_agrees_with_engine(game, fmt, pks):
    """For every leader of `game`: the cards among `pks` that `usable_by(leader, fmt)` lists
    are exactly those the engine's `card_problems` finds nothing against. Returns how many
    (leader, card) pairs each side refused, so callers can see the rule bite."""
    engine = fmt if isinstance(fmt, legality.Format) else fmt.engine()  # a stored one's
    pool = list(Card.objects.filter(pk__in=pks).for_listing())
    leaders = Leader.objects.filter(game=game).prefetch_related(
        "colours", "keywords", "loyalties__faction"
    )
    refused = 0
    for leader in leaders:
        info = leader.info()
        by_db = set(
            Card.objects.usable_by(leader, fmt).filter(pk__in=pks).values_list("slug", flat=True)
        )
        by_engine = {c.slug for c in pool if legality.card_problems(engine, info, c.info()) == []}
        assert by_db == by_engine, (leader.slug, fmt.rules)
        refused += len(pool) - len(by_engine)
    return refused


DB_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
BERSERK_ELEMENTS = ["steppes", "forests", "mountains", "swamps", "darkness"]


@pytest.fixture
def berserk(db):
    return Game.objects.get(slug="berserk-heroes")


@pytest.fixture
def irdya(db):
    return Game.objects.get(slug="irdya")


@pytest.mark.django_db
@DB_SETTINGS
@example(
    cards=[(), ("forests",), ("swamps",), ("forests", "swamps")],
    hero=("forests",),
    mode="shares",
)
@example(
    cards=[(), ("forests",), ("swamps",), ("forests", "swamps")],
    hero=("forests",),
    mode="subset",
)
@given(
    cards=st.lists(
        st.lists(st.sampled_from(BERSERK_ELEMENTS), max_size=3, unique=True).map(tuple),
        min_size=1,
        max_size=5,
    ),
    hero=st.lists(st.sampled_from(BERSERK_ELEMENTS), max_size=2, unique=True).map(tuple),
    mode=st.sampled_from(["shares", "subset"]),
)
def test_usable_by_agrees_with_the_engine_on_colour_identity_in_both_modes(
    berserk, cards, hero, mode
):
    """Berserk's colours are given directly (not derived from a cost): neutral cards, one and
    several elements, against heroes of zero, one or two elements."""
    creature = berserk.card_types.get(slug="creature")
    pks = []
    for elements in cards:
        pks.append(
            services.save_card(
                game=berserk,
                fields={"name": f"Generated {next(_names)}", "type": creature},
                keywords=[],
                colours=list(berserk.colours.filter(slug__in=elements)),
            ).pk
        )
    services.save_leader(
        game=berserk,
        fields={"name": f"Hero {next(_names)}"},
        colours=list(berserk.colours.filter(slug__in=hero)),
        keywords=[],
    )
    default = berserk.default_format()
    assert {"rule": "colour_identity", "mode": "shares", "section": "3.5"} in default.rules
    fmt = default if mode == "shares" else unsaved_format(berserk, [{"rule": "colour_identity"}])
    assert_filter_agrees_with_engine(berserk, fmt, pks)


def test_the_colour_examples_make_each_mode_refuse_different_cards():
    """The @examples above are not vacuous: shares and subset refuse different cards there."""
    forests = LeaderInfo("h", "H", frozenset({"forests"}))
    two = CardInfo("two", "Two", colours=frozenset({"forests", "swamps"}))
    swamp = CardInfo("swamp", "Swamp", colours=frozenset({"swamps"}))
    shares = one_section([{"rule": "colour_identity", "mode": "shares"}])
    subset = one_section([{"rule": "colour_identity", "mode": "subset"}])
    assert legality.card_problems(shares, forests, two) == []
    assert [p.code for p in legality.card_problems(subset, forests, two)] == ["colour_mismatch"]
    assert [p.code for p in legality.card_problems(shares, forests, swamp)] == ["colour_mismatch"]


IRDYA_FACTIONS = ["Loyalists", "Rebels", "Northerners", "Undead", "Knalgans", "Drakes"]
IRDYA_RULES = [
    None,  # the game's default format: loyalty_gate
    [{"rule": "faction_gate"}],
    [{"rule": "loyalty_gate"}, {"rule": "faction_gate"}],
]


@pytest.mark.django_db
@DB_SETTINGS
@example(
    cards=[(None, ()), (("Loyalists", 2), ()), (("Loyalists", 3), ()), (("Knalgans", 1), ())],
    hero=({"Loyalists": 2}, ()),
    rules=None,
)
@example(
    cards=[(None, ("Rebels",)), (None, ("Human",)), (("Loyalists", 1), ("Undead",))],
    hero=({"Loyalists": 1}, ("Rebels",)),
    rules=IRDYA_RULES[2],
)
@given(
    cards=st.lists(
        st.tuples(
            st.none() | st.tuples(st.sampled_from(IRDYA_FACTIONS), st.integers(1, 3)),
            st.lists(
                st.sampled_from([*IRDYA_FACTIONS[:3], "Human", "Knight"]), max_size=2, unique=True
            ).map(tuple),
        ),
        min_size=1,
        max_size=5,
    ),
    hero=st.tuples(
        st.dictionaries(st.sampled_from(IRDYA_FACTIONS), st.integers(1, 3), max_size=3),
        st.lists(st.sampled_from(IRDYA_FACTIONS[:3]), max_size=2, unique=True).map(tuple),
    ),
    rules=st.sampled_from(IRDYA_RULES),
)
def test_usable_by_agrees_with_the_engine_on_loyalty_and_faction_gates(irdya, cards, hero, rules):
    """Irdya cards needing 1-3 loyalty points in a faction (or none), with faction and plain
    keywords; heroes with points in up to three factions (others count as 0)."""
    factions = {k.name: k for k in irdya.keywords.filter(is_faction=True)}
    assert set(IRDYA_FACTIONS) <= set(factions)
    creature = irdya.card_types.get(slug="creature")
    pks = []
    for loyalty, keywords in cards:
        fields = {"name": f"Generated {next(_names)}", "type": creature}
        if loyalty:
            fields |= {"loyalty_faction": factions[loyalty[0]], "loyalty_points": loyalty[1]}
        pks.append(services.save_card(game=irdya, fields=fields, keywords=list(keywords)).pk)
    points, keywords = hero
    services.save_leader(
        game=irdya,
        fields={"name": f"Hero {next(_names)}"},
        colours=[],
        keywords=list(keywords),
        loyalty={factions[name]: n for name, n in points.items()},
    )
    default = irdya.default_format()
    assert {"rule": "loyalty_gate", "section": "5.5"} in default.rules
    fmt = default if rules is None else unsaved_format(irdya, rules)
    assert_filter_agrees_with_engine(irdya, fmt, pks)


@pytest.mark.django_db
def test_usable_by_agrees_with_the_engine_on_every_sample_pool_and_format():
    """Every format of every sample game, every leader, the whole pool; and the leader rules of
    the default formats really refuse some cards there."""
    refused = {}
    for game in Game.objects.prefetch_related("formats"):
        pks = list(game.cards.values_list("pk", flat=True))
        assert pks, game.slug
        for fmt in game.formats.all():
            refused[game.slug, fmt.slug] = assert_filter_agrees_with_engine(game, fmt, pks)
    assert refused[("berserk-heroes", "standard")] > 0
    assert refused[("irdya", "standard")] > 0
    assert refused[("card-of-gods", "standard")] > 0
    assert refused[("force-of-will", "casual")] == 0  # no card-versus-leader rule there
    assert refused[("of-gods-and-men", "standard")] == 0


# --- Force of Will: copies counted across sections, against a restatement ----------------------

FOW = json.loads((SAMPLE.parent / "force-of-will.json").read_text())["game"]
FOW_FORMATS = {f["slug"]: f for f in FOW["formats"]}
MAIN_TYPES = {"resonator", "chant", "addition", "regalia"}
STONE = "magic-stone"


def fow_card(slug, name, type, *keywords):
    return CardInfo(slug, name, type=type, keywords=frozenset(keywords))


# Printings sharing a name (any case) share whether they are Basic, as real reprints do.
FOW_POOL = [
    fow_card("ember", "Ember", "resonator"),
    fow_card("ember-promo", "EMBER", "resonator"),
    fow_card("bolt", "Bolt", "chant"),
    fow_card("crown", "Crown", "regalia"),
    fow_card("sword", "Sword", "addition", "Basic"),  # Basic, but not a stone
    fow_card("fire-stone", "Fire Stone", STONE, "Basic"),
    fow_card("fire-stone-promo", "fire stone", STONE, "basic"),
    fow_card("moon-stone", "Moon Stone", STONE),
    fow_card("moon-stone-promo", "Moon stone", STONE),
]
PAD_RESONATORS = [fow_card(f"pad-{i}", f"Pad {i}", "resonator") for i in range(15)]
PAD_STONE = fow_card("water-stone", "Water Stone", STONE, "Basic")
FOW_SECTIONS = ["main", "stones", "side"]


@st.composite
def fow_decks(draw):
    """FoW-like decks: sizes around the format's bounds, shared names in several sections."""
    entries = draw(
        st.lists(
            st.tuples(st.sampled_from(FOW_POOL), st.integers(1, 9), st.sampled_from(FOW_SECTIONS)),
            max_size=8,
            unique_by=lambda e: (e[0].slug, e[2]),
        )
    )
    pads = draw(st.integers(0, 15))
    entries += [(c, 4, "main") for c in PAD_RESONATORS[:pads]]
    stones = draw(st.integers(0, 20))
    if stones:
        entries.append((PAD_STONE, stones, "stones"))
    return draw(st.permutations(entries))


def restated_fow_problems(side, leader, deck, copies_ref="9.8"):
    """Force of Will deck construction as formats.md states it, without the engine:
    (rules-reference section, code, card slug or name, deck section). `side` is the format's
    side-deck size: (rules-reference section, minimum); `copies_ref` the section of its four
    copies across the main and side decks (Constructed's counts its extra and rune decks too,
    which these decks leave empty)."""
    problems = []
    if leader is None:
        problems.append(("9.2", "leader_required", None, None))
    size = {s: sum(n for _, n, sec in deck if sec == s) for s in FOW_SECTIONS}
    for ref, s, low, high in (("9.3", "main", 40, 60), ("9.4", "stones", 10, 20)):
        if not low <= size[s] <= high:
            problems.append((ref, "deck_size", None, s))
    if not side[1] <= size["side"] <= 15:
        problems.append((side[0], "deck_size", None, "side"))
    for ref, s, types in (("9.6", "main", MAIN_TYPES), ("9.7", "stones", {STONE})):
        problems += [
            (ref, "wrong_section", c.slug, s)
            for c, _, sec in deck
            if sec == s and c.type not in types
        ]
    for ref, counted, basic_free in (
        (copies_ref, {"main", "side"}, False),
        ("9.9", {"stones", "side"}, True),
    ):
        copies, where, basic = Counter(), {}, {}
        for c, n, sec in deck:
            if sec in counted:
                name = c.name.casefold()
                copies[name] += n
                where.setdefault(name, set()).add(sec)
                basic[name] = "basic" in {k.casefold() for k in c.keywords}
        for name, n in copies.items():
            if n > 4 and not (basic_free and basic[name]):
                held = where[name]
                problems.append((ref, "copy_limit", name, held.pop() if len(held) == 1 else None))
    return problems


@settings(max_examples=250, deadline=None)
@given(
    slug=st.sampled_from(["casual", "constructed"]),
    leader=st.none() | st.just(LeaderInfo("kaguya", "Kaguya")),
    deck=fow_decks(),
)
def test_engine_counts_copies_across_sections_as_force_of_will_says(slug, leader, deck):
    fmt = legality.Format.from_data(FOW_FORMATS[slug])
    side = next(r for r in fmt.rules if r["rule"] == "deck_size" and r["deck"] == "side")
    report = legality.check(fmt, leader, deck)
    names = {c.slug: c.name.casefold() for c, _, _ in deck}
    got = [
        (p.ref, p.code, names[p.card] if p.code == "copy_limit" else p.card, p.section)
        for p in report.problems
    ]
    copies = next(r for r in fmt.rules if r["rule"] == "copy_limit" and "main" in r["across"])
    expected = restated_fow_problems(
        (side["section"], side["min"]), leader, deck, copies["section"]
    )
    assert Counter(got) == Counter(expected)
    order = [r["section"] for r in fmt.rules]
    refs = [ref for ref, *_ in got]
    assert refs == sorted(refs, key=order.index)  # problems come in the format's rule order
    assert report.legal is (expected == [])
    assert report.section_counts == {s: sum(n for _, n, sec in deck if sec == s) for s in fmt.slugs}


def test_the_fow_restatement_knows_a_legal_deck():
    """The property above meets legal decks too: a full one here, checked by both sides."""
    deck = [(c, 4, "main") for c in PAD_RESONATORS[:10]]
    deck += [(PAD_STONE, 9, "stones"), (FOW_POOL[7], 1, "stones"), (FOW_POOL[8], 3, "side")]
    ruler = LeaderInfo("k", "K")
    casual = legality.Format.from_data(FOW_FORMATS["casual"])
    assert restated_fow_problems(("9.5.1", 0), ruler, deck) == []
    assert legality.check(casual, ruler, deck).legal
    deck.append((FOW_POOL[7], 1, "side"))  # Moon Stone: 1 in stones + 4 in side = 5
    expected = [("9.9", "copy_limit", "moon stone", None)]
    assert restated_fow_problems(("9.5.1", 0), ruler, deck) == expected
    assert [(p.ref, p.code, p.section) for p in legality.check(casual, ruler, deck).problems] == [
        ("9.9", "copy_limit", None)
    ]
