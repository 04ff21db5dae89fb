"""The builder offers a deck section only when it may hold cards: a section a `section_gate`
closes to the deck's leader (Force of Will Constructed's extra, rune and stranger decks) is no
place to add cards, says why in one short line, and still shows while it holds cards (the
leader changed), with its problem. Sections with no gate always show; the API and the text
export are unchanged."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards.models import Card, Format, Game, Leader
from deckbuilder import services
from tests.html import element, html_of, ids_in, text_in, text_of

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
YSOLDE = "ysolde-of-the-rune-choir"  # Divinity
SERAPHINE = "seraphine-of-the-dawn-bell"  # no gate keyword
RUNE = "rune-of-the-morning-choir"
RUNES = [
    "rune-of-the-morning-choir",
    "rune-of-binding-tides",
    "rune-of-the-ashen-oath",
    "rune-of-quiet-wings",
    "master-rune-of-the-first-bell",
]


@pytest.fixture
def fow():
    return Game.objects.get(slug="force-of-will")


def fmt(fow, slug="constructed") -> Format:
    return Format.objects.get(game=fow, slug=slug)


def ruler(fow, slug) -> Leader:
    return Leader.objects.get(game=fow, slug=slug)


def make(alice, fow, lead, contents=None, slug="constructed"):
    cards = {c.slug: c for c in Card.objects.filter(game=fow)}
    return services.deck_create(
        owner=alice,
        game=fow,
        format=fmt(fow, slug),
        leader=ruler(fow, lead),
        name="Choir",
        contents={(cards[card], section): n for (card, section), n in (contents or {}).items()},
    )


def edit_url(deck) -> str:
    return reverse("deck-edit", args=[deck.share_id])


def builder(client, alice, deck):
    client.force_login(alice)
    response = client.get(edit_url(deck))
    assert response.status_code == 200
    return response


def quick_add_sections(response) -> list[str]:
    return re.findall(r'<option value="([^"]+)"', element(response, "quick-add-section"))


def test_a_divinity_ruler_is_offered_the_rune_deck(client, alice, fow):
    response = builder(client, alice, make(alice, fow, YSOLDE))
    ids = ids_in(response)
    assert f"add-runes-{RUNE}" in ids  # a rune may go in the rune deck…
    assert f"add-side-{RUNE}" in ids  # …or the side deck
    assert f"add-main-{RUNE}" not in ids  # never the main deck (section_types)
    assert "counter-runes" in ids
    assert quick_add_sections(response) == ["main", "stones", "side", "runes"]
    panel = text_in(response, "deck-panel")
    assert "Rune deck: needs" not in panel
    assert "Extra deck: needs a Ruler with Grimoire" in panel
    assert "Stranger deck: needs a Ruler with Stranger" in panel


def test_another_ruler_is_not_offered_the_rune_deck_and_reads_why_in_one_line(client, alice, fow):
    response = builder(client, alice, make(alice, fow, SERAPHINE))
    ids = ids_in(response)
    assert not {i for i in ids if i.startswith(("add-runes-", "add-extra-", "add-stranger-"))}
    assert f"add-side-{RUNE}" in ids  # the side deck has no gate
    assert not {"counter-runes", "counter-extra", "counter-stranger"} & ids
    assert quick_add_sections(response) == ["main", "stones", "side"]
    lines = re.findall(
        r"<li>(.*?)</li>", element(response, "deck-panel").split("closed-sections")[1]
    )
    texts = [re.sub(r"<[^>]+>", "", line).replace("⊘", "").strip() for line in lines[:3]]
    assert texts == [
        "Extra deck: needs a Ruler with Grimoire",
        "Rune deck: needs a Ruler with Divinity",
        "Stranger deck: needs a Ruler with Stranger",
    ]


def test_casual_and_one_section_formats_show_no_closed_section(client, alice, fow, game):
    response = builder(client, alice, make(alice, fow, SERAPHINE, slug="casual"))
    assert "closed-sections" not in html_of(response)
    assert quick_add_sections(response) == ["main", "stones", "side"]
    cog = services.deck_create(
        owner=alice, game=game, leader=Leader.objects.get(game=game, slug="richard"), name="X"
    )
    assert "closed-sections" not in html_of(builder(client, alice, cog))


def test_a_closed_section_that_holds_cards_shows_them_with_its_problem(client, alice, fow):
    deck = make(alice, fow, YSOLDE, {(slug, "runes"): 1 for slug in RUNES})
    assert deck.legal is False  # no main deck yet: but its rune deck is fine
    assert "section_closed" not in {p["code"] for p in deck.problems}
    services.deck_update(deck=deck, leader=ruler(fow, SERAPHINE))  # the leader changed
    deck.refresh_from_db()
    assert "section_closed" in {p["code"] for p in deck.problems}

    response = builder(client, alice, deck)
    ids = ids_in(response)
    assert "counter-runes" in ids and "contents-runes" in ids
    assert text_in(response, "contents-runes") == "Rune deck: 5 /0 or 5"
    panel = text_in(response, "deck-panel")
    assert "Rune deck: needs a Ruler with Divinity" in panel
    assert (
        "The Rune deck may hold cards only when the Ruler has the keyword Divinity, which"
        " Seraphine of the Dawn Bell does not; it holds 5." in panel
    )
    # each rune shows its count there, with − only
    assert f"remove-runes-{RUNE}" in ids and f"count-runes-{RUNE}" in ids
    assert f"add-runes-{RUNE}" not in ids
    controls = text_in(response, f"controls-{RUNE}")
    assert "Rune deck" in controls and "may not go here" in controls
    assert "runes" not in quick_add_sections(response)


def test_removing_the_last_card_of_a_closed_section_updates_its_count(client, alice, fow):
    deck = make(alice, fow, SERAPHINE, {(RUNE, "runes"): 1})
    client.force_login(alice)
    response = client.post(
        edit_url(deck), {"card": RUNE, "section": "runes", "op": "remove", "shown": RUNE}, **HTMX
    )
    assert response.status_code == 200
    assert f'id="count-runes-{RUNE}" data-count="0"' in html_of(response)
    assert "Rune of the Morning Choir: 0 in the Rune deck." in text_in(response, "deck-status")
    # the emptied section is closed: gone from the panel but for its one line
    assert 'id="counter-runes"' not in html_of(response)
    assert "Rune deck: needs a Ruler with Divinity" in text_of(response)


def test_adding_through_a_closed_section_is_still_judged_by_the_engine(client, alice, fow):
    """The builder offers no + there; a hand-made request is stored, and the deck says why."""
    deck = make(alice, fow, SERAPHINE)
    client.force_login(alice)
    response = client.post(edit_url(deck), {"card": RUNE, "section": "runes", "op": "add"})
    assert response.status_code == 302
    deck.refresh_from_db()
    assert "section_closed" in [p["code"] for p in deck.problems if p["section"] == "runes"]


def test_the_deck_page_hides_empty_closed_sections(client, alice, fow):
    deck = make(alice, fow, SERAPHINE, {("lantern-acolyte", "main"): 4})
    client.force_login(alice)
    response = client.get(deck.get_absolute_url())
    assert response.status_code == 200
    ids = ids_in(response)
    assert {"section-main", "section-stones", "section-side"} <= ids
    assert not {"section-extra", "section-runes", "section-stranger"} & ids
    # the text export is unchanged
    export = client.get(reverse("deck-export", args=[deck.share_id]))
    assert export.content.decode() == services.deck_export_text(deck)


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


@pytest.mark.usefixtures("uncached")
def test_closed_sections_cost_no_query(client, alice, fow):
    """A Constructed deck's builder and page run the queries of the same deck in Casual (no
    gate), whatever its ruler may use: which sections are closed is worked out in memory."""
    runes = {(slug, "runes"): 1 for slug in RUNES}
    casual = [
        make(alice, fow, SERAPHINE, slug="casual"),
        make(alice, fow, SERAPHINE, {(slug, "side"): 1 for slug in RUNES}, slug="casual"),
    ]
    constructed = [
        (make(alice, fow, SERAPHINE), make(alice, fow, YSOLDE)),
        (make(alice, fow, SERAPHINE, runes), make(alice, fow, YSOLDE, runes)),
    ]
    client.force_login(alice)
    client.get(edit_url(casual[0]))  # the caches are warm in steady state
    for plain, (closed, opened) in zip(casual, constructed, strict=True):
        expected = _queries(client, edit_url(plain))
        assert _queries(client, edit_url(closed)) == _queries(client, edit_url(opened)) == expected
        expected = _queries(client, plain.get_absolute_url())
        assert _queries(client, closed.get_absolute_url()) == expected
        assert _queries(client, opened.get_absolute_url()) == expected
