"""Three snags of the builder on a 390×844 phone (issue 25): the Cards and Deck tabs keep their
own scroll, a +/− shows that its answer is on its way (and a second press is not sent), and a
public ten-card deck changes a card by a swap."""

import re

import pytest
from playwright.sync_api import expect

from cards.models import Game
from deckbuilder.models import Deck, Visibility
from tests import factories
from tests.deckbuilder.test_pages import sprouts
from tests.e2e.conftest import in_builder
from tests.e2e.test_players import idle, no_violations, open_as

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game(world):
    return Game.objects.get(slug="card-of-gods")


def counts(deck) -> dict[str, int]:
    return {
        e.card.slug: e.count for e in Deck.objects.get(pk=deck.pk).entries.select_related("card")
    }


def scroll_y(page) -> float:
    return page.evaluate("window.scrollY")


def style(page, selector: str, name: str, pseudo: str | None = None) -> str:
    return page.evaluate(
        "([s, name, pseudo]) => getComputedStyle(document.querySelector(s), pseudo)[name]",
        [selector, name, pseudo],
    )


def open_builder(browser, live_server, deck):
    page = open_as(browser, "phone", live_server, "alice")
    page.goto(f"{live_server.url}/decks/{deck.share_id}/edit/")
    in_builder(page)
    return page


def test_the_cards_and_deck_tabs_keep_their_own_scroll(browser, live_server, game, alice):
    sprouts(game, 30)  # a long list of cards, and a long deck panel (contents and stats)
    many = {f"sprout-{i}": 1 for i in range(30)}
    deck = factories.deck(alice, game, many, lead=None, visibility=Visibility.PRIVATE)
    page = open_builder(browser, live_server, deck)
    bar = page.locator(".builder-bar")

    page.evaluate("window.scrollTo(0, 2500)")
    cards_at = scroll_y(page)
    assert cards_at > 2000, "the list of cards is too short to scroll"

    # The first visit to Deck starts at the top of its panel, just under the sticky bar.
    page.click("#tab-deck")
    expect(page.locator("#deck-panel")).to_be_visible()
    panel_top = page.locator("#deck-panel").bounding_box()["y"]
    bar_bottom = bar.bounding_box()["y"] + bar.bounding_box()["height"]
    assert bar_bottom - 1 <= panel_top <= bar_bottom + 1, (panel_top, bar_bottom)

    page.evaluate("window.scrollBy(0, 600)")
    deck_at = scroll_y(page)

    # Back to the cards: where the player was; and back to the deck: where they were there.
    page.click("#tab-cards")
    expect(page.locator("#builder-cards")).to_be_visible()
    assert scroll_y(page) == pytest.approx(cards_at, abs=1)
    page.click("#tab-deck")
    assert scroll_y(page) == pytest.approx(deck_at, abs=1)


def test_a_plus_shows_its_answer_is_on_its_way_and_a_second_press_is_not_sent(
    browser, live_server, game, alice
):
    deck = factories.deck(alice, game, {}, lead=None, visibility=Visibility.PRIVATE)
    page = open_builder(browser, live_server, deck)
    held = []  # the changes posted, held back until the test lets them through
    page.route(
        re.compile(r"/edit/"),
        lambda route: held.append(route) if route.request.method == "POST" else route.continue_(),
    )
    plus = page.locator("#add-main-healing")

    plus.click()
    expect(plus).to_have_attribute("aria-busy", "true")
    expect(plus).to_have_attribute("aria-disabled", "true")  # said, while it keeps the focus
    assert style(page, "#add-main-healing", "cursor") == "progress"
    assert style(page, "#add-main-healing", "animationName", "::after") == "pending-turn"
    page.emulate_media(reduced_motion="reduce")
    assert style(page, "#add-main-healing", "animationName", "::after") == "none"

    plus.click(force=True)  # a second press while the first is on its way
    page.wait_for_timeout(300)
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#count-main-healing")).to_have_text("1")
    expect(plus).not_to_have_attribute("aria-busy", "true")
    idle(page)
    page.wait_for_timeout(300)
    assert len(held) == 1, "the second press was sent"
    assert counts(deck) == {"healing": 1}


def test_a_public_ten_card_deck_changes_a_card_by_a_swap(browser, live_server, game, alice):
    deck = factories.deck(alice, game)  # Gottfried's legal ten, public
    page = open_builder(browser, live_server, deck)

    # A + the deck would refuse looks unavailable and says why.
    expect(page.locator("#add-main-blood-pact")).to_have_attribute("aria-disabled", "true")
    expect(page.locator("#why-main-blood-pact")).to_have_text(
        "max 1 reached: a public deck must stay legal"
    )
    expect(page.locator("#why-main-blood-pact")).to_be_visible()

    # − asks for the card to put in its place; nothing is written until it is picked.
    page.click("#remove-main-despair")
    prompt = page.locator("#swap-prompt")
    expect(prompt).to_contain_text("press + on the card to put in place of Despair")
    expect(prompt).to_be_in_viewport()  # in the sticky bar, over the cards
    expect(page).to_have_url(re.compile(r"swap=out:main:despair"))
    assert counts(deck) == factories.GOTTFRIED_TEN
    no_violations(page)

    page.click("#add-main-quiet-prayer")
    expect(page.locator("#deck-status")).to_contain_text("Swapped: Despair out, Quiet Prayer in.")
    expect(page.locator("#count-main-despair")).to_have_text("2")
    expect(page.locator("#count-main-quiet-prayer")).to_have_text("1")
    expect(prompt).to_be_hidden()
    expect(page).not_to_have_url(re.compile("swap="))
    assert counts(deck) == {**factories.GOTTFRIED_TEN, "despair": 2, "quiet-prayer": 1}
    assert Deck.objects.get(pk=deck.pk).visibility == "public"

    # A swap begun can be cancelled: the next + is a + again (to a full deck: a card to take
    # out is asked for), then − on a card in the deck panel completes that swap.
    page.click("#remove-main-lightning")
    expect(prompt).to_contain_text("put in place of Lightning")
    prompt.get_by_role("link", name="Cancel swap").click()
    expect(prompt).to_be_hidden()
    expect(page).not_to_have_url(re.compile("swap="))
    page.click("#add-main-quiet-prayer")
    expect(prompt).to_contain_text("press − on the card to take out for Quiet Prayer")
    prompt.get_by_role("link", name="To the deck").click()
    expect(page.locator("#tab-deck")).to_have_attribute("aria-selected", "true")
    page.click("#panel-remove-main-lightning")
    expect(page.locator("#deck-status")).to_contain_text("Swapped: Lightning out, Quiet Prayer in.")
    assert counts(deck) == {
        **factories.GOTTFRIED_TEN,
        "despair": 2,
        "lightning": 2,
        "quiet-prayer": 2,
    }
    assert page.errors == []
