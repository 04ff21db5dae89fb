"""The keyword, faction and leader filters take a slug, a name in any case or the start of one
name; several names starting with the text, or none, is a 400 that says so (listing them, or
suggesting close names). A range running backwards (From 5, To 2) is a 400 too. The card
browser and the API share the filters (cards.filters.CardFilter), so both answer the same.
The filter form re-fetches the results with htmx when a control changes."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services
from cards.models import Game
from tests.html import html_of, text_of

GAME = "card-of-gods"
API = f"/api/games/{GAME}/cards/"
pytestmark = pytest.mark.django_db


def browse(client, query="", game=GAME):
    return client.get(f"/games/{game}/cards/?{query}")


def names(response) -> set[str]:
    assert response.status_code == 200, response.context and response.context["filter_errors"]
    return {card.name for card in response.context["cards"]}


def api_slugs(api, params) -> set[str]:
    response = api.get(API, {**params, "page_size": 100})
    assert response.status_code == 200, response.content
    return {card["slug"] for card in response.json()["results"]}


def errors_of(response) -> dict[str, list[str]]:
    """The page's error list: {label: messages}."""
    assert response.status_code == 400
    return {e["label"]: e["messages"] for e in response.context["filter_errors"]}


@pytest.fixture
def world(game):
    """Keywords Ritual and Protector (with Priory of Hope: two keywords start with "pr"), on
    cards of their own; a leader Kelvin (two leaders start with "kel")."""
    common = game.rarities.get(slug="common")
    for name, keyword in (("Dark Rite", "Ritual"), ("Shield Wall", "Protector")):
        services.save_card(
            game=game,
            fields={"name": name, "rarity": common, "cost": {"life": 1}},
            keywords=[keyword],
        )
    services.save_leader(game=game, fields={"name": "Kelvin"}, colours=[], keywords=[])
    return game


# --- prefixes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("keyword=ritu", {"Dark Rite"}),  # the start of a name
        ("keyword=RITU", {"Dark Rite"}),  # any case
        ("keyword=Ritual", {"Dark Rite"}),  # the full name still works
        ("keyword=ritual", {"Dark Rite"}),  # and the slug
        ("keyword=prot", {"Shield Wall"}),
        ("keyword=pla", {"Plant A Seed"}),
        ("faction=eng", {"Hymn of Engeln"}),
        ("faction=ke", {"Plant A Seed"}),  # Keld (Kriegmark does not start with "ke")
        ("faction=priory", set()),  # a faction of no card
        ("leader=kella", {"Plant A Seed", "Healing", "Quiet Prayer", "Dark Rite", "Shield Wall"}),
        ("leader=RICH", {"Punishment", "Hymn of Engeln", "Quiet Prayer"}),
    ],
)
def test_a_unique_start_of_a_name_selects_it_on_the_page_and_in_the_api(
    client, api, world, query, expected
):
    assert names(browse(client, query)) == expected
    key, value = query.split("=")
    slugs = {name.lower().replace(" ", "-") for name in expected}
    assert api_slugs(api, {key: value}) == slugs


def test_an_exact_name_wins_over_a_longer_name_it_starts(client, api, world):
    services.save_card(
        game=world,
        fields={"name": "Ritual Knife", "rarity": world.rarities.first(), "cost": {"life": 1}},
        keywords=["Ritualist"],  # "Ritual" is the start of "Ritualist" too
    )
    assert names(browse(client, "keyword=ritual")) == {"Dark Rite"}
    assert names(browse(client, "keyword=ritualis")) == {"Ritual Knife"}
    assert errors_of(browse(client, "keyword=ritu"))["Keyword"] == [
        "'ritu' matches several keywords: Ritual, Ritualist. Type more of the name."
    ]


def test_the_page_says_what_a_start_was_read_as_and_shows_the_full_name(client, world):
    response = browse(client, "keyword=ritu&leader=kella")
    text = text_of(response)
    assert "Keyword: “ritu” read as Ritual" in text
    assert "“kella” read as Kellantra" in text
    html = html_of(response)
    assert 'name="keyword" id="id_keyword" list="keyword-list" value="Ritual"' in html
    assert 'name="leader" id="id_leader" list="leader-list" value="Kellantra"' in html
    assert "read as" not in text_of(browse(client, "keyword=Ritual&leader=kellantra"))


