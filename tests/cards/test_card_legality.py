"""Legality of a card per format, where players look: `legality.card_status` (the card alone,
under a format's version), the card filters `legal=` and `banned=` (page and API, built on
Card.objects.legal_in / banned_in, which agree with the engine on generated cards), the API's
`legality` field and the card page's table of formats."""

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cards import legality, services
from cards.legality import CardInfo
from cards.models import Card, CardSet, Format, Game
from tests.html import html_of, text_of

COG = "card-of-gods"
COG_API = f"/api/games/{COG}/cards/"
FOW_API = "/api/games/force-of-will/cards/"


# --- the engine: one card, one format (no database) ------------------------------------------


def fmt(rules=(), banlist=None, sections=("main",)) -> legality.Format:
    return legality.Format.from_data(
        {
            "sections": [{"slug": s, "name": s.title()} for s in sections],
            "rules": list(rules),
            "banlist": banlist or {},
        }
    )


SEED = CardInfo(
    "plant-a-seed",
    "Plant A Seed",
    rarity="common",
    type="resonator",
    keywords=frozenset({"Keld"}),
    printings=frozenset({"BEL-007"}),
    sets=frozenset({"BEL"}),
    groups=frozenset({"Bell cluster"}),
)
BY_RARITY = {"rule": "copy_limit", "by": "rarity", "limits": {"common": 3, "rare": 1}}
MAIN_TAKES = {"rule": "section_types", "deck": "main", "types": ["resonator", "chant"]}
POOL_TID = {"rule": "pool", "sets": ["TID"]}


def test_a_card_no_rule_names_is_legal():
    assert legality.card_status(fmt([BY_RARITY, MAIN_TAKES]), SEED) == ("legal", None)


def test_a_ban_list_allowing_none_bans_the_card_by_slug():
    assert legality.card_status(fmt([BY_RARITY], {"plant-a-seed": 0}), SEED) == ("banned", 0)


def test_a_ban_list_bans_the_card_by_any_printing_number_in_any_case():
    assert legality.card_status(fmt(banlist={"bel-007": 0}), SEED)[0] == "banned"


def test_a_banlist_rule_bans_as_the_format_ban_list_does():
    rule = {"rule": "banlist", "cards": {"BEL-007": 0}}
    assert legality.card_status(fmt([rule]), SEED)[0] == "banned"


def test_the_lowest_of_several_ban_list_entries_wins():
    rule = {"rule": "banlist", "cards": {"plant-a-seed": 2}}
    assert legality.card_status(fmt([BY_RARITY, rule], {"BEL-007": 0}), SEED)[0] == "banned"


def test_fewer_copies_than_the_copy_limit_is_limited_to_that_many():
    status = legality.card_status(fmt([BY_RARITY], {"plant-a-seed": 1}), SEED)
    assert status == ("limited", 1)
    assert legality.status_label(*status) == "Limited to 1"


@pytest.mark.parametrize("allowed", [3, 4])
def test_a_ban_list_allowing_the_copy_limit_or_more_leaves_the_card_legal(allowed):
    status = legality.card_status(fmt([BY_RARITY], {"plant-a-seed": allowed}), SEED)
    assert status == ("legal", None)


def test_a_ban_list_limit_on_a_card_no_copy_limit_bounds_is_limited():
    assert legality.card_status(fmt(banlist={"plant-a-seed": 5}), SEED) == ("limited", 5)


def test_limited_counts_the_copy_limit_of_the_most_generous_section_the_card_may_go_in():
    sections = ("main", "side")
    one_in_main = {"rule": "copy_limit", "by": "name", "default": 1, "across": ["main"]}
    four_in_side = {"rule": "copy_limit", "by": "name", "default": 4, "across": ["side"]}
    format_ = fmt([one_in_main, four_in_side], {"plant-a-seed": 2}, sections)
    assert legality.card_status(format_, SEED) == ("limited", 2)
    side_takes_chants = {"rule": "section_types", "deck": "side", "types": ["chant"]}
    format_ = fmt([one_in_main, four_in_side, side_takes_chants], {"plant-a-seed": 2}, sections)
    assert legality.card_status(format_, SEED) == ("legal", None)


