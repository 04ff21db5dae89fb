"""The rules reference pages: contents, sections with permalinks, search, glossary A–Z, the
printable page, glossary terms in card text, and the rules and rulings of a card's page.

Every test here loads the sample rules of Card of Gods (the `sample_rules` fixture).
"""

import re
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import strip_tags

from cards import rulebook
from cards.models import Card, GlossaryTerm, RuleSection, section_href
from tests.html import html_of, ids_in, meta, text_of

GAME = "card-of-gods"
CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "site.css"

pytestmark = pytest.mark.usefixtures("sample_rules")


def url(name, **kwargs):
    return reverse(name, kwargs={"game": GAME, **kwargs})


def count_queries(client, path):
    client.get(path)  # warm up anything cached once per process
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path)
    assert response.status_code == 200
    return len(ctx.captured_queries), response


def section(number) -> RuleSection:
    return RuleSection.objects.get(game__slug=GAME, number=number)


# --- every page: 200, title, description, OpenGraph -------------------------------------------

PAGES = [
    ("rule-index", {}, "Rules of Card of Gods"),
    ("rule-section", {"number": "5"}, "5 Making a deck"),
    ("rule-section", {"number": "5.5"}, "5.5 Colour matching"),
    ("rule-glossary", {}, "Glossary"),
    ("rule-print", {}, "Rules of Card of Gods"),
    ("rule-search", {}, "Search the rules of Card of Gods"),
]


@pytest.mark.parametrize(("name", "kwargs", "title"), PAGES, ids=[p[0] + str(p[1]) for p in PAGES])
def test_rules_pages_have_title_description_and_opengraph(client, name, kwargs, title):
    path = url(name, **kwargs)
    response = client.get(path)
    assert response.status_code == 200
    page_title = re.search(r"<title>([^<]+)</title>", html_of(response)).group(1)
    assert title in page_title
    assert len(meta(response, "name", "description")) > 30
    assert title in meta(response, "property", "og:title")
    assert meta(response, "property", "og:description")
    assert meta(response, "property", "og:url") == f"http://testserver{path}"


def test_every_page_links_to_the_rules_of_each_game(client):
    assert f'href="{url("rule-index")}"' in html_of(client.get(reverse("home")))


@pytest.mark.parametrize(
    "path",
    [
        "/games/no-such-game/rules/",
        "/games/no-such-game/rules/5/",
        "/games/no-such-game/rules/search/?q=faith",
        "/games/no-such-game/rules/glossary/",
        "/games/no-such-game/rules/print/",
        f"/games/{GAME}/rules/99/",
        f"/games/{GAME}/rules/5.9/",
        f"/games/{GAME}/rules/five/",
        f"/games/{GAME}/rules/12345/",
    ],
)
def test_unknown_game_or_section_is_404(client, path):
    assert client.get(path).status_code == 404


def test_a_number_written_with_leading_zeros_redirects_to_the_section(client):
    response = client.get(f"/games/{GAME}/rules/05.05/")
    assert response.status_code == 301
    assert response["Location"] == url("rule-section", number="5.5")


# --- contents ---------------------------------------------------------------------------------


def test_contents_is_a_nested_list_of_every_section_with_numbers_and_links(client):
    response = client.get(url("rule-index"))
    html = html_of(response)
    sections = list(RuleSection.objects.filter(game__slug=GAME))
    assert len(sections) == 60
    for s in sections:
        assert f'href="{section_href(GAME, s.number, s.anchor)}"' in html
    # 5.5.1 is inside the list of 5.5, which is inside the list of 5
    top = response.context["tree"]
    five = next(node for node in top if node.number == "5")
    colour = next(node for node in five.nodes if node.number == "5.5")
    assert [node.number for node in colour.nodes] == ["5.5.1", "5.5.2", "5.5.3"]
    assert [node.number for node in top][:3] == ["1", "2", "3"]
    assert html.count('<ol class="rules-tree">') == 1 + sum(
        1 for s in sections if any(c.parent_id == s.pk for c in sections)
    )
    assert "5.5 Colour matching" in text_of(response)


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_contents_takes_as_many_queries_for_many_more_sections(client, game):
    before, _ = count_queries(client, url("rule-index"))
    for i in range(1, 31):
        RuleSection.objects.create(game=game, number=f"13.{3 + i}", title=f"Extra {i}")
    after, response = count_queries(client, url("rule-index"))
    assert response.context["count"] == 90
    assert before == after
    assert after <= 3  # the game, the sections, the header's games


