"""The rules reference API: the tree, one section, search and the glossary (read: anyone).

Every test here loads the sample rules of Card of Gods (the `sample_rules` fixture).
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cards.models import GlossaryTerm, RuleSection, section_href

GAME = "card-of-gods"
BASE = f"/api/games/{GAME}"

pytestmark = pytest.mark.usefixtures("sample_rules")


def absolute(path: str) -> str:
    return f"http://testserver{path}"


def section(number) -> RuleSection:
    return RuleSection.objects.get(game__slug=GAME, number=number)


def walk(nodes):
    for node in nodes:
        yield node
        yield from walk(node["children"])


# --- the tree ---------------------------------------------------------------------------------


def test_tree_has_every_section_nested_with_number_anchor_title_url_and_children(api):
    response = api.get(f"{BASE}/rules/")
    assert response.status_code == 200
    data = response.json()
    assert set(data) == {"count", "count_exact", "next", "previous", "results"}
    top = data["results"]
    assert [n["number"] for n in top] == [str(i) for i in range(1, 14)]
    assert data["count"] == 13
    nodes = list(walk(top))
    assert len(nodes) == RuleSection.objects.filter(game__slug=GAME).count()
    five = next(n for n in top if n["number"] == "5")
    assert set(five) == {"number", "anchor", "title", "url", "children"}
    assert five["title"] == "Making a deck"
    colour = next(n for n in five["children"] if n["number"] == "5.5")
    assert colour["anchor"] == section("5.5").anchor
    assert colour["url"] == absolute(section_href(GAME, "5.5", colour["anchor"]))
    assert [n["number"] for n in colour["children"]] == ["5.5.1", "5.5.2", "5.5.3"]


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_tree_takes_as_many_queries_for_many_more_sections(api, game):
    def queries():
        with CaptureQueriesContext(connection) as ctx:
            assert api.get(f"{BASE}/rules/").status_code == 200
        return len(ctx.captured_queries)

    before = queries()
    for i in range(1, 21):
        RuleSection.objects.create(game=game, number=f"13.{3 + i}", title=f"Extra {i}")
    assert queries() == before <= 2


# --- one section ------------------------------------------------------------------------------


def test_one_section_has_its_sanitised_body_and_its_subsections(api):
    response = api.get(f"{BASE}/rules/5.5/")
    assert response.status_code == 200
    data = response.json()
    s = section("5.5")
    assert data["number"] == "5.5"
    assert data["anchor"] == s.anchor
    assert data["title"] == "Colour matching"
    assert data["parent"] == "5"
    assert data["url"] == absolute(section_href(GAME, "5.5", s.anchor))
    assert data["body"] == s.body_html
    assert "<ol>" in data["body"] and "must match the Expedition Leader" in data["body"]
    assert [n["number"] for n in data["children"]] == ["5.5.1", "5.5.2", "5.5.3"]
    assert "Matching colours" in data["terms"]


def test_a_top_level_section_has_no_parent(api):
    assert api.get(f"{BASE}/rules/7/").json()["parent"] is None


def test_a_script_in_a_section_body_never_reaches_the_api(api):
    s = section("5.3")
    s.body = "Ten.\n\n<script>alert(1)</script><p onclick='x()'>hi</p>"
    s.save()
    for path in [f"{BASE}/rules/5.3/", f"{BASE}/rules/5/", f"{BASE}/rules/search/?q=ten"]:
        text = api.get(path).content.decode()
        assert "<script" not in text and "alert(1)" not in text and "onclick" not in text, path


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/no-such-game/rules/",
        "/api/games/no-such-game/rules/5/",
        "/api/games/no-such-game/rules/search/?q=faith",
        "/api/games/no-such-game/glossary/",
        f"{BASE}/rules/99/",
        f"{BASE}/rules/5.9/",
        f"{BASE}/rules/five/",
    ],
)
def test_unknown_game_or_number_is_404(api, path):
    assert api.get(path).status_code == 404


def test_the_rules_are_read_only(api, staff):
    api.force_authenticate(staff)
    assert api.post(f"{BASE}/rules/", {"number": "14"}, format="json").status_code == 405
    assert api.delete(f"{BASE}/rules/5/").status_code == 405


# --- search -----------------------------------------------------------------------------------


def search(api, q, **params):
    response = api.get(f"{BASE}/rules/search/", {"q": q, **params})
    assert response.status_code == 200, response.content
    return response.json()


def test_search_is_not_mistaken_for_a_section_number(api):
    assert "results" in search(api, "faith")


def test_search_finds_waiting_activation_and_ranks_its_defining_section_first(api):
    defining = GlossaryTerm.objects.get(game__slug=GAME, term="Waiting Activation").section
    results = search(api, "Waiting Activation")["results"]
    numbers = [r["number"] for r in results]
    assert defining.number in numbers
    if connection.vendor == "postgresql":
        assert numbers[0] == defining.number, numbers
    hit = results[numbers.index(defining.number)]
    assert set(hit) >= {"number", "anchor", "title", "url", "snippet", "rank"}
    assert "<mark>" in hit["snippet"]
    assert hit["url"] == absolute(section_href(GAME, defining.number, defining.anchor))
    ranks = [r["rank"] for r in results]
    assert ranks == sorted(ranks, reverse=True)


def test_search_finds_devotion(api):
    results = search(api, "Devotion")["results"]
    assert "3.3" in [r["number"] for r in results]
    if connection.vendor == "postgresql":
        assert results[0]["number"] == "3.3"


def test_search_results_are_paginated(api):
    data = search(api, "card", page_size=2)
    assert data["count"] > 2 and len(data["results"]) == 2 and data["next"]


def test_search_without_q_is_400_with_a_field_error(api):
    response = api.get(f"{BASE}/rules/search/")
    assert response.status_code == 400
    assert "q" in response.json()
    response = api.get(f"{BASE}/rules/search/", {"q": "   "})
    assert response.status_code == 400 and "q" in response.json()


def test_search_of_more_than_200_characters_is_400(api):
    response = api.get(f"{BASE}/rules/search/", {"q": "x" * 201})
    assert response.status_code == 400
    assert "q" in response.json()
    assert search(api, "x" * 200)["count"] == 0


# --- glossary ---------------------------------------------------------------------------------


def test_glossary_lists_terms_with_definitions_and_defining_sections(api):
    data = api.get(f"{BASE}/glossary/", {"page_size": 100}).json()
    terms = {t["term"]: t for t in data["results"]}
    assert data["count"] == GlossaryTerm.objects.filter(game__slug=GAME).count() == len(terms)
    waiting = terms["Waiting Activation"]
    s = section("7.5")
    assert waiting["section"] == {
        "number": "7.5",
        "anchor": s.anchor,
        "title": "The Waiting Activation zone",
        "url": absolute(section_href(GAME, "7.5", s.anchor)),
    }
    assert "Waiting Activation zone" in waiting["aliases"]
    assert waiting["definition"].startswith("<p>")
    assert waiting["url"] == absolute(f"/games/{GAME}/rules/glossary/#waiting-activation")
    names = [t["term"] for t in data["results"]]
    assert names == sorted(names, key=str.casefold)


def test_glossary_term_without_a_section_has_null(api, game):
    GlossaryTerm.objects.create(game=game, term="Zephyr", definition="A wind.")
    terms = {
        t["term"]: t for t in api.get(f"{BASE}/glossary/", {"page_size": 100}).json()["results"]
    }
    assert terms["Zephyr"]["section"] is None
