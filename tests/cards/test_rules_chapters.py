"""The rules contents by chapter: a collapsible block per chapter (top-level section); for a
large rulebook the chapters only, each chapter's contents on a page of its own that htmx loads
into the block; printing one chapter as well as the whole rules.

A small chaptered rulebook (comprehensive rules: chapters `1.`, hundreds `100.`, rules `100.1.`
and sub-rules `100.1a`) is imported for each test; "large" means more sections than
`views.CONTENTS_ONE_PAGE_MAX`, which the tests set low.
"""

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from cards import services, views
from cards.models import RuleSection, section_href
from tests.html import html_of, ids_in, meta, text_of

SLUG = "chaptered"
CHAPTERS = {"1": "Game Concepts", "2": "Parts of a Card", "3": "Card Types"}


def rules_text(rules: int = 2, drop: tuple[str, ...] = ()) -> str:
    """Three chapters of two hundreds; each hundred has `rules` rules with two sub-rules each.
    Chapters and sub-rules whose numbers are in `drop` are left out."""
    lines = []
    for chapter, title in CHAPTERS.items():
        if chapter in drop:
            continue
        lines.append(f"{chapter}. {title}")
        for hundred in (f"{chapter}00", f"{chapter}01"):
            lines.append(f"{hundred}. {'General' if hundred.endswith('0') else 'Details'}")
            for rule in range(1, rules + 1):
                number = f"{hundred}.{rule}"
                lines.append(f"{number}. Rule {number} says what players do.")
                for letter in "ab":
                    if number + letter not in drop:
                        lines.append(f"{number}{letter} Sub-rule {letter} of rule {number}.")
    return "\n\n".join(lines) + "\n"


@pytest.fixture
def chaptered(db):
    game = services.save_game(definition={"slug": SLUG, "name": "Chaptered Game"})
    services.import_rules(game=game, text=rules_text())
    game.refresh_from_db()
    assert game.rules_chapters
    return game


@pytest.fixture
def large(monkeypatch):
    """Every rulebook counts as large: the contents list chapters only."""
    monkeypatch.setattr(views, "CONTENTS_ONE_PAGE_MAX", 5)


def url(name, game=SLUG, **kwargs):
    return reverse(name, kwargs={"game": game, **kwargs})


def href(game, number) -> str:
    s = RuleSection.objects.live().get(game=game, number=number)
    return section_href(game.slug, s.number, s.anchor)


def blocks(response) -> list[str]:
    """The <details> blocks of the contents (in <main>: the header has menus), as HTML."""
    main = html_of(response).split("<main", 1)[1]
    return re.findall(r"<details\b.*?</details>", main, re.S)


def summary(block: str) -> str:
    return " ".join(strip_tags(re.search(r"<summary>(.*?)</summary>", block, re.S)[1]).split())


# --- the contents: a block per chapter -------------------------------------------------------


def test_contents_of_a_small_rulebook_has_every_section_in_a_block_per_chapter(client, chaptered):
    response = client.get(url("rule-index"))
    html = html_of(response)
    assert not response.context["paged"]
    found = blocks(response)
    assert [summary(b) for b in found] == [
        "1 Game Concepts 14 sections",
        "2 Parts of a Card 14 sections",
        "3 Card Types 14 sections",
    ]
    # each chapter's block nests its hundreds, their rules and sub-rules, as numbers and titles
    first = found[0]
    for number in ["100", "100.1", "100.1a", "101.2b"]:
        assert f'href="{href(chaptered, number)}"' in first
    assert href(chaptered, "200") not in first
    assert re.search(
        r"100</span> General</a>.*100\.1a</span> Sub-rule a of rule 100\.1\.</a>", first, re.S
    )
    # the block links to the chapter's own page (not its summary: axe nested-interactive);
    # nothing is left to load
    assert "<summary><a" not in first
    assert f'href="{href(chaptered, "1")}"' in first.split("</summary>", 1)[1]
    assert "hx-get" not in html and "htmx.min.js" not in html
    for s in RuleSection.objects.filter(game=chaptered):
        assert f'href="{section_href(SLUG, s.number, s.anchor)}"' in html
    assert html.count('href="' + url("rule-print-chapter", number="2") + '"') == 1


def test_contents_of_unchaptered_rules_collapse_each_top_level_section(client, sample_rules):
    response = client.get(url("rule-index", game="card-of-gods"))
    tops = RuleSection.objects.filter(game=sample_rules, depth=1)
    with_children = [s for s in tops if s.children.exists()]
    found = blocks(response)
    assert len(found) == len(with_children) > 3
    five = next(b for b in found if summary(b).startswith("5 Making a deck"))
    assert summary(five).endswith(
        f"{RuleSection.objects.filter(number__startswith='5.', game=sample_rules).count()} sections"
    )
    assert f'href="{href(sample_rules, "5.5.1")}"' in five