# --- section pages ----------------------------------------------------------------------------


def test_section_page_shows_the_section_and_all_its_descendants_with_anchors(client):
    response = client.get(url("rule-section", number="5"))
    html = html_of(response)
    ids = ids_in(response)
    for number in ["5", "5.1", "5.5", "5.5.1", "5.5.3", "5.6", "5.6.2"]:
        s = section(number)
        assert s.anchor in ids, number
        # a visible permalink to each numbered rule
        assert re.search(rf'<a class="permalink" href="[^"]*#{s.anchor}"[^>]*>#</a>', html)
    assert section("6").anchor not in ids
    assert section("4.2").anchor not in ids
    assert "Every card in the deck must match the Expedition Leader" in text_of(response)


def test_a_subsection_page_shows_that_subsection_and_its_own_descendants(client):
    response = client.get(url("rule-section", number="5.5"))
    ids = ids_in(response)
    assert {section(n).anchor for n in ["5.5", "5.5.1", "5.5.2", "5.5.3"]} <= ids
    assert section("5.6").anchor not in ids
    assert section("5.4").anchor not in ids
    html = html_of(response)
    # breadcrumb up to the top-level section
    assert f'href="{url("rule-section", number="5")}"' in html


def test_rule_5_4_shows_its_copy_limits_as_a_list_inside_its_third_item(client):
    """The sample indents the sub-list by 3 spaces under "3. ", as CommonMark does."""
    html = section("5.4").body_html
    assert re.search(r"<li>A deck may hold at most:\s*<ul>\s*<li>three copies", html), html
    assert "- three copies" not in html
    page = html_of(client.get(url("rule-section", number="5")))
    assert re.search(r"<li>A deck may hold at most:\s*<ul>\s*<li>three copies", page)


def test_cross_links_in_a_section_body_lead_to_the_referenced_rule(client):
    html = html_of(client.get(url("rule-section", number="5")))
    target = section("5.2")
    assert f'<a class="rule-ref" href="{section_href(GAME, "5.2", target.anchor)}">5.2</a>' in html


def test_section_page_lists_the_terms_it_defines(client):
    response = client.get(url("rule-section", number="7"))
    assert "Waiting Activation" in [t.term for t in response.context["terms"]]
    assert f'href="{url("rule-glossary")}#waiting-activation"' in html_of(response)


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_section_page_takes_as_many_queries_for_many_more_subsections(client, game):
    path = url("rule-section", number="13")
    before, _ = count_queries(client, path)
    for i in range(1, 31):
        RuleSection.objects.create(game=game, number=f"13.{3 + i}", title=f"Extra {i}")
    after, response = count_queries(client, path)
    assert len(response.context["section"].nodes) == 33
    assert before == after
    assert after <= 4  # the game, the sections, the terms, the header's games


def test_a_script_in_a_section_body_never_reaches_the_pages(client, game):
    s = section("5.3")
    s.body = "Ten cards.\n\n<script>alert('pwned')</script>\n\n<img src=x onerror=alert(1)>"
    s.save()
    for path in [url("rule-section", number="5"), url("rule-print"), url("rule-index")]:
        html = html_of(client.get(path))
        assert "<script>alert" not in html and "alert('pwned')" not in html, path
        assert "onerror" not in html, path
    response = client.get(url("rule-search"), {"q": "Ten cards pwned"})
    scripts = re.findall(r"<script[^>]*>", html_of(response))
    # only the site's own files (theme.js blocking in <head>, the others deferred)
    assert all(re.fullmatch(r'<script src="/static/js/[\w.]+"( defer)?>', s) for s in scripts)


# --- search -----------------------------------------------------------------------------------


def results(client, q):
    response = client.get(url("rule-search"), {"q": q})
    assert response.status_code == 200
    return response, [s.number for s in response.context["results"]]


def test_search_finds_waiting_activation_and_ranks_its_defining_section_first(client):
    defining = GlossaryTerm.objects.get(game__slug=GAME, term="Waiting Activation").section
    response, numbers = results(client, "Waiting Activation")
    assert defining.number in numbers
    if connection.vendor == "postgresql":
        assert numbers[0] == defining.number, numbers
    first = response.context["results"][numbers.index(defining.number)]
    assert "<mark>" in first.snippet
    assert f'href="{first.href}"' in html_of(response)


