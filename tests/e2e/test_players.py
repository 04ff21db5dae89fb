"""What players do with the builder and deck pages, at a desktop size and a 390×844 phone:
the keyboard alone, deck management without the API, browsing with filters and card faces.
Every page these flows touch is checked with axe-core (tests/e2e/axe.py): zero violations."""

import re

import pytest
from playwright.sync_api import expect

from cards.models import Game
from deckbuilder import services
from deckbuilder.models import Deck, Visibility
from tests.e2e.axe import violations
from tests.e2e.conftest import add_verdant_ward, in_builder

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=list(VIEWPORTS))
def size(request):
    return request.param


@pytest.fixture
def game(world):
    game = Game.objects.get(slug="card-of-gods")
    add_verdant_ward(game)
    return game


def open_as(browser, size, live_server, username=None, javascript=True):
    context = browser.new_context(
        viewport=VIEWPORTS[size],
        permissions=["clipboard-read", "clipboard-write"],
        java_script_enabled=javascript,
    )
    page = context.new_page()
    # Script errors, htmx's included (an out-of-band swap without its target logs
    # htmx:oobErrorNoTarget); a 400 the page asked for is an answer, not an error.
    page.errors = []
    page.on(
        "console",
        lambda m: (
            m.type == "error"
            and "Failed to load resource" not in m.text
            and page.errors.append(m.text)
        ),
    )
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    if username:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", f"{username}-password")
        page.keyboard.press("Enter")
        # Signed in: the login's answer is in (#menu-toggle is on every page, so waiting for
        # it let the next goto cancel the login; the browser then went on signed out).
        expect(page.locator(".account-user")).to_be_attached()
    return page


def idle(page):
    """Wait until htmx has no request, swap or settle under way (suggestions included)."""
    expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)


def no_violations(page):
    """axe on the page once htmx is done with it (dimmed results would fail on contrast)."""
    idle(page)
    assert violations(page) == [], page.url
    assert getattr(page, "errors", []) == [], page.url


def focused_id(page) -> str:
    return page.evaluate("document.activeElement && document.activeElement.id")