def test_contents_of_a_large_rulebook_lists_the_chapters_with_links_and_htmx(
    client, chaptered, large
):
    response = client.get(url("rule-index"))
    html = html_of(response)
    assert response.context["paged"]
    found = blocks(response)
    assert [summary(b) for b in found] == [
        "1 Game Concepts 14 sections",
        "2 Parts of a Card 14 sections",
        "3 Card Types 14 sections",
    ]
    for number, block in zip(CHAPTERS, found, strict=True):
        chapter_url = url("rule-contents", number=number)
        assert f'hx-get="{chapter_url}"' in block
        assert 'hx-trigger="toggle once"' in block
        assert 'hx-target="find .rules-chapter-contents"' in block
        # without JavaScript: a link in the block leads to the page (none in the summary)
        assert "<summary><a" not in block
        assert re.search(
            rf'<div class="rules-chapter-contents">.*href="{chapter_url}"', block, re.S
        )
        assert f'href="{url("rule-print-chapter", number=number)}"' in block
    # the chapters only: not their sections
    assert href(chaptered, "100") not in html and href(chaptered, "100.1a") not in html
    assert '<script src="/static/js/htmx.min.js" defer></script>' in html
    assert '"includeIndicatorStyles": false' in html  # no inline style under the CSP
    assert response.context["count"] == 45
    assert "45 sections in 3 chapters" in text_of(response)


# --- a chapter's contents: a page, or the list alone for htmx ---------------------------------


def test_chapter_contents_page_has_the_chapters_hundreds_and_rules(client, chaptered):
    response = client.get(url("rule-contents", number="2"))
    assert response.status_code == 200
    html = html_of(response)
    for number in ["200", "200.1", "200.1a", "201", "201.2b"]:
        assert f'href="{href(chaptered, number)}"' in html
    for number in ["100", "100.1a", "300"]:
        assert f'href="{href(chaptered, number)}"' not in html
    # nested: 200.1a inside the list of 200.1, inside the list of 200
    two = response.context["chapter"]
    hundred = two.nodes[0]
    assert [n.number for n in two.nodes] == ["200", "201"]
    assert [n.number for n in hundred.nodes[0].nodes] == ["200.1a", "200.1b"]
    assert "200 General" in text_of(response)
    assert f'href="{url("rule-print-chapter", number="2")}"' in html
    assert f'href="{href(chaptered, "2")}"' in html  # read the chapter
    # breadcrumbs to the contents; the chapters before and after
    crumbs = re.search(r'<nav class="breadcrumbs".*?</nav>', html, re.S)[0]
    assert f'href="{url("rule-index")}"' in crumbs
    assert '<span aria-current="page">Contents of 2 Parts of a Card</span>' in crumbs
    assert f'href="{url("rule-contents", number="1")}" rel="prev"' in html
    assert f'href="{url("rule-contents", number="3")}" rel="next"' in html
    assert "HX-Request" in response["Vary"]


