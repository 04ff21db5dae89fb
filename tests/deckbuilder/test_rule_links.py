"""Every deck problem links to the rule it enforces: `rule_url` in the API (deck responses,
validate, the refusal of an illegal public deck) and links in the builder and on the deck page.

Every test here loads the sample rules of Card of Gods (the `sample_rules` fixture).
"""

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from cards import catalogue, legality
from cards.models import RuleSection, section_href
from deckbuilder import services
from deckbuilder.models import Deck

GAME = "card-of-gods"

pytestmark = pytest.mark.usefixtures("sample_rules")


def colour_section(game) -> RuleSection:
    """The section whose title mentions colour matching (the colour_identity rule's)."""
    return RuleSection.objects.get(game=game, title__istartswith="colour matching")


def make_deck(owner, game, leader, counts, **fields) -> Deck:
    cards = {c.slug: c for c in services.cards_for_rules().filter(game=game)}
    return services.deck_create(
        owner=owner,
        game=game,
        leader=game.leaders.get(slug=leader) if leader else None,
        name=fields.pop("name", "Test deck"),
        contents={(cards[slug], "main"): n for slug, n in counts.items()},
        **fields,
    )


def illegal_deck(alice, game) -> Deck:
    """Richard (yellow only) with Healing (green): colour_mismatch, and too few cards."""
    return make_deck(alice, game, "richard", {"healing": 1}, visibility="unlisted")


def assert_resolves(client, url: str):
    """GET the page of a rule URL: 200, and the anchor is an id on it."""
    parts = urlsplit(url)
    assert parts.fragment
    response = client.get(parts.path)
    assert response.status_code == 200, url
    assert f'id="{parts.fragment}"' in response.content.decode(), url


# --- every problem code of the format ---------------------------------------------------------


def test_every_problem_code_of_the_format_has_a_rule_url_that_resolves(client, game):
    rules_of_format = game.default_format().rules
    codes = {legality.CODES[rule["rule"]] for rule in rules_of_format}
    assert codes == {
        "leader_required",
        "deck_size",
        "copy_limit",
        "colour_mismatch",
        "faction_mismatch",
    }
    urls = catalogue.rule_urls(GAME)
    assert set(urls) == {rule["section"] for rule in rules_of_format}
    for rule in rules_of_format:
        assert_resolves(client, urls[rule["section"]])


def test_rule_urls_point_at_the_sections_the_format_names(game):
    urls = catalogue.rule_urls(GAME)
    by_kind = {rule["rule"]: rule["section"] for rule in game.default_format().rules}
    for number in by_kind.values():
        s = RuleSection.objects.get(game=game, number=number)
        assert urls[number] == section_href(GAME, number, s.anchor)
    assert urls[by_kind["colour_identity"]].endswith("#" + colour_section(game).anchor)


def validate_richard_with_healing(api) -> dict[str, str | None]:
    """{problem code: rule_url} for Richard with one Healing: deck_size and colour_mismatch."""
    response = api.post(
        f"/api/games/{GAME}/validate/",
        {"leader": "richard", "cards": [{"card": "healing", "count": 1}]},
        format="json",
    )
    assert response.status_code == 200, response.content
    return {p["code"]: p["rule_url"] for p in response.json()["problems"]}


def test_a_code_whose_rule_names_no_section_has_no_url(api, game):
    versions = game.default_format().version_list
    originals = [version.rules for version in versions]
    for version in versions:
        version.rules = [{k: v for k, v in r.items() if k != "section"} for r in version.rules]
        version.save()
    assert catalogue.rule_urls(GAME) == {}
    assert validate_richard_with_healing(api) == {"deck_size": None, "colour_mismatch": None}

    for version, original in zip(versions, originals, strict=True):
        version.rules = [
            {**r, "section": "99.9"} if r["rule"] == "deck_size" else r for r in original
        ]
        version.save()
    urls = catalogue.rule_urls(GAME)
    assert "99.9" not in urls and colour_section(game).number in urls
    links = validate_richard_with_healing(api)
    assert links["deck_size"] is None and links["colour_mismatch"] is not None


# --- the API ----------------------------------------------------------------------------------