def test_a_faction_found_by_its_start_is_the_one_selected_in_the_form(client, world):
    html = html_of(browse(client, "faction=eng"))
    assert '<option value="engeln" selected>Engeln</option>' in html
    assert html.count(" selected>") == 2  # the faction and the sort


# --- ambiguous and unknown -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "label", "message"),
    [
        (
            "keyword=pr",
            "Keyword",
            "'pr' matches several keywords: Priory of Hope, Protector. Type more of the name.",
        ),
        (
            "faction=k",
            "Faction",
            "'k' matches several factions: Keld, Kriegmark. Type more of the name.",
        ),
        (
            "leader=kel",
            "Usable by expedition leader",
            "'kel' matches several expedition leaders: Kellantra, Kelvin. Type more of the name.",
        ),
        ("keyword=ritul", "Keyword", "Unknown keyword 'ritul'. Did you mean Ritual?"),
        ("keyword=Protektor", "Keyword", "Unknown keyword 'Protektor'. Did you mean Protector?"),
        ("faction=Engln", "Faction", "Unknown faction 'Engln'. Did you mean Engeln?"),
        ("faction=plant", "Faction", "Unknown faction 'plant'."),  # a keyword, not a faction
        (
            "leader=Kelantra",
            "Usable by expedition leader",
            "Unknown expedition leader 'Kelantra'. Did you mean Kellantra?",
        ),
        ("keyword=zzzz", "Keyword", "Unknown keyword 'zzzz'."),
    ],
)
def test_ambiguous_or_unknown_names_are_a_400_that_says_why_on_the_page_and_in_the_api(
    client, api, world, query, label, message
):
    response = browse(client, query)
    assert errors_of(response) == {label: [message]}
    assert response.context["cards"] == []
    assert message.replace("'", "&#x27;") in html_of(response)
    key, value = query.split("=")
    response = api.get(API, {key: value})
    assert response.status_code == 400
    assert response.json() == {key: [message]}


def test_many_names_starting_with_the_text_are_cut_short(client, world):
    for i in range(12):
        services.save_card(
            game=world,
            fields={"name": f"Bulk {i}", "rarity": world.rarities.first(), "cost": {"life": 1}},
            keywords=[f"Bulkword {i:02d}"],
        )
    [message] = errors_of(browse(client, "keyword=bulk"))["Keyword"]
    listed = ", ".join(f"Bulkword {i:02d}" for i in range(8))
    assert message == f"'bulk' matches several keywords: {listed}…. Type more of the name."


def test_percent_signs_and_long_text_are_a_400_never_a_500(client, api, world):
    response = browse(client, "keyword=50%25")
    assert errors_of(response) == {"Keyword": ["Unknown keyword '50%'."]}
    assert api.get(API, {"keyword": "%(x)s"}).json() == {"keyword": ["Unknown keyword '%(x)s'."]}
    response = browse(client, "leader=" + "x" * 201)
    assert "at most 200 characters" in errors_of(response)["Usable by expedition leader"][0]


def test_a_prefix_costs_no_more_queries_than_a_full_name(client, world):
    def count(query):
        browse(client, query)
        with CaptureQueriesContext(connection) as ctx:
            assert browse(client, query).status_code == 200
        return len(ctx.captured_queries)

    full = count("keyword=Ritual&faction=Engeln&leader=richard")
    assert count("keyword=ritu&faction=eng&leader=ric") == full


# --- ranges ----------------------------------------------------------------------------------


def test_a_cost_range_running_backwards_is_a_400_saying_so_on_the_page(client, game):
    response = browse(client, "cost_min=5&cost_max=2")
    assert errors_of(response) == {
        "Faith cost from": ["From 5 is more than To 2: swap them or clear one."]
    }
    assert response.context["cards"] == []
    text = text_of(response)
    assert "Faith cost from: From 5 is more than To 2: swap them or clear one." in text
    assert "No results: the filters have errors" in text
    assert 'href="#id_cost_min"' in html_of(response)
    assert re.search(r'id="id_cost_min"[^>]*aria-invalid="true"', html_of(response))


@pytest.mark.parametrize(
    "query",
    ["cost_min=2&cost_max=2", "cost_min=3", "cost_max=0", "cost_min=0&cost_max=9"],
)
def test_a_range_in_order_or_open_at_one_end_is_fine(client, game, query):
    assert browse(client, query).status_code == 200


