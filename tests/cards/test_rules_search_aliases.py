"""Rules search by the glossary's other names (issue 25, snag 5): a term's alias ("героя" in
Berserk, whose rules are written in English) finds the section defining it, on the page and in
the API, without reordering what the words find; and the search box's example is a word of the
game's own glossary, read with the game (no query more on any rules page)."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards.models import GlossaryTerm, RuleSection
from tests.html import html_of, text_of

pytestmark = pytest.mark.django_db

BERSERK = "berserk-heroes"  # its sample rules are in the test world


def page_numbers(client, game, q) -> tuple[object, list[str]]:
    response = client.get(reverse("rule-search", kwargs={"game": game}), {"q": q})
    assert response.status_code == 200
    return response, [s.number for s in response.context["results"]]


def api_numbers(api, game, q) -> list[str]:
    response = api.get(f"/api/games/{game}/rules/search/", {"q": q})
    assert response.status_code == 200, response.content
    return [r["number"] for r in response.json()["results"]]


@pytest.mark.parametrize("q", ["героя", "герой", "ГЕРОЙ", "  Героя "])
def test_a_russian_alias_finds_the_section_defining_its_term_first(client, api, q):
    assert not RuleSection.objects.filter(game__slug=BERSERK, body__icontains="геро").exists()
    response, numbers = page_numbers(client, BERSERK, q)
    assert numbers[:1] == ["208"]
    assert "Defines “Hero”, which" in text_of(response)
    assert api_numbers(api, BERSERK, q)[:1] == ["208"]


def test_the_defining_section_joins_without_reordering_what_the_words_find(sample_rules):
    """ "Faith" is an alias of Faith token (3.1): the words find many sections, in their order."""
    sections = RuleSection.objects.live().filter(game=sample_rules)
    by_words = [s.number for s in sections.search("Faith")]
    with_term = [s.number for s in sections.search("Faith", defined="3.1")]
    assert len(by_words) > 3 and "3.1" in by_words
    assert with_term == by_words  # found by its words already: it keeps its rank
    defined_elsewhere = [s.number for s in sections.search("Faith", defined="13")]
    assert "13" not in by_words and defined_elsewhere == [*by_words, "13"]


def test_a_term_or_alias_the_words_miss_comes_after_what_they_find(api, sample_rules):
    RuleSection.objects.create(
        game=sample_rules,
        number="99",
        anchor="r99",
        title="Очерёдность",
        body="Активный игрок ходит первым.",
    )
    defining = GlossaryTerm.objects.get(game=sample_rules, term="Active player").section
    assert api_numbers(api, sample_rules.slug, "Активный игрок") == ["99", defining.number]


def search_box(response) -> str:
    return re.search(r'<input type="search" id="rules-q"[^>]*>', html_of(response)).group()


def example_word(response) -> str:
    return re.search(r'placeholder="e\.g\. ([^"]+)"', search_box(response)).group(1)


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("rule-index", {}),
        ("rule-search", {}),
        ("rule-glossary", {}),
        ("rule-section", {"number": "2"}),
    ],
)
def test_the_search_boxs_example_is_a_word_of_the_games_own_glossary(
    client, sample_rules, name, kwargs
):
    for game in ("card-of-gods", BERSERK):
        response = client.get(reverse(name, kwargs={"game": game, **kwargs}))
        word = example_word(response)
        assert GlossaryTerm.objects.filter(game__slug=game, term=word).exists(), (game, word)
        assert page_numbers(client, game, word)[1], (game, word)  # and it finds something
    assert example_word(response) == "Hero"  # Berserk's first term, not Card of Gods' Devotion


def test_a_game_without_a_glossary_has_no_example(client, sample_rules):
    GlossaryTerm.objects.filter(game=sample_rules).delete()
    response = client.get(reverse("rule-search", kwargs={"game": sample_rules.slug}))
    assert "placeholder" not in search_box(response)


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_searching_by_an_alias_takes_the_queries_of_any_search(client):
    def queries(q) -> int:
        path = reverse("rule-search", kwargs={"game": BERSERK})
        client.get(path, {"q": q})  # warm up what is cached once per process
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(path, {"q": q}).status_code == 200
        return len(ctx.captured_queries)

    assert queries("героя") == queries("wound")  # the game, the count, the page of sections
