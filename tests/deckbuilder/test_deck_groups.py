"""The deck page's cards (issue 25): within each deck section, grouped by card type under a
heading with its copies ("Resonator (6)"), a row a card (quantity, name, cost, its facts as a
line of text); and a visual view (`?view=visual`): a column of pictures per type, each marked
with its count and name. Either view in the same queries, whatever the deck's size."""

import re
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards.models import Card, Format, Game
from deckbuilder import grouping, services
from deckbuilder.models import Visibility
from tests.html import html_of

pytestmark = pytest.mark.django_db

# Force of Will's Constructed: a main deck of resonators, chants and an addition (names in
# alphabetical order mix the types), a magic stone deck and a side deck.
MAIN = {
    "blazing-standard": 2,  # addition
    "cinder-hound": 3,  # resonator
    "crater-of-the-first-flame": 1,  # chant
    "emberforge-marshal": 2,  # resonator
    "kindled-spear": 4,  # chant
    "gale-sprite": 1,  # resonator
}
STONES = {"magic-stone-of-fire": 4, "magic-stone-of-wind": 2}
SIDE = {"undertow": 2}


@pytest.fixture
def fow(db) -> Game:
    return Game.objects.get(slug="force-of-will")


def fow_deck(owner, fow, main=MAIN, stones=STONES, side=SIDE, name="Fire and wind"):
    cards = {c.slug: c for c in Card.objects.filter(game=fow)}
    contents = {
        (cards[slug], section): n
        for section, counts in (("main", main), ("stones", stones), ("side", side))
        for slug, n in counts.items()
    }
    return services.deck_create(
        owner=owner,
        game=fow,
        format=Format.objects.get(game=fow, slug="constructed"),
        name=name,
        visibility=Visibility.UNLISTED,
        contents=contents,
    )


def deck_page(client, deck, **params):
    return client.get(reverse("deck-detail", args=[deck.share_id]), params)


def panel(html: str, view: str) -> str:
    """The view's block of the page ("list" or "visual"), from its opening tag."""
    start = html.index(f'<div class="deck-view" id="deck-view-{view}"')
    end = html.find('<div class="deck-view"', start + 1)
    return html[start : end if end > 0 else html.index('<aside class="deck-side">')]


def shown(block: str) -> bool:
    """Whether the view's block is shown (its opening tag is not `hidden`)."""
    return " hidden" not in block[: block.index(">")]


