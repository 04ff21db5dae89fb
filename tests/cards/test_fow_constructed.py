"""Force of Will Constructed (CR 12.7 402-404) on the sample pool as loaded: decks judged through
the API's validate endpoint, with the extra, rune and stranger decks, their gates, the master
rune limit and the keywords that may not share a deck; each problem links to the rules section
that states the rule it breaks."""

from urllib.parse import urlsplit

import pytest

from cards import catalogue
from cards import services as card_services
from cards.models import Game
from deckbuilder import services as deck_services
from tests.deckbuilder.test_services import FOW_MAIN

pytestmark = pytest.mark.django_db

GAME = "force-of-will"
URL = f"/api/games/{GAME}/validate/"

YSOLDE = "ysolde-of-the-rune-choir"  # Divinity
CORVIN = "corvin-inkwright"  # Grimoire
ROSALIND = "rosalind-teller-of-tales"  # Tales
WREN = "wren-of-the-far-shore"  # Stranger
SERAPHINE = "seraphine-of-the-dawn-bell"  # none of them

MAIN = FOW_MAIN
STONES = {"magic-stone-of-light": 8, "twilight-geode": 2}
SIDE = {"undertow": 2}
RUNES = {
    "rune-of-the-morning-choir": 1,
    "rune-of-binding-tides": 1,
    "rune-of-the-ashen-oath": 1,
    "rune-of-quiet-wings": 1,
    "master-rune-of-the-first-bell": 1,
}
EXTRA = {
    "gale-sprite": 1,
    "skyreach-archer": 1,
    "tailwind-step": 1,
    "feather-cloak": 1,
    "gravewing-bat": 1,
}
STRANGERS = {
    "stranger-from-the-glass-sea": 2,
    "stranger-of-the-ninth-gate": 2,
    "stranger-who-walks-the-rain": 2,
    "stranger-with-lantern-eyes": 2,
    "stranger-in-the-iron-mask": 2,
}


def entries(**sections) -> list[dict]:
    return [
        {"card": slug, "count": n, "section": section}
        for section, counts in sections.items()
        for slug, n in counts.items()
        if n
    ]


