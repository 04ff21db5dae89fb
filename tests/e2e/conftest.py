"""Browser tests: Debian's chromium driven headless by Playwright against the live server."""

import os
import shutil

import pytest

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser():
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


@pytest.fixture
def world(transactional_db):
    """The Card of Gods world and the users, built again when an earlier transactional test
    (they flush the database) has emptied it."""
    from cards.models import Game
    from tests.conftest import build_users, build_world

    if not Game.objects.filter(slug="card-of-gods").exists():
        build_world()
        build_users()
