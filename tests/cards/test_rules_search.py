"""Rules search beyond English words: any script's case on SQLite too, and a rule's number."""

import pytest

from cards.models import RuleSection, section_href

pytestmark = pytest.mark.usefixtures("sample_rules")
SEARCH = "/api/games/card-of-gods/rules/search/"


@pytest.fixture
def russian_section(game):
    section = RuleSection(
        game=game,
        number="99",
        anchor="r99",
        title="Герои и Правители",
        body="Активный игрок ходит первым. ГЕРОИ отряда ждут.",
    )
    section.save()
    return section


def numbers(api, q):
    response = api.get(SEARCH, {"q": q})
    assert response.status_code == 200, response.content
    return [r["number"] for r in response.json()["results"]]


@pytest.mark.parametrize("q", ["Герои", "герои", "ГЕРОИ", "Правители", "Активный игрок"])
def test_cyrillic_words_are_found_in_any_case(api, russian_section, q):
    assert numbers(api, q)[:1] == ["99"]


def test_a_rule_number_query_gives_that_rule_first(api):
    found = numbers(api, "5.4")
    assert found[0] == "5.4"
    assert numbers(api, "5.4.")[0] == "5.4"  # as people write it, trailing dot and all


def test_the_search_page_goes_straight_to_a_rule_given_its_number(client, game):
    section = RuleSection.objects.get(game=game, number="5.4")
    response = client.get("/games/card-of-gods/rules/search/", {"q": " 5.4 "})
    assert response.status_code == 302
    assert response["Location"] == section_href(game.slug, "5.4", section.anchor)


def test_a_number_that_is_no_rule_is_searched_as_text(client):
    response = client.get("/games/card-of-gods/rules/search/", {"q": "9999"})
    assert response.status_code == 200
