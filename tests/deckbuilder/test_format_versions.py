"""Formats over time: the version in force on a day judges, and every verdict shown (pages,
lists, the API, the stored flag that filters decks) is that of the version in force now,
including the day a version dated in advance takes effect."""

import datetime as dt

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cards import services as card_services
from cards.models import Format, FormatVersion
from cards.pagecache import reference_version
from deckbuilder import services
from deckbuilder.models import Deck, DeckVerdict, Visibility
from tests import factories
from tests.conftest import api_client
from tests.factories import GOTTFRIED_TEN, add_version, cards

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 11, 27)
NOON = dt.datetime(2026, 11, 27, 12, tzinfo=dt.UTC)
MIDNIGHT = dt.datetime(2026, 11, 28, 0, 0, 1, tzinfo=dt.UTC)  # the next day has begun


@pytest.fixture
def at_noon():
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


def standard(game) -> Format:
    return game.formats.get(slug="standard")


@pytest.fixture
def public_deck(game, alice, at_noon):
    return factories.deck(alice, game)


LEGAL_BADGE = 'class="badge verdict legal"'


def verdicts_everywhere(client, deck) -> dict:
    """What each page, list and API answer says of the deck's legality, read afresh."""
    api = api_client(deck.owner)
    detail = api.get(f"/api/decks/{deck.share_id}/").json()
    public = api_client().get("/api/decks/public/", {"game": deck.game.slug}).json()["results"]
    mine = api.get("/api/decks/").json()["results"]
    page = client.get(reverse("deck-detail", kwargs={"share_id": deck.share_id}))
    listing = client.get(reverse("deck-list"), {"game": deck.game.slug})
    [listed] = [d for d in public if d["id"] == deck.share_id]
    [owned] = [d for d in mine if d["id"] == deck.share_id]
    return {
        "api detail": detail["legal"],
        "api public list": listed["legal"],
        "api own list": owned["legal"],
        "deck page": LEGAL_BADGE in page.content.decode(),
        "public decks page": LEGAL_BADGE in listing.content.decode(),
        "stored filter": Deck.objects.filter(pk=deck.pk).legal_now().exists(),
    }


ALL_LEGAL = dict.fromkeys(
    [
        "api detail",
        "api public list",
        "api own list",
        "deck page",
        "public decks page",
        "stored filter",
    ],
    True,
)
NONE_LEGAL = dict.fromkeys(ALL_LEGAL, False)


# --- a version dated in the past, or tomorrow ---------------------------------------------------


def test_a_version_dated_in_the_past_changes_every_verdict_at_once(client, game, public_deck):
    assert verdicts_everywhere(client, public_deck) == ALL_LEGAL

    add_version(standard(game), "2026-11-01", "November 2026 ban list", banlist={"lightning": 0})

    assert verdicts_everywhere(client, public_deck) == NONE_LEGAL
    problems = api_client().get(f"/api/decks/{public_deck.share_id}/").json()["problems"]
    assert [(p["code"], p["card"]) for p in problems] == [("banned", "lightning")]
    # still listed: a new version does not hide a public deck
    assert Deck.objects.public().filter(pk=public_deck.pk).exists()


def test_a_version_dated_tomorrow_changes_nothing_today_and_everything_after_midnight(
    client, game, public_deck, at_noon
):
    client.get(reverse("deck-detail", kwargs={"share_id": public_deck.share_id}))  # kept
    add_version(standard(game), "2026-11-28", "Tomorrow's ban list", banlist={"lightning": 0})

    assert verdicts_everywhere(client, public_deck) == ALL_LEGAL
    version_today = reference_version()

    at_noon.move_to(MIDNIGHT)

    assert reference_version() != version_today  # kept pages are keyed anew
    assert verdicts_everywhere(client, public_deck) == NONE_LEGAL
    deck = Deck.objects.for_display().get(pk=public_deck.pk)
    assert deck.illegal_since == dt.date(2026, 11, 28)


def test_the_verdicts_of_a_version_dated_ahead_are_stored_before_its_day(game, public_deck):
    ahead = add_version(standard(game), "2027-01-01", banlist={"despair": 0})
    stored = DeckVerdict.objects.get(deck=public_deck, version=ahead)
    assert (stored.legal, stored.starts) == (False, dt.date(2027, 1, 1))
    assert [p["card"] for p in stored.problems] == ["despair"]


