"""A new player, in a real browser: sign up, build a legal deck, share it, copy it as bob."""

import re

import pytest
from playwright.sync_api import expect

from cards.models import Game
from deckbuilder.models import Deck
from tests.e2e.conftest import add_verdant_ward, in_builder

pytestmark = pytest.mark.django_db(transaction=True)

# Kellantra (green, Keld) may use these; 3 + 2 + 3 + 2 = 10 cards, each within its rarity.
DECK = {"plant-a-seed": 3, "healing": 2, "quiet-prayer": 3, "verdant-ward": 2}


def test_sign_up_build_a_legal_deck_share_it_and_copy_it(browser, live_server, world):
    add_verdant_ward(Game.objects.get(slug="card-of-gods"))
    url = live_server.url

    carol = browser.new_context()
    page = carol.new_page()
    page.goto(f"{url}/accounts/signup/")
    page.fill("#id_username", "carol")
    page.fill("#id_password1", "a-long-unusual-passphrase")
    page.fill("#id_password2", "a-long-unusual-passphrase")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_text("carol", exact=False).first).to_be_visible()

    # From Kellantra's page to a new deck with her as leader.
    page.goto(f"{url}/games/card-of-gods/leaders/kellantra/")
    page.get_by_role("link", name="New deck with Kellantra").click()
    expect(page.locator("#leader-kellantra")).to_be_checked()
    page.fill("#id_name", "Seeds of Keld")
    page.get_by_role("button", name="Create deck").click()
    in_builder(page)

    # +/− through htmx: the panel follows without a page load, and quick clicks (made while
    # the previous change is on its way) are queued, not lost.
    page.evaluate("window.noReload = true")
    added = 0
    for slug, copies in DECK.items():
        for _ in range(copies):
            page.click(f"#add-main-{slug}")
            added += 1
        expect(page.locator("#deck-panel .deck-counter .count")).to_have_text(str(added))
    assert page.evaluate("window.noReload") is True, "the builder reloaded the page"
    expect(page.locator("#deck-panel .verdict")).to_have_text(re.compile("Legal"))
    expect(page.locator("#deck-panel .verdict")).not_to_have_text(re.compile("Not legal"))

    # Share it: unlisted, anyone with the link.
    if not page.locator("#settings").evaluate("el => el.open"):
        page.locator("#settings summary").click()
    page.get_by_label(re.compile("Unlisted")).check()
    page.get_by_role("button", name="Save settings").click()
    deck = Deck.objects.get(owner__username="carol")
    assert (deck.visibility, deck.legal, deck.card_count) == ("unlisted", True, 10)
    share_url = f"{url}{deck.get_absolute_url()}"

    # Logged out, in a fresh browser: the link shows the deck.
    guest = browser.new_context()
    visitor = guest.new_page()
    visitor.goto(share_url)
    expect(visitor.locator("h1")).to_have_text(re.compile("Seeds of Keld"))
    expect(visitor.get_by_text("Plant A Seed").first).to_be_visible()
    expect(visitor.locator(".verdict").first).to_have_text(re.compile("Legal"))
    og_title = visitor.locator('meta[property="og:title"]').get_attribute("content")
    assert "Seeds of Keld" in og_title

    # bob logs in and copies it to his decks.
    visitor.goto(f"{url}/accounts/login/?next={deck.get_absolute_url()}")
    visitor.fill("#id_username", "bob")
    visitor.fill("#id_password", "bob-password")
    visitor.locator("form.account-form").get_by_role("button", name="Log in").click()
    expect(visitor).to_have_url(share_url)
    visitor.get_by_role("button", name="Copy to my decks").click()
    expect(visitor).to_have_url(re.compile(r"/decks/[-_A-Za-z0-9]+/edit/"))
    copy = Deck.objects.get(owner__username="bob")
    assert copy.visibility == "private" and copy.legal and copy.share_id != deck.share_id
    assert {e.card.slug: e.count for e in copy.entries.all()} == DECK
    carol.close()
    guest.close()
