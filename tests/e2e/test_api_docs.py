"""The API docs (Swagger UI from our static files) render under the Content-Security-Policy."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_api_docs_render_the_operations(browser, live_server):
    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator(".opblock").first).to_be_visible()
    expect(page.locator(".opblock-summary-path", has_text="/api/decks/").first).to_be_visible()
    # The browser fixture fails the test if the policy blocked anything on the way.