def test_search_finds_devotion_with_a_highlighted_snippet(client):
    response, numbers = results(client, "Devotion")
    assert "3.3" in numbers
    if connection.vendor == "postgresql":
        assert numbers[0] == "3.3"
    html = html_of(response)
    assert re.search(r"<mark>Devotion</mark>", html, re.I)


def test_search_snippet_is_escaped_plain_text_with_only_marks(client, game):
    s = section("5.3")
    s.body = (
        "Zebrafish rule: <b>bold</b> & <script>alert('x')</script> "
        '<a href="https://evil.example" onclick="x()">zebrafish link</a>'
    )
    s.save()
    response, numbers = results(client, "zebrafish")
    assert numbers == ["5.3"]
    snippet = str(response.context["results"][0].snippet)
    assert re.sub(r"</?mark>", "", snippet) == strip_tags(re.sub(r"</?mark>", "", snippet))
    assert "<b>" not in snippet and "<a" not in snippet and "alert" not in snippet
    assert "&amp;" in snippet
    assert re.search(r"<mark>zebrafish</mark>", snippet, re.I)


def test_search_without_a_query_shows_the_box_and_no_results(client):
    response = client.get(url("rule-search"))
    assert response.status_code == 200
    assert response.context["results"] == []
    assert 'name="q"' in html_of(response)


def test_search_that_matches_nothing_says_so(client):
    response, numbers = results(client, "xylophone")
    assert numbers == []
    assert "No section matches" in text_of(response)


def test_search_of_more_than_200_characters_is_400_with_the_error(client):
    response = client.get(url("rule-search"), {"q": "faith " * 40})
    assert response.status_code == 400
    assert "at most 200 characters" in text_of(response)


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_search_page_takes_as_many_queries_for_more_results(client, game):
    path = url("rule-search") + "?q=faith"
    before, response = count_queries(client, path)
    found = response.context["page"].paginator.count
    for i in range(1, 11):
        RuleSection.objects.create(game=game, number=f"13.{3 + i}", title=f"Faith {i}")
    after, response = count_queries(client, path)
    assert response.context["page"].paginator.count == found + 10
    assert before == after


# --- glossary ---------------------------------------------------------------------------------


def test_glossary_lists_every_term_a_to_z_with_definition_aliases_and_section(client):
    response = client.get(url("rule-glossary"))
    html = html_of(response)
    terms = GlossaryTerm.objects.filter(game__slug=GAME).select_related("section")
    for term in terms:
        assert f'id="{term.slug}"' in html
        if term.section:
            href = section_href(GAME, term.section.number, term.section.anchor)
            assert f'href="{href}"' in html
    text = text_of(response)
    assert "Waiting Activation zone" in text  # an alias
    letters = [letter for letter, _ in response.context["groups"]]
    assert letters == sorted(letters)
    # the letters nav: a link for a letter with terms, none for a letter without
    assert 'href="#letter-W"' in html
    assert 'href="#letter-Q"' not in html and ">Q<" in html


CYRILLIC = re.compile(r"[\u0400-\u04FF]")


def test_glossary_marks_russian_aliases_with_their_language_and_names_it(client):
    html = html_of(client.get(url("rule-glossary")))
    aliases = re.findall(r'<p class="aliases small">(.*?)</p>', html)
    assert aliases
    for paragraph in aliases:
        # every Russian name is in a lang="ru" span, after the label that names the language
        outside = re.sub(r'<span lang="ru">[^<]*</span>', "", paragraph)
        assert not CYRILLIC.search(outside), paragraph
        if 'lang="ru"' in paragraph:
            assert re.search(
                r'<span class="label">(Russian|Also called, in Russian):</span>', paragraph
            )
    faith = re.search(r'<dt id="faith-token">.*?<p class="aliases small">(.*?)</p>', html, re.S)
    assert strip_tags(faith.group(1)) == (
        "Also called: Faith tokens, Faith, Token of Faith, Tokens of Faith"
        " · Russian: жетон Веры, жетоны Веры, Вера"
    )
    assert '<span lang="ru">жетон Веры</span>' in faith.group(1)


