"""The card browser's grid and views, and the deck page's visual view, in a real browser
(issue 25): at 1280×900 the first screen of the card browser shows at least 12 whole cards,
picture and name, with the filters beside them; a 390×844 phone shows at least two a row; the
grid, list and text views are axe clean; the deck page switches to its stacked pictures at once
(site.js) and by its address without JavaScript."""

import contextlib
import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from cards.models import Card, Format
from deckbuilder import services
from deckbuilder.models import Visibility
from tests.e2e.axe import violations

pytestmark = pytest.mark.django_db(transaction=True)

# The sample game with the most cards (Force of Will, 52; the test world's Card of Gods has 9).
GAME = "force-of-will"
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# The tiles of the grid wholly in the viewport whose picture is drawn and name shown, each
# also wholly in the viewport.
WHOLE_TILES = """() => {
  const inside = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
      && r.bottom <= innerHeight && r.right <= innerWidth;
  };
  return [...document.querySelectorAll(".card-grid .card-tile")].filter((tile) => {
    const img = tile.querySelector("img");
    const name = tile.querySelector(".card-name");
    return inside(tile) && img && inside(img) && img.complete && img.naturalWidth > 0
      && name && inside(name) && name.textContent.trim() !== ""
      && getComputedStyle(name).visibility === "visible";
  }).length;
}"""


def open_page(browser, viewport, url, javascript=True):
    page = browser.new_context(viewport=viewport, java_script_enabled=javascript).new_page()
    page.goto(url)
    page.wait_for_load_state("load")
    return page


def whole_tiles(page, at_least: int) -> int:
    """How many tiles are whole on screen, once the lazy pictures in view are drawn."""
    with contextlib.suppress(PlaywrightTimeout):  # the count below says what was seen
        page.wait_for_function(f"(n) => ({WHOLE_TILES})() >= n", arg=at_least, timeout=10_000)
    return page.evaluate(WHOLE_TILES)


def test_the_first_screen_of_the_card_browser_shows_12_whole_cards_at_1280_by_900(
    browser, live_server, fow
):
    assert Card.objects.filter(game=fow).count() >= 12
    page = open_page(browser, LAPTOP, f"{live_server.url}/games/{GAME}/cards/")
    assert whole_tiles(page, 12) >= 12
    # The filters are beside the grid, not above it.
    filters = page.locator("form.filters").bounding_box()
    grid = page.locator(".card-grid").bounding_box()
    assert filters["x"] + filters["width"] <= grid["x"]
    # Opening the filters pushes nothing down.
    page.locator(".more-filters > summary").click()
    assert page.locator(".card-grid").bounding_box()["y"] == grid["y"]
    # A generic cost is a filled disc with its number, not a dashed empty box.
    generic = page.locator(".card-grid .pip.generic").first
    style = generic.evaluate(
        "el => [getComputedStyle(el).borderTopStyle, getComputedStyle(el).backgroundColor]"
    )
    assert style[0] == "solid" and style[1] not in ("rgba(0, 0, 0, 0)", "transparent"), style
    expect(generic).to_have_text(re.compile(r"^\d+ Any attribute$"))


def test_a_phone_shows_at_least_two_cards_a_row_and_nothing_wider_than_the_screen(
    browser, live_server, fow
):
    page = open_page(browser, PHONE, f"{live_server.url}/games/{GAME}/cards/")
    lefts = page.evaluate(
        """() => {
          const tiles = [...document.querySelectorAll(".card-grid .card-tile")];
          const top = tiles[0].getBoundingClientRect().top;
          return tiles.filter((t) => Math.abs(t.getBoundingClientRect().top - top) < 1)
            .map((t) => t.getBoundingClientRect().left);
        }"""
    )
    assert len(lefts) >= 2
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.evaluate(
        "document.querySelector('.card-grid').scrollIntoView({block: 'start', behavior: 'instant'})"
    )
    assert whole_tiles(page, 2) >= 2


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_the_grid_list_and_text_views_are_axe_clean_and_switch_by_their_links(
    browser, live_server, fow, viewport
):
    page = open_page(browser, viewport, f"{live_server.url}/games/{GAME}/cards/?sort=-cost")
    assert violations(page) == [], "grid"
    for label, view, shown in (("List", "list", ".card-table"), ("Text", "text", ".card-texts")):
        page.locator(".view-switch").get_by_role("link", name=label).click()
        expect(page).to_have_url(re.compile(rf"sort=-cost&view={view}$"))
        expect(page.locator(shown)).to_be_visible()
        expect(page.locator(".card-grid")).to_have_count(0)
        expect(page.locator("#id_sort")).to_have_value("-cost")
        assert violations(page) == [], view
    page.locator(".view-switch").get_by_role("link", name="Grid").click()
    expect(page).to_have_url(re.compile(r"\?sort=-cost$"))
    expect(page.locator(".card-grid")).to_be_visible()


@pytest.fixture
def deck(fow):
    owner = User.objects.create_user("erin", password="a-long-unusual-passphrase")
    cards = {c.slug: c for c in Card.objects.filter(game=fow)}
    counts = {"cinder-hound": 3, "gale-sprite": 2, "kindled-spear": 4, "blazing-standard": 1}
    return services.deck_create(
        owner=owner,
        game=fow,
        format=Format.objects.get(game=fow, slug="constructed"),
        name="Embers",
        visibility=Visibility.UNLISTED,
        contents={(cards[slug], "main"): n for slug, n in counts.items()},
    )


def test_the_deck_page_switches_to_its_stacked_pictures_at_once_and_keeps_it_in_the_address(
    browser, live_server, deck
):
    url = f"{live_server.url}{deck.get_absolute_url()}"
    page = open_page(browser, LAPTOP, url)
    listed, visual = page.locator("#deck-view-list"), page.locator("#deck-view-visual")
    expect(listed).to_be_visible()
    expect(listed.locator(".type-heading")).to_have_text(
        ["Resonator (5)", "Chant (4)", "Addition (1)"]
    )
    assert violations(page) == [], "list"

    page.evaluate("window.stillHere = true")
    page.locator("[data-deck-views]").get_by_role("link", name="Visual").click()
    expect(visual).to_be_visible()
    expect(listed).to_be_hidden()
    expect(page).to_have_url(re.compile(r"\?view=visual$"))
    assert page.evaluate("window.stillHere") is True, "the switch reloaded the page"
    labels = visual.locator(".stack-label")
    expect(labels).to_have_text(
        ["3× Cinder Hound", "2× Gale Sprite", "4× Kindled Spear", "1× Blazing Standard"]
    )
    # Every card's name strip shows; the last of a column shows whole.
    for i in range(4):
        labels.nth(i).scroll_into_view_if_needed()
        box = labels.nth(i).bounding_box()
        top = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('.stack-label')?.textContent",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert top == labels.nth(i).text_content()
    assert violations(page) == [], "visual"

    # The address alone (no script) shows the same view.
    plain = open_page(browser, LAPTOP, f"{url}?view=visual", javascript=False)
    expect(plain.locator("#deck-view-visual")).to_be_visible()
    expect(plain.locator("#deck-view-list")).to_be_hidden()