def test_a_change_to_the_deck_is_judged_under_todays_and_tomorrows_versions(
    game, public_deck, at_noon
):
    tomorrow = add_version(standard(game), "2026-11-28", banlist={"healing": 0})
    services.deck_update(deck=public_deck, visibility=Visibility.UNLISTED)
    services.deck_set_count(
        deck=public_deck, card=cards(game, {"healing": 1}).popitem()[0][0], count=1
    )

    assert not DeckVerdict.objects.get(deck=public_deck, version=tomorrow).legal
    assert not Deck.objects.for_display().get(pk=public_deck.pk).legal  # eleven cards today
    at_noon.move_to(MIDNIGHT)
    problems = Deck.objects.for_display().get(pk=public_deck.pk).problems
    assert {"deck_size", "banned"} <= {p["code"] for p in problems}


def test_deleting_the_version_in_force_brings_back_the_one_before(client, game, public_deck):
    newer = add_version(standard(game), "2026-11-01", banlist={"lightning": 0})
    assert verdicts_everywhere(client, public_deck) == NONE_LEGAL
    newer.delete()
    assert verdicts_everywhere(client, public_deck) == ALL_LEGAL


# --- validation as of a date ----------------------------------------------------------------------


def validate(body, **extra):
    return api_client().post("/api/games/card-of-gods/validate/", {**body, **extra}, format="json")


GOTTFRIED_BODY = {
    "leader": "gottfried",
    "cards": [{"card": slug, "count": n} for slug, n in GOTTFRIED_TEN.items()],
}


def test_validate_as_of_judges_by_the_version_in_force_that_day(game, at_noon):
    add_version(standard(game), "2026-11-01", "November 2026 ban list", banlist={"lightning": 0})

    today = validate(GOTTFRIED_BODY).json()
    before = validate(GOTTFRIED_BODY, as_of="2026-10-31").json()
    on_the_day = validate(GOTTFRIED_BODY, as_of="2026-11-01").json()

    assert (today["legal"], today["version"]) == (
        False,
        {"from": "2026-11-01", "name": "November 2026 ban list"},
    )
    assert before["legal"] and before["version"]["name"] == "June 2026 ban list"
    assert not on_the_day["legal"]


def test_validate_without_as_of_uses_today_in_the_sites_time_zone(game, settings):
    settings.TIME_ZONE = "Pacific/Auckland"  # already the 28th there at noon UTC on the 27th
    timezone.deactivate()
    add_version(standard(game), "2026-11-28", banlist={"lightning": 0})
    with time_machine.travel(NOON, tick=False):
        assert timezone.localdate() == dt.date(2026, 11, 28)
        assert not validate(GOTTFRIED_BODY).json()["legal"]


def test_validate_as_of_before_the_first_version_is_refused(game):
    fow_body = {"leader": None, "format": "wanderer-sample", "cards": []}
    response = api_client().post(
        "/api/games/force-of-will/validate/", {**fow_body, "as_of": "2025-02-28"}, format="json"
    )
    assert response.status_code == 400
    assert "2025-03-01" in response.json()["as_of"][0]
    # a format in force from the beginning has no day before it
    assert validate(GOTTFRIED_BODY, as_of="1900-01-01").json()["legal"]


@pytest.mark.parametrize("bad", ["2026-13-01", "yesterday", "2026-1-1", 20261127, ""])
def test_validate_refuses_an_as_of_that_is_not_a_date(game, bad):
    response = validate(GOTTFRIED_BODY, as_of=bad)
    assert response.status_code == 400
    assert "as_of" in response.json()


# --- legality per format, on a deck ---------------------------------------------------------------


def test_a_deck_carries_its_legality_in_every_format_of_its_game(game, public_deck):
    card_services.save_format(
        game=game,
        data={
            "slug": "highlander",
            "name": "Highlander",
            "sections": standard(game).sections,
            "rules": [{"rule": "copy_limit", "by": "name", "default": 1}],
        },
    )
    body = api_client().get(f"/api/decks/{public_deck.share_id}/").json()
    by_format = {row["format"]: row for row in body["legality"]}
    assert by_format["standard"]["legal"] is True
    assert by_format["standard"]["version"] == {"from": "2026-06-01", "name": "June 2026 ban list"}
    assert by_format["highlander"]["legal"] is False
    assert {p["card"] for p in by_format["highlander"]["problems"]} == {
        "despair",
        "lightning",
        "fiery-earth",
    }
    assert by_format["highlander"]["version"] == {"from": None, "name": "Highlander"}


