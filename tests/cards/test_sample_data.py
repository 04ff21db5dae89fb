"""The sample data the site ships with.

First the Card of Gods pool (cards/sample/card-of-gods.json) as plain data, with no database:
the file is read as JSON and checked against the game's deck-construction rules, so that the
pool is varied and usable. Then all five sample games loaded into the database as
`manage.py load_sample_data` loads them, checked against the formats specification (formats,
sections, pool minimums, the slugs the API keeps).
"""

import io
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


# === all five sample games, loaded as `manage.py load_sample_data` loads them ==================
# Every leader (or, in a game without leaders, the pool) can build a legal deck in every format;
# the pool minimums, labels and slugs of the formats specification hold; every format rule and
# glossary term points at a section of the game's rules.

SAMPLE_DIR = SAMPLE.parent
GAMES = ["card-of-gods", "force-of-will", "berserk-heroes", "of-gods-and-men", "irdya"]
SAMPLES = {slug: json.loads((SAMPLE_DIR / f"{slug}.json").read_text("utf-8")) for slug in GAMES}
FORMATS = [(slug, f["slug"]) for slug in GAMES for f in SAMPLES[slug]["game"]["formats"]]


@pytest.fixture(scope="module")
def sample_world(django_db_setup, django_db_blocker):
    """`load_sample_data` run once for this module, and rolled back after it."""
    from django.core.management import call_command
    from django.db import transaction

    with django_db_blocker.unblock(), transaction.atomic():
        out = io.StringIO()
        call_command("load_sample_data", stdout=out)
        yield out.getvalue()
        transaction.set_rollback(True)


@pytest.fixture
def loaded(sample_world, db):
    return sample_world


def a_game(slug: str):
    from cards.models import Game

    return Game.objects.prefetch_related("formats", "card_types", "colours", "stats").get(slug=slug)


def test_load_sample_data_loads_all_five_games(loaded):
    from cards.models import Card, Game, Leader, RuleSection

    assert loaded.startswith("Loaded 5 sample game(s)")
    assert set(Game.objects.values_list("slug", flat=True)) >= set(GAMES)
    for slug in GAMES:
        game, sample = a_game(slug), SAMPLES[slug]
        assert game.is_sample, slug
        assert Card.objects.filter(game=game).count() >= len(sample["cards"]) > 0, slug
        leaders = Leader.objects.filter(game=game).count()
        assert leaders >= len(sample.get("leaders", [])), slug
        assert (leaders > 0) == game.has_leaders, slug
        assert [f.slug for f in game.formats.all()] == [
            f["slug"] for f in sample["game"]["formats"]
        ]
        assert RuleSection.objects.filter(game=game).exists(), f"{slug} has no rules"


# --- a legal deck for every leader in every format ------------------------------------------


def section_target(fmt, section: str) -> int:
    """The fewest cards the format's deck_size rules allow in `section`."""
    lows = [
        rule.get("min", rule.get("exactly")) or 0
        for rule in fmt.rules
        if rule["rule"] == "deck_size" and rule.get("deck", fmt.first) == section
    ]
    return max(lows, default=0)


def one_side_of_each_pair(fmt, pool) -> list:
    """`pool` without the cards of the second keyword of each exclusive_keywords pair when it
    holds cards of both sides (a leader with one side already leaves none of the other)."""
    for rule in fmt.rules:
        if rule["rule"] != "exclusive_keywords":
            continue
        for first, second in rule["pairs"]:

            def has(card, keyword):
                return keyword.casefold() in {k.casefold() for k in card.keywords}

            if any(has(c, first) for c in pool) and any(has(c, second) for c in pool):
                pool = [c for c in pool if not has(c, second)]
    return pool