@pytest.mark.parametrize(
    ("aliases", "shown"),
    [
        (["Horde", "Орда"], [("Also called", "", ["Horde"]), ("Russian", "ru", ["Орда"])]),
        (["Орда", "Орды"], [("Also called, in Russian", "ru", ["Орда", "Орды"])]),
        (["Hordes"], [("Also called", "", ["Hordes"])]),
        (["漢字", "Kanji"], [("Also called", "", ["Kanji"]), ("In another script", "", ["漢字"])]),
        ([], []),
    ],
    ids=["both", "russian-only", "english-only", "unknown-script", "none"],
)
def test_alias_groups_put_the_pages_language_first_and_name_each_other_language(aliases, shown):
    from cards.templatetags.glossary import alias_groups

    assert [(g.label, g.lang, g.names) for g in alias_groups(aliases)] == shown


def test_glossary_page_takes_a_constant_number_of_queries(client, game):
    before, _ = count_queries(client, url("rule-glossary"))
    for i in range(10):
        GlossaryTerm.objects.create(
            game=game, term=f"Extra term {i}", definition="Text.", section=section("3")
        )
    after, _ = count_queries(client, url("rule-glossary"))
    assert before == after


# --- printable page ---------------------------------------------------------------------------


def test_print_page_has_every_section_in_order_and_a_print_stylesheet(client):
    response = client.get(url("rule-print"))
    html = html_of(response)
    sections = list(RuleSection.objects.filter(game__slug=GAME))
    positions = [html.index(f'id="{s.anchor}"') for s in sections]
    assert positions == sorted(positions)
    css = CSS.read_text()
    print_css = css[css.index("@media print") :]
    assert ".site-header" in print_css and "display: none" in print_css


def test_print_page_takes_a_constant_number_of_queries(client, game):
    before, _ = count_queries(client, url("rule-print"))
    for i in range(1, 11):
        RuleSection.objects.create(game=game, number=f"13.{3 + i}", title=f"Extra {i}")
    after, _ = count_queries(client, url("rule-print"))
    assert before == after


# --- cards: glossary terms in text, the rules and rulings that concern them -------------------


def card_page(client, slug):
    return client.get(reverse("card-detail", kwargs={"game": GAME, "slug": slug}))


def test_attack_in_card_text_links_to_the_rule_on_attacking_cards(client):
    attack = GlossaryTerm.objects.get(game__slug=GAME, term="Attack").section
    assert "Attack" in attack.title  # 11.1 Cards that make an Attack
    href = section_href(GAME, attack.number, attack.anchor)
    html = html_of(card_page(client, "despair"))  # "Make an Attack against the target miniature."
    link = re.search(rf'<a class="term" href="{re.escape(href)}"[^>]*>Make an Attack</a>', html)
    assert link, html
    # one click: the linked page holds the rule's anchor
    page, _, anchor = href.partition("#")
    assert f'id="{anchor}"' in html_of(client.get(page))


def test_glossary_links_carry_the_definition_and_are_keyboard_focusable(client):
    html = html_of(card_page(client, "despair"))
    links = re.findall(r'<a class="term"[^>]*>', html)
    assert links
    for link in links:
        assert 'href="' in link  # a link with href: focusable by keyboard
        assert "tabindex" not in link
        definition = re.search(r'data-definition="([^"]+)"', link).group(1)
        described = re.search(r'aria-describedby="([^"]+)"', link).group(1)
        assert len(definition) > 10
        assert f'id="{described}"' in html  # the description exists on the page
    css = CSS.read_text()
    assert "a.term:focus::after" in css and "a.term:hover::after" in css
    assert "attr(data-definition)" in css


def test_glossify_links_longest_names_whole_words_any_case_and_escapes(sample_rules):
    from cards.glossary import Glossary

    glossary = Glossary.for_game(sample_rules)
    out = str(glossary.link("<b>Put it in the waiting activation zone</b>; discards & attacks"))
    assert "<b>" not in out and "&lt;b&gt;" in out and "&amp;" in out
    assert re.search(r'<a class="term"[^>]*>waiting activation zone</a>', out)
    assert re.search(r'<a class="term"[^>]*>discards</a>', out)
    assert re.search(r'<a class="term"[^>]*>attacks</a>', out)
    # whole words only: "Discarded" is not "Discard"
    assert '<a class="term"' not in str(glossary.link("Discarded"))


