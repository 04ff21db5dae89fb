"""Browser tests: Debian's chromium driven headless by Playwright against the live server."""

import os
import shutil

import pytest

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def chromium():
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not executable:
        pytest.fail("chromium is missing: `make test` installs it (apt-get install -y chromium)")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
    # around it are still plain synchronous calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


# Chromium logs each thing the Content-Security-Policy blocks to the console; the event also
# catches what a page's own code would swallow (a refused eval inside try/catch).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => console.error(
  `securitypolicyviolation: ${e.violatedDirective} refused ${e.blockedURI || "inline code"}`));
"""


class WatchedBrowser:
    """The browser, recording whatever the Content-Security-Policy blocks in any of its pages."""

    def __init__(self, browser):
        self._browser = browser
        self.contexts = []
        self.violations: list[str] = []

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_context(self, **kwargs):
        context = self._browser.new_context(**kwargs)
        context.add_init_script(REPORT_VIOLATIONS)
        context.on("console", lambda message: self._record(message.text))
        context.on("weberror", lambda error: self._record(str(error.error)))
        self.contexts.append(context)
        return context

    def new_page(self, **kwargs):
        return self.new_context(**kwargs).new_page()

    def _record(self, text: str) -> None:
        if "Content Security Policy" in text or "securitypolicyviolation" in text:
            self.violations.append(text)


@pytest.fixture
def browser(chromium):
    """The browser for one test, which fails if the CSP blocked anything in its pages: so every
    browser test also proves its pages (and htmx in the builder) work under the policy."""
    watched = WatchedBrowser(chromium)
    yield watched
    for context in watched.contexts:
        context.close()
    if watched.violations:
        pytest.fail("blocked by the Content-Security-Policy:\n" + "\n".join(watched.violations))


@pytest.fixture
def world(transactional_db):
    """The Card of Gods world and the users, built again when an earlier transactional test
    (they flush the database) has emptied it."""
    from cards.models import Game
    from tests.conftest import build_users, build_world

    if not Game.objects.filter(slug="card-of-gods").exists():
        build_world()
        build_users()


@pytest.fixture
def fow(transactional_db):
    """Force of Will's sample pool, the biggest (live-server tests flush the database between
    tests: loaded again when gone)."""
    from cards.management.commands.load_sample_data import SAMPLE_DIR, load_sample
    from cards.models import Game

    if not Game.objects.filter(slug="force-of-will").exists():
        load_sample(SAMPLE_DIR / "force-of-will.json")
    return Game.objects.get(slug="force-of-will")


def add_verdant_ward(game):
    """One more green common for Kellantra: with it she can field a legal ten
    (3 Plant A Seed, 2 Healing, 3 Quiet Prayer, 2 Verdant Ward)."""
    from cards import services

    return services.save_card(
        game=game,
        fields={
            "name": "Verdant Ward",
            "cost": {"life": 1},
            "rarity": game.rarities.get(slug="common"),
        },
        keywords=["Keld"],
    )


def in_builder(page):
    """The page went to a deck's builder and its scripts are running: a click before htmx
    has started is a plain form post (the page then reloads, which is right without
    JavaScript, and not what these tests are about)."""
    import re

    from playwright.sync_api import expect

    expect(page).to_have_url(re.compile(r"/decks/[-_A-Za-z0-9]+/edit/"))
    page.wait_for_load_state("load")