def test_chapter_contents_for_htmx_is_the_list_alone(client, chaptered):
    response = client.get(url("rule-contents", number="2"), headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = html_of(response)
    assert "<html" not in html and "<title>" not in html and "breadcrumbs" not in html
    assert html.lstrip().startswith('<p class="rules-chapter-links')
    assert f'href="{href(chaptered, "200.1a")}"' in html
    assert f'href="{url("rule-print-chapter", number="2")}"' in html
    assert "HX-Request" in response["Vary"]
    # the same answer as the list of the full page
    full = html_of(client.get(url("rule-contents", number="2")))
    assert html.strip() in full
    # htmx restoring a page from its history gets the whole page
    restore = client.get(
        url("rule-contents", number="2"),
        headers={"HX-Request": "true", "HX-History-Restore-Request": "true"},
    )
    assert "<title>" in html_of(restore)


@pytest.mark.parametrize(
    "path",
    [
        f"/games/{SLUG}/rules/contents/9/",  # no such chapter
        f"/games/{SLUG}/rules/contents/100/",  # a hundred, not a chapter
        f"/games/{SLUG}/rules/contents/1.1/",
        f"/games/{SLUG}/rules/contents/one/",
        f"/games/{SLUG}/rules/print/9/",
        f"/games/{SLUG}/rules/print/100/",
        f"/games/{SLUG}/rules/print/2.1/",
        "/games/no-such-game/rules/contents/1/",
        "/games/no-such-game/rules/print/1/",
    ],
)
def test_unknown_chapter_is_404(client, chaptered, path):
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("name", ["rule-contents", "rule-print-chapter"])
def test_a_chapter_number_with_leading_zeros_redirects(client, chaptered, name):
    response = client.get(url(name, number="02"))
    assert response.status_code == 301
    assert response["Location"] == url(name, number="2")


# --- printing one chapter ---------------------------------------------------------------------


def test_print_of_a_chapter_holds_that_chapter_and_all_its_sections_in_order(client, chaptered):
    response = client.get(url("rule-print-chapter", number="2"))
    assert response.status_code == 200
    ids = ids_in(response)
    sections = list(RuleSection.objects.filter(game=chaptered).order_by("sort_key"))
    mine = [s for s in sections if s.number == "2" or s.number[:1] == "2" and len(s.number) > 1]
    assert len(mine) == 15
    assert {s.anchor for s in mine} <= ids
    assert not {s.anchor for s in sections if s not in mine} & ids
    html = html_of(response)
    positions = [html.index(f'id="{s.anchor}"') for s in mine]
    assert positions == sorted(positions)
    assert "Sub-rule b of rule 201.2." in text_of(response)
    assert f'href="{url("rule-print")}"' in html  # the whole rules
    assert f'{url("rule-contents", number="2")}"' in html  # the chapter online


def test_whole_print_keeps_every_section_and_links_to_each_chapter(client, chaptered):
    response = client.get(url("rule-print"))
    assert {s.anchor for s in RuleSection.objects.filter(game=chaptered)} <= ids_in(response)
    html = html_of(response)
    for number in CHAPTERS:
        assert f'href="{url("rule-print-chapter", number=number)}"' in html


# --- obsolete sections ------------------------------------------------------------------------


@pytest.mark.usefixtures("uncached")  # reads the context of a page asked again
def test_obsolete_sections_are_left_out_of_contents_chapters_and_print(client, chaptered, large):
    services.import_rules(game=chaptered, text=rules_text(drop=("3", "200.1b")))
    obsolete = RuleSection.objects.filter(game=chaptered, obsolete_since__isnull=False)
    assert {s.number for s in obsolete} >= {"3", "300", "300.1a", "200.1b"}
    gone = {s.anchor for s in obsolete}
    pages = [
        url("rule-index"),
        url("rule-contents", number="2"),
        url("rule-print-chapter", number="2"),
        url("rule-print"),
    ]
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200, path
        html = html_of(response)
        assert not gone & ids_in(response), path
        assert not any(f'#{anchor}"' in html for anchor in gone), path
    index = client.get(url("rule-index"))
    assert [summary(b) for b in blocks(index)] == [
        "1 Game Concepts 14 sections",
        "2 Parts of a Card 13 sections",
    ]
    assert index.context["count"] == 29
    assert client.get(url("rule-contents", number="3")).status_code == 404
    assert client.get(url("rule-print-chapter", number="3")).status_code == 404


# --- every new page: title, description, OpenGraph --------------------------------------------

NEW_PAGES = [
    ("rule-contents", "Contents of 2 Parts of a Card — Rules of Chaptered Game"),
    ("rule-print-chapter", "2 Parts of a Card — Rules of Chaptered Game — printable"),
]


@pytest.mark.parametrize(("name", "title"), NEW_PAGES, ids=[p[0] for p in NEW_PAGES])
def test_chapter_pages_have_title_description_and_opengraph(client, chaptered, name, title):
    path = url(name, number="2")
    response = client.get(path)
    assert response.status_code == 200
    page_title = re.search(r"<title>([^<]+)</title>", html_of(response))[1]
    assert page_title.startswith(title)
    description = meta(response, "name", "description")
    assert "2 Parts of a Card" in description and len(description) > 50
    assert meta(response, "property", "og:title") == title
    assert "Parts of a Card" in meta(response, "property", "og:description")
    assert meta(response, "property", "og:url") == f"http://testserver{path}"


def test_chapter_contents_description_counts_and_names_its_sections(client, chaptered):
    description = meta(client.get(url("rule-contents", number="1")), "name", "description")
    assert "14 numbered sections" in description
    assert "100 General" in description and "101 Details" in description


# --- a constant number of queries -------------------------------------------------------------

PAGES = [  # (name, number, htmx, queries)
    # the game with its count (and the games' version: the header's games are cached), the
    # sections
    ("rule-index", None, False, 2),
    ("rule-contents", "2", False, 2),  # the game, the chapter's sections
    ("rule-contents", "2", True, 2),  # the list alone: no header
    ("rule-print-chapter", "2", False, 2),
    ("rule-print", None, False, 2),
]


@pytest.mark.parametrize(
    ("name", "number", "htmx", "queries"), PAGES, ids=[f"{p[0]}-{p[2]}" for p in PAGES]
)
@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_pages_take_a_constant_number_of_queries(
    client, chaptered, django_assert_num_queries, name, number, htmx, queries
):
    path = url(name, **({"number": number} if number else {}))
    headers = {"HX-Request": "true"} if htmx else {}
    for rules in (2, 6):  # 45 sections, then 117
        services.import_rules(game=chaptered, text=rules_text(rules))
        client.get(path, headers=headers)  # warm up anything cached once per process
        with django_assert_num_queries(queries):
            response = client.get(path, headers=headers)
        assert response.status_code == 200
    assert RuleSection.objects.live().filter(game=chaptered).count() == 117


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_contents_of_a_large_rulebook_take_one_more_query_whatever_its_size(
    client, chaptered, large, django_assert_num_queries
):
    for rules in (2, 6):
        services.import_rules(game=chaptered, text=rules_text(rules))
        client.get(url("rule-index"))
        # the game with its count (the header's games are cached), the chapters, their sizes
        with django_assert_num_queries(3):
            response = client.get(url("rule-index"))
        assert response.context["paged"]
    assert [summary(b) for b in blocks(response)][0] == "1 Game Concepts 38 sections"