def test_card_page_lists_the_rules_that_concern_the_card(client):
    response = card_page(client, "despair")
    concerns = {c.section.number: c for c in response.context["concerns"]}
    assert "11.1" in concerns  # it makes an Attack, its text says Attack
    assert "1.3" in concerns  # "miniature"
    assert "7.6" in concerns  # the example names Despair
    assert any("names Despair" in r for r in concerns["7.6"].reasons)
    numbers = list(concerns)
    assert numbers == sorted(numbers, key=rulebook.sort_key)
    html = html_of(response)
    assert f'href="{concerns["7.6"].href}"' in html


def test_card_page_points_to_the_condition_and_effect_source_rules(client):
    card = Card.objects.get(slug="lightning")
    card.effect_source = "Fire"
    card.save()
    concerns = {c.section.number for c in card_page(client, "lightning").context["concerns"]}
    assert {"8.1", "12.1", "11.1", "8.3"} <= concerns


def test_card_page_lists_its_rulings(client):
    response = card_page(client, "despair")
    rulings = response.context["rulings"]
    assert rulings
    text = text_of(response)
    for ruling in rulings:
        assert ruling.question[:40] in text


def test_card_page_takes_a_constant_number_of_queries_whatever_the_rulings(client, game):
    from datetime import date

    path = reverse("card-detail", kwargs={"game": GAME, "slug": "despair"})
    before, _ = count_queries(client, path)
    card = Card.objects.get(slug="despair")
    for i in range(5):
        card.rulings.create(question=f"Q{i}?", answer="A.", date=date(2025, 1, i + 1))
    after, _ = count_queries(client, path)
    assert before == after


# --- card pages: the faction legend ----------------------------------------------------------

FACTION_LEGEND = "marks a faction"


@pytest.mark.parametrize(
    ("slug", "marked"),
    [("plant-a-seed", True), ("hymn-of-engeln", True), ("healing", False), ("despair", False)],
)
def test_faction_legend_shows_only_on_a_card_page_that_shows_a_faction_mark(client, slug, marked):
    html = html_of(card_page(client, slug))
    assert ("⚑" in html) is marked  # Keld and Engeln are factions; the others have none
    assert (FACTION_LEGEND in html) is marked


def test_faction_legend_is_absent_from_a_card_with_plain_keywords_only(client, game):
    Card.objects.get(game=game, slug="healing").keywords.set(
        game.keywords.filter(is_faction=False)[:1]
    )
    html = html_of(card_page(client, "healing"))
    assert '<li class="keyword">' in html
    assert "⚑" not in html and FACTION_LEGEND not in html


# --- deck counters: "n/size cards" -----------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "size", "shown"),
    [
        (1, "10", "1/10 cards"),
        (0, "10", "0/10 cards"),
        (1, "40–60", "1/40–60 cards"),
        (1, "40+", "1/40+ cards"),
        (1, "0–15", "1/0–15 cards"),
        (0, "1", "0/1 card"),
        (1, "", "1 card"),
        (2, "", "2 cards"),
        (0, "", "0 cards"),
    ],
)
def test_deck_counter_noun_agrees_with_the_size_when_shown_else_with_the_count(count, size, shown):
    from types import SimpleNamespace

    from django.template.loader import render_to_string

    html = render_to_string(
        "deckbuilder/partials/counter.html",
        {"deck": SimpleNamespace(card_count=count), "size": size},
    )
    assert re.sub(r"\s+", " ", strip_tags(html)).strip() == shown


def test_deck_pages_count_one_card_of_ten_as_1_of_10_cards(client, game, alice):
    from deckbuilder import services as deck_services
    from deckbuilder.models import Deck

    deck = deck_services.deck_create(
        owner=alice,
        game=game,
        leader=game.leaders.get(slug="kellantra"),
        name="One seed",
        contents={(Card.objects.get(game=game, slug="plant-a-seed"), "main"): 1},
    )
    client.force_login(alice)
    for name in ("deck-detail", "deck-edit"):
        text = text_of(client.get(reverse(name, args=[deck.share_id])))
        assert "1/10 cards" in text, name
        assert "1/10 card " not in text and not text.endswith("1/10 card"), name
    assert Deck.objects.get(pk=deck.pk).card_count == 1