def tab_until(page, predicate: str, limit: int = 40) -> int:
    """Press Tab until `predicate` (JS, of document.activeElement `el`) holds; the count."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(f"(el => {predicate})(document.activeElement)"):
            return presses
    raise AssertionError(f"{predicate} not reached in {limit} Tab presses")


def test_build_a_deck_with_the_keyboard_alone(browser, live_server, game, size):
    page = open_as(browser, size, live_server, "alice")
    page.goto(f"{live_server.url}/decks/new/?game=card-of-gods&leader=kellantra")
    page.focus("#id_name")
    page.keyboard.type("Keys of Keld")
    page.keyboard.press("Enter")
    in_builder(page)
    no_violations(page)

    # The second stop is the skip link to the cards; from there a few Tabs reach the first +.
    tab_until(page, "el.getAttribute('href') === '#builder-cards'", limit=3)
    page.keyboard.press("Enter")
    presses = tab_until(page, "el.classList.contains('add')")
    assert presses <= 12, f"{presses} Tab presses from the skip link to the first +"
    first = focused_id(page)
    assert first == "add-main-healing"

    # Enter and Space on the same + keep the focus there; each change is announced.
    page.keyboard.press("Enter")
    expect(page.locator("#deck-status")).to_contain_text("Healing: 1 in deck.")
    page.keyboard.press(" ")
    expect(page.locator("#deck-status")).to_contain_text("Healing: 2 in deck.")
    assert focused_id(page) == first
    expect(page.locator("#deck-status")).to_have_attribute("role", "status")
    expect(page.locator("#deck-status")).to_contain_text("2/10 cards")

    # Only Healing listed: the changes to Plant A Seed below concern a card not in the list.
    page.goto(page.url.split("?")[0].split("#")[0] + "?q=heal")
    if size == "phone":
        # Two tabs: the cards or the deck, the counter and verdict above both.
        expect(page.locator("#deck-panel")).to_be_hidden()
        page.focus("#tab-cards")
        page.keyboard.press("ArrowRight")
        expect(page.locator("#tab-deck")).to_have_attribute("aria-selected", "true")
        expect(page.locator("#deck-panel")).to_be_visible()
        expect(page.locator("#builder-cards")).to_be_hidden()
        expect(page.locator("#deck-status")).to_be_in_viewport()
    else:
        expect(page.locator("#deck-panel")).to_be_visible()

    # Quick add: type a name's start, pick from the suggestions, Enter.
    page.focus("#quick-add-name")
    page.keyboard.type("plant")
    expect(page.locator("#quick-add-options option")).to_have_attribute("value", "Plant A Seed")
    page.keyboard.press("Enter")
    expect(page.locator("#deck-status")).to_contain_text("Plant A Seed: 1 in deck.")
    expect(page.locator("#deck-panel")).to_contain_text("1× Plant A Seed")
    assert focused_id(page) == "quick-add-name"
    page.keyboard.type("nothing like it")
    page.keyboard.press("Enter")
    expect(page.locator("#quick-add-error")).to_contain_text("Unknown card 'nothing like it'.")

    # Removing the last copy from the panel: the focus goes to the panel's heading, not lost.
    idle(page)
    # Focus and Enter in one step: a suggestions answer for the quick-add box still on its way
    # (a slow machine) settles focus back on that box, which a separate focus() then loses.
    page.locator("#panel-remove-main-plant-a-seed").press("Enter")
    expect(page.locator("#deck-status")).to_contain_text("Plant A Seed: 0 in deck.")
    expect(page.locator("#panel-heading")).to_be_focused()
    no_violations(page)
    deck = Deck.objects.get(owner__username="alice")
    assert {e.card.slug: e.count for e in deck.entries.select_related("card")} == {"healing": 2}
    assert page.errors == []


def test_import_review_share_and_delete_a_deck_without_the_api(browser, live_server, game, size):
    page = open_as(browser, size, live_server, "alice")
    url = live_server.url

    # Import from pasted text: a bad line is named by its number and nothing is created.
    page.goto(f"{url}/decks/import/?game=card-of-gods")
    page.fill("#id_name", "Pasted")
    text = "Kellantra\n3 Plant A Seed\n2 Healing\n3 Quiet Prayer\n2 Verdant Wart\n"
    page.fill("#id_text", text)
    page.get_by_role("button", name="Import deck").click()
    expect(page.get_by_text("line 5: no card named 'Verdant Wart'")).to_be_visible()
    assert not Deck.objects.exists()
    no_violations(page)
    page.fill("#id_text", text.replace("Wart", "Ward"))
    page.get_by_role("button", name="Import deck").click()
    in_builder(page)
    deck = Deck.objects.get(owner__username="alice")
    assert (deck.card_count, deck.legal) == (10, True)

    # A change in the builder makes a second version.
    page.locator("#add-main-healing").click()
    expect(page.locator("#deck-status")).to_contain_text("Healing: 3 in deck.")

    # The deck page: a sample hand from its URL, one more card, the same cards again.
    page.goto(f"{url}{deck.get_absolute_url()}")
    no_violations(page)
    page.get_by_role("link", name="Draw a sample hand").click()
    hand = page.locator("#hand-cards .hand-name")
    expect(hand).to_have_count(5)
    expect(page).to_have_url(re.compile(r"[?&]hand=\d+"))
    first = hand.all_inner_texts()
    page.get_by_role("link", name="Draw one more").click()
    expect(hand).to_have_count(6)
    assert hand.all_inner_texts()[:5] == first
    expect(page.locator("#hand-draw")).to_be_focused()
    page.reload()
    assert hand.all_inner_texts()[:5] == first
    no_violations(page)

    # Share with the copy button: the clipboard holds the deck's address.
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#share-status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == f"{url}{deck.get_absolute_url()}"

    # History: the change as a diff, and the imported version restored as a new one.
    page.get_by_role("link", name="History").click()
    expect(page.locator("main")).to_contain_text("+1 Healing")
    no_violations(page)
    page.get_by_role("button", name=re.compile("Restore")).last.click()
    expect(page.locator("main")).to_contain_text("−1 Healing")
    deck.refresh_from_db()
    assert deck.versions.count() == 3 and deck.card_count == 10

    # Delete, after a confirmation page.
    page.goto(f"{url}{deck.get_absolute_url()}")
    page.get_by_role("link", name="Delete…").click()
    expect(page.locator("h1")).to_contain_text("This cannot be undone.")
    no_violations(page)
    page.get_by_role("button", name="Delete this deck").click()
    expect(page).to_have_url(f"{url}/decks/mine/")
    expect(page.locator("main")).to_contain_text("Deleted “Pasted”.")
    assert not Deck.objects.exists()
    no_violations(page)


def test_browse_cards_and_public_decks(browser, live_server, game, size):
    from django.contrib.auth.models import User

    alice, bob = User.objects.get(username="alice"), User.objects.get(username="bob")
    kellantra = game.leaders.get(slug="kellantra")
    cards = {c.slug: c for c in game.cards.all()}
    counts = {"plant-a-seed": 3, "healing": 2, "quiet-prayer": 3, "verdant-ward": 2}
    contents = {(cards[slug], "main"): n for slug, n in counts.items()}
    older = services.deck_create(
        owner=alice,
        game=game,
        leader=kellantra,
        name="Old grove",
        contents=contents,
        visibility=Visibility.PUBLIC,
    )
    services.deck_create(
        owner=alice,
        game=game,
        leader=kellantra,
        name="New grove",
        contents=contents,
        visibility=Visibility.PUBLIC,
    )
    services.deck_copy(deck=older, owner=bob)
    page = open_as(browser, size, live_server)
    url = live_server.url

    # The header folds into a menu on the phone.
    page.goto(f"{url}/games/card-of-gods/cards/")
    if size == "phone":
        expect(page.locator(".site-nav")).to_be_hidden()
        page.get_by_role("button", name="Menu").click()
        expect(page.locator(".site-nav")).to_be_visible()
        height = page.evaluate("document.querySelector('.site-header').offsetHeight")
        page.keyboard.press("Escape")
        expect(page.locator(".site-nav")).to_be_hidden()
        assert page.evaluate("document.querySelector('.site-header').offsetHeight") < height
    no_violations(page)

    # Card faces in the grid: an SVG face for every card without an image.
    faces = page.locator(".card-grid img.card-thumb")
    expect(faces.first).to_have_attribute("src", re.compile(r"/face\.svg$"))
    # (lazy images below the fold load later: the first one is drawn)
    page.wait_for_function("document.querySelector('.card-grid img').naturalWidth > 0")

    # Sort applies on change, without a button or a page load.
    page.evaluate("window.stillHere = true")
    page.select_option("#id_sort", "-cost")
    expect(page).to_have_url(re.compile(r"sort=-cost"))
    expect(page.locator(".card-grid .card-name").first).to_have_text("Blood Pact")
    assert page.evaluate("window.stillHere") is True

    # A keyword by the start of its name; an inverted range says why nothing matches.
    page.goto(f"{url}/games/card-of-gods/cards/?keyword=pla")
    expect(page.locator(".card-grid .card-name")).to_have_text(["Plant A Seed"])
    page.goto(f"{url}/games/card-of-gods/cards/?cost_min=5&cost_max=2")
    expect(page.locator("main")).to_contain_text("From 5 is more than To 2")
    no_violations(page)

    # The card page lists the public decks using the card.
    page.goto(f"{url}/games/card-of-gods/cards/healing/")
    expect(page.locator("main")).to_contain_text("New grove")
    expect(page.locator("main")).to_contain_text("Old grove")
    no_violations(page)

    # Public decks, most copied first.
    page.goto(f"{url}/decks/")
    expect(page.locator(".deck-row-name").first).to_have_text("New grove")
    page.select_option("select[name=sort]", "copied")
    expect(page).to_have_url(re.compile(r"sort=copied"))
    expect(page.locator(".deck-row-name").first).to_have_text("Old grove")
    expect(page.locator(".deck-row").first).to_contain_text("copied once")
    no_violations(page)


def test_card_preview_shows_on_keyboard_focus_in_the_builder(browser, live_server, game):
    from django.contrib.auth.models import User

    deck = services.deck_create(
        owner=User.objects.get(username="alice"),
        game=game,
        leader=game.leaders.get(slug="kellantra"),
        name="Preview",
    )
    page = open_as(browser, "desktop", live_server, "alice")
    page.goto(f"{live_server.url}/decks/{deck.share_id}/edit/")
    preview = page.locator("#card-healing .card-preview")
    expect(preview).to_be_hidden()
    page.locator("#card-healing .card-name a").focus()
    expect(preview).to_be_visible()
    expect(preview.locator("img")).to_have_attribute("src", re.compile("healing/face.svg"))
    page.keyboard.press("Escape")  # dismissible without moving the focus
    expect(preview).to_be_hidden()


@pytest.mark.parametrize("javascript", [True, False], ids=["htmx", "no-js"])
def test_a_card_added_from_a_search_keeps_the_search(browser, live_server, game, javascript):
    """The +/- forms name no address: they post to the page's own, which the search put in
    the address bar (htmx) or which the search form loaded (no JavaScript)."""
    page = open_as(browser, "desktop", live_server, "alice", javascript=javascript)
    page.goto(f"{live_server.url}/decks/new/?game=card-of-gods&leader=kellantra")
    page.fill("#id_name", "Searched")
    page.keyboard.press("Enter")
    in_builder(page)
    # Typed as a player types: with htmx the list follows the typing.
    page.locator("#id_q").press_sequentially("plant")
    if not javascript:
        page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"q=plant"))
    expect(page.locator("#card-healing")).to_have_count(0)
    asked = []
    page.on("request", lambda request: asked.append(request.method))
    page.click("#add-main-plant-a-seed")
    if javascript:
        expect(page.locator("#deck-status")).to_contain_text("Plant A Seed: 1 in deck.")
    else:
        expect(page).to_have_url(re.compile(r"\?q=plant&.*#card-plant-a-seed$"))  # PRG
    expect(page.locator("#count-main-plant-a-seed")).to_have_text("1")
    # Only the +: the search box losing focus asks for no list, which, read before the + commits,
    # could land after it with the old count.
    assert asked == ["POST"] if javascript else asked[:2] == ["POST", "GET"]
    page.reload()
    expect(page.locator("#card-healing")).to_have_count(0)  # still the search's cards
    expect(page.locator("#count-main-plant-a-seed")).to_have_text("1")
