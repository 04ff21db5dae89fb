"""The server-rendered pages: home, game, card browser, card, leaders.

Result sets are read from the response context (`cards`, `leaders`) and checked against the
HTML where what the visitor sees matters (labels, notices, links, meta tags).
"""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services
from cards.models import Card, Leader
from cards.views import CARDS_PER_PAGE, LEADERS_PER_PAGE, leaders_able_to_use
from tests.html import meta, text_of

GAME = "card-of-gods"


def names(response):
    return [card.name for card in response.context["cards"]]


def browse(client, query=""):
    return client.get(f"/games/{GAME}/cards/?{query}")


def make_cards(game, prefix, count, start=0):
    """`count` cards named "<prefix> NN", green with a faction and a plain keyword each."""
    rarities = list(game.rarities.all())
    for i in range(start, start + count):
        services.save_card(
            game=game,
            fields={
                "name": f"{prefix} {i:02d}",
                "rarity": rarities[i % len(rarities)],
                "cost": {"life": 1 + i % 3, **({"creation": 1} if i % 2 else {})},
                "text": "Bulk text.",
            },
            keywords=["Keld", f"Bulkword{i % 4}"],
        )


# --- every page: 200, title, description, OpenGraph -----------------------------------------

PAGES = [
    ("home", {}, "Deckbuilder"),
    ("game-detail", {"game": GAME}, "Card of Gods"),
    ("card-list", {"game": GAME}, "God Cards of Card of Gods"),
    ("card-detail", {"game": GAME, "slug": "plant-a-seed"}, "Plant A Seed"),
    ("leader-list", {"game": GAME}, "Expedition Leaders of Card of Gods"),
    ("leader-detail", {"game": GAME, "slug": "kellantra"}, "Kellantra"),
]


@pytest.mark.parametrize(("name", "kwargs", "title"), PAGES, ids=[p[0] for p in PAGES])
def test_page_renders_with_title_description_and_opengraph(client, game, name, kwargs, title):
    url = reverse(name, kwargs=kwargs)
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    page_title = re.search(r"<title>([^<]+)</title>", html).group(1)
    assert title in page_title
    assert len(meta(response, "name", "description")) > 30
    assert title in meta(response, "property", "og:title")
    assert meta(response, "property", "og:description")
    assert meta(response, "property", "og:site_name") == "Deckbuilder"
    assert meta(response, "property", "og:type") in {"website", "article"}
    assert meta(response, "property", "og:url") == f"http://testserver{url}"
    assert '<html lang="en">' in html
    assert 'href="#main"' in html and 'id="main"' in html


def test_layout_links_api_docs_and_each_games_cards_and_leaders(client, game):
    html = client.get(reverse("home")).content.decode()
    assert 'href="/api/docs/"' in html
    assert f'href="{reverse("card-list", kwargs={"game": GAME})}"' in html
    assert f'href="{reverse("leader-list", kwargs={"game": GAME})}"' in html


def test_admin_link_only_for_staff(client, game, alice, staff):
    admin = f'href="{reverse("admin:index")}"'
    assert admin not in client.get(reverse("home")).content.decode()
    client.force_login(alice)
    assert admin not in client.get(reverse("home")).content.decode()
    client.force_login(staff)
    assert admin in client.get(reverse("home")).content.decode()


def test_home_shows_each_game_with_card_and_leader_counts(client, game):
    text = text_of(client.get(reverse("home")))
    assert "Card of Gods" in text
    assert "9 god cards" in text  # the game's own words, from its definition
    assert "3 expedition leaders" in text
    for other in ("Force of Will", "Berserk. Heroes", "Of Gods and Men", "Irdya"):
        assert other in text
    assert "0 leaders" not in text  # Of Gods and Men has none: no leader count at all
    assert "deckbuilder and rules reference" in text


def test_og_image_is_the_cards_image_else_its_drawn_picture(client, game):
    url = reverse("card-detail", kwargs={"game": GAME, "slug": "healing"})
    drawn = reverse("card-preview", kwargs={"game": GAME, "slug": "healing"})
    assert meta(client.get(url), "property", "og:image") == f"http://testserver{drawn}"
    healing = Card.objects.get(game=game, slug="healing")
    healing.image = "https://img.example.com/healing.png"
    healing.save()
    assert meta(client.get(url), "property", "og:image") == "https://img.example.com/healing.png"