def build_deck(fmt, pool) -> list:
    """A deck from `pool` (CardInfo), built greedily section by section: the copies each section
    needs for its required types, then cards without a copy limit, then the rest one copy at a
    time in turn, never past a copy limit of the engine (counted across the sections each
    copy_limit rule and the ban list name), with one side of each pair of keywords that may not
    share a deck."""
    from cards import legality

    pool = one_side_of_each_pair(fmt, pool)
    counts = Counter()

    def size(section, kind=None):
        return sum(
            n
            for (slug, s), n in counts.items()
            if s == section and (kind is None or by_slug_info[slug].type == kind)
        )

    def room(card, section) -> int | None:
        most = legality.copy_limit(fmt, card, section)
        if most is None:
            return None
        groups = [
            rule.get("across") or fmt.slugs
            for rule in fmt.rules
            if rule["rule"] == "copy_limit" and section in (rule.get("across") or fmt.slugs)
        ]
        if card.slug in fmt.banlist:
            groups.append(fmt.slugs)
        used = max(
            (sum(counts[card.slug, s] for s in group) for group in groups),
            default=counts[card.slug, section],
        )
        return most - used

    def add(cards, section, goal, kind=None):
        """Copies of `cards`, one of each in turn, until `section` holds `goal` (of `kind`)."""
        while size(section, kind) < goal:
            added = False
            for card in cards:
                if size(section, kind) >= goal:
                    return
                left = room(card, section)
                if left is None or left > 0:
                    counts[card.slug, section] += 1
                    added = True
            if not added:
                return

    by_slug_info = {card.slug: card for card in pool}
    for section in fmt.slugs:
        target = section_target(fmt, section)
        allowed = [c for c in pool if section in legality.allowed_sections(fmt, c)]
        for rule in fmt.rules:
            if rule["rule"] == "requires_type" and rule.get("deck", fmt.first) == section:
                typed = [c for c in allowed if c.type == rule["type"]]
                add(typed, section, rule.get("min", 1), kind=rule["type"])
        unlimited = [c for c in allowed if legality.copy_limit(fmt, c, section) is None]
        add(unlimited, section, target)
        add(allowed, section, target)
    return [(by_slug_info[slug], n, section) for (slug, section), n in counts.items() if n]


def test_the_deck_builder_of_these_tests_gives_up_when_the_pool_is_too_small():
    from cards import legality

    fmt = legality.Format.from_data(
        {
            "sections": [{"slug": "main", "name": "Deck"}],
            "rules": [
                {"rule": "deck_size", "min": 10},
                {"rule": "copy_limit", "by": "name", "default": 3},
            ],
        }
    )
    pool = [legality.CardInfo(f"c{i}", f"C{i}") for i in range(3)]
    deck = build_deck(fmt, pool)
    assert sum(n for _, n, _ in deck) == 9
    assert not legality.check(fmt, None, deck).legal
    deck = build_deck(fmt, [*pool, legality.CardInfo("c3", "C3")])
    assert legality.check(fmt, None, deck).legal


@pytest.mark.parametrize(("slug", "format_slug"), FORMATS, ids=[f"{g}:{f}" for g, f in FORMATS])
def test_every_leader_can_build_a_legal_deck_in_every_format(loaded, slug, format_slug):
    from cards import legality
    from cards.models import Card, Leader

    game = a_game(slug)
    stored = game.formats.get(slug=format_slug)
    fmt = stored.engine()
    leaders = list(Leader.objects.filter(game=game).prefetch_related("colours", "keywords"))
    assert bool(leaders) == game.has_leaders
    failures = {}
    for leader in leaders or [None]:
        cards = Card.objects.filter(game=game)
        if leader is not None:
            cards = Card.objects.usable_by(leader, stored)
        pool = [card.info() for card in cards.for_listing().order_by("slug")]
        deck = build_deck(fmt, pool)
        report = legality.check(fmt, leader.info() if leader else None, deck)
        if not report.legal:
            failures[leader.slug if leader else "(no leader)"] = [
                p.message for p in report.problems
            ]
        else:
            assert report.card_count == sum(section_target(fmt, s) for s in fmt.slugs)
    assert failures == {}


# --- the pool minimums of formats.md --------------------------------------------------------


def test_force_of_will_every_ruler_has_ten_main_deck_cards_and_both_kinds_of_stone(loaded):
    from cards.models import Card, Leader

    game = a_game("force-of-will")
    main_types = next(
        rule["types"]
        for rule in game.default_format().rules
        if rule["rule"] == "section_types" and rule["deck"] == "main"
    )
    for ruler in Leader.objects.filter(game=game):
        usable = list(Card.objects.usable_by(ruler).for_listing())
        main = {c.slug for c in usable if c.type.slug in main_types}
        stones = [c for c in usable if c.type.slug == "magic-stone"]
        basic = [c for c in stones if "Basic" in {k.name for k in c.keywords.all()}]
        assert len(main) >= 10, ruler.slug
        assert basic and len(basic) < len(stones), ruler.slug


def test_berserk_every_element_has_fourteen_usable_cards_and_there_is_a_horde_card(loaded):
    from cards.models import Card

    game = a_game("berserk-heroes")
    cards = list(Card.objects.filter(game=game).for_listing())
    for element in game.colours.all():
        usable = {c.slug for c in cards if not c.colour_count or element in c.colours.all()}
        assert len(usable) >= 14, element.slug
    assert any("Horde" in {k.name for k in c.keywords.all()} for c in cards)