def words(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


# --- the grouping --------------------------------------------------------------------------


def test_by_type_groups_entries_in_the_game_s_order_of_types_keeping_their_order():
    resonator, chant, addition = (
        SimpleNamespace(pk=pk, name=name)
        for pk, name in ((1, "Resonator"), (2, "Chant"), (3, "Addition"))
    )
    game = SimpleNamespace(type_list=[resonator, chant, addition])

    def entry(name, kind, count):
        return SimpleNamespace(card=SimpleNamespace(name=name, type=kind), count=count)

    entries = [
        entry("Ash", chant, 2),
        entry("Birch", resonator, 3),
        entry("Cedar", chant, 1),
        entry("Elm", resonator, 4),
    ]
    groups = grouping.by_type(entries, game)
    assert [(g["name"], g["count"]) for g in groups] == [("Resonator", 7), ("Chant", 3)]
    assert [[e.card.name for e in g["entries"]] for g in groups] == [
        ["Birch", "Elm"],
        ["Ash", "Cedar"],
    ]
    assert grouping.by_type([], game) == []


# --- the list, grouped by type ---------------------------------------------------------------


def test_each_section_lists_its_cards_under_a_heading_per_type_with_its_copies(client, alice, fow):
    response = deck_page(client, fow_deck(alice, fow))
    assert response.status_code == 200
    groups = {
        s["slug"]: [(g["name"], g["count"]) for g in s["groups"]]
        for s in response.context["sections"]
    }
    assert groups == {
        "main": [("Resonator", 6), ("Chant", 5), ("Addition", 2)],
        "stones": [("Magic stone", 6)],
        "side": [("Chant", 2)],
    }
    html = html_of(response)
    listed = panel(html, "list")
    assert shown(listed)
    # several sections: h3 per section, h4 per type under it
    headings = re.findall(r"<h([34])[^>]*>(.*?)</h\1>", listed, re.S)
    assert [(level, words(text)) for level, text in headings] == [
        ("3", "Main deck: 13 /40–60"),
        ("4", "Resonator (6)"),
        ("4", "Chant (5)"),
        ("4", "Addition (2)"),
        ("3", "Magic stone deck: 6 /10–20"),
        ("4", "Magic stone (6)"),
        ("3", "Side deck: 2 /1–15"),
        ("4", "Chant (2)"),
    ]
    text = words(listed)
    resonators = text[text.index("Resonator (6)") : text.index("Chant (5)")]
    assert re.findall(r"(\d)× ([A-Z][a-z]+(?: [A-Z][a-z]+)*)", resonators) == [
        ("3", "Cinder Hound"),
        ("2", "Emberforge Marshal"),
        ("1", "Gale Sprite"),
    ]


def test_a_row_is_quantity_name_cost_and_its_facts_as_text_not_badges(client, alice, fow):
    html = html_of(deck_page(client, fow_deck(alice, fow)))
    row = re.search(r'<li class="deck-card">(?:(?!</li>).)*Emberforge Marshal.*?</li>', html, re.S)
    row = row.group(0)
    assert 'class="has-preview"' in row  # the name's hover preview stays
    assert 'class="badge' not in row
    assert words(row).startswith("2× Emberforge Marshal")
    assert "♨ 2 Fire 2 Any attribute" in words(row)  # the cost, its amounts named
    facts = re.search(r'<span class="facts">.*</span>', row).group(0)
    assert re.findall(r'<span class="fact( minor)?">', facts) == ["", " minor", " minor", " minor"]
    assert words(facts) == "♨ Fire ★ Rare ATK 1000 DEF 900"  # the type is the heading's


def test_a_one_section_deck_has_type_headings_right_under_the_cards_heading(client, alice, game):
    cards = {c.slug: c for c in Card.objects.filter(game=game)}
    deck = services.deck_create(
        owner=alice,
        game=game,
        name="Seeds",
        visibility=Visibility.UNLISTED,
        contents={(cards["plant-a-seed"], "main"): 3, (cards["healing"], "main"): 2},
    )
    listed = panel(html_of(deck_page(client, deck)), "list")
    headings = re.findall(r"<h([2-6])[^>]*>(.*?)</h\1>", listed, re.S)
    assert [(level, words(text)) for level, text in headings] == [("3", "God Card (5)")]


# --- the visual view ---------------------------------------------------------------------------


def test_the_visual_view_shows_each_card_s_picture_with_its_count_in_a_column_per_type(
    client, alice, fow
):
    deck = fow_deck(alice, fow)
    html = html_of(deck_page(client, deck, view="visual"))
    visual, listed = panel(html, "visual"), panel(html, "list")
    assert shown(visual) and not shown(listed)
    stacks = re.findall(r'<div class="deck-stack">.*?</ul>', visual, re.S)
    assert [words(re.search(r"<h4.*?</h4>", s, re.S).group(0)) for s in stacks] == [
        "Resonator (6)",
        "Chant (5)",
        "Addition (2)",
        "Magic stone (6)",
        "Chant (2)",
    ]
    stacked = re.findall(
        r'<a class="stack-card" href="/games/force-of-will/cards/([-a-z]+)/">'
        r'<span class="stack-label"><span class="stack-count">(\d+)×</span> '
        r'<span class="stack-name">([^<]+)</span></span>'
        r'<img class="card-thumb" src="/games/force-of-will/cards/\1/face.svg" alt=""',
        visual,
    )
    counts = {**MAIN, **STONES, **SIDE}
    assert sorted((slug, int(n)) for slug, n, _ in stacked) == sorted(counts.items())
    names = dict(Card.objects.filter(game=fow).values_list("slug", "name"))
    assert all(names[slug] == name for slug, _, name in stacked)


def test_the_view_switch_links_to_both_views_keeping_the_other_parameters(client, alice, fow):
    deck = fow_deck(alice, fow)
    html = html_of(deck_page(client, deck, view="visual", hand=12345))
    switch = re.search(r"<p class=\"view-switch\" data-deck-views>.*?</p>", html, re.S).group(0)
    assert 'href="?hand=12345#deck-cards" data-deck-view="list">List</a>' in switch
    assert (
        'href="?view=visual&amp;hand=12345#deck-cards" data-deck-view="visual" '
        'aria-current="true">Visual</a>'
    ) in switch


@pytest.mark.parametrize("view", ["", "grid", "VISUAL", "visual/", "x" * 500])
def test_a_view_it_does_not_know_shows_the_list(client, alice, fow, view):
    response = deck_page(client, fow_deck(alice, fow), view=view)
    assert response.status_code == 200
    html = html_of(response)
    assert shown(panel(html, "list")) and not shown(panel(html, "visual"))


def test_the_page_cache_keeps_the_visual_view_apart(client, alice, fow):
    deck = fow_deck(alice, fow)
    first = deck_page(client, deck, view="visual")
    assert first.has_header("ETag")
    assert deck_page(client, deck, view="visual")["ETag"] == first["ETag"]
    assert deck_page(client, deck)["ETag"] != first["ETag"]


@pytest.mark.usefixtures("uncached")
@pytest.mark.parametrize("view", ["list", "visual"])
def test_either_view_runs_the_same_queries_whatever_the_deck_s_size(client, alice, fow, view):
    def queries(deck) -> int:
        deck_page(client, deck, view=view)  # the game's vocabulary cached, as in steady state
        with CaptureQueriesContext(connection) as captured:
            assert deck_page(client, deck, view=view).status_code == 200
        return len(captured)

    small = fow_deck(alice, fow, main={"cinder-hound": 1}, stones={}, side={}, name="Small")
    big = fow_deck(alice, fow)
    # the deck with its owner, its verdicts, its entries with their cards (and, in this game,
    # the cards' printings and other types)
    assert queries(small) == queries(big)
