"""The deck pages: builder (new, edit, +/− with and without htmx), deck page, lists, copy, export.

The builder is driven the way a browser without JavaScript drives it: POST the +/− forms, follow
the redirect, read the page. htmx requests send `HX-Request: true` and get partials back.
"""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import legality
from cards import services as card_services
from cards.models import Card, Leader
from deckbuilder import services
from deckbuilder.models import Deck, Visibility
from tests.html import meta, text_of

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"
HTMX = {"HTTP_HX_REQUEST": "true"}


def card(slug) -> Card:
    return Card.objects.get(game__slug=GAME, slug=slug)


def leader(slug) -> Leader:
    return Leader.objects.get(game__slug=GAME, slug=slug)


def green_common(game, name="Wild Growth") -> Card:
    """An extra green common (the test world's Kellantra cards allow only 8 copies)."""
    return card_services.save_card(
        game=game,
        fields={"name": name, "rarity": game.rarities.get(slug="common"), "cost": {"life": 1}},
        keywords=[],
    )


def make_deck(
    owner, game, counts=None, visibility=Visibility.PRIVATE, name="Seeds", lead="kellantra"
):
    return services.deck_create(
        owner=owner,
        game=game,
        leader=leader(lead),
        name=name,
        visibility=visibility,
        contents={(card(slug), "main"): n for slug, n in (counts or {}).items()},
    )


def legal_counts(game):
    green_common(game)
    return {"plant-a-seed": 3, "healing": 2, "quiet-prayer": 3, "wild-growth": 2}


def counts_of(deck) -> dict[str, int]:
    return {e.card.slug: e.count for e in deck.entries.select_related("card")}


def edit_url(deck, query=""):
    return reverse("deck-edit", args=[deck.share_id]) + (f"?{query}" if query else "")


def plus(client, deck, slug, query="", **extra):
    return client.post(edit_url(deck, query), {"card": slug, "op": "add"}, **extra)


# --- builder: new deck -------------------------------------------------------------------------


def test_new_deck_preselects_the_leader_from_the_query_and_shows_colours_and_factions(
    client, alice, game
):
    client.force_login(alice)
    response = client.get(reverse("deck-new") + f"?game={GAME}&leader=kellantra")
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r'value="kellantra" id="leader-kellantra" checked', html)
    assert not re.search(r'value="richard" id="leader-richard" checked', html)
    page = text_of(response)
    assert "Kellantra Colours: ❦ Green Factions: ⚑ Keld" in page
    assert "Gottfried Colours: ☀ Yellow ✹ Red ☠ Black" in page