def test_of_gods_and_men_has_two_pantheon_cards(loaded):
    from cards.models import Card

    assert Card.objects.filter(game__slug="of-gods-and-men", type__slug="pantheon").count() >= 2


def test_irdya_has_faction_cards_at_every_loyalty_for_three_factions_and_varied_heroes(loaded):
    from cards.models import Card, Leader

    points = {}
    for card in Card.objects.filter(game__slug="irdya", loyalty_faction__isnull=False):
        points.setdefault(card.loyalty_faction.name, set()).add(card.loyalty_points)
    assert len([f for f, found in points.items() if found >= {1, 2, 3}]) >= 3, points
    heroes = Leader.objects.filter(game__slug="irdya").prefetch_related("loyalties__faction")
    assert {len(hero.loyalty) for hero in heroes} >= {1, 2, 3}


# --- rules references -----------------------------------------------------------------------


@pytest.mark.parametrize("slug", GAMES)
def test_every_format_rule_names_a_section_of_the_games_rules(loaded, slug):
    from cards import catalogue
    from cards.models import RuleSection

    game = a_game(slug)
    numbers = set(RuleSection.objects.filter(game=game).values_list("number", flat=True))
    urls = catalogue.rule_urls(slug)
    for fmt in game.formats.all():
        for rule in fmt.rules:
            assert rule.get("section") in numbers, f"{fmt.slug}: {rule}"
            assert rule["section"] in urls, f"{fmt.slug}: {rule}"


@pytest.mark.parametrize("slug", GAMES)
def test_every_glossary_term_names_a_section_of_the_games_rules(loaded, slug):
    from cards.models import GlossaryTerm

    entries = json.loads((SAMPLE_DIR / "rules" / f"{slug}.glossary.json").read_text("utf-8"))
    assert entries and all(entry.get("section") for entry in entries)
    terms = GlossaryTerm.objects.filter(game__slug=slug).select_related("section")
    assert {t.term: t.section.number if t.section else None for t in terms} == {
        e["term"]: e["section"] for e in entries
    }


# --- labels and slugs as formats.md names them ----------------------------------------------

LABELS = {
    # game: (leader label, formats (default first), card types, colours, stats)
    "card-of-gods": ("Expedition Leader", ["standard"], ["god-card"],
                     ["yellow", "red", "green", "black"], []),
    "force-of-will": ("Ruler", ["casual", "constructed", "wanderer-sample"],
                      ["resonator", "chant", "addition", "regalia", "magic-stone"],
                      ["light", "fire", "water", "wind", "darkness"], ["atk", "def"]),
    "berserk-heroes": ("Hero", ["standard"], ["creature", "spell", "equipment", "event"],
                       ["steppes", "forests", "mountains", "swamps", "darkness"],
                       ["strike", "life"]),
    "of-gods-and-men": ("", ["standard"],
                        ["pantheon", "hero", "unit", "artifact", "magic", "terrain"], [],
                        ["strength", "hp", "command"]),
    "irdya": ("Hero", ["standard"], ["creature", "spell", "event", "ritual", "mount"], [],
              ["atk", "def"]),
}  # fmt: skip


@pytest.mark.parametrize("slug", GAMES)
def test_labels_and_slugs_are_those_of_formats_md(loaded, slug):
    leader, formats, types, colours, stats = LABELS[slug]
    game = a_game(slug)
    assert game.leader_label == leader
    assert game.has_leaders == bool(leader)
    assert [f.slug for f in game.formats.all()] == formats
    assert game.default_format().slug == formats[0]
    # the types formats.md names, first and in its order (Force of Will adds runes, J-rulers)
    assert [t.slug for t in game.card_types.all()][: len(types)] == types
    assert [c.slug for c in game.colours.all()] == colours
    assert [s.slug for s in game.stats.all()] == stats


def test_rule_keywords_and_factions_are_those_of_formats_md(loaded):
    from cards.models import Keyword

    def factions(slug):
        return set(
            Keyword.objects.filter(game__slug=slug, is_faction=True).values_list("name", flat=True)
        )

    assert Keyword.objects.filter(game__slug="force-of-will", name="Basic").exists()
    assert Keyword.objects.filter(game__slug="berserk-heroes", name="Horde").exists()
    assert factions("irdya") == {
        "Loyalists",
        "Rebels",
        "Northerners",
        "Undead",
        "Knalgans",
        "Drakes",
    }
    assert factions("card-of-gods") == set(GAME["factions"])
    assert factions("force-of-will") == factions("berserk-heroes") == set()
    assert factions("of-gods-and-men") == set()


