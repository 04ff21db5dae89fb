"""The card browser's three views (issue 25): a dense grid of tiles (picture, name, a line of
type and cost; the full text is on the card's page), a table a card a row, and the full text
of each card. `?view=` picks one (the grid without it, or with a value it does not know); the
filter form and the page links keep it, the page cache keeps each view's page, and each view
runs the same queries whatever the number of cards."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services
from cards.models import Card, Game
from tests.html import html_of, text_of

GAME = "card-of-gods"
LONG_TEXT = "The storm answers. " * 15  # ~285 characters: more than a tile ever showed


def page(client, view=None, game=GAME, **params):
    if view is not None:
        params["view"] = view
    return client.get(reverse("card-list", args=[game]), params)


def tiles(html: str) -> list[str]:
    return re.findall(r'<article class="card-tile">.*?</article>', html, re.S)


def add_storm_caller(game):
    return services.save_card(
        game=game,
        fields={
            "name": "Storm Caller",
            "rarity": game.rarities.get(slug="rare"),
            "cost": {"destruction": 2},
            "text": LONG_TEXT.strip(),
        },
        keywords=[],
    )


def test_the_grid_shows_each_card_as_picture_name_type_and_cost_without_its_text(client, game):
    response = page(client)
    assert response.status_code == 200
    html = html_of(response)
    cards = list(Card.objects.filter(game=game).order_by("name"))
    shown = tiles(html)
    assert len(shown) == len(cards)
    for card, tile in zip(cards, shown, strict=True):
        assert 'class="card-thumb"' in tile and 'alt=""' in tile  # the name is right there
        assert f">{card.name}</a></h3>" in tile
        assert '<span class="tile-type">God Card</span>' in tile
        assert 'class="cost' in tile
        assert card.text not in tile  # the card's page has it, not a wall under each picture
    assert "Make an Attack with a bolt." not in text_of(response)


def test_the_list_view_is_a_table_with_a_row_per_card_in_the_game_s_words(client, game):
    response = page(client, "list")
    assert response.status_code == 200
    html = html_of(response)
    assert not tiles(html)
    table = re.search(r'<table class="card-table">.*?</table>', html, re.S).group(0)
    heads = re.findall(r'<th scope="col">(.*?)</th>', table)
    assert heads == ["Name", "Faith cost", "Colour", "Rarity"]  # one type: no type column
    rows = re.findall(r"<tr><th scope=\"row\">.*?</tr>", table, re.S)
    assert len(rows) == Card.objects.filter(game=game).count()
    lightning = next(r for r in rows if ">Lightning</a>" in r)
    assert 'href="/games/card-of-gods/cards/lightning/"' in lightning
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", lightning))
    assert "✹ 1 Destruction" in text and "✹ Red" in text and "● Common" in text


@pytest.fixture
def fow(db):
    return Game.objects.get(slug="force-of-will")


def test_the_list_view_has_a_column_per_stat_and_a_type_column_where_there_are_types(client, fow):
    html = html_of(page(client, "list", game="force-of-will", q="Cinder Hound"))
    table = re.search(r'<table class="card-table">.*?</table>', html, re.S).group(0)
    heads = re.findall(r'<th scope="col">(.*?)</th>', table)
    assert heads == ["Name", "Will cost", "Type", "Attribute", "Rarity", "ATK", "DEF"]
    row = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", table.split("<tbody>")[1])).split()
    assert row[-2:] == ["400", "200"]


def test_the_text_view_shows_each_card_s_name_cost_type_line_and_full_text(client, game):
    add_storm_caller(game)
    response = page(client, "text")
    assert response.status_code == 200
    html = html_of(response)
    assert not tiles(html)
    entries = re.findall(r'<article class="card-text-entry">.*?</article>', html, re.S)
    assert len(entries) == Card.objects.filter(game=game).count()
    storm = next(e for e in entries if ">Storm Caller</a>" in e)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", storm))
    assert LONG_TEXT.strip() in text  # in full, not cut at a tile's length
    assert "✹ 2 Destruction" in text and "✹ Red" in text and "★ Rare" in text
    lightning = next(e for e in entries if ">Lightning</a>" in e)
    assert "When: Beginning of enemy activation." in re.sub(r"<[^>]+>", "", lightning)


@pytest.mark.parametrize("view", ["", "cards", "LIST", "grid;", "list&", "x" * 300])
def test_a_view_it_does_not_know_shows_the_grid(client, game, view):
    response = page(client, view)
    assert response.status_code == 200
    assert response.context["view"] == "grid"
    assert len(tiles(html_of(response))) == Card.objects.filter(game=game).count()


@pytest.mark.parametrize("view", ["list", "text"])
def test_the_filter_form_the_page_links_and_clear_all_keep_the_view(client, fow, view):
    html = html_of(page(client, view, game="force-of-will", page=2, sort="-cost"))
    form = html[html.index('<form class="filters"') : html.index("</form>")]
    assert f'<input type="hidden" name="view" value="{view}">' in form
    assert f'href="/games/force-of-will/cards/?view={view}">Clear all</a>' in form
    pages = html[html.index('class="pagination"') :]
    links = re.findall(r'href="(\?[^"]*)"', pages)
    assert links and all(f"view={view}" in link for link in links)


def test_the_grid_keeps_no_view_in_the_form_and_the_switch_links_to_the_others(client, game):
    html = html_of(page(client, q="seed"))
    assert 'name="view"' not in html
    switch = re.search(r'<p class="view-switch".*?</p>', html, re.S).group(0)
    assert '<span class="current" aria-current="true">Grid</span>' in switch
    assert 'href="?q=seed&amp;view=list">List</a>' in switch
    assert 'href="?q=seed&amp;view=text">Text</a>' in switch


def test_the_builder_s_filters_stay_as_they_were(client, alice, game):
    from deckbuilder import services as deck_services

    deck = deck_services.deck_create(owner=alice, game=game, name="Builder")
    client.force_login(alice)
    response = client.get(reverse("deck-edit", args=[deck.share_id]))
    assert response.status_code == 200
    html = html_of(response)
    assert '<form class="filters"' in html and 'name="view"' not in html
    assert 'class="build-list"' in html and not tiles(html)


@pytest.mark.parametrize("view", ["list", "text"])
def test_the_page_cache_keeps_each_view_s_page(client, game, view):
    first = page(client, view)
    assert first.status_code == 200 and first.has_header("ETag")
    with CaptureQueriesContext(connection) as queries:
        again = page(client, view)
    assert again["ETag"] == first["ETag"]
    assert again.content == first.content
    assert len(queries) == 1  # the versions the key names; the page itself from the cache
    assert page(client)["ETag"] != first["ETag"]  # the grid is another page


@pytest.mark.usefixtures("uncached")
@pytest.mark.parametrize("view", ["grid", "list", "text"])
def test_each_view_runs_the_same_queries_for_9_cards_and_for_21(client, game, view):
    def queries() -> tuple[int, int]:
        page(client, view)  # the game's vocabulary cached, as in steady state
        with CaptureQueriesContext(connection) as captured:
            response = page(client, view)
        assert response.status_code == 200
        return len(captured), len(response.context["cards"])

    few = queries()
    rarity = game.rarities.get(slug="common")
    for i in range(12):
        services.save_card(
            game=game,
            fields={"name": f"Extra {i:02}", "rarity": rarity, "cost": {"life": 1}, "text": "x"},
            keywords=["Keld"],
        )
    many = queries()
    assert (few[1], many[1]) == (9, 21)
    assert few[0] == many[0]