def test_new_deck_needs_a_login(client, game):
    response = client.get(reverse("deck-new"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_new_deck_without_a_leader_is_refused_with_the_error(client, alice, game):
    client.force_login(alice)
    response = client.post(reverse("deck-new"), {"game": GAME, "name": "Nobody"})
    assert response.status_code == 400
    assert "Choose an expedition leader." in text_of(response)  # the game's word for it
    assert not Deck.objects.filter(owner=alice).exists()


# --- builder: the flow without JavaScript ------------------------------------------------------


def test_builder_flow_without_js_creates_a_draft_then_plus_adds_cards_and_shows_counter(
    client, alice, game
):
    client.force_login(alice)
    response = client.post(
        reverse("deck-new"), {"game": GAME, "leader": "kellantra", "name": "Green wall"}
    )
    deck = Deck.objects.get(owner=alice, name="Green wall")
    assert response.status_code == 302
    assert response["Location"] == edit_url(deck)
    assert (deck.leader.slug, deck.visibility, deck.legal) == ("kellantra", "private", False)

    response = plus(client, deck, "plant-a-seed")
    assert response.status_code == 302  # PRG: back to the builder, at the card
    assert response["Location"] == edit_url(deck) + "#card-plant-a-seed"
    plus(client, deck, "plant-a-seed")
    plus(client, deck, "healing")

    page = text_of(client.get(edit_url(deck)))
    assert "3/10 cards" in page
    assert "Not legal" in page
    assert "The deck needs exactly 10 cards; it has 3." in page
    assert counts_of(deck) == {"plant-a-seed": 2, "healing": 1}


def test_builder_reaches_a_legal_ten_card_deck_by_pressing_plus(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game)
    for slug, n in legal_counts(game).items():
        for _ in range(n):
            plus(client, deck, slug)
    deck.refresh_from_db()
    assert (deck.card_count, deck.legal, deck.problems) == (10, True, [])

    response = client.get(edit_url(deck))
    page = text_of(response)
    assert "10/10 cards ✓ Legal" in page
    assert "No problems" in page
    assert "Not legal" not in page


def test_minus_removes_one_copy_and_the_last_copy_removes_the_card(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game, {"healing": 2})
    client.post(edit_url(deck), {"card": "healing", "op": "remove"})
    assert counts_of(deck) == {"healing": 1}
    client.post(edit_url(deck), {"card": "healing", "op": "remove"})
    assert counts_of(deck) == {}


def test_going_over_the_copy_limit_is_allowed_in_a_draft_and_named_on_the_card(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game, {"healing": 2})
    plus(client, deck, "healing")
    response = client.get(edit_url(deck))
    assert "Healing is uncommon: at most 2 copies, deck has 3" in text_of(response)
    [healing] = [c for c in response.context["cards"] if c.slug == "healing"]
    assert healing.in_deck == 3
    assert healing.deck_problems == ["Healing is uncommon: at most 2 copies, deck has 3"]


def test_plus_keeps_the_list_filters_in_the_redirect(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game)
    response = plus(client, deck, "healing", query="q=heal&all=1")
    assert response["Location"] == edit_url(deck, "q=heal&all=1") + "#card-healing"


def test_plus_with_a_card_of_no_such_slug_is_a_bad_request(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game)
    response = plus(client, deck, "no-such-card")
    assert response.status_code == 400
    assert counts_of(deck) == {}


# --- builder: the card list --------------------------------------------------------------------


def test_builder_lists_the_cards_the_leader_may_use(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game)
    response = client.get(edit_url(deck))
    shown = {c.slug for c in response.context["cards"]}
    assert shown == set(Card.objects.usable_by(leader("kellantra")).values_list("slug", flat=True))
    assert shown == {"healing", "plant-a-seed", "quiet-prayer"}


def test_builder_search_uses_the_card_browser_filters(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game)
    response = client.get(edit_url(deck, "q=heal"))
    assert [c.slug for c in response.context["cards"]] == ["healing"]
    response = client.get(edit_url(deck, "all=1&rarity=rare"))
    assert [c.slug for c in response.context["cards"]] == [
        "blood-pact",
        "hymn-of-engeln",
        "punishment",
    ]


def test_all_cards_toggle_shows_each_unusable_card_with_the_engines_reason(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game)
    response = client.get(edit_url(deck))
    assert "despair" not in {c.slug for c in response.context["cards"]}

    response = client.get(edit_url(deck, "all=1"))
    cards = {c.slug: c for c in response.context["cards"]}
    assert len(cards) == Card.objects.filter(game=game).count()
    assert cards["despair"].unusable == [
        "Despair is black, which Kellantra does not match (matches: green)"
    ]
    assert cards["hymn-of-engeln"].unusable == [
        "Hymn of Engeln is yellow, which Kellantra does not match (matches: green)",
        "Hymn of Engeln belongs to Engeln, which is not a faction of Kellantra",
    ]
    assert cards["plant-a-seed"].unusable == []
    page = text_of(response)
    assert (
        "Kellantra may not use it: Despair is black, which Kellantra does not match "
        "(matches: green)" in page
    )


def test_each_card_shows_the_copy_limit_of_its_rarity(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game)
    response = client.get(edit_url(deck, "all=1"))
    limits = {c.slug: [slot["limit"] for slot in c.slots] for c in response.context["cards"]}
    assert (limits["plant-a-seed"], limits["healing"], limits["punishment"]) == ([3], [2], [1])
    html = response.content.decode()
    for slug, most in (("plant-a-seed", 3), ("healing", 2), ("punishment", 1)):
        controls = html[html.index(f'id="controls-{slug}"') :]
        first_slot = controls[: controls.index("</div>")]
        assert f'<p class="in-deck-label small">max {most}</p>' in first_slot


def one_section(rules) -> legality.Format:
    sections = [{"slug": "main", "name": "Deck"}]
    return legality.Format.from_data({"sections": sections, "rules": rules})


def test_copy_limit_and_deck_size_are_read_from_the_format():
    fmt = one_section(
        [
            {"rule": "deck_size", "min": 8, "max": 12},
            {"rule": "copy_limit", "by": "rarity", "limits": {"rare": 4}, "default": 2},
        ]
    )
    rare, common = legality.CardInfo("r", "R", "rare"), legality.CardInfo("c", "C", "common")
    assert (legality.copy_limit(fmt, rare), legality.copy_limit(fmt, common)) == (4, 2)
    by_name = one_section([{"rule": "copy_limit", "by": "name", "default": 1}])
    assert legality.copy_limit(by_name, rare) == 1
    assert legality.copy_limit(one_section([{"rule": "deck_size", "exactly": 10}]), rare) is None
    assert legality.size_label(fmt) == "8–12"
    assert legality.size_label(one_section([{"rule": "deck_size", "exactly": 40}])) == "40"
    assert legality.size_label(one_section([])) == ""


# --- builder: htmx -----------------------------------------------------------------------------


def test_htmx_plus_returns_the_partials_with_the_updated_counter_not_the_page(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game, {"healing": 1})
    response = client.post(
        edit_url(deck), {"card": "plant-a-seed", "op": "add", "shown": "plant-a-seed"}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and "<header" not in html
    assert "{#" not in html and "#}" not in html
    assert '<div id="deck-panel" hx-swap-oob="innerHTML">' in html
    assert 'id="controls-plant-a-seed"' not in html  # the forms stay: queued clicks keep them
    assert re.search(r'id="count-main-plant-a-seed"[^>]*hx-swap-oob="true"[^>]*>1</output>', html)
    assert 'id="card-problems-plant-a-seed" hx-swap-oob="true"' in html
    page = text_of(response)
    assert "2/10 cards" in page
    assert "The deck needs exactly 10 cards; it has 2." in page
    assert "Plant A Seed: 1 in deck." in page
    assert "HX-Request" in response["Vary"]
    assert counts_of(deck) == {"healing": 1, "plant-a-seed": 1}


def test_builder_page_loads_htmx_and_sends_the_csrf_token_with_htmx_requests(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game)
    html = client.get(edit_url(deck)).content.decode()
    assert '<script src="/static/js/htmx.min.js" defer></script>' in html
    assert re.search(r"""hx-headers='\{"X-CSRFToken": "[A-Za-z0-9]+"\}'""", html)
    assert f'hx-post="{edit_url(deck)}"' in html


# --- builder: public decks must stay legal -----------------------------------------------------


def test_making_an_illegal_deck_public_is_refused_with_the_problems_and_nothing_changes(
    client, alice, game
):
    client.force_login(alice)
    deck = make_deck(alice, game, {"healing": 1})
    before = Deck.objects.values().get(pk=deck.pk)
    response = client.post(
        edit_url(deck),
        {
            "action": "settings",
            "name": "Renamed",
            "description": "New words",
            "leader": "kellantra",
            "visibility": "public",
        },
    )
    assert response.status_code == 400
    page = text_of(response)
    assert "Only a legal deck can be public." in page
    assert "The deck needs exactly 10 cards; it has 1." in page
    assert Deck.objects.values().get(pk=deck.pk) == before


def test_saving_settings_of_a_legal_deck_as_public_works(client, alice, game):
    client.force_login(alice)
    deck = make_deck(alice, game, legal_counts(game))
    response = client.post(
        edit_url(deck),
        {
            "action": "settings",
            "name": "Seeds of Keld",
            "description": "",
            "leader": "kellantra",
            "visibility": "public",
        },
    )
    assert response.status_code == 302
    deck.refresh_from_db()
    assert (deck.name, deck.visibility) == ("Seeds of Keld", "public")
    assert "Deck saved." in text_of(client.get(response["Location"]))


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_plus_that_would_make_a_public_deck_illegal_is_refused_and_changes_nothing(
    client, alice, game, htmx
):
    client.force_login(alice)
    deck = make_deck(alice, game, legal_counts(game), visibility=Visibility.PUBLIC)
    before = (counts_of(deck), Deck.objects.values().get(pk=deck.pk))
    response = plus(client, deck, "plant-a-seed", **(HTMX if htmx else {}))
    assert response.status_code == (200 if htmx else 400)
    page = text_of(response)
    assert "Only a legal deck can be public." in page
    assert "The deck needs exactly 10 cards; it has 11." in page
    assert "Plant A Seed is common: at most 3 copies, deck has 4" in page
    assert "3× Plant A Seed" in page  # the panel shows the stored count, not the one refused
    assert (counts_of(deck), Deck.objects.values().get(pk=deck.pk)) == before


# --- builder: who may edit ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("visibility", "status"),
    [("private", 404), ("unlisted", 403), ("public", 403)],
)
def test_only_the_owner_may_edit(client, alice, bob, game, visibility, status):
    counts = legal_counts(game) if visibility == "public" else {"healing": 1}
    deck = make_deck(alice, game, counts, visibility=visibility)
    client.force_login(bob)
    assert client.get(edit_url(deck)).status_code == status
    assert plus(client, deck, "quiet-prayer").status_code == status
    assert counts_of(deck) == counts


def test_the_builder_needs_a_login(client, alice, game):
    deck = make_deck(alice, game, visibility=Visibility.UNLISTED)
    response = client.get(edit_url(deck))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


# --- deck page ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("viewer", "visibility", "status"),
    [
        ("anonymous", "private", 404),
        ("anonymous", "unlisted", 200),
        ("anonymous", "public", 200),
        ("owner", "private", 200),
        ("owner", "unlisted", 200),
        ("owner", "public", 200),
        ("bob", "private", 404),
        ("bob", "unlisted", 200),
        ("bob", "public", 200),
    ],
)
def test_deck_page_and_export_visibility(client, alice, bob, game, viewer, visibility, status):
    counts = legal_counts(game)
    deck = make_deck(alice, game, counts, visibility=visibility)
    if viewer != "anonymous":
        client.force_login(alice if viewer == "owner" else bob)
    assert client.get(reverse("deck-detail", args=[deck.share_id])).status_code == status
    assert client.get(reverse("deck-export", args=[deck.share_id])).status_code == status


def test_deck_page_shows_leader_cards_verdict_problems_stats_and_export(client, alice, game):
    deck = make_deck(
        alice, game, {"plant-a-seed": 3, "healing": 2, "despair": 1}, visibility="unlisted"
    )
    response = client.get(reverse("deck-detail", args=[deck.share_id]))
    page = text_of(response)
    assert "Expedition Leader: Kellantra Format: Standard 6/10 cards ✗ Not legal ◎ Unlisted" in page
    assert "3× Plant A Seed ❦ 1 Life ❦ Green ● Common" in page
    assert "2× Healing ❦ 2 Life ❦ Green ◆ Uncommon" in page
    assert "⚠ The deck needs exactly 10 cards; it has 6." in page
    assert (
        "⚠ Despair is black, which Kellantra does not match (matches: green) — card: Despair"
        in page
    )
    [section] = response.context["sections"]
    stats = {group["key"]: group["rows"] for group in section["stats"]}
    assert [(r["item"].slug, r["value"]) for r in stats["cost"]] == [("green", 7), ("black", 2)]
    assert [(r["item"].slug, r["value"]) for r in stats["rarities"]] == [
        ("common", 4),
        ("uncommon", 2),
    ]
    assert "Life 7" in page and "Death 2" in page
    assert "<textarea" in response.content.decode()
    assert "Kellantra 1 Despair 2 Healing 3 Plant A Seed" in page
    # no Edit link for a visitor, a log-in link instead of the copy button
    assert reverse("deck-edit", args=[deck.share_id]) not in response.content.decode()
    assert "Log in to copy this deck" in page


def test_deck_page_has_an_edit_link_and_copy_button_for_the_owner(client, alice, game):
    deck = make_deck(alice, game)
    client.force_login(alice)
    html = client.get(reverse("deck-detail", args=[deck.share_id])).content.decode()
    assert f'href="{edit_url(deck)}"' in html
    assert f'action="{reverse("deck-copy", args=[deck.share_id])}"' in html


def test_deck_page_opengraph_names_the_deck_leader_count_and_verdict(client, alice, game):
    deck = make_deck(alice, game, legal_counts(game), visibility="public", name="Seeds of Keld")
    response = client.get(reverse("deck-detail", args=[deck.share_id]))
    assert meta(response, "property", "og:title") == "Seeds of Keld"
    description = meta(response, "property", "og:description")
    assert "Kellantra" in description and "10/10 cards" in description
    assert "Legal" in description
    assert meta(response, "property", "og:url") == (
        f"http://testserver{reverse('deck-detail', args=[deck.share_id])}"
    )
    assert meta(response, "name", "robots") is None  # public: indexable


def test_export_text_equals_the_apis_and_is_a_text_download(client, alice, game):
    deck = make_deck(alice, game, legal_counts(game), visibility="unlisted")
    response = client.get(reverse("deck-export", args=[deck.share_id]))
    api = client.get(f"/api/decks/{deck.share_id}/export/?format=text")
    assert api.status_code == 200
    assert response.content == api.content
    assert response.content.decode() == (
        "# Card of Gods — Standard (game: card-of-gods; format: standard)\n"
        "Kellantra\n2 Healing\n3 Plant A Seed\n3 Quiet Prayer\n2 Wild Growth\n"
    )
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="seeds.txt"'
    page = client.get(reverse("deck-detail", args=[deck.share_id])).content.decode()
    assert f'readonly rows="7" spellcheck="false">{api.content.decode()}</textarea>' in page


def test_copy_creates_a_private_deck_owned_by_the_copier_and_opens_its_builder(
    client, alice, bob, game
):
    deck = make_deck(alice, game, legal_counts(game), visibility="public")
    client.force_login(bob)
    response = client.post(reverse("deck-copy", args=[deck.share_id]))
    copy = Deck.objects.get(owner=bob)
    assert response.status_code == 302
    assert response["Location"] == edit_url(copy)
    assert (copy.visibility, copy.name, copy.leader_id) == (
        "private",
        "Copy of Seeds",
        deck.leader_id,
    )
    assert counts_of(copy) == counts_of(deck)
    assert copy.share_id != deck.share_id


def test_copy_of_a_deck_one_cannot_see_is_404_and_anonymous_must_log_in(client, alice, bob, game):
    deck = make_deck(alice, game)
    response = client.post(reverse("deck-copy", args=[deck.share_id]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    client.force_login(bob)
    assert client.post(reverse("deck-copy", args=[deck.share_id])).status_code == 404
    assert client.get(reverse("deck-copy", args=[deck.share_id])).status_code == 405
    assert not Deck.objects.filter(owner=bob).exists()


def _queries(client, url, method="get", **kwargs) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(url, **kwargs)
    assert response.status_code == 200
    return len(queries)


def _deck_page_queries(client, deck) -> int:
    return _queries(client, reverse("deck-detail", args=[deck.share_id]))


def sprouts(game, count=60):
    rarity = game.rarities.get(slug="common")
    card_services.save_cards(
        game=game,
        writes=[
            card_services.CardWrite(
                {"name": f"Sprout {i}", "rarity": rarity, "cost": {"life": 1, "death": 1}}, ["Keld"]
            )
            for i in range(count)
        ],
    )


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_deck_page_runs_the_same_few_queries_for_2_and_60_different_cards(client, alice, game):
    sprouts(game)
    small = make_deck(alice, game, {"sprout-0": 1, "sprout-1": 1}, visibility="unlisted")
    big = make_deck(
        alice, game, {f"sprout-{i}": 1 for i in range(60)}, visibility="unlisted", name="Big"
    )
    client.get(small.get_absolute_url())  # the caches are warm in steady state
    anonymous = (_deck_page_queries(client, small), _deck_page_queries(client, big))
    client.force_login(alice)
    owner = (_deck_page_queries(client, small), _deck_page_queries(client, big))
    # the deck with its owner, game (its vocabulary and rules links, and the header's games,
    # from the cache), format and leader; its entries with their cards and the ids of their
    # colours and keywords; its stored verdicts (one query). Signing in adds the session and
    # the user.
    assert anonymous == (3, 3)
    assert owner == (5, 5)
    assert "Sprout 59" in text_of(client.get(big.get_absolute_url()))


def test_builder_runs_five_queries_for_an_empty_deck_and_a_60_card_one(client, alice, game):
    sprouts(game)
    small = make_deck(alice, game, {"sprout-0": 1})
    big = make_deck(alice, game, {f"sprout-{i}": 1 for i in range(60)}, name="Big")
    client.force_login(alice)
    client.get(edit_url(small))
    counts = {deck.name: _queries(client, edit_url(deck)) for deck in (small, big)}
    shown = {deck.name: _queries(client, edit_url(deck, "all=1")) for deck in (small, big)}
    # the session, the user, the deck (with its game: the vocabulary, the leader and the
    # header's games come from the cache), the entries with their cards, the page of cards
    # listed with their capped count
    assert counts == {"Seeds": 5, "Big": 5}
    assert shown == {"Seeds": 5, "Big": 5}


def test_builder_plus_reads_the_same_few_rows_for_a_small_and_a_60_card_deck(client, alice, game):
    sprouts(game)
    small = make_deck(alice, game, {"sprout-0": 1})
    big = make_deck(alice, game, {f"sprout-{i}": 1 for i in range(60)}, name="Big")
    client.force_login(alice)
    client.get(edit_url(small))
    counts = {}
    for deck in (small, big):
        counts[deck.name] = _queries(
            client, edit_url(deck), "post", data={"card": "sprout-0", "op": "add"}, **HTMX
        )
    assert counts_of(big)["sprout-0"] == 2
    # the session, the user; in one transaction (2 statements under the test's own): the deck
    # read and locked in one statement, its entries with their cards (the card named is among
    # them; the engine's data from the cache), then 3 writes (the deck, the one entry changed,
    # the history's version) and its verdicts under each version (one statement); the panel
    # shows the entries read (the card's row is among them)
    assert counts == {"Seeds": 10, "Big": 10}


# --- lists -------------------------------------------------------------------------------------


def test_deck_lists_run_the_same_few_queries_for_2_and_20_decks(client, alice, bob, game):
    def counts():
        client.logout()
        public = _queries(client, reverse("deck-list"))
        client.force_login(alice)
        return public, _queries(client, reverse("deck-list")), _queries(client, reverse("my-decks"))

    legal = legal_counts(game)
    for i in range(2):
        make_deck(alice, game, legal, visibility=Visibility.PUBLIC, name=f"Mine {i}")
    counts()  # the caches (the game's vocabulary) are warm in steady state
    few = counts()
    for i in range(18):
        make_deck(alice if i % 2 else bob, game, legal, Visibility.PUBLIC, name=f"More {i}")
    many = counts()
    # public decks: the games (the form's and the header's), the count, the page of decks with
    # their owners, games, formats and leaders, and their verdicts, the leaders' names for the
    # box; signed in, the session and the user too. My decks: the session, the user, the
    # count, the page, its verdicts, the header's games.
    assert few == many == (5, 7, 6)


def test_my_decks_lists_only_my_decks_with_leader_count_verdict_and_visibility(
    client, alice, bob, game
):
    make_deck(alice, game, legal_counts(game), visibility="public", name="Mine legal")
    mine = make_deck(alice, game, {"healing": 1}, name="Mine draft")
    make_deck(bob, game, name="Not mine")
    client.force_login(alice)
    response = client.get(reverse("my-decks"))
    page = text_of(response)
    assert [d.name for d in response.context["decks"]] == ["Mine draft", "Mine legal"]
    assert "Mine draft Expedition Leader: Kellantra 1/10 cards ✗ Not legal ○ Private" in page
    assert "Mine legal Expedition Leader: Kellantra 10/10 cards ✓ Legal ◉ Public" in page
    assert "Not mine" not in page
    assert f'href="{edit_url(mine)}"' in response.content.decode()
    client.logout()
    assert client.get(reverse("my-decks")).status_code == 302


def test_public_deck_list_shows_only_public_decks_and_filters_by_leader_and_card(
    client, alice, bob, game
):
    make_deck(alice, game, legal_counts(game), visibility="public", name="Keld legal")
    make_deck(alice, game, {"healing": 1}, visibility="unlisted", name="Unlisted one")
    make_deck(bob, game, {"healing": 1}, name="Private one")
    richard = make_deck(bob, game, {"punishment": 1}, name="Richard deck", lead="richard")
    Deck.objects.filter(pk=richard.pk).update(visibility="public")  # stayed public, now illegal

    def names(query=""):
        response = client.get(reverse("deck-list") + query)
        assert response.status_code == 200
        return [d.name for d in response.context["decks"]]

    assert sorted(names()) == ["Keld legal", "Richard deck"]
    assert names("?leader=kellantra") == ["Keld legal"]
    assert names("?card=punishment") == ["Richard deck"]
    assert names("?card=Wild+Growth") == ["Keld legal"]
    assert names("?leader=kellantra&card=punishment") == []
    response = client.get(reverse("deck-list") + "?card=no-such-card")
    assert response.status_code == 400
    assert "Contains the card: Unknown card 'no-such-card'." in text_of(response)


def test_public_deck_list_is_paginated(client, alice, game):
    counts = legal_counts(game)
    for i in range(21):
        make_deck(alice, game, counts, visibility="public", name=f"Deck {i:02d}")
    first = client.get(reverse("deck-list"))
    second = client.get(reverse("deck-list") + "?page=2")
    assert len(first.context["decks"]) == 20
    assert len(second.context["decks"]) == 1
    assert 'href="?page=2"' in first.content.decode()


# --- leader page, titles and OpenGraph ---------------------------------------------------------


def test_leader_page_has_a_new_deck_button_for_that_leader(client, game):
    html = client.get(reverse("leader-detail", args=[GAME, "kellantra"])).content.decode()
    href = f"{reverse('deck-new')}?game={GAME}&amp;leader=kellantra"
    assert f'<a class="button" href="{href}">New deck with Kellantra</a>' in html


@pytest.mark.parametrize(
    ("name", "signed_in", "title"),
    [
        ("deck-list", False, "Public decks"),
        ("my-decks", True, "My decks"),
        ("deck-new", True, "New deck"),
        ("deck-detail", False, "Seeds"),
        ("deck-edit", True, "Edit “Seeds”"),
    ],
)
def test_deck_pages_have_title_description_and_opengraph(
    client, alice, game, name, signed_in, title
):
    deck = make_deck(alice, game, visibility="unlisted")
    if signed_in:
        client.force_login(alice)
    args = [deck.share_id] if name in {"deck-detail", "deck-edit"} else []
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r"<title>([^<]+)</title>", html).group(1).startswith(title)
    assert "{#" not in html and "#}" not in html  # no template comment leaks into the page
    assert len(meta(response, "name", "description")) > 30
    assert meta(response, "property", "og:title")
    assert meta(response, "property", "og:description")