# Each default format's sections and rules as the table of formats.md gives them:
# (section slugs, [(rule kind, the parameters the table names)]).
DEFAULT_FORMATS = {
    "card-of-gods": (["main"], [
        ("leader_required", {}),
        ("deck_size", {"exactly": 10}),
        ("copy_limit", {"by": "rarity", "limits": {"common": 3, "uncommon": 2, "rare": 1}}),
        ("colour_identity", {}),
        ("faction_gate", {}),
    ]),
    "force-of-will": (["main", "stones", "side"], [
        ("leader_required", {}),
        ("deck_size", {"deck": "main", "min": 40, "max": 60}),
        ("deck_size", {"deck": "stones", "min": 10, "max": 20}),
        ("deck_size", {"deck": "side", "min": 0, "max": 15}),
        ("section_types", {"deck": "main",
                           "types": ["resonator", "chant", "addition", "regalia"]}),
        ("section_types", {"deck": "stones", "types": ["magic-stone"]}),
        ("copy_limit", {"by": "name", "default": 4, "across": ["main", "side"]}),
        ("copy_limit", {"by": "name", "default": 4, "across": ["stones", "side"],
                        "unlimited": {"keyword": "Basic"}}),
    ]),
    "berserk-heroes": (["main"], [
        ("leader_required", {}),
        ("deck_size", {"min": 40}),
        ("copy_limit", {"default": 3, "overrides": {"Horde": 5}}),
        ("colour_identity", {"mode": "shares"}),
    ]),
    "of-gods-and-men": (["main"], [
        ("deck_size", {"min": 40, "site_default": True}),
        ("copy_limit", {"default": 3, "site_default": True}),
        ("requires_type", {"type": "pantheon", "min": 1}),
    ]),
    "irdya": (["main"], [
        ("leader_required", {}),
        ("deck_size", {"min": 40, "site_default": True}),
        ("copy_limit", {"default": 3, "site_default": True}),
        ("loyalty_gate", {}),
    ]),
}  # fmt: skip


@pytest.mark.parametrize("slug", GAMES)
def test_default_formats_are_those_of_formats_md(loaded, slug):
    sections, rules = DEFAULT_FORMATS[slug]
    fmt = a_game(slug).default_format()
    assert fmt.slugs == sections
    assert len(fmt.rules) == len(rules)
    for rule, (kind, params) in zip(fmt.rules, rules, strict=True):
        assert rule["rule"] == kind
        assert {k: rule.get(k) for k in params} == params, rule
        if rule["rule"] == "colour_identity" and "mode" not in params:
            assert rule.get("mode", "subset") == "subset"


def test_the_deck_builder_of_these_tests_keeps_one_side_of_each_exclusive_pair():
    from cards import legality

    fmt = legality.Format.from_data(
        {
            "sections": [{"slug": "main", "name": "Deck"}],
            "rules": [{"rule": "exclusive_keywords", "pairs": [["Tales", "Villains"]]}],
        }
    )
    tale, villain, plain = (
        legality.CardInfo(slug, slug, keywords=frozenset(words))
        for slug, words in (("t", {"tales"}), ("v", {"Villains"}), ("p", set()))
    )
    assert one_side_of_each_pair(fmt, [tale, villain, plain]) == [tale, plain]
    assert one_side_of_each_pair(fmt, [villain, plain]) == [villain, plain]


# Force of Will Constructed as formats.md gives it (CR 12.7 402-404): the sections and the rules
# beyond Casual's, with the parameters formats.md names.
FOW_CONSTRUCTED_SECTIONS = [
    ("main", "Main deck"),
    ("stones", "Magic stone deck"),
    ("side", "Side deck"),
    ("extra", "Extra deck"),
    ("runes", "Rune deck"),
    ("stranger", "Stranger deck"),
]
MAIN_TYPES = ["resonator", "chant", "addition", "regalia"]
FOW_CONSTRUCTED_RULES = [
    ("leader_required", {}),
    ("deck_size", {"deck": "main", "min": 40, "max": 60}),
    ("deck_size", {"deck": "stones", "min": 10, "max": 20}),
    ("deck_size", {"deck": "side", "min": 1, "max": 15}),
    ("deck_size", {"deck": "extra", "min": 0, "max": 5}),
    ("deck_size", {"deck": "runes", "sizes": [0, 5]}),
    ("deck_size", {"deck": "stranger", "sizes": [0, 10]}),
    ("section_gate", {"deck": "extra", "keyword": "Grimoire"}),
    ("section_gate", {"deck": "runes", "keyword": "Divinity"}),
    ("section_gate", {"deck": "stranger", "keyword": "Stranger"}),
    ("section_types", {"deck": "main", "types": MAIN_TYPES}),
    ("section_types", {"deck": "stones", "types": ["magic-stone"]}),
    ("section_types", {"deck": "extra", "types": MAIN_TYPES}),
    ("section_types", {"deck": "runes", "types": ["rune", "master-rune"]}),
    ("section_types", {"deck": "stranger", "types": MAIN_TYPES}),
    ("copy_limit", {"by": "name", "default": 4, "across": ["main", "side", "extra", "runes"]}),
    ("copy_limit", {"by": "name", "default": 4, "across": ["stones", "side"],
                    "unlimited": {"keyword": "Basic"}}),
    ("copy_limit", {"by": "name", "default": 1, "across": ["extra"]}),
    ("copy_limit", {"by": "name", "default": 1, "across": ["runes"]}),
    ("copy_limit", {"by": "name", "default": 2, "across": ["stranger"]}),
    ("type_limit", {"across": ["runes"], "type": "master-rune", "max": 1}),
    ("exclusive_keywords", {"pairs": [["Tales", "Villains"], ["Will of Hope", "Will of Despair"]]}),
]  # fmt: skip


