"""What players see of formats over time on the deck pages: the deck's verdict in every format
of its game, under any version of its own format, "not legal since" when a version made it
illegal (deck page, my decks, public decks), and the public lists' "legal in" filter (page and
API)."""

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services as card_services
from cards.models import Format
from deckbuilder.models import Visibility
from tests import factories
from tests.factories import GOTTFRIED_TEN, add_version
from tests.html import text_of

pytestmark = pytest.mark.django_db

# Gottfried (black, yellow, red; Kriegmark) can use all of these: a legal ten.
CLEAN = {"lightning": 3, "fiery-earth": 2, "punishment": 1, "blood-pact": 1, "quiet-prayer": 3}
BEFORE_THE_BAN = "2025-06-01 12:00 +00:00"
AFTER_THE_BAN = "2025-10-01 12:00 +00:00"


@pytest.fixture
def league(game):
    """A second format of the game, with Standard's rules of the test world (whatever versions
    the sample gives Standard): from the beginning; the March 2025 list; from 18 September 2025
    Despair banned."""
    first = Format.objects.get(game=game, slug="standard").version_list[0]
    data = {"slug": "league", "name": "League", **first.rules_data(), "banlist": {}}
    fmt = card_services.save_format(game=game, data=data)
    fmt.march = add_version(fmt, "2025-03-01", "March 2025 list")
    fmt.september = add_version(fmt, "2025-09-18", "September 2025 list", banlist={"despair": 0})
    return fmt


def make_deck(owner, game, fmt, counts=GOTTFRIED_TEN, visibility=Visibility.PUBLIC, name="Ten"):
    return factories.deck(owner, game, counts, fmt=fmt, visibility=visibility, name=name)


@pytest.fixture
def banned_deck(game, alice, league):
    """A public League deck, legal when made (June 2025), holding Despair, which League bans
    from 18 September 2025."""
    with time_machine.travel(BEFORE_THE_BAN, tick=False):
        return make_deck(alice, game, league)


def deck_page(client, deck, query=""):
    return client.get(deck.get_absolute_url() + (f"?{query}" if query else ""))


# --- the deck page ---------------------------------------------------------------------------


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_deck_page_says_in_one_line_whether_the_deck_is_legal_in_each_format_of_its_game(
    client, banned_deck
):
    text = text_of(deck_page(client, banned_deck))
    assert "Standard: ✓ legal" in text
    assert "League: ✗ not legal (1 problem)" in text


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_a_public_deck_a_version_made_illegal_shows_not_legal_since_that_day_and_why(
    client, banned_deck
):
    response = deck_page(client, banned_deck)
    text = text_of(response)
    assert "✗ Not legal since 18 Sep 2025" in text  # the badge
    assert (
        "Not legal since 18 September 2025, when the September 2025 list of League took effect"
        in text
    )
    assert "Despair is banned in this format." in text


@time_machine.travel(BEFORE_THE_BAN, tick=False)
def test_a_deck_legal_today_says_no_since_and_is_legal_in_every_format(client, banned_deck):
    text = text_of(deck_page(client, banned_deck))
    assert "Not legal since" not in text
    assert "Standard: ✓ legal" in text and "League: ✓ legal" in text


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_choosing_an_earlier_version_judges_the_deck_under_it_and_says_what_later_ones_changed(
    client, banned_deck, league
):
    response = deck_page(client, banned_deck, f"version={league.march.pk}")
    assert response.status_code == 200
    text = text_of(response)
    assert "✓ Legal under the March 2025 list (from 1 March 2025)" in text
    assert "Since the September 2025 list (from 18 September 2025): not legal:" in text
    after = text[text.index("Since the September 2025 list") :]
    assert after.index("Despair is banned in this format.") < after.index("Stats")
    despair = reverse("card-detail", args=["card-of-gods", "despair"])
    assert f'<a href="{despair}">Despair</a>' in response.content.decode()


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_a_version_is_also_chosen_by_a_day_and_bad_choices_are_a_400_that_says_why(
    client, banned_deck, league
):
    assert "✓ Legal under the March 2025 list" in text_of(
        deck_page(client, banned_deck, "version=2025-05-01")
    )
    assert "Legal under the League (from the beginning)" in text_of(
        deck_page(client, banned_deck, "version=2024-12-31")
    )
    standard = Format.objects.get(game=league.game, slug="standard").version_list[0]
    for query, says in [
        ("version=tomorrow", "Choose a version from the list, or a day as YYYY-MM-DD."),
        (f"version={standard.pk}", f"League has no version {standard.pk}"),
    ]:
        response = deck_page(client, banned_deck, query)
        assert response.status_code == 400
        assert says in text_of(response)


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_the_version_form_is_a_plain_get_form_listing_the_versions_newest_first(
    client, banned_deck, league
):
    html = deck_page(client, banned_deck).content.decode()
    form = html[
        html.index('<form method="get"') : html.index("</form>", html.index('<form method="get"'))
    ]
    assert 'name="version"' in form and 'type="submit"' in form
    september, march = form.index("September 2025 list"), form.index("March 2025 list")
    assert september < march < form.index("League — from the beginning")
    assert f'<option value="{league.september.pk}" selected>' in form  # in force today