def test_a_combination_ban_is_not_a_ban_of_the_card_alone():
    rule = {"rule": "combination_ban", "groups": [["plant-a-seed", "healing"]]}
    assert legality.card_status(fmt([rule]), SEED)[0] == "legal"


def test_a_card_without_a_printing_in_the_pool_is_not_in_pool():
    assert legality.card_status(fmt([POOL_TID]), SEED) == ("not_in_pool", None)
    unprinted = CardInfo("healing", "Healing")
    assert legality.card_status(fmt([{"rule": "pool", "sets": ["BEL"]}]), unprinted)[0] == (
        "not_in_pool"
    )


def test_a_printing_in_a_set_of_a_pool_group_is_in_the_pool():
    rule = {"rule": "pool", "groups": ["Bell cluster"]}
    assert legality.card_status(fmt([rule]), SEED)[0] == "legal"


def test_a_card_no_section_takes_is_not_allowed():
    rule = {"rule": "section_types", "deck": "main", "types": ["magic-stone"]}
    assert legality.card_status(fmt([rule]), SEED) == ("not_allowed", None)


def test_a_section_naming_a_keyword_takes_only_cards_with_it():
    stranger = {"rule": "section_types", "deck": "main", "types": ["resonator"], "keyword": "Keld"}
    assert legality.card_status(fmt([stranger]), SEED)[0] == "legal"
    assert legality.card_status(fmt([{**stranger, "keyword": "Stranger"}]), SEED)[0] == (
        "not_allowed"
    )


def test_a_section_without_section_types_takes_every_card():
    stones = {"rule": "section_types", "deck": "main", "types": ["magic-stone"]}
    assert legality.card_status(fmt([stones], sections=("main", "side")), SEED)[0] == "legal"


def test_not_allowed_comes_before_not_in_pool_which_comes_before_banned():
    no_section = {"rule": "section_types", "deck": "main", "types": ["magic-stone"]}
    banned = {"plant-a-seed": 0}
    assert legality.card_status(fmt([no_section, POOL_TID], banned), SEED)[0] == "not_allowed"
    assert legality.card_status(fmt([POOL_TID], banned), SEED)[0] == "not_in_pool"


def test_rules_of_the_card_against_a_leader_do_not_count():
    rules = [
        {"rule": "colour_identity"},
        {"rule": "faction_gate"},
        {"rule": "loyalty_gate"},
        {"rule": "leader_required"},
    ]
    card = CardInfo(
        "x", "X", colours=frozenset({"red"}), factions=frozenset({"Keld"}), loyalty=("Keld", 3)
    )
    assert legality.card_status(fmt(rules), card) == ("legal", None)


@pytest.mark.parametrize(
    ("status", "limit", "label"),
    [
        ("legal", None, "Legal"),
        ("limited", 2, "Limited to 2"),
        ("banned", 0, "Banned"),
        ("not_in_pool", None, "Not in pool"),
        ("not_allowed", None, "Not allowed"),
    ],
)
def test_every_status_has_a_label(status, limit, label):
    assert legality.status_label(status, limit) == label


# --- the database: versions that ban, filters, the API, the card page ------------------------


def new_version(format_: Format, *, banlist=None, rules=None, starts=None) -> None:
    """A version of `format_` from `starts` (default: today, so the one in force today, after
    any the sample data has), with today's sections and rules unless given."""
    starts = starts or timezone.localdate().isoformat()
    current = format_.current
    services.save_format_version(
        fmt=format_,
        data={
            "from": starts,
            "name": "Test ban list",
            "sections": current.sections,
            "rules": current.rules if rules is None else rules,
            "banlist": banlist or {},
        },
    )


@pytest.fixture
def cog_bans(game):
    """Card of Gods' Standard from today: Healing banned, Despair (common: 3) limited to 1."""
    new_version(game.formats.get(slug="standard"), banlist={"healing": 0, "despair": 1})
    return game


@pytest.fixture
def fow(db):
    return Game.objects.get(slug="force-of-will")


def api_slugs(api, url, params) -> set[str]:
    response = api.get(url, {**params, "page_size": 100})
    assert response.status_code == 200, response.content
    return {card["slug"] for card in response.json()["results"]}