def validate(api, leader, **sections) -> dict:
    deck = {"main": MAIN, "stones": STONES, "side": SIDE} | sections
    body = {"leader": leader, "format": "constructed", "cards": entries(**deck)}
    response = api.post(URL, body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def found(report) -> list[tuple]:
    return [(p["code"], p["section"], p["card"]) for p in report["problems"]]


def ref_of(report, code) -> str:
    """The rules section the problem of `code` links to (its number, from its rule_url)."""
    (problem,) = [p for p in report["problems"] if p["code"] == code]
    numbers = {f"http://testserver{url}": n for n, url in catalogue.rule_urls(GAME).items()}
    return numbers[problem["rule_url"]]


def test_a_divinity_ruler_has_a_legal_deck_with_a_five_card_rune_deck(api):
    report = validate(api, YSOLDE, runes=RUNES)
    assert (report["legal"], report["problems"]) == (True, [])
    assert report["sections"] == {
        "main": 40,
        "stones": 10,
        "side": 2,
        "extra": 0,
        "runes": 5,
        "stranger": 0,
    }
    assert validate(api, YSOLDE)["legal"]  # the rune deck may be empty


def test_three_runes_break_the_rune_decks_size(api):
    three = dict(list(RUNES.items())[:3])
    report = validate(api, YSOLDE, runes=three)
    assert found(report) == [("deck_size", "runes", None)]
    assert report["problems"][0]["message"] == "The Rune deck needs 0 or 5 cards; it has 3."
    assert ref_of(report, "deck_size") == "9.13.2"


def test_a_rune_deck_under_a_ruler_without_divinity_is_section_closed(api):
    report = validate(api, SERAPHINE, runes=RUNES)
    assert found(report) == [("section_closed", "runes", None)]
    assert report["problems"][0]["message"] == (
        "The Rune deck may hold cards only when the Ruler has the keyword Divinity, which"
        " Seraphine of the Dawn Bell does not; it holds 5."
    )
    assert ref_of(report, "section_closed") == "9.13.1"


def test_two_master_runes_break_the_type_limit(api):
    fow = Game.objects.get(slug="force-of-will")
    card_services.save_card(
        game=fow,
        fields={
            "name": "Master Rune of the Second Bell",
            "type": fow.card_types.get(slug="master-rune"),
        },
        keywords=[],
    )
    runes = {**dict(list(RUNES.items())[:3]), "master-rune-of-the-first-bell": 1}
    report = validate(api, YSOLDE, runes={**runes, "master-rune-of-the-second-bell": 1})
    assert found(report) == [("type_limit", "runes", None)]
    assert report["problems"][0]["message"] == (
        "At most 1 Master rune card in the Rune deck; the deck has 2."
    )
    assert ref_of(report, "type_limit") == "9.13.5"


def test_a_tales_ruler_with_a_villains_card_is_exclusive_keywords(api):
    main = {**MAIN, "tidepool-scholar": 3, "wolf-of-the-crossroads": 1}
    report = validate(api, ROSALIND, main=main)
    assert found(report) == [("exclusive_keywords", "main", "wolf-of-the-crossroads")]
    assert report["problems"][0]["message"] == (
        "Wolf of the Crossroads has the keyword Villains, and Rosalind, Teller of Tales has"
        " Tales: a deck may not hold both."
    )
    assert ref_of(report, "exclusive_keywords") == "9.15"
    tales = {**MAIN, "tidepool-scholar": 3, "snow-glass-maiden": 1}
    assert validate(api, ROSALIND, main=tales)["legal"]


def test_will_of_hope_and_will_of_despair_in_the_side_deck_are_exclusive_keywords_too(api):
    side = {"candle-of-last-hope": 2, "chorus-of-despair": 1}
    report = validate(api, SERAPHINE, side=side)
    assert found(report) == [("exclusive_keywords", "side", "chorus-of-despair")]


def test_a_grimoire_ruler_has_a_legal_extra_deck_of_five_names(api):
    assert validate(api, CORVIN, extra=EXTRA)["legal"]
    report = validate(api, CORVIN, extra={**EXTRA, "gale-sprite": 2})
    assert found(report) == [
        ("deck_size", "extra", None),
        ("copy_limit", "extra", "gale-sprite"),
    ]
    assert [ref_of(report, code) for code in ("deck_size", "copy_limit")] == ["9.12.2", "9.12.4"]
    report = validate(api, SERAPHINE, extra=EXTRA)
    assert found(report) == [("section_closed", "extra", None)]


def test_a_stranger_ruler_has_a_legal_stranger_deck_of_ten(api):
    assert validate(api, WREN, stranger=STRANGERS)["legal"]
    nine = {**STRANGERS, "stranger-in-the-iron-mask": 1}
    assert found(validate(api, WREN, stranger=nine)) == [("deck_size", "stranger", None)]
    three = {**STRANGERS, "stranger-in-the-iron-mask": 1, "stranger-from-the-glass-sea": 3}
    assert found(validate(api, WREN, stranger=three)) == [
        ("copy_limit", "stranger", "stranger-from-the-glass-sea")
    ]


def test_a_card_of_two_types_counts_its_copies_across_main_and_runes(api):
    """Hymn of Hollow Night is a chant and a rune: four in the main deck and one in the rune
    deck make five copies of a name across 404.1's decks."""
    main = {**MAIN, "tidepool-scholar": 0, "hymn-of-hollow-night": 4}
    runes = {**dict(list(RUNES.items())[:4]), "hymn-of-hollow-night": 1}
    report = validate(api, YSOLDE, main=main, runes=runes)
    assert found(report) == [("copy_limit", None, "hymn-of-hollow-night")]
    assert ref_of(report, "copy_limit") == "9.8.1"
    main["hymn-of-hollow-night"], main["tidepool-scholar"] = 3, 1
    assert validate(api, YSOLDE, main=main, runes=runes)["legal"]


def test_a_pure_rune_cannot_go_in_the_main_deck(api):
    main = {**MAIN, "tidepool-scholar": 3, "rune-of-quiet-wings": 1}
    report = validate(api, YSOLDE, main=main)
    assert found(report) == [("wrong_section", "main", "rune-of-quiet-wings")]


def test_a_j_ruler_face_name_names_its_ruler_in_deck_text(alice):
    fow = Game.objects.get(slug="force-of-will")
    fmt = fow.formats.get(slug="constructed")
    text = "Ysolde, Choir Eternal\nRune deck:\n" + "\n".join(
        f"1 {slug.replace('-', ' ')}" for slug in RUNES
    )
    parsed = deck_services.parse_deck_text(game=fow, fmt=fmt, text=text)
    assert parsed.leader.slug == YSOLDE
    assert {(card.slug, section) for (card, section) in parsed.contents} == {
        (slug, "runes") for slug in RUNES
    }


def test_every_problem_links_to_its_rules_section(api, client):
    report = validate(api, SERAPHINE, runes={"master-rune-of-the-first-bell": 2})
    assert {p["code"] for p in report["problems"]} == {
        "section_closed",
        "deck_size",
        "copy_limit",
        "type_limit",
    }
    for problem in report["problems"]:
        parts = urlsplit(problem["rule_url"])
        page = client.get(parts.path)
        assert page.status_code == 200, problem
        assert f'id="{parts.fragment}"' in page.content.decode(), problem


# --- the format's page and the builder read the same rules in words ----------------------------


def constructed_engine():
    return Game.objects.get(slug=GAME).formats.get(slug="constructed").engine()


def test_the_new_rule_kinds_read_as_sentences_on_the_format_page():
    from cards import legality

    fmt = constructed_engine()
    said = {rule["section"]: legality.describe(rule, fmt) for rule in fmt.rules}
    assert said["9.12.2"] == "The Extra deck holds at most 5 cards."
    assert said["9.13.2"] == "The Rune deck holds 0 or 5 cards."
    assert said["9.13.1"] == (
        "The Rune deck may hold cards only when the Ruler has the keyword Divinity."
    )
    assert said["9.13.3"] == "The Rune deck takes only these card types: Rune, Master rune."
    assert said["9.8.1"] == (
        "At most 4 copies of a card name, counted across the Main deck, the Side deck, the Extra"
        " deck and the Rune deck."
    )
    assert said["9.13.4"] == "At most 1 copy of a card name in the Rune deck."
    assert said["9.14.4"] == "At most 2 copies of a card name in the Stranger deck."
    assert said["9.13.5"] == "At most 1 Master rune card in the Rune deck."
    assert said["9.15"] == (
        "A deck may not mix Tales cards with Villains cards, nor Will of Hope cards with Will of"
        " Despair cards; the Ruler's keywords count too."
    )


def test_closed_sections_in_short_follow_the_sections_name():
    from cards import legality

    fmt = constructed_engine()
    seraphine = Game.objects.get(slug=GAME).leaders.get(slug=SERAPHINE).info()
    assert legality.closed_sections(fmt, seraphine, short=True) == {
        "extra": "needs a Ruler with Grimoire",
        "runes": "needs a Ruler with Divinity",
        "stranger": "needs a Ruler with Stranger",
    }
    ysolde = Game.objects.get(slug=GAME).leaders.get(slug=YSOLDE).info()
    assert list(legality.closed_sections(fmt, ysolde, short=True)) == ["extra", "stranger"]
    twice = legality.Format.from_data(
        {
            "sections": [{"slug": "main", "name": "Deck"}, {"slug": "vault", "name": "Vault"}],
            "rules": [
                {"rule": "section_gate", "deck": "vault", "keyword": "Keys"},
                {"rule": "section_gate", "deck": "vault", "keyword": "Locks"},
            ],
        },
        leader_label="Hero",
    )
    assert legality.closed_sections(twice, None, short=True) == {
        "vault": "needs a Hero with Keys and Locks"
    }


def test_the_format_page_lists_every_rule_with_its_section_and_the_cr_rules(client):
    response = client.get(f"/games/{GAME}/formats/constructed/")
    assert response.status_code == 200
    page = response.content.decode()
    for number in ("9.8.1", "9.12.1", "9.12.4", "9.13.5", "9.14.2", "9.15"):
        assert f"rule {number}</a>" in page, number
    for words in ("402.5", "402.6", "402.7", "403.1a", "404.1", "404.2"):
        assert words in page, words
    assert (
        'Rune deck <span class="muted small">(needs a Ruler with Divinity)</span></td>'
        '<td class="section-size">0 or 5</td>'
    ) in page