def test_the_chosen_version_is_part_of_the_cached_page_for_anonymous_readers(
    client, banned_deck, league
):
    with time_machine.travel(AFTER_THE_BAN, tick=False):
        march = deck_page(client, banned_deck, f"version={league.march.pk}")
        again = deck_page(client, banned_deck, f"version={league.march.pk}")
        september = deck_page(client, banned_deck, f"version={league.september.pk}")
    assert march["ETag"] == again["ETag"] != september["ETag"]
    assert "✗ Not legal under the September 2025 list" in text_of(september)


def test_the_cached_deck_page_says_not_legal_since_from_the_day_the_version_takes_effect(
    client, banned_deck
):
    with time_machine.travel("2025-09-17 12:00 +00:00", tick=False):
        before = deck_page(client, banned_deck)
        assert deck_page(client, banned_deck)["ETag"] == before["ETag"]  # kept
    with time_machine.travel("2025-09-18 08:00 +00:00", tick=False):
        after = deck_page(client, banned_deck)
    assert "Not legal since" not in text_of(before) and "League: ✓ legal" in text_of(before)
    assert after["ETag"] != before["ETag"]
    assert "✗ Not legal since 18 Sep 2025" in text_of(after)


@pytest.mark.usefixtures("uncached")
@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_the_deck_page_runs_three_queries_whatever_the_version_chosen_and_the_versions(
    client, alice, game, banned_deck, league
):
    def queries(deck, query="") -> int:
        deck_page(client, deck, query)  # the game's vocabulary is cached in steady state
        with CaptureQueriesContext(connection) as captured:
            assert deck_page(client, deck, query).status_code == 200
        return len(captured)

    plain, chosen = queries(banned_deck), queries(banned_deck, f"version={league.march.pk}")
    for month in range(1, 7):  # more versions, before March: the deck is judged under each
        add_version(
            league, f"2024-0{month}-01", f"Old list {month}", banlist={"lightning": month % 2}
        )
    small = make_deck(alice, game, league, {"lightning": 1}, Visibility.UNLISTED, name="Small")
    more = (queries(banned_deck, "version=2024-01-15"), queries(small, "version=2024-01-15"))
    # the deck with its owner (its game, formats and versions from the cache), its verdicts,
    # its entries with their cards
    assert (plain, chosen, *more) == (3, 3, 3, 3)