def page_names(client, game_slug, query) -> set[str]:
    response = client.get(f"/games/{game_slug}/cards/?{query}")
    assert response.status_code == 200, response.context["filter_errors"]
    return {card.slug for card in response.context["cards"]}


@pytest.mark.django_db
def test_the_legal_and_banned_filters_on_the_page_and_in_the_api(client, api, cog_bans):
    every = set(cog_bans.cards.values_list("slug", flat=True))
    legal = every - {"healing"}  # Despair is limited: legal, with fewer copies
    assert api_slugs(api, COG_API, {"legal": "standard"}) == legal
    assert page_names(client, COG, "legal=standard") == legal
    assert api_slugs(api, COG_API, {"banned": "standard"}) == {"healing"}
    assert page_names(client, COG, "banned=standard") == {"healing"}


@pytest.mark.django_db
def test_the_banned_filter_finds_nothing_in_a_format_without_bans(client, api, game):
    assert api_slugs(api, COG_API, {"banned": "standard"}) == set()
    assert len(api_slugs(api, COG_API, {"legal": "standard"})) == game.cards.count()


@pytest.mark.django_db
def test_the_browser_shows_legal_in_and_banned_in_with_the_format_chosen(client, game):
    html = html_of(client.get(f"/games/{COG}/cards/?banned=standard"))
    assert '<select name="legal" id="id_legal">' in html
    assert '<option value="standard" selected>Standard</option>' in html


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["legal", "banned"])
def test_a_format_the_game_lacks_is_a_400_in_the_api_and_a_form_error_on_the_page(
    client, api, game, name
):
    message = "'constructed' is not a format of Card of Gods."
    response = api.get(COG_API, {name: "constructed"})
    assert response.status_code == 400
    assert response.json() == {name: [message]}
    response = client.get(f"/games/{COG}/cards/?{name}=constructed")
    assert response.status_code == 400
    label = "Legal in" if name == "legal" else "Banned in"
    assert [e["messages"] for e in response.context["filter_errors"]] == [[message]]
    assert f"{label}: {message}" in text_of(response)


@pytest.mark.django_db
def test_a_percent_sign_in_a_bad_format_is_a_400_never_a_500(client, api, game):
    assert api.get(COG_API, {"legal": "%(x)s"}).json() == {
        "legal": ["'%(x)s' is not a format of Card of Gods."]
    }
    assert client.get(f"/games/{COG}/cards/?banned=50%25").status_code == 400


@pytest.mark.django_db
def test_api_cards_carry_their_legality_in_a_list_and_alone(api, cog_bans):
    results = api.get(COG_API, {"page_size": 100}).json()["results"]
    legality_of = {card["slug"]: card["legality"] for card in results}
    assert legality_of["healing"] == {"standard": "banned"}
    assert legality_of["despair"] == {"standard": "limited"}
    assert legality_of["plant-a-seed"] == {"standard": "legal"}
    one = api.get(f"{COG_API}healing/").json()
    assert one["legality"] == {"standard": "banned"}


@pytest.mark.django_db
def test_api_legality_follows_the_version_in_force_today_not_a_future_one(api, game):
    new_version(game.formats.get(slug="standard"), banlist={"healing": 0}, starts="2999-01-01")
    assert api.get(f"{COG_API}healing/").json()["legality"] == {"standard": "legal"}
    assert api_slugs(api, COG_API, {"banned": "standard"}) == set()


@pytest.mark.django_db
def test_api_legality_names_every_format_of_the_game(api, fow):
    constructed = fow.formats.get(slug="constructed")
    new_version(constructed, banlist={"BEL-001": 0})  # Lantern Acolyte, by printing number
    card = api.get(f"{FOW_API}lantern-acolyte/").json()
    every = {slug: "legal" for slug in fow.formats.values_list("slug", flat=True)}
    assert card["legality"] == {**every, "constructed": "banned"}
    assert "casual" in every