def test_force_of_will_constructed_is_cr_402_to_404_in_full(loaded):
    """formats.md: Casual's three decks (side 1-15, CR 403.1a), the extra, rune and stranger
    decks, 404.1's four copies across main, side, extra and runes, 404.2's across stones and
    side, and the keywords that may not share a deck; nothing is a site default."""
    game = a_game("force-of-will")
    casual, constructed = (game.formats.get(slug=s) for s in ("casual", "constructed"))
    assert [(s["slug"], s["name"]) for s in constructed.sections] == FOW_CONSTRUCTED_SECTIONS
    assert casual.slugs == ["main", "stones", "side"]
    assert len(constructed.rules) == len(FOW_CONSTRUCTED_RULES)
    for rule, (kind, params) in zip(constructed.rules, FOW_CONSTRUCTED_RULES, strict=True):
        assert rule["rule"] == kind
        assert {k: rule.get(k) for k in params} == params, rule
        assert not rule.get("site_default"), rule
        assert rule["section"].startswith("9."), rule
    assert not constructed.banlist
    for words in ("402", "403.1a", "404.1", "404.2", "Grimoire", "Divinity", "Stranger"):
        assert words in constructed.notes, words


def test_force_of_will_pool_has_what_constructed_needs(loaded):
    """formats.md: a ruler with Divinity and one with Grimoire, runes with one master rune, a
    Tales and a Villains card; and what the new card data shows: J-rulers as faces, a card of two
    types, an X cost, a 0-cost card with a colour beside its cost, a printing without rarity."""
    from cards.models import Card, Leader

    game = a_game("force-of-will")
    rulers = {r.slug: r for r in Leader.objects.filter(game=game).prefetch_related("faces")}
    keywords = {slug: {k.name for k in r.keywords.all()} for slug, r in rulers.items()}
    for needed in ("Divinity", "Grimoire", "Stranger", "Tales"):
        assert any(needed in words for words in keywords.values()), needed
    for ruler in rulers.values():
        (face,) = ruler.faces.all()  # every Ruler's J-ruler is its other face
        assert face.types == ["j-ruler"] and face.stats["atk"] > 0, ruler.slug
        assert "J-ruler side" not in ruler.text, ruler.slug

    cards = list(Card.objects.filter(game=game).for_listing())
    infos = [card.info() for card in cards]

    def typed(kind):
        return [c for c in infos if kind in legality_types(c)]

    assert len(typed("master-rune")) == 1
    assert len([c for c in typed("rune") if "master-rune" not in legality_types(c)]) >= 5
    assert any({"chant", "rune"} <= set(legality_types(c)) for c in infos)
    for word in ("Tales", "Villains", "Will of Hope", "Will of Despair"):
        assert any(word in c.keywords for c in infos), word
    strangers = [c for c in infos if "Stranger" in c.keywords and c.type == "resonator"]
    assert len(strangers) >= 5  # a stranger deck of ten, two of a name
    by_slug = {c.slug: c for c in cards}
    assert by_slug["wildfire-surge"].cost == {"x": 1, "fire": 1}
    zero = [c for c in cards if not c.cost and c.colour_count and c.type.slug != "magic-stone"]
    assert zero, "no 0-cost card with a colour given beside its cost"
    printings = {p.number: p for c in cards for p in c.printings.all()}
    assert printings["PR-001"].rarity is None or not printings["PR-001"].rarity


def legality_types(info):
    from cards import legality

    return legality.types_of(info)