# --- the lists -------------------------------------------------------------------------------


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_my_decks_and_the_public_list_mark_a_deck_not_legal_since_the_version_that_did_it(
    client, alice, banned_deck
):
    assert "✗ Not legal since 18 Sep 2025" in text_of(client.get(reverse("deck-list")))
    client.force_login(alice)
    assert "✗ Not legal since 18 Sep 2025" in text_of(client.get(reverse("my-decks")))


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_each_public_deck_says_which_formats_of_its_game_it_is_legal_in_now(
    client, alice, game, banned_deck
):
    text = text_of(client.get(reverse("deck-list")))
    row = text[text.index("Ten") :]
    assert row.index("Legal in: Standard") < row.index("copied")
    assert "Legal in: Standard, League" not in text


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_legal_in_lists_the_decks_of_the_game_legal_now_in_that_format_whatever_they_were_built_in(
    client, alice, bob, game, league, banned_deck
):
    standard_deck = make_deck(bob, game, None, name="Built in Standard")  # holds Despair too

    league_ok = make_deck(bob, game, None, CLEAN, name="No Despair")
    response = client.get(reverse("deck-list"), {"game": "card-of-gods", "legal_in": "league"})
    assert response.status_code == 200
    assert [d.name for d in response.context["decks"]] == [league_ok.name]
    response = client.get(reverse("deck-list"), {"game": "card-of-gods", "legal_in": "standard"})
    names = {d.name for d in response.context["decks"]}
    assert {standard_deck.name, banned_deck.name, league_ok.name} <= names
    assert (
        '<option value="league" selected>League</option>'
        in client.get(
            reverse("deck-list"), {"game": "card-of-gods", "legal_in": "league"}
        ).content.decode()
    )


def test_legal_in_becomes_true_of_a_deck_on_the_day_a_version_unbans_its_card(
    client, game, league, banned_deck
):
    add_version(league, "2025-12-01", "December 2025 list")  # Despair allowed again
    query = {"game": "card-of-gods", "legal_in": "league"}
    with time_machine.travel(AFTER_THE_BAN, tick=False):
        assert not client.get(reverse("deck-list"), query).context["decks"]
    with time_machine.travel("2025-12-01 12:00 +00:00", tick=False):
        assert [d.name for d in client.get(reverse("deck-list"), query).context["decks"]] == ["Ten"]


def test_legal_in_without_a_game_or_with_a_format_the_game_lacks_is_a_form_error(client, game):
    response = client.get(reverse("deck-list"), {"legal_in": "standard"})
    assert response.status_code == 400
    assert "Legal in: Choose a game first" in text_of(response)
    response = client.get(reverse("deck-list"), {"game": "card-of-gods", "legal_in": "modern"})
    assert response.status_code == 400
    assert "Card of Gods has no format “modern”; its formats: Standard." in text_of(response)


@pytest.mark.usefixtures("uncached")
@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_the_public_list_runs_the_same_queries_for_2_and_12_decks_with_legal_in(
    client, alice, game, league
):
    def queries() -> int:
        url = reverse("deck-list")
        client.get(url, {"game": "card-of-gods", "legal_in": "standard"})
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url, {"game": "card-of-gods", "legal_in": "standard"})
        assert response.status_code == 200
        return len(captured), len(response.context["decks"])

    for i in range(2):
        make_deck(alice, game, league if i % 2 else None, CLEAN, name=f"Deck {i}")
    few = queries()
    for i in range(10):
        make_deck(alice, game, league if i % 2 else None, CLEAN, name=f"More {i}")
    many = queries()
    assert (few[1], many[1]) == (2, 12)
    assert few[0] == many[0]


# --- the API ---------------------------------------------------------------------------------


@time_machine.travel(AFTER_THE_BAN, tick=False)
def test_api_public_decks_filter_by_legal_in_and_refuse_an_unknown_format_with_a_400(
    api, bob, game, banned_deck
):

    make_deck(bob, game, None, CLEAN, name="No Despair")
    url = reverse("api-deck-public")
    found = api.get(url, {"game": "card-of-gods", "legal_in": "league"}).json()
    assert [d["name"] for d in found["results"]] == ["No Despair"]
    standard = api.get(url, {"game": "card-of-gods", "legal_in": "standard"}).json()
    assert {d["name"] for d in standard["results"]} == {"No Despair", "Ten"}
    unknown = api.get(url, {"game": "card-of-gods", "legal_in": "modern"})
    assert unknown.status_code == 400
    assert "has no format 'modern'" in unknown.json()["legal_in"][0]
    no_game = api.get(url, {"legal_in": "league"})
    assert no_game.status_code == 400 and "game" in no_game.json()["legal_in"][0]