@pytest.mark.django_db
def test_the_card_page_shows_each_format_with_its_status_in_words_and_a_link(client, fow):
    constructed = fow.formats.get(slug="constructed")
    new_version(constructed, banlist={"BEL-001": 0})
    response = client.get(reverse("card-detail", args=["force-of-will", "lantern-acolyte"]))
    rows = {row["format"].slug: row["label"] for row in response.context["standing"]}
    assert list(rows) == [f.slug for f in fow.formats.all()]  # every format, in order
    assert rows["casual"] == "Legal" and rows["constructed"] == "Banned"
    text, html = text_of(response), html_of(response)
    assert "Casual ✓ Legal" in text
    assert "Constructed (CR 12.7) (Test ban list) ✕ Banned" in text
    for slug in ("casual", "constructed"):
        assert f'href="{reverse("format-detail", args=["force-of-will", slug])}"' in html


def standing_on_page(client, slug="healing") -> str:
    response = client.get(reverse("card-detail", args=[COG, slug]))
    [row] = response.context["standing"]
    assert row["label"] in text_of(response)
    return row["label"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("banlist", "extra_rules", "label"),
    [
        ({}, [], "Legal"),
        ({"healing": 0}, [], "Banned"),
        ({"healing": 1}, [], "Limited to 1"),  # uncommon: 2 copies
        ({"healing": 0}, [{"rule": "pool", "sets": ["NOPE"]}], "Not in pool"),
        (
            {"healing": 0},
            [{"rule": "pool", "sets": ["NOPE"]}]
            + [{"rule": "section_types", "types": ["god-card"], "keyword": "Nope"}],
            "Not allowed",
        ),
    ],
    ids=["legal", "banned", "limited", "not-in-pool", "not-allowed"],
)
def test_the_card_page_says_each_status(client, game, banlist, extra_rules, label):
    standard = game.formats.get(slug="standard")
    new_version(standard, banlist=banlist, rules=[*standard.current.rules, *extra_rules])
    assert standing_on_page(client) == label


@pytest.mark.django_db
@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_legality_costs_no_query_per_listed_card(api, fow):
    new_version(fow.formats.get(slug="constructed"), banlist={"BEL-001": 0, "dawnspire-paladin": 1})
    formats = fow.formats.count()
    api.get(FOW_API)  # the first request after a change reads the vocabulary again
    counts = []
    for size in (2, 40):
        with CaptureQueriesContext(connection) as ctx:
            response = api.get(FOW_API, {"page_size": size})
        results = response.json()["results"]
        assert len(results) == size and all(len(c["legality"]) == formats for c in results)
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts


# --- the database filter agrees with the engine, on generated cards and formats -------------

FOW_TYPES = ["resonator", "chant", "magic-stone", "rune", "j-ruler"]
KEYWORDS = ["Stranger", "Basic", "Human"]
SETS = ["BEL", "TID", "PR"]
DB_SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
RUN = itertools.count()  # examples share the test's transaction: each makes its own names

some = st.lists
card_specs = some(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(FOW_TYPES[:4]),
            "more": some(st.sampled_from(FOW_TYPES[:4]), max_size=1),
            "keywords": some(st.sampled_from(KEYWORDS), max_size=2, unique=True),
            "face": st.none()
            | st.tuples(
                some(st.sampled_from(FOW_TYPES), max_size=2, unique=True),
                some(st.sampled_from(KEYWORDS), max_size=1),
            ),
            "sets": some(st.sampled_from(SETS), max_size=2, unique=True),
        }
    ),
    min_size=1,
    max_size=5,
)
section_rule = st.fixed_dictionaries(
    {"types": some(st.sampled_from(FOW_TYPES), min_size=1, max_size=2, unique=True)},
    optional={"keyword": st.sampled_from(KEYWORDS)},
)
# Each section: its section_types rules (none: it takes every card).
format_specs = st.fixed_dictionaries(
    {
        "sections": some(some(section_rule, max_size=2), min_size=1, max_size=3),
        "pool": st.none()
        | st.fixed_dictionaries({"sets": some(st.sampled_from(SETS), min_size=1, unique=True)})
        | st.just({"groups": ["Bell cluster"]}),
        # (card index, named by "slug" / "number" / "lower" number, copies allowed)
        "bans": some(
            st.tuples(
                st.integers(0, 4), st.sampled_from(["slug", "number", "lower"]), st.integers(0, 2)
            ),
            max_size=4,
        ),
        "rule_bans": st.booleans(),  # half the bans in a banlist rule instead
    }
)