# --- 404 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("game-detail", {"game": "no-such-game"}),
        ("card-list", {"game": "no-such-game"}),
        ("leader-list", {"game": "no-such-game"}),
        ("card-detail", {"game": "no-such-game", "slug": "plant-a-seed"}),
        ("card-detail", {"game": GAME, "slug": "no-such-card"}),
        ("leader-detail", {"game": GAME, "slug": "no-such-leader"}),
        ("leader-detail", {"game": "no-such-game", "slug": "kellantra"}),
    ],
)
def test_unknown_slug_is_404(client, game, name, kwargs):
    response = client.get(reverse(name, kwargs=kwargs))
    assert response.status_code == 404
    assert b"Page not found" in response.content


def test_card_and_leader_of_another_game_are_404(client, game):
    services.save_game(definition={"slug": "other", "name": "Other Game"})
    assert client.get("/games/other/cards/plant-a-seed/").status_code == 404
    assert client.get("/games/other/leaders/kellantra/").status_code == 404


# --- the card browser's filters --------------------------------------------------------------


def test_card_list_without_filters_lists_every_card_by_name(client, game):
    response = browse(client)
    assert response.status_code == 200
    assert names(response) == sorted(Card.objects.filter(game=game).values_list("name", flat=True))


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("q=seed", {"Plant A Seed"}),  # name
        ("q=sapling", {"Plant A Seed"}),  # effect text
        ("q=ATTACK", {"Despair", "Lightning", "Punishment"}),  # any case
        ("colour=green", {"Plant A Seed", "Healing"}),
        ("colour=colourless", {"Quiet Prayer"}),
        ("colour=green&colour=colourless", {"Plant A Seed", "Healing", "Quiet Prayer"}),
        ("colour=black", {"Despair", "Blood Pact"}),
        ("rarity=rare", {"Punishment", "Hymn of Engeln", "Blood Pact"}),
        (
            "rarity=rare&rarity=uncommon",
            {"Punishment", "Hymn of Engeln", "Blood Pact", "Healing", "Fiery Earth"},
        ),
        ("faction=keld", {"Plant A Seed"}),
        ("faction=Engeln", {"Hymn of Engeln"}),  # a faction by name
        ("keyword=plant", {"Plant A Seed"}),
        ("leader=kellantra", {"Plant A Seed", "Healing", "Quiet Prayer"}),
        ("leader=richard", {"Punishment", "Hymn of Engeln", "Quiet Prayer"}),
        ("cost_min=2&cost_max=2", {"Healing", "Despair", "Fiery Earth", "Punishment"}),
        ("cost_min=3", {"Blood Pact"}),
        ("cost_max=0", {"Quiet Prayer"}),
        ("colour=yellow&rarity=rare&leader=gottfried", {"Punishment", "Blood Pact"}),
    ],
)
def test_card_list_filter_selects_exactly_the_matching_cards(client, game, query, expected):
    response = browse(client, query)
    assert response.status_code == 200
    assert set(names(response)) == expected


def test_card_list_filters_are_echoed_in_the_form(client, game):
    html = browse(client, "q=seed&colour=green&leader=kellantra&cost_min=1").content.decode()
    assert 'name="q" id="id_q" value="seed"' in html
    assert re.search(r'name="colour" value="green" id="[^"]+" checked', html)
    assert not re.search(r'name="colour" value="red" id="[^"]+" checked', html)
    assert 'name="leader" id="id_leader" list="leader-list" value="Kellantra"' in html
    assert 'name="cost_min" id="id_cost_min" min="0" step="1" inputmode="numeric" value="1"' in html