def test_validate_gives_each_problem_an_absolute_rule_url_that_resolves(api, client, game):
    response = api.post(
        f"/api/games/{GAME}/validate/",
        {"leader": "richard", "cards": [{"card": "healing", "count": 1}]},
        format="json",
    )
    assert response.status_code == 200
    problems = response.json()["problems"]
    assert {p["code"] for p in problems} == {"deck_size", "colour_mismatch"}
    for problem in problems:
        assert problem["rule_url"].startswith("http://testserver/games/")
        assert_resolves(client, problem["rule_url"])
    mismatch = next(p for p in problems if p["code"] == "colour_mismatch")
    assert mismatch["rule_url"].endswith("#" + colour_section(game).anchor)


def test_validate_without_a_leader_links_leader_required(api, client):
    response = api.post(
        f"/api/games/{GAME}/validate/", {"leader": None, "cards": []}, format="json"
    )
    [leader] = [p for p in response.json()["problems"] if p["code"] == "leader_required"]
    assert_resolves(client, leader["rule_url"])


def test_deck_responses_carry_rule_urls_that_are_not_stored(api, client, alice, game):
    deck = illegal_deck(alice, game)
    api.force_authenticate(alice)
    for path in [f"/api/decks/{deck.share_id}/", "/api/decks/"]:
        data = api.get(path).json()
        data = data["results"][0] if "results" in data else data
        assert data["problems"]
        for problem in data["problems"]:
            assert_resolves(client, problem["rule_url"])
    deck.refresh_from_db()
    assert all("rule_url" not in p for p in deck.problems)


def test_a_refused_public_deck_lists_problems_with_rule_urls(api, client, alice, game):
    api.force_authenticate(alice)
    response = api.post(
        "/api/decks/",
        {
            "game": GAME,
            "leader": "richard",
            "name": "Public",
            "visibility": "public",
            "cards": [{"card": "healing", "count": 1}],
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "deck_not_legal"
    for problem in response.json()["problems"]:
        assert_resolves(client, problem["rule_url"])


def test_without_the_section_the_rule_url_is_null(api, game):
    RuleSection.objects.filter(game=game, number__startswith="5.3").delete()
    response = api.post(
        f"/api/games/{GAME}/validate/", {"leader": "richard", "cards": []}, format="json"
    )
    [size] = [p for p in response.json()["problems"] if p["code"] == "deck_size"]
    assert size["rule_url"] is None


# --- the builder and the deck page ------------------------------------------------------------


def rule_links(response) -> dict[str, str]:
    """{problem code: href} of the rule links in the problems list of a page."""
    html = response.content.decode()
    return dict(
        (code, href)
        for href, code in re.findall(
            r'<a class="problem-rule" href="([^"]+)" data-code="([^"]+)"', html
        )
    )


def test_deck_page_links_colour_mismatch_to_the_colour_matching_rule(client, alice, game):
    deck = illegal_deck(alice, game)
    response = client.get(reverse("deck-detail", args=[deck.share_id]))
    links = rule_links(response)
    expected = section_href(GAME, colour_section(game).number, colour_section(game).anchor)
    assert links["colour_mismatch"] == expected
    assert_resolves(client, links["colour_mismatch"])  # one click to the matching rule
    assert set(links) == {p["code"] for p in deck.problems}


def test_builder_links_colour_mismatch_to_the_colour_matching_rule(client, alice, game):
    deck = illegal_deck(alice, game)
    client.force_login(alice)
    response = client.get(reverse("deck-edit", args=[deck.share_id]))
    assert response.status_code == 200
    links = rule_links(response)
    s = colour_section(game)
    assert links["colour_mismatch"] == section_href(GAME, s.number, s.anchor)
    assert_resolves(client, links["colour_mismatch"])


def test_builder_htmx_panel_keeps_the_rule_links(client, alice, game):
    deck = illegal_deck(alice, game)
    client.force_login(alice)
    response = client.post(
        reverse("deck-edit", args=[deck.share_id]),
        {"card": "quiet-prayer", "op": "add"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert "colour_mismatch" in rule_links(response)


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_deck_page_queries_do_not_grow_with_the_problems(client, alice, game):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries(deck):
        url = reverse("deck-detail", args=[deck.share_id])
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    few = illegal_deck(alice, game)
    many = make_deck(
        alice,
        game,
        "richard",
        {"healing": 1, "despair": 1, "lightning": 1, "plant-a-seed": 1, "blood-pact": 2},
        visibility="unlisted",
        name="Many problems",
    )
    assert len(many.problems) > len(few.problems)
    queries(few)  # warms the per-process rules cache, as in steady state
    assert queries(few) == queries(many)
