"""A public deck must stay legal after every change, so in an exact-size format (Card of Gods:
ten cards) a − alone or a + alone is always refused. The builder turns them into a swap: the
refused − (or + to a full deck) waits in the page's address (`swap=`), every +/− form posts
there, and the next + (or −) writes both changes in one, judged as a whole. Private and
unlisted decks, drafts that may be illegal, change one card at a time as before."""

import re
from urllib.parse import unquote

import pytest

from cards.models import Card
from deckbuilder import services
from deckbuilder.models import Deck, DeckVersion, Visibility
from tests import factories
from tests.deckbuilder.test_pages import HTMX, counts_of, edit_url
from tests.html import element, html_of, text_in, text_of

pytestmark = pytest.mark.django_db

TEN = factories.GOTTFRIED_TEN  # despair 3, lightning 3, fiery-earth 2, punishment 1, blood-pact 1
OUT_DESPAIR = "swap=out:main:despair"


def card(game, slug) -> Card:
    return Card.objects.get(game=game, slug=slug)


def stored(deck) -> tuple:
    """What a refused change must leave as it was: the deck's row, its entries, its history."""
    return (
        Deck.objects.values().get(pk=deck.pk),
        counts_of(deck),
        DeckVersion.objects.filter(deck=deck).count(),
    )


def change(client, deck, slug, op, query="", **extra):
    return client.post(edit_url(deck, query), {"card": slug, "op": op}, **extra)


@pytest.fixture
def public_ten(alice, game):
    return factories.deck(alice, game)


# --- the service -------------------------------------------------------------------------------


def test_a_swap_in_a_public_ten_card_deck_writes_both_changes_and_keeps_it_public(public_ten, game):
    version = public_ten.version
    services.deck_swap(deck=public_ten, out=card(game, "despair"), into=card(game, "quiet-prayer"))
    deck = Deck.objects.get(pk=public_ten.pk)
    assert counts_of(deck) == {**TEN, "despair": 2, "quiet-prayer": 1}
    assert (deck.visibility, deck.legal, deck.card_count) == ("public", True, 10)
    assert deck.version == version + 1


def test_an_illegal_swap_is_refused_with_the_engines_reasons_and_writes_nothing(public_ten, game):
    before = stored(public_ten)
    with pytest.raises(services.DeckNotLegal) as refused:
        services.deck_swap(
            deck=public_ten, out=card(game, "punishment"), into=card(game, "blood-pact")
        )
    assert [p.card for p in refused.value.report.problems] == ["blood-pact"]
    assert stored(public_ten) == before


def test_a_swap_against_a_stale_version_is_a_conflict_and_writes_nothing(public_ten, game):
    before = stored(public_ten)
    with pytest.raises(services.VersionMismatch):
        services.deck_swap(
            deck=public_ten,
            out=card(game, "despair"),
            into=card(game, "quiet-prayer"),
            expected_version=public_ten.version - 1,
        )
    assert stored(public_ten) == before


# --- the builder: a − that would make a public deck illegal offers a swap ----------------------


def test_minus_on_a_public_ten_card_deck_offers_a_swap_and_writes_nothing(
    client, alice, public_ten
):
    client.force_login(alice)
    before = stored(public_ten)
    response = change(client, public_ten, "despair", "remove")
    assert response.status_code == 302
    assert unquote(response["Location"]) == edit_url(public_ten, "swap=out:main:despair") + (
        "#builder-cards"
    )
    assert stored(public_ten) == before

    page = client.get(response["Location"])
    assert (
        "Swap: press + on the card to put in place of Despair ; nothing changes until then."
        in text_in(page, "swap-prompt")
    )
    # Every +/− form posts to the page's address, which holds the swap: the cards' forms name
    # no address (the page's own), the panel's and the quick add's name it whole.
    html = html_of(page)
    assert 'hx-post="" hx-swap="none"' in element(page, "card-quiet-prayer")
    action = re.escape(edit_url(public_ten, "swap=out:main:despair"))
    assert re.search(rf'class="quick-add" method="post" action="{action}" hx-post="{action}"', html)
    # The card filters carry it too.
    assert 'id="card-filters"' in html
    assert '<input type="hidden" name="swap" value="out:main:despair" form="card-filters">' in html