@pytest.mark.parametrize(
    ("sort", "first", "last"),
    [
        ("name", "Blood Pact", "Quiet Prayer"),
        ("-name", "Quiet Prayer", "Blood Pact"),
        ("cost", "Quiet Prayer", "Blood Pact"),
        ("-cost", "Blood Pact", "Quiet Prayer"),
        ("-rarity", "Blood Pact", "Quiet Prayer"),
    ],
)
def test_card_list_sort_orders_the_results(client, game, sort, first, last):
    found = names(browse(client, f"sort={sort}"))
    assert (found[0], found[-1]) == (first, last)
    assert len(found) == 9


def test_card_list_paginates_24_a_page_and_page_links_keep_the_filters(client, game):
    make_cards(game, "Bulk", 30)  # green: 30 bulk + Plant A Seed + Healing = 32 green cards
    first = browse(client, "colour=green&sort=-name")
    assert len(first.context["cards"]) == CARDS_PER_PAGE
    assert first.context["page"].paginator.count == 32
    html = first.content.decode().replace("&amp;", "&")
    assert re.search(r'href="\?colour=green&sort=-name&page=2"', html)

    second = browse(client, "colour=green&sort=-name&page=2")
    assert second.status_code == 200
    assert len(second.context["cards"]) == 32 - CARDS_PER_PAGE
    assert set(names(first)).isdisjoint(names(second))
    assert names(second)[-1] == "Bulk 00"  # still sorted Z–A
    assert "Quiet Prayer" not in names(first) + names(second)  # still only green


def test_card_list_out_of_range_page_shows_the_last_page_not_an_error(client, game):
    response = browse(client, "page=99")
    assert response.status_code == 200
    assert len(response.context["cards"]) == 9


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("colour=purple", "colour"),
        ("rarity=mythic", "rarity"),
        ("faction=plant", "faction"),  # a keyword, but not a faction
        ("faction=nowhere", "faction"),
        ("keyword=nonesuch", "keyword"),
        ("leader=nobody", "leader"),
        ("cost_min=abc", "cost_min"),
        ("cost_max=-1", "cost_max"),
        ("sort=bogus", "sort"),
        ("q=heal&colour=green&cost_min=1.5x", "cost_min"),
    ],
)
def test_card_list_bad_filter_value_is_400_with_the_error_and_no_results(
    client, game, query, field
):
    response = browse(client, query)
    assert response.status_code == 400
    assert response.context["cards"] == []
    assert field in response.context["form"].errors
    html = response.content.decode()
    assert 'role="alert"' in html
    assert f'href="#id_{field}"' in html  # the summary points at the field
    assert "No results" in html


# --- card page ------------------------------------------------------------------------------


def leaders_on_card_page(client, slug):
    response = client.get(reverse("card-detail", kwargs={"game": GAME, "slug": slug}))
    assert response.status_code == 200
    listed = re.search(r'<ul class="leader-mini">(.*?)</ul>', response.content.decode(), re.S)
    return response, set(re.findall(r'<a href="[^"]+">([^<]+)</a>', listed[1] if listed else ""))


def test_card_page_of_plant_a_seed_lists_kellantra_not_richard(client, game):
    response, leaders = leaders_on_card_page(client, "plant-a-seed")
    assert leaders == {"Kellantra"}
    html = response.content.decode()
    assert reverse("leader-detail", kwargs={"game": GAME, "slug": "kellantra"}) in html
    assert "Richard" not in html
    assert "Gottfried" not in html


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("quiet-prayer", {"Richard", "Gottfried", "Kellantra"}),  # colourless: everyone
        ("blood-pact", {"Gottfried"}),  # needs all three colours
        ("hymn-of-engeln", {"Richard"}),  # Gottfried is yellow but not Engeln
        ("fiery-earth", {"Gottfried"}),
        ("lightning", {"Gottfried"}),
    ],
)
def test_card_page_lists_the_leaders_whose_colours_and_factions_match(client, game, slug, expected):
    assert leaders_on_card_page(client, slug)[1] == expected


