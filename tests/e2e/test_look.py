"""The look of the site in a browser, at a laptop's 1280×900 and a phone's 390×844, light and
dark (the system's preference, emulated, and the header's switch): the main pages are axe clean
(contrast included) in both themes, the header keeps to one row on the laptop and folds into its
menu on the phone, and the theme switch is remembered across reloads and pages.

With SCREENSHOTS_DIR set, each page is also saved there as <page>-<width>-<theme>.png
(`make screenshots` writes docs/screenshots/)."""

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from cards.models import Game
from tests import factories
from tests.e2e.axe import violations

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = {1280: {"width": 1280, "height": 900}, 390: {"width": 390, "height": 844}}
GAME = "card-of-gods"

# The header's items on the laptop: all of them side by side, or some went to a second row.
HEADER_ROWS = """() => {
  const header = document.querySelector(".site-header");
  const items = [...header.querySelectorAll(
    ".brand, .site-nav > ul > li, .account-links > li, .theme-toggle")]
    .filter((item) => item.getClientRects().length);
  const boxes = items.map((item) => item.getBoundingClientRect());
  return {
    oneRow: Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom)),
    height: header.getBoundingClientRect().height,
    tallest: Math.max(...boxes.map((b) => b.height)),
  };
}"""

# Whether the page is drawn dark: the luminance of its background.
DARK = """() => {
  const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
}"""

# The pictures in view are drawn (a screenshot of blank tiles shows nothing); hidden ones (a
# preview shown on hover) are never fetched.
PICTURES_DRAWN = """() => [...document.images]
  .filter((img) => {
    const box = img.getBoundingClientRect();
    return box.width > 0 && box.top < innerHeight && box.bottom > 0;
  })
  .every((img) => img.complete)"""


@pytest.fixture
def deck(world, fow):
    alice = User.objects.get(username="alice")
    return factories.deck(alice, Game.objects.get(slug=GAME))


def pages_of(deck) -> list[tuple[str, str]]:
    """(name, path): the pages a reader sees, then (signed in) a deck and its builder."""
    return [
        ("home", "/"),
        ("game", f"/games/{GAME}/"),
        ("cards", f"/games/{GAME}/cards/"),
        ("cards-fow", "/games/force-of-will/cards/"),  # a bigger pool: the grid's density
        ("card", f"/games/{GAME}/cards/healing/"),
        ("deck", deck.get_absolute_url()),
        ("builder", f"/decks/{deck.share_id}/edit/"),
    ]


def sign_in(page, url: str) -> None:
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "alice-password")
    page.keyboard.press("Enter")
    expect(page.locator(".account-user")).to_be_attached()


def switch_theme(page, width: int) -> None:
    """Press the header's theme switch (in the menu on a phone, which is then closed)."""
    if width < 768:
        page.get_by_role("button", name="Menu").click()
    page.get_by_role("button", name="Dark theme").click()
    if width < 768:
        page.keyboard.press("Escape")


def is_dark(page) -> bool:
    return page.evaluate(DARK)


@pytest.mark.parametrize("width", VIEWPORTS)
@pytest.mark.parametrize("theme", ["light", "dark", "dark by the switch"])
def test_every_page_is_axe_clean_in_each_theme_and_size(browser, live_server, deck, width, theme):
    system = "dark" if theme == "dark" else "light"
    page = browser.new_context(viewport=VIEWPORTS[width], color_scheme=system).new_page()
    dark = theme != "light"
    for n, (name, path) in enumerate(pages_of(deck)):
        if name == "deck":
            sign_in(page, live_server.url)
        assert page.goto(live_server.url + path).status == 200, (name, path)
        if theme == "dark by the switch" and n == 0:
            switch_theme(page, width)  # once: the next pages remember it
        assert is_dark(page) == dark, (name, theme)
        toggle = page.locator("#theme-toggle")  # in the folded menu on a phone
        expect(toggle).to_have_attribute("aria-pressed", "true" if dark else "false")

        if width == 1280:
            header = page.evaluate(HEADER_ROWS)
            assert header["oneRow"], (name, header)
            assert header["height"] < 2 * header["tallest"], (name, header)
        else:  # the phone's menu: folded until asked for
            expect(page.locator(".site-nav")).to_be_hidden()
            expect(page.get_by_role("button", name="Menu")).to_be_visible()

        expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)
        assert violations(page) == [], (name, width, theme)

        if os.environ.get("SCREENSHOTS_DIR") and theme in ("light", "dark"):
            folder = Path(os.environ["SCREENSHOTS_DIR"])
            folder.mkdir(parents=True, exist_ok=True)
            page.wait_for_function(PICTURES_DRAWN)
            page.screenshot(path=folder / f"{name}-{width}-{theme}.png")


@pytest.mark.parametrize("system", ["light", "dark"])
def test_the_theme_switch_is_remembered_across_reloads_and_pages(
    browser, live_server, world, system
):
    page = browser.new_context(viewport=VIEWPORTS[1280], color_scheme=system).new_page()
    url = live_server.url
    page.goto(f"{url}/")
    toggle = page.get_by_role("button", name="Dark theme")
    follows_system = system == "dark"
    assert is_dark(page) is follows_system
    expect(toggle).to_have_attribute("aria-pressed", str(follows_system).lower())

    toggle.click()  # the other theme than the system's: remembered
    chosen = "light" if follows_system else "dark"
    assert is_dark(page) is not follows_system
    expect(page.locator("html")).to_have_attribute("data-theme", chosen)
    assert page.evaluate("localStorage.getItem('theme')") == chosen
    for path in ("/", f"/games/{GAME}/cards/"):  # a reload, another page
        page.goto(url + path)
        assert is_dark(page) is not follows_system, path
        expect(toggle).to_have_attribute("aria-pressed", str(not follows_system).lower())

    toggle.click()  # back to the system's: nothing kept, the page follows the system again
    assert is_dark(page) is follows_system
    assert page.evaluate("localStorage.getItem('theme')") is None
    page.reload()
    assert is_dark(page) is follows_system
    expect(page.locator("html")).not_to_have_attribute("data-theme", chosen)


def test_without_javascript_the_system_preference_still_applies(browser, live_server, world):
    for system in ("light", "dark"):
        context = browser.new_context(color_scheme=system, java_script_enabled=False)
        page = context.new_page()
        page.goto(f"{live_server.url}/games/{GAME}/")
        assert is_dark(page) is (system == "dark")
        expect(page.get_by_role("button", name="Dark theme")).to_be_hidden()