def test_minus_with_htmx_offers_the_swap_and_moves_the_pages_address_to_it(
    client, alice, public_ten
):
    client.force_login(alice)
    before = stored(public_ten)
    data = {"card": "despair", "op": "remove", "shown": ["despair", "quiet-prayer"]}
    response = client.post(edit_url(public_ten, "q=a"), data, **HTMX)
    assert response.status_code == 200
    assert unquote(response["HX-Replace-Url"]) == edit_url(public_ten, "q=a&swap=out:main:despair")
    assert "put in place of Despair" in text_in(response, "swap-prompt")
    assert "Despair stays for now: a public deck must stay legal." in text_in(
        response, "deck-status"
    )
    assert "Only a legal deck" not in text_of(response)  # an offer, not a refusal
    action = edit_url(public_ten, "q=a&amp;swap=out:main:despair")
    assert f'action="{action}" hx-post="{action}"' in html_of(response)  # the panel's forms
    assert stored(public_ten) == before


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_plus_after_the_offer_swaps_both_cards_in_one_change_and_the_deck_stays_public(
    client, alice, public_ten, htmx
):
    client.force_login(alice)
    version = public_ten.version
    data = {"card": "quiet-prayer", "op": "add", "shown": ["despair", "quiet-prayer"]}
    response = client.post(edit_url(public_ten, OUT_DESPAIR), data, **(HTMX if htmx else {}))
    deck = Deck.objects.get(pk=public_ten.pk)
    assert counts_of(deck) == {**TEN, "despair": 2, "quiet-prayer": 1}
    assert (deck.visibility, deck.legal, deck.version) == ("public", True, version + 1)
    if htmx:
        assert response["HX-Replace-Url"] == edit_url(public_ten)  # the swap is done
        assert "Swapped: Despair out, Quiet Prayer in." in text_in(response, "deck-status")
        assert text_in(response, "count-main-despair") == "2"
        assert text_in(response, "count-main-quiet-prayer") == "1"
        assert text_in(response, "swap-prompt") == ""
    else:
        assert response["Location"] == edit_url(public_ten) + "#card-quiet-prayer"
        page = client.get(response["Location"])
        assert "Swapped: Despair out, Quiet Prayer in." in text_of(page)
        assert text_in(page, "swap-prompt") == ""


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_an_illegal_swap_is_refused_with_its_reasons_keeps_the_swap_and_writes_nothing(
    client, alice, public_ten, htmx
):
    client.force_login(alice)
    before = stored(public_ten)
    query = "swap=out:main:punishment"
    response = change(client, public_ten, "blood-pact", "add", query, **(HTMX if htmx else {}))
    assert response.status_code == (200 if htmx else 400)
    prompt = text_in(response, "swap-prompt")
    assert "put in place of Punishment" in prompt  # still waiting for a card
    assert "Not swapped: Only a legal deck can be public." in prompt
    assert "Blood Pact is rare: at most 1 copy, deck has 2" in prompt
    assert stored(public_ten) == before


def test_plus_on_a_full_public_deck_offers_a_card_to_take_out_then_minus_swaps(
    client, alice, public_ten
):
    client.force_login(alice)
    response = change(client, public_ten, "quiet-prayer", "add")
    assert unquote(response["Location"]) == edit_url(public_ten, "swap=in:main:quiet-prayer") + (
        "#deck-panel"
    )
    page = client.get(response["Location"])
    assert (
        "Swap: press − on the card to take out for Quiet Prayer ; nothing changes until then."
        in text_in(page, "swap-prompt")
    )
    assert counts_of(public_ten) == TEN

    change(client, public_ten, "lightning", "remove", "swap=in:main:quiet-prayer")
    assert counts_of(public_ten) == {**TEN, "lightning": 2, "quiet-prayer": 1}


def test_a_plus_is_offered_a_swap_only_when_a_card_taken_out_could_make_it_legal(
    client, alice, public_ten
):
    """Quiet Prayer only makes the deck one card too many; no card taken out makes a second
    Blood Pact legal (a rare: one copy), so that + is refused as before."""
    client.force_login(alice)
    before = stored(public_ten)
    offered = change(client, public_ten, "quiet-prayer", "add")
    assert "swap=in:main:quiet-prayer" in unquote(offered["Location"])
    refused = change(client, public_ten, "blood-pact", "add")
    assert refused.status_code == 400
    assert "Only a legal deck can be public." in text_of(refused)
    assert text_in(refused, "swap-prompt") == ""
    assert stored(public_ten) == before