def test_leaders_able_to_use_agrees_with_usable_by_for_every_card_and_leader(game):
    services.save_card(
        game=game,
        fields={"name": "Two Factions", "rarity": game.rarities.first(), "cost": {"creation": 1}},
        keywords=["Engeln", "Kriegmark"],
    )
    leaders = list(
        Leader.objects.filter(game=game).prefetch_related("colours", "keywords", "loyalties")
    )
    fmt = game.default_format().engine()
    for card in Card.objects.filter(game=game).for_listing():
        able = {leader.pk for leader in leaders_able_to_use(card, leaders, fmt)}
        usable = {
            leader.pk for leader in leaders if Card.objects.usable_by(leader).filter(pk=card.pk)
        }
        assert able == usable, card.name


def test_card_page_shows_every_field(client, game):
    card = Card.objects.get(slug="lightning")
    card.flavour = "Thunder answers the faithful."
    card.effect_source = "Sky"
    card.save()
    response = client.get(card.get_absolute_url())
    text = text_of(response)
    assert "Lightning" in text
    assert "✹ 1 Destruction" in text  # cost: symbol, amount, the game's domain name
    assert "✹ Red" in text  # colour: symbol + name
    assert "● Common" in text  # rarity: symbol + name
    assert "Beginning of enemy activation." in text  # condition for playing
    assert "Make an Attack with a bolt." in text  # effect
    assert "Thunder answers the faithful." in text  # flavour
    assert "Sky" in text  # effect source
    assert "Yes, makes an Attack" in text


def test_card_page_shows_a_multi_domain_cost_and_marks_factions(client, game):
    text = text_of(client.get(reverse("card-detail", kwargs={"game": GAME, "slug": "fiery-earth"})))
    assert "☀ 1 Creation" in text and "✹ 1 Destruction" in text
    html = client.get(
        reverse("card-detail", kwargs={"game": GAME, "slug": "plant-a-seed"})
    ).content.decode()
    assert re.search(r'class="keyword faction">.*?Keld', html)
    assert re.search(r'class="keyword">Plant', html)


# --- leaders --------------------------------------------------------------------------------


def test_leader_list_shows_colours_with_symbol_and_name_and_factions(client, game):
    response = client.get(reverse("leader-list", kwargs={"game": GAME}))
    text = text_of(response)
    assert [leader.name for leader in response.context["leaders"]] == [
        "Gottfried",
        "Kellantra",
        "Richard",
    ]
    assert "❦ Green" in text and "☀ Yellow" in text and "☠ Black" in text
    assert "Keld" in text and "Kriegmark" in text and "Engeln" in text
    assert "Druid" not in text  # keywords that are not factions stay on the leader's page


def captains(game, count):
    services.save_leaders(
        game=game,
        writes=[
            services.LeaderWrite({"name": f"Captain {i:03d}"}, [game.colours.first()], ["Keld"])
            for i in range(count)
        ],
    )


def test_leader_list_shows_48_leaders_a_page_with_page_links(client, game):
    captains(game, 100)  # 103 leaders: 48, 48, 7
    url = reverse("leader-list", kwargs={"game": GAME})
    first = client.get(url)
    names = [leader.name for leader in first.context["leaders"]]
    assert len(names) == LEADERS_PER_PAGE and names == sorted(names)
    text = text_of(first)
    assert "103 expedition leaders, 1–48 shown" in text
    html = first.content.decode()
    assert 'href="?page=2" rel="next"' in html and 'href="?page=3"' in html
    last = client.get(url + "?page=3")
    assert [leader.name for leader in last.context["leaders"]][-1] == "Richard"
    assert len(last.context["leaders"]) == 103 - 2 * LEADERS_PER_PAGE
    assert '<meta name="robots" content="noindex, follow">' in last.content.decode()


def test_leader_list_finds_leaders_by_a_part_of_their_name_in_any_case(client, game):
    captains(game, 60)
    url = reverse("leader-list", kwargs={"game": GAME})
    found = client.get(url, {"q": "TAIN 05"})
    assert [leader.name for leader in found.context["leaders"]] == [
        f"Captain 05{i}" for i in range(10)
    ]
    assert "10 expedition leaders named “TAIN 05”" in text_of(found)
    assert 'value="TAIN 05"' in found.content.decode()
    nobody = client.get(url, {"q": "zzz"})
    assert nobody.status_code == 200 and nobody.context["leaders"] == []
    assert "No expedition leader named “zzz”" in text_of(nobody)
    assert "Show all expedition leaders" in text_of(nobody)
    too_long = client.get(url, {"q": "x" * 201})
    assert too_long.status_code == 400 and too_long.context["leaders"] == []
    assert 'aria-invalid="true"' in too_long.content.decode()


