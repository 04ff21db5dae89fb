"""The four other games, in a real browser: a player builds a legal deck through the builder (a
Force of Will Constructed deck with main deck, magic stone deck and side deck, its Ruler opening
none of the extra, rune and stranger decks; an Of Gods and Men deck without a leader), shares
it, opens the link logged out, and imports its text back."""

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from cards import legality
from cards.management.commands.load_sample_data import SAMPLE_DIR, load_sample
from cards.models import Card, Game, Leader
from deckbuilder.models import Deck
from tests.e2e.conftest import in_builder

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-unusual-passphrase"

# (game, format, leader or None): one deck each, as formats.md's default formats ask.
GAMES = [
    ("force-of-will", "constructed", "elowen-of-the-high-gale"),
    ("berserk-heroes", "standard", "ilvane-thornwarden"),
    ("of-gods-and-men", "standard", None),
    ("irdya", "standard", "hesra-vane"),
]


def sample_game(slug: str) -> Game:
    """The sample game (live-server tests flush the database between tests: load it again)."""
    if not Game.objects.filter(slug=slug).exists():
        load_sample(SAMPLE_DIR / f"{slug}.json")
    return Game.objects.get(slug=slug)


def legal_plan(game: Game, fmt_slug: str, leader: Leader | None) -> dict[tuple[str, str], int]:
    """{(section, card slug): copies} of a legal deck, from the cards the leader may use: each
    section the leader may use (no section_gate closes it) filled to its minimum (at least one
    card) with distinct names at their copy limit (at most 3), no name in two sections, and no
    card of the second side of a pair of keywords that may not share a deck."""
    fmt = game.formats.get(slug=fmt_slug)
    engine = fmt.engine()
    cards = Card.objects.filter(game=game).for_listing().order_by("name")
    if leader is not None:
        cards = cards.usable_by(leader, fmt)
    closed = legality.closed_sections(engine, leader.info() if leader else None)
    shunned = {
        second.casefold()
        for rule in engine.rules
        if rule["rule"] == "exclusive_keywords"
        for _, second in rule["pairs"]
    }
    cards = [c for c in cards if not shunned & {k.casefold() for k in c.info().keywords}]
    minimum = {
        rule.get("deck", engine.first): rule.get("min", rule.get("exactly", 0))
        for rule in engine.rules
        if rule["rule"] == "deck_size"
    }
    plan, used = {}, set()
    for section in engine.slugs:
        if section in closed:
            continue
        wanted, have = max(minimum.get(section, 0), 1), 0
        for card in cards:
            info = card.info()
            if have >= wanted or card.slug in used:
                continue
            if section not in legality.allowed_sections(engine, info):
                continue
            most = legality.copy_limit(engine, info, section)
            n = min(3 if most is None or most > 3 else most, wanted - have)
            if n > 0:
                plan[(section, card.slug)] = n
                used.add(card.slug)
                have += n
        assert have == wanted, (game.slug, section, have, wanted)
    return plan


def log_in(page, url, username):
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.account-form").get_by_role("button", name="Log in").click()
    expect(page.get_by_text(username, exact=False).first).to_be_visible()


@pytest.mark.parametrize(("slug", "fmt", "leader_slug"), GAMES, ids=[g[0] for g in GAMES])
def test_build_a_legal_deck_share_it_and_import_its_text(
    browser, live_server, slug, fmt, leader_slug
):
    game = sample_game(slug)
    leader = Leader.objects.get(game=game, slug=leader_slug) if leader_slug else None
    plan = legal_plan(game, fmt, leader)
    User.objects.create_user("dana", password=PASSWORD)
    url = live_server.url
    context = browser.new_context()
    page = context.new_page()
    log_in(page, url, "dana")

    # New deck: the format, the leader (none in a game without leaders), a name.
    page.goto(f"{url}/decks/new/?game={slug}")
    if leader is None:
        expect(page.locator('input[name="leader"]')).to_have_count(0)
    page.locator(f"#format-{fmt}").check()
    if leader is not None:
        page.locator(f"#leader-{leader.slug}").check()
    page.fill("#id_name", f"My {game.name} deck")
    page.get_by_role("button", name="Create deck").click()
    in_builder(page)

    # Every card through the builder's +, section by section, without a page load.
    page.evaluate("window.noReload = true")
    added = 0
    for (section, card), copies in plan.items():
        for _ in range(copies):
            page.click(f"#add-{section}-{card}")
            added += 1
        expect(page.locator("#deck-panel .deck-counter .count")).to_have_text(str(added))
    assert page.evaluate("window.noReload") is True, "the builder reloaded the page"
    expect(page.locator("#deck-panel .verdict")).to_have_text(re.compile("Legal"))
    expect(page.locator("#deck-panel .verdict")).not_to_have_text(re.compile("Not legal"))
    deck = Deck.objects.get(owner__username="dana")
    stored = {(e.section, e.card.slug): e.count for e in deck.entries.select_related("card")}
    assert stored == plan and deck.legal

    # Share it: unlisted, anyone with the link.
    if not page.locator("#settings").evaluate("el => el.open"):
        page.locator("#settings summary").click()
    page.get_by_label(re.compile("Unlisted")).check()
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_text("Deck saved.")).to_be_visible()

    visitor = browser.new_context().new_page()
    visitor.goto(f"{url}{deck.get_absolute_url()}")
    expect(visitor.locator("h1")).to_have_text(re.compile(f"My {re.escape(game.name)} deck"))
    expect(visitor.locator(".verdict").first).to_have_text(re.compile("Legal"))
    visitor.context.close()

    # Its text, imported back as a new deck: the same cards in the same sections.
    page.goto(f"{url}{deck.get_absolute_url()}")
    text = page.locator("#deck-text").input_value()
    if leader is not None:
        assert text.splitlines()[1] == leader.name  # after the header naming game and format
    page.goto(f"{url}/decks/import/")
    page.select_option("#id_game", slug)
    page.select_option("#id_format", f"{slug}/{fmt}")
    page.fill("#id_name", "Imported")
    page.fill("#id_text", text)
    page.get_by_role("button", name="Import deck").click()
    in_builder(page)
    copy = Deck.objects.get(owner__username="dana", name="Imported")
    assert {(e.section, e.card.slug): e.count for e in copy.entries.select_related("card")} == plan
    assert copy.legal and copy.format.slug == fmt and copy.leader == leader
    context.close()