def make_cards(game, specs) -> list[Card]:
    run = next(RUN)
    types = {t.slug: t for t in game.card_types.all()}
    sets = {s.code: s for s in CardSet.objects.filter(game=game)}
    writes = [
        services.CardWrite(
            {"name": f"Generated {run}.{i}", "type": types[spec["type"]]},
            spec["keywords"],
            more_types=[types[t] for t in spec["more"] if t != spec["type"]],
            faces=None
            if spec["face"] is None
            else [
                {"name": f"Back {run}.{i}", "types": spec["face"][0], "keywords": spec["face"][1]}
            ],
            printings=[
                {"set": sets[code], "number": f"GEN{run}-{i}-{code}"} for code in spec["sets"]
            ],
        )
        for i, spec in enumerate(specs)
    ]
    saved = services.save_cards(game=game, writes=writes)
    return list(Card.objects.filter(pk__in=[c.pk for c in saved]).for_listing())


def make_format(spec, cards) -> legality.Format:
    slugs = ["main", "stones", "side"][: len(spec["sections"])]
    rules = [
        {"rule": "section_types", "deck": slug, **rule}
        for slug, mine in zip(slugs, spec["sections"], strict=True)
        for rule in mine
    ]
    rules.append({"rule": "copy_limit", "by": "name", "default": 2})
    if spec["pool"]:
        rules.append({"rule": "pool", **spec["pool"]})
    refs = []
    for index, named_by, most in spec["bans"]:
        info = cards[index % len(cards)].info()
        number = min(info.printings, default=None)
        if named_by == "slug" or number is None:
            refs.append((info.slug, most))
        else:
            refs.append((number.lower() if named_by == "lower" else number, most))
    refs.append(("no-such-card", 0))
    half = len(refs) // 2 if spec["rule_bans"] else 0
    rules.append({"rule": "banlist", "cards": dict(refs[:half])})
    data = {
        "sections": [{"slug": s, "name": s} for s in slugs],
        "rules": rules,
        "banlist": dict(refs[half:]),
    }
    assert legality.validate_format(data) == []
    return legality.Format.from_data(data)


def spec(type_, more=(), keywords=(), face=None, sets=()) -> dict:
    return dict(type=type_, more=list(more), keywords=list(keywords), face=face, sets=list(sets))


@pytest.mark.django_db
@DB_SETTINGS
@example(  # every status, a face's type and keyword, another type, a number in lower case
    cards=[
        spec("chant", face=(["j-ruler"], []), sets=["BEL"]),  # banned (main, by its number)
        spec("rune", more=["chant"], keywords=["Stranger"], sets=["TID"]),  # banned (stones)
        spec("rune", face=(["chant"], ["Stranger"])),  # not in pool
        spec("resonator", sets=["BEL"]),  # limited (side)
        spec("resonator", sets=["TID"]),  # legal
        spec("rune", sets=["BEL"]),  # not allowed
    ],
    format_=dict(
        sections=[
            [{"types": ["j-ruler"]}],
            [{"types": ["chant"], "keyword": "stranger"}],
            [{"types": ["resonator"]}],
        ],
        pool={"groups": ["Bell cluster"]},
        bans=[(0, "lower", 0), (1, "slug", 0), (3, "number", 1), (2, "slug", 0), (5, "slug", 0)],
        rule_bans=True,
    ),
)
@given(cards=card_specs, format_=format_specs)
def test_the_legal_and_banned_filters_agree_with_card_status(cards, format_):
    fow = Game.objects.get(slug="force-of-will")
    made = make_cards(fow, cards)
    engine = make_format(format_, made)
    status = {card.pk: legality.card_status(engine, card.info())[0] for card in made}
    pool = Card.objects.filter(pk__in=status)
    legal = set(pool.legal_in(engine, fow).values_list("pk", flat=True))
    banned = set(pool.banned_in(engine, fow).values_list("pk", flat=True))
    assert legal == {pk for pk, s in status.items() if s in ("legal", "limited")}, status
    assert banned == {pk for pk, s in status.items() if s == "banned"}, status