def test_leader_page_of_kellantra_lists_plant_a_seed_and_no_red_card(client, game):
    response = client.get(reverse("leader-detail", kwargs={"game": GAME, "slug": "kellantra"}))
    found = names(response)
    assert "Plant A Seed" in found
    assert "Lightning" not in found and "Fiery Earth" not in found
    assert set(found) == {"Plant A Seed", "Healing", "Quiet Prayer"}
    text = text_of(response)
    assert "3 god cards Kellantra may use" in text
    assert "❦ Green" in text
    assert "Druid" in text


def test_leader_page_paginates_the_usable_cards(client, game):
    make_cards(game, "Bulk", 30)  # odd ones cost creation too, so Kellantra gets the 15 even
    url = reverse("leader-detail", kwargs={"game": GAME, "slug": "kellantra"})
    first = client.get(url)
    assert first.context["page"].paginator.count == 3 + 15
    make_cards(game, "More", 20, start=100)  # even: 10 more -> 28, two pages
    first = client.get(url)
    assert len(first.context["cards"]) == CARDS_PER_PAGE
    assert len(client.get(url + "?page=2").context["cards"]) == 28 - CARDS_PER_PAGE


# --- sample notice, colour labels ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("game-detail", {"game": GAME}),
        ("card-list", {"game": GAME}),
        ("card-detail", {"game": GAME, "slug": "healing"}),
        ("leader-list", {"game": GAME}),
        ("leader-detail", {"game": GAME, "slug": "richard"}),
    ],
)
def test_sample_pool_notice_shows_only_for_sample_games(client, game, name, kwargs):
    url = reverse(name, kwargs=kwargs)
    assert "not the official card list" in text_of(client.get(url))
    game.is_sample = False
    game.save()
    assert "not the official card list" not in text_of(client.get(url))


def test_colour_labels_have_symbol_and_name_not_only_colour(client, game):
    response = browse(client)
    html = response.content.decode()
    text = text_of(response)
    for label in ("☀ Yellow", "✹ Red", "❦ Green", "☠ Black", "◇ Colourless"):
        assert label in text
    # every colour badge (the filter form's) and every colour of a card (the list view's), holds
    # a symbol and a name
    badges = re.findall(
        r'<span class="badge colour[^"]*"[^>]*>'
        r'<span aria-hidden="true">([^<]+)</span> ([^<]+)</span>',
        html,
    )
    assert len(badges) == html.count('class="badge colour') == 5
    listed = browse(client, "view=list").content.decode()
    marks = re.findall(
        r'<span class="colour-mark[^"]*"[^>]*>'
        r'<span aria-hidden="true">([^<]+)</span> ([^<]+)</span>',
        listed,
    )
    assert len(marks) == listed.count('class="colour-mark') > 9
    for symbol, name in badges + marks:
        assert symbol.strip() and re.fullmatch(r"[A-Z][a-z]+", name), (symbol, name)
    quiet_prayer = reverse("card-detail", kwargs={"game": GAME, "slug": "quiet-prayer"})
    quiet = text_of(client.get(quiet_prayer))
    assert "◇ Colourless" in quiet


# --- queries --------------------------------------------------------------------------------
# Counted in steady state: the first request after a change reads the game's vocabulary again
# (cards.vocabulary), the next ones take it, and the header's games, from the cache.


def count_queries(client, url):
    """(number of SQL queries, the response) of one GET."""
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries), response


def steady_queries(client, url):
    """count_queries of a second GET: the first one fills the caches after a change."""
    client.get(url)
    return count_queries(client, url)