# --- the sample data -----------------------------------------------------------------------------


def test_the_sample_card_of_gods_standard_bans_firestorm_from_june_2026(game):
    fmt = standard(game)
    assert [(v.starts, v.name) for v in fmt.version_list] == [
        (None, "Standard"),
        (dt.date(2026, 6, 1), "June 2026 ban list"),
    ]
    rare = game.rarities.get(slug="rare")
    fields = {"name": "Firestorm", "rarity": rare, "cost": {"destruction": 3}}
    card_services.save_card(game=game, fields=fields, keywords=[])  # as in the sample
    body = {"leader": "gottfried", "cards": [{"card": "firestorm", "count": 1}]}
    banned = {p["code"] for p in validate(body).json()["problems"]}
    before = {p["code"] for p in validate(body, as_of="2026-05-31").json()["problems"]}
    assert "banned" in banned
    assert "banned" not in before


def test_the_sample_force_of_will_has_a_wanderer_like_format_with_two_ban_lists(game):
    fmt = Format.objects.get(game__slug="force-of-will", slug="wanderer-sample")
    assert [(v.starts, v.name, v.banlist) for v in fmt.version_list] == [
        (dt.date(2025, 3, 1), "March 2025 ban list", {"BEL-027": 0, "TID-005": 1}),
        (dt.date(2025, 9, 18), "September 2025 ban list", {"TID-003": 0, "TID-005": 1}),
    ]
    assert fmt.sections == fmt.game.formats.get(slug="constructed").sections


# --- the game definition file --------------------------------------------------------------------


def test_a_reimport_matches_versions_by_date_replacing_one_and_adding_another(game):
    definition = card_services.export_game_definition(game)
    [data] = [f for f in definition["formats"] if f["slug"] == "standard"]
    assert [v["from"] for v in data["versions"]] == [None, "2026-06-01"]
    data["versions"][1] = {**data["versions"][1], "banlist": {"despair": 0}}
    data["versions"].append({**data["versions"][1], "from": "2027-01-01", "name": "2027"})
    del data["versions"][0]  # not in the file: kept

    card_services.save_game(definition=definition)

    assert [(v.starts, v.banlist) for v in standard(game).version_list] == [
        (None, {}),
        (dt.date(2026, 6, 1), {"despair": 0}),
        (dt.date(2027, 1, 1), {"despair": 0}),
    ]
    assert card_services.export_game_definition(game)["formats"][0]["banlist"] == {"despair": 0}


def test_versions_in_the_file_decide_over_the_top_level_rules(game):
    definition = card_services.export_game_definition(game)
    definition["formats"][0]["rules"] = [{"rule": "deck_size", "exactly": 99}]  # not read
    card_services.save_game(definition=definition)
    assert {"rule": "deck_size", "exactly": 10, "section": "5.3"} in standard(game).rules


def test_a_version_with_a_bad_date_is_refused_with_the_reason(game):
    definition = card_services.export_game_definition(game)
    definition["formats"][0]["versions"][1]["from"] = "June 2026"
    with pytest.raises(ValueError, match="version 2.*2025-09-18"):
        card_services.save_game(definition=definition)
    assert len(standard(game).version_list) == 2


def test_two_versions_of_a_format_cannot_start_on_the_same_day(game):
    fmt = standard(game)
    with pytest.raises(Exception, match="one_a_day|UNIQUE|unique"):
        FormatVersion.objects.create(format=fmt, starts=dt.date(2026, 6, 1), name="Twice")


def test_validating_as_of_any_day_costs_what_validating_today_does(game):
    add_version(standard(game), "2026-11-01", banlist={"lightning": 0})
    validate(GOTTFRIED_BODY)  # the per-process catalogue holds every version once read
    counted = []
    for as_of in ({}, {"as_of": "2026-10-31"}, {"as_of": "2030-01-01"}):
        with CaptureQueriesContext(connection) as queries:
            assert validate(GOTTFRIED_BODY, **as_of).status_code == 200
        counted.append(len(queries))
    # today's costs the catalogue's version check (each time, in tests) and another for the
    # problems' rule links; a day without problems takes one less, never one more
    assert max(counted) == counted[0] <= 2, counted