def test_cancel_swap_goes_back_to_the_address_without_it(client, alice, public_ten):
    client.force_login(alice)
    page = client.get(edit_url(public_ten, f"q=a&{OUT_DESPAIR}"))
    cancel = re.search(r'class="swap-cancel" href="([^"]+)"', element(page, "swap-prompt"))
    assert cancel.group(1) == edit_url(public_ten, "q=a")
    assert text_in(client.get(cancel.group(1)), "swap-prompt") == ""


def test_plus_on_the_card_waiting_to_leave_cancels_the_swap(client, alice, public_ten):
    client.force_login(alice)
    before = stored(public_ten)
    response = change(client, public_ten, "despair", "add", OUT_DESPAIR, **HTMX)
    assert "Swap cancelled" in text_in(response, "deck-status")
    assert response["HX-Replace-Url"] == edit_url(public_ten)
    assert stored(public_ten) == before


def test_a_bad_swap_is_a_400_that_names_it_and_writes_nothing(client, alice, public_ten):
    client.force_login(alice)
    before = stored(public_ten)
    response = change(client, public_ten, "quiet-prayer", "add", "swap=out:main:no-such-card")
    assert response.status_code == 400
    assert "No card 'no-such-card' in Card of Gods." in text_of(response)
    assert stored(public_ten) == before


# --- buttons the server will refuse say so -----------------------------------------------------


def test_a_plus_a_public_deck_refuses_looks_unavailable_and_says_why(client, alice, public_ten):
    client.force_login(alice)
    page = client.get(edit_url(public_ten))
    controls = element(page, "controls-blood-pact")
    assert re.search(r'id="add-main-blood-pact" aria-disabled="true"', controls)
    assert "max 1 reached: a public deck must stay legal" in text_in(page, "controls-blood-pact")
    assert "aria-disabled" not in element(page, "controls-quiet-prayer")
    assert "− on a card asks for the card to put in its place" in text_in(page, "public-notice")


def test_after_a_swap_the_controls_follow_the_counts(client, alice, game):
    """Despair at 2 of 3 may get a + again; Punishment gone, its + is free."""
    deck = factories.deck(alice, game, {**TEN, "despair": 2, "quiet-prayer": 1})
    client.force_login(alice)
    data = {"card": "despair", "op": "add", "shown": ["punishment", "despair"]}
    response = client.post(edit_url(deck, "swap=out:main:punishment"), data, **HTMX)
    assert counts_of(deck)["despair"] == 3 and "punishment" not in counts_of(deck)
    assert 'id="add-main-despair" aria-disabled="true"' in element(response, "controls-despair")
    assert "aria-disabled" not in element(response, "controls-punishment")


# --- private and unlisted decks are drafts: one card at a time, as before ----------------------


def test_only_a_public_deck_turns_a_minus_into_a_swap(client, alice, game):
    """Private and unlisted decks are drafts: each +/− is written at once, legal or not."""
    client.force_login(alice)
    public = factories.deck(alice, game)
    assert "swap=out:main:despair" in unquote(
        change(client, public, "despair", "remove")["Location"]
    )
    assert counts_of(public) == TEN
    for visibility in (Visibility.PRIVATE, Visibility.UNLISTED):
        deck = factories.deck(alice, game, visibility=visibility)
        response = change(client, deck, "despair", "remove")
        assert response["Location"] == edit_url(deck) + "#card-despair"  # no swap waits
        change(client, deck, "quiet-prayer", "add")
        change(client, deck, "quiet-prayer", "add")
        assert counts_of(deck) == {**TEN, "despair": 2, "quiet-prayer": 2}
        assert Deck.objects.get(pk=deck.pk).card_count == 11  # an illegal draft is fine
        page = client.get(edit_url(deck))
        assert "aria-disabled" not in element(page, "controls-blood-pact")
        assert text_in(page, "swap-prompt") == ""