def everyone(game):
    return services.save_leader(
        game=game, fields={"name": "Everyone"}, colours=list(game.colours.all()), keywords=["Keld"]
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # the game (with the games' version), the page of cards with its capped count and the
        # ids of their colours and keywords (a word search on PostgreSQL: counted first, +1)
        ("", 2),
        ("q=bulk", 2),
        # + the leader named (its colours, factions and loyalty come from the vocabulary)
        ("leader=everyone", 3),
        # + the faction and the keyword named
        (
            "q=bulk&colour=green&colour=colourless&rarity=common&rarity=rare&rarity=uncommon"
            "&faction=keld&keyword=Keld&leader=everyone&cost_min=0&cost_max=9&sort=-cost",
            5,
        ),
    ],
    ids=["all", "search", "leader", "every-filter"],
)
@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_card_list_takes_the_same_few_queries_for_2_cards_as_for_30(client, game, query, expected):
    everyone(game)
    url = f"/games/{GAME}/cards/?{query}"
    make_cards(game, "Bulk", 2)
    with_two, response = steady_queries(client, url)
    if "q=bulk" in query:
        assert len(response.context["cards"]) == 2
    make_cards(game, "Bulk", 28, start=2)
    with_thirty, response = steady_queries(client, url)
    if query in ("", "q=bulk"):
        assert response.context["page"].paginator.count == (30 if query else 30 + 9)
    assert len(response.context["cards"]) == CARDS_PER_PAGE
    counted_apart = "q=" in query and connection.vendor == "postgresql"
    assert with_two == with_thirty == expected + counted_apart


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_card_list_cards_show_their_colours_keywords_and_rarity_from_the_cache(client, game):
    make_cards(game, "Bulk", 3)
    client.get(f"/games/{GAME}/cards/?q=bulk&view=text")  # the view that shows keywords
    _, response = count_queries(client, f"/games/{GAME}/cards/?q=bulk&view=text")
    for card in response.context["cards"]:
        stored = Card.objects.for_listing().get(pk=card.pk)
        assert card.info() == stored.info()
        assert [c.name for c in card.colours.all()] == [c.name for c in stored.colours.all()]
        assert [k.name for k in card.keywords.all()] == [k.name for k in stored.keywords.all()]
    html = response.content.decode()
    assert re.search(r'class="keyword">Bulkword1<', html)
    assert "❦ Green" in text_of(response)


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_leader_page_takes_two_queries_for_few_or_many_usable_cards(client, game):
    url = reverse("leader-detail", kwargs={"game": GAME, "slug": "kellantra"})
    before, _ = steady_queries(client, url)
    make_cards(game, "Bulk", 60)
    after, response = steady_queries(client, url)
    assert len(response.context["cards"]) == CARDS_PER_PAGE
    # the game; the leader, its colours, factions and loyalty come from the vocabulary; the
    # page of cards with its capped count
    assert before == after == 2


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_card_page_takes_five_queries_for_few_or_many_leaders(client, game):
    url = reverse("card-detail", kwargs={"game": GAME, "slug": "quiet-prayer"})
    before, _ = steady_queries(client, url)
    for i in range(10):
        services.save_leader(
            game=game,
            fields={"name": f"Extra {i}"},
            colours=list(game.colours.all()),
            keywords=["Keld"],
        )
    after, response = steady_queries(client, url)
    assert len(response.context["leaders"]) == 13
    # the game (its leaders and glossary from the vocabulary), the card with the ids of its
    # colours and keywords, its rulings, the rules sections naming it, the public decks holding
    # it with their number
    assert before == after == 5


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_card_page_with_rulings_takes_one_more_query_for_the_rules_links(client, sample_rules):
    ruled = sample_rules.cards.filter(rulings__isnull=False).first()
    _, response = steady_queries(client, ruled.get_absolute_url())
    assert response.context["rulings"] and response.context["glossary"].terms
    assert len(response.context["concerns"]) >= 2  # sorted without a query each
    assert count_queries(client, ruled.get_absolute_url())[0] == 6


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_leader_list_takes_one_query_for_3_or_200_leaders(client, game):
    url = reverse("leader-list", kwargs={"game": GAME})
    three, _ = steady_queries(client, url)
    captains(game, 197)
    many, response = steady_queries(client, url)
    assert len(response.context["leaders"]) == LEADERS_PER_PAGE
    assert three == many == 1  # the game: the leaders are in its cached vocabulary