def test_a_cost_range_running_backwards_is_a_400_in_the_api(api, game):
    response = api.get(API, {"cost_min": 5, "cost_max": 2})
    assert response.status_code == 400
    assert response.json() == {"cost_min": ["From 5 is more than To 2: swap them or clear one."]}


def test_a_stat_range_running_backwards_is_a_400_on_the_page_and_in_the_api(client, api, db):
    game = Game.objects.get(slug="force-of-will")
    response = browse(client, "atk_min=1000&atk_max=200", game=game.slug)
    assert errors_of(response) == {
        "ATK from": ["From 1000 is more than To 200: swap them or clear one."]
    }
    response = api.get(f"/api/games/{game.slug}/cards/", {"def_min": 3, "def_max": 1})
    assert response.status_code == 400
    assert response.json() == {"def_min": ["From 3 is more than To 1: swap them or clear one."]}
    assert browse(client, "atk_min=200&atk_max=1000", game=game.slug).status_code == 200


# --- the form applies on change (htmx), the builder too ----------------------------------------


def form_tag(html: str) -> str:
    return re.search(r'<form class="filters"[^>]*>', html).group(0)


def test_the_card_browser_reloads_its_results_when_a_filter_changes(client, world):
    html = html_of(browse(client))
    assert "/static/js/htmx.min.js" in html
    assert '"allowEval": false' in html
    assert '{"code": "400", "swap": true}' in html  # a filter's error is shown, not dropped
    form = form_tag(html)
    for attribute in (
        f'hx-get="{reverse("card-list", args=[GAME])}"',
        'hx-trigger="change, submit, input changed delay:400ms from:#id_q"',
        'hx-target="#card-results"',
        'hx-select="#card-results"',
        'hx-swap="outerHTML"',
        'hx-push-url="true"',
    ):
        assert attribute in form
    assert 'method="get"' in form  # without JavaScript the form still submits
    assert html.count('id="card-results"') == 1
    results = html[html.index('id="card-results"') :]
    assert 'class="results-count"' in results and 'class="card-grid' in results
    assert "hx-on" not in html and 'style="' not in html


def test_the_error_list_is_inside_the_swapped_results(client, game):
    html = html_of(browse(client, "cost_min=5&cost_max=2"))
    assert html.index('id="card-results"') < html.index('id="filter-errors"')


def test_keyword_and_leader_boxes_get_their_suggestions_from_the_suggest_endpoint(client, game):
    html = html_of(browse(client))
    keyword = re.search(r'<input type="text" name="keyword"[^>]*>', html).group(0)
    assert f'hx-get="{reverse("suggest", args=[GAME, "keywords"])}"' in keyword
    assert 'hx-trigger="input changed delay:200ms"' in keyword
    assert 'hx-target="#keyword-list"' in keyword and 'hx-swap="innerHTML"' in keyword
    leader = re.search(r'<input type="text" name="leader"[^>]*>', html).group(0)
    assert f'hx-get="{reverse("suggest", args=[GAME, "leaders"])}"' in leader
    assert 'list="leader-list"' in leader
    assert '<datalist id="leader-list">' in html
    assert '<select name="leader"' not in html  # no more a list of every leader


def test_a_game_without_leaders_has_no_leader_box(client, db):
    html = html_of(browse(client, game="of-gods-and-men"))
    assert 'name="leader"' not in html


def test_the_builder_swaps_only_its_results_which_hold_the_plus_minus_forms(client, alice, game):
    from deckbuilder import services as deck_services

    deck = deck_services.deck_create(
        owner=alice,
        game=game,
        leader=game.leaders.get(slug="kellantra"),
        name="Seeds",
        visibility="private",
        contents={},
    )
    client.force_login(alice)
    url = reverse("deck-edit", args=[deck.share_id])
    response = client.get(url + "?q=heal", HTTP_HX_REQUEST="true")
    html = html_of(response)
    form = form_tag(html)
    assert f'hx-get="{url}"' in form and 'hx-target="#card-results"' in form
    results = html[html.index('id="card-results"') :]
    assert '<ol class="build-list">' in results
    # the +/- of the listed cards, processed by htmx: they post to the page's own address (its
    # filters included), which htmx keeps current as the filters change
    controls = results[results.index('id="controls-healing"') :]
    assert '<form method="post" hx-post="" hx-swap="none"' in controls
    assert "action=" not in controls[: controls.index("</form>")]
    assert results.index('id="card-healing"') < results.index("</section>")
