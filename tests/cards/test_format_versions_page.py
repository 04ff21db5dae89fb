"""A format's page shows its versions, newest first: when each judges, which is in force, and
what each changed from the one before (bans by card, the pool's sets, rules in words)."""

import re

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services as card_services
from cards.models import Format
from tests import factories
from tests.html import meta, text_of

pytestmark = pytest.mark.django_db

TODAY = "2025-06-01 12:00 +00:00"  # between the March and the September versions below


@pytest.fixture
def league(game):
    """A format of our own, with one version from the beginning: Standard's rules of the test
    world, whatever versions the sample data gives Standard."""
    first = Format.objects.get(game=game, slug="standard").version_list[0]
    data = {"slug": "league", "name": "League", **first.rules_data(), "banlist": {}}
    return card_services.save_format(game=game, data=data)


def add_version(fmt, starts, name, banlist=None, rules=None) -> Format:
    """The format, read again, with a version like its first and this ban list (or rules)."""
    like = fmt.version_list[0]
    factories.add_version(fmt, starts, name, banlist=banlist, rules=rules, like=like)
    return Format.objects.get(pk=fmt.pk)


@pytest.fixture
def three_versions(league):
    """From the beginning; March 2025 bans Despair; September 2025 unbans it, limits Lightning
    to one copy and asks for twelve cards instead of ten."""
    add_version(league, "2025-03-01", "March 2025 list", {"despair": 0})
    rules = [
        {**rule, "exactly": 12} if rule["rule"] == "deck_size" else rule
        for rule in league.version_list[0].rules
    ]
    return add_version(league, "2025-09-18", "September 2025 list", {"lightning": 1}, rules)


def page(client, fmt):
    return client.get(reverse("format-detail", args=[fmt.game.slug, fmt.slug]))


def versions_section(response) -> str:
    html = response.content.decode()
    return html[html.index('id="versions-heading"') :]


@time_machine.travel(TODAY, tick=False)
def test_versions_are_listed_newest_first_with_upcoming_in_force_and_until_marks(
    client, three_versions
):
    text = text_of(page(client, three_versions))
    versions = text[text.index("Versions") :]
    september, march, first = (
        versions.index("September 2025 list"),
        versions.index("March 2025 list"),
        versions.index("From the beginning"),
    )
    assert september < march < first
    assert "From 18 September 2025 Upcoming: from 18 September 2025" in versions
    assert "From 1 March 2025 ● In force Until 17 September 2025" in versions
    assert "From the beginning Until 28 February 2025" in versions
    assert "The first version." in versions
    assert "The rules below are the March 2025 list, in force since 1 March 2025." in text
    assert "Coming: September 2025 list, from 18 September 2025." in text


@time_machine.travel(TODAY, tick=False)
def test_each_version_says_what_it_changed_bans_by_linked_name_and_rules_in_words(
    client, three_versions
):
    html = versions_section(page(client, three_versions))
    despair = reverse("card-detail", args=["card-of-gods", "despair"])
    lightning = reverse("card-detail", args=["card-of-gods", "lightning"])
    assert f'<a href="{despair}">Despair</a>: banned' in html
    assert f'<a href="{despair}">Despair</a>: unbanned' in html
    assert f'<a href="{lightning}">Lightning</a>: limited to 1 copy' in html
    text = text_of(page(client, three_versions))
    assert "Rule changed: The deck holds exactly 12 cards. (was: The deck holds exactly 10" in text


@time_machine.travel(TODAY, tick=False)
def test_todays_rules_and_ban_list_are_the_version_in_force_not_the_upcoming_one(
    client, three_versions
):
    text = text_of(page(client, three_versions))
    rules = text[text.index("Rules") : text.index("Versions")]
    assert "Despair: banned" in rules and "Lightning" not in rules
    assert "exactly 10 cards" in rules and "exactly 12" not in rules


def test_pool_sets_in_and_out_and_rules_added_or_removed_are_said(client, league):
    rules = league.version_list[0].rules
    pooled = [*rules, {"rule": "pool", "sets": ["AAA", "BBB"]}]
    add_version(league, "2025-01-01", "Pool of two sets", rules=pooled)
    swapped = [r for r in rules if r["rule"] != "faction_gate"]
    fmt = add_version(
        league, "2025-02-01", "New pool", rules=[*swapped, {"rule": "pool", "sets": ["BBB", "CCC"]}]
    )
    text = text_of(page(client, fmt))
    assert "Rule added: Only cards with a printing in the sets AAA, BBB may be used" in text
    assert "Sets now in the pool: CCC" in text and "Sets out of the pool: AAA" in text
    assert "Rule removed: A card of a faction needs" in text


def test_a_format_with_one_version_shows_no_versions_section(client, league):
    response = page(client, league)
    assert response.status_code == 200
    assert 'id="versions-heading"' not in response.content.decode()


@time_machine.travel(TODAY, tick=False)
def test_the_page_keeps_its_title_and_description(client, three_versions):
    response = page(client, three_versions)
    assert "League — Card of Gods format" in response.content.decode()
    assert meta(response, "name", "description").startswith("How a Card of Gods deck is built")


def test_the_cached_page_moves_to_the_next_version_on_its_first_day(client, league):
    with time_machine.travel("2025-09-17 12:00 +00:00", tick=False):
        fmt = add_version(league, "2025-09-18", "September 2025 list", {"despair": 0})
        before = page(client, fmt)
        assert "Upcoming: from 18 September 2025" in text_of(before)
        assert page(client, fmt)["ETag"] == before["ETag"]  # kept for anonymous readers
    with time_machine.travel("2025-09-18 12:00 +00:00", tick=False):
        after = page(client, fmt)
    assert after["ETag"] != before["ETag"]
    text = text_of(after)
    assert "The rules below are the September 2025 list, in force since 18 September 2025." in text
    assert "Despair: banned" in text[text.index("Rules") : text.index("Versions")]


@pytest.mark.usefixtures("uncached")
@time_machine.travel(TODAY, tick=False)
def test_the_page_runs_the_same_queries_for_one_and_many_versions(client, league):
    def queries(fmt) -> int:
        page(client, fmt)  # the game's vocabulary is cached in steady state
        with CaptureQueriesContext(connection) as captured:
            assert page(client, fmt).status_code == 200
        return len(captured)

    none = queries(league)
    fmt = add_version(league, "2025-01-01", "List 1", {"despair": 0})
    one = queries(fmt)
    for month in range(2, 7):
        ban = {"despair": 0} if month % 2 else {"lightning": 1, "blood-pact": 0}
        fmt = add_version(league, f"2025-0{month}-01", f"List {month}", ban)
    many = queries(fmt)
    assert len(re.findall(r"<h3>List \d</h3>", page(client, fmt).content.decode())) == 6
    # the game (its vocabulary with the formats' versions comes from the cache) and the rules'
    # anchors; with bans, the cards and leaders they name (those of every version at once)
    # and the cards' printings
    assert (none, one, many) == (2, 5, 5)
