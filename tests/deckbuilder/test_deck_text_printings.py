"""Deck text by printing number (issue 23, point 5; card-data.md "Deck text and sets"), over the
Force of Will sample game (sets BEL, TID, PR; Lantern Acolyte is BEL-001 and PR-001, Cinder
Hound BEL-005 and PR-002, the ruler Seraphine of the Dawn Bell BEL-100): lines name cards by
name, by printing number or as `Name (NUMBER)`, matched in a constant number of queries
(cards.matching); the printing named is kept by the entry (DeckCard.printing), exported back,
copied and restored, and the API's entries read and write it; lines under a section header the
format lacks go in no section."""

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cards import matching
from cards.models import Card, Format, Game, Leader
from deckbuilder import history, services
from deckbuilder.models import Deck, DeckCard
from tests.conftest import api_client

pytestmark = pytest.mark.django_db

DECKS = "/api/decks/"
RULER = "Seraphine of the Dawn Bell"


@pytest.fixture
def fow(db) -> Game:
    return Game.objects.get(slug="force-of-will")


@pytest.fixture
def casual(fow) -> Format:
    fmt = Format.objects.get(game=fow, slug="casual")
    assert fmt.version_list  # read once and held, as the vocabulary's formats hold them
    return fmt


def parse(fow, casual, *lines: str) -> services.ParsedDeck:
    return services.parse_deck_text(game=fow, fmt=casual, text="\n".join(lines))


def errors_of(fow, casual, *lines: str) -> list[str]:
    with pytest.raises(services.TextImportError) as caught:
        parse(fow, casual, *lines)
    return caught.value.errors


def by_slug(parsed: services.ParsedDeck) -> tuple[dict, dict]:
    """(contents, printings) keyed by (card slug, section)."""
    contents = {(card.slug, section): n for (card, section), n in parsed.contents.items()}
    printings = {(card.slug, section): p for (card, section), p in parsed.printings.items()}
    return contents, printings


def entries(deck: Deck) -> set[tuple[str, str, int, str]]:
    return set(
        DeckCard.objects.filter(deck=deck).values_list("card__slug", "section", "count", "printing")
    )


# --- reading lines -----------------------------------------------------------------------------


def test_a_line_names_its_card_by_printing_number_in_any_case_and_keeps_that_printing(fow, casual):
    parsed = parse(fow, casual, RULER, "4 BEL-001", "3 pr-002", "2 Undertow")
    contents, printings = by_slug(parsed)
    assert contents == {
        ("lantern-acolyte", "main"): 4,
        ("cinder-hound", "main"): 3,
        ("undertow", "main"): 2,
    }
    assert printings == {("lantern-acolyte", "main"): "BEL-001", ("cinder-hound", "main"): "PR-002"}


def test_a_cards_own_name_wins_over_the_printing_number_of_another_card(fow, casual):
    # A card named like Dawnspire Paladin's printing BEL-002: the name wins, in any case.
    Card.objects.filter(game=fow, slug="undertow").update(name="BEL-002")
    for text in ("4 BEL-002", "4 bel-002"):
        contents, printings = by_slug(parse(fow, casual, RULER, text))
        assert contents == {("undertow", "main"): 4}
        assert printings == {}
    contents, _ = by_slug(parse(fow, casual, RULER, "4 Dawnspire Paladin (BEL-002)"))
    assert contents == {("dawnspire-paladin", "main"): 4}


def test_a_name_with_one_of_its_printings_in_parentheses_keeps_that_printing(fow, casual):
    parsed = parse(fow, casual, RULER, "4 Lantern Acolyte (pr-001)", "2 cinder hound (BEL-005)")
    contents, printings = by_slug(parsed)
    assert contents == {("lantern-acolyte", "main"): 4, ("cinder-hound", "main"): 2}
    assert printings == {("lantern-acolyte", "main"): "PR-001", ("cinder-hound", "main"): "BEL-005"}


def test_a_name_with_a_printing_of_another_card_or_of_none_is_reported_and_nothing_is_written(
    fow, casual, alice
):
    lines = [
        RULER,  # 1
        "4 Lantern Acolyte (BEL-002)",  # 2: Dawnspire Paladin's
        "4 Cinder Hound (XYZ-999)",  # 3: no such printing
        "4 Undertow (BEL-100)",  # 4: the ruler's
        "2 Kindled Spear (BEL-007)",  # 5: fine
    ]
    assert errors_of(fow, casual, *lines) == [
        "line 2: BEL-002 is a printing of Dawnspire Paladin, not of Lantern Acolyte",
        "line 3: Cinder Hound has no printing 'XYZ-999' in Force of Will",
        "line 4: BEL-100 is a printing of Seraphine of the Dawn Bell, not of Undertow",
    ]
    before = Deck.objects.count()
    with pytest.raises(services.TextImportError):
        services.deck_import(owner=alice, game=fow, text="\n".join(lines))
    assert Deck.objects.count() == before


def test_the_leader_line_may_give_a_printing_number_of_the_leader(fow, casual):
    for first in ("BEL-100", "bel-100", "Seraphine of the Dawn Bell (BEL-100)"):
        parsed = parse(fow, casual, first, "4 Lantern Acolyte")
        assert parsed.leader == Leader.objects.get(game=fow, slug="seraphine-of-the-dawn-bell")
        assert by_slug(parsed)[0] == {("lantern-acolyte", "main"): 4}


def test_a_printing_of_the_other_kind_is_reported_as_whose_it_is(fow, casual):
    assert errors_of(fow, casual, "BEL-001", "4 BEL-101") == [
        "line 1: BEL-001 is a printing of the card Lantern Acolyte, not of a ruler",
        "line 2: BEL-101 is a printing of the ruler Captain Brand Ashford, not of a card",
    ]


def test_an_unknown_name_or_number_keeps_its_message(fow, casual):
    assert errors_of(fow, casual, "Nobody", "4 XYZ-001", "4 Nothing (BEL-001)") == [
        "line 1: no ruler named 'Nobody' in Force of Will",
        "line 2: no card named 'XYZ-001' in Force of Will",
        "line 3: no card named 'Nothing (BEL-001)' in Force of Will",
    ]


# --- unknown section headers -------------------------------------------------------------------


def test_lines_under_an_unknown_header_go_in_no_section_until_the_next_known_header(fow, casual):
    lines = [
        RULER,  # 1
        "4 Lantern Acolyte",  # 2
        "Rune deck:",  # 3: Casual has none
        "4 Lantern Acolyte",  # 4: not "listed twice": it is in no section
        "# a comment",  # 5: skipped, not counted
        "1 Nothing Such",  # 6: its own error still
        "2 Undertow",  # 7
        "Side deck:",  # 8: known again
        "2 Undertow",  # 9: read into the side deck
        "2 Undertow",  # 10: listed twice there
    ]
    assert errors_of(fow, casual, *lines) == [
        "line 3: no section 'Rune deck' in Casual (sections: Main deck, Magic stone deck, "
        "Side deck); the 3 lines under it (lines 4–7) were put in no section",
        "line 6: no card named 'Nothing Such' in Force of Will",
        "line 10: Undertow is listed twice in this section",
    ]


def test_an_unknown_header_with_one_line_or_none_under_it(fow, casual):
    known = "(sections: Main deck, Magic stone deck, Side deck)"
    assert errors_of(fow, casual, RULER, "Runes:", "1 Undertow", "Graveyard:") == [
        f"line 2: no section 'Runes' in Casual {known}; the 1 line under it (line 3) was put "
        "in no section",
        f"line 4: no section 'Graveyard' in Casual {known}",
    ]


# --- export and import round trip --------------------------------------------------------------

PRINTED = [
    RULER,
    "4 Lantern Acolyte (PR-001)",
    "4 bel-005",
    "2 Undertow",
    "Magic stone deck:",
    "8 BEL-019",
    "2 Twilight Geode",
    "Side deck:",
    "2 Magic Stone of Light (TID-011)",
]


def test_export_writes_the_printing_and_import_reads_it_back(fow, alice, bob):
    deck = services.deck_import(owner=alice, game=fow, text="\n".join(PRINTED))
    assert entries(deck) == {
        ("lantern-acolyte", "main", 4, "PR-001"),
        ("cinder-hound", "main", 4, "BEL-005"),
        ("undertow", "main", 2, ""),
        ("magic-stone-of-light", "stones", 8, "BEL-019"),
        ("twilight-geode", "stones", 2, ""),
        ("magic-stone-of-light", "side", 2, "TID-011"),
    }
    text = services.deck_export_text(deck)
    assert text.splitlines() == [
        "# Force of Will — Casual (game: force-of-will; format: casual)",
        RULER,
        "4 Cinder Hound (BEL-005)",
        "4 Lantern Acolyte (PR-001)",
        "2 Undertow",
        "Magic stone deck:",
        "8 Magic Stone of Light (BEL-019)",
        "2 Twilight Geode",
        "Side deck:",
        "2 Magic Stone of Light (TID-011)",
    ]
    again = services.deck_import(owner=bob, game=fow, text=text)
    assert entries(again) == entries(deck)
    assert services.deck_export_text(again) == text


def test_copy_restore_and_a_change_of_format_keep_the_printing(fow, alice, bob):
    deck = services.deck_import(owner=alice, game=fow, text="\n".join(PRINTED))
    printed = entries(deck)
    assert entries(services.deck_copy(deck=deck, owner=bob)) == printed

    services.deck_update(deck=deck, format=Format.objects.get(game=fow, slug="constructed"))
    assert entries(deck) == printed
    first = deck.versions.get(number=1)
    assert {r.get("printing") for r in first.contents} == {
        "PR-001",
        "BEL-005",
        "BEL-019",
        "TID-011",
        None,
    }

    services.deck_update(deck=deck, contents={(Card.objects.get(slug="undertow"), "main"): 3})
    assert entries(deck) == {("undertow", "main", 3, "")}
    services.deck_restore_version(deck=deck, number=1)
    assert entries(deck) == printed


def test_the_builders_plus_and_minus_keep_the_printing(fow, alice):
    deck = services.deck_import(owner=alice, game=fow, text="\n".join(PRINTED))
    acolyte = Card.objects.get(game=fow, slug="lantern-acolyte")
    services.deck_set_count(deck=deck, card=acolyte, count=lambda n: n - 1)
    assert ("lantern-acolyte", "main", 3, "PR-001") in entries(deck)
    latest = deck.versions.latest()
    assert {"card": "lantern-acolyte", "name": "Lantern Acolyte", "section": "main", "count": 3,
            "printing": "PR-001"} in latest.contents  # fmt: skip


# --- constant queries ---------------------------------------------------------------------------

THREE = [RULER, "4 Lantern Acolyte", "4 BEL-005"]
THIRTY = [
    "bel-100",
    *[f"1 BEL-{n:03}" for n in range(1, 13)],  # 12 by number
    "2 Crown of the Judged",
    "2 Feather Cloak (TID-001)",
    "1 Gravewing Bat",
    "1 Whisper of Ruin (tid-004)",
    "1 Pact of Black Ink",
    "1 Steamcaller Djinn",
    "Magic stone deck:",
    "4 Magic Stone of Light (BEL-019)",
    "4 TID-012",
    "1 Twilight Geode",
    "1 Stormglass Shard",
    "Side deck:",
    "1 Eclipse Oath",
    "1 TID-008",
    "1 Wayfarer's Compass",
    "1 Countess of the Hollow Moon",
    "1 Heartstone of the Five",
]


def test_parsing_takes_the_same_few_queries_for_3_lines_as_for_30(
    fow, casual, django_assert_num_queries
):
    assert len(THIRTY) == 30
    with CaptureQueriesContext(connection) as three:
        assert len(parse(fow, casual, *THREE).contents) == 2
    # Card names, the leader's name, printing numbers (one more when face names plug in).
    assert len(three) <= 4
    with django_assert_num_queries(len(three)):
        parsed = parse(fow, casual, *THIRTY)
    assert len(parsed.contents) == 27 and len(parsed.printings) == 17
    assert parsed.leader.slug == "seraphine-of-the-dawn-bell"


def test_matching_reads_only_what_the_texts_name(fow):
    found = matching.match(
        fow,
        cards=["Undertow", "pr-001", "Lantern Acolyte (BEL-001)", "nothing"],
        leaders=["BEL-100"],
    )
    assert set(found.cards) == {"undertow", "pr-001", "lantern acolyte (bel-001)"}
    assert found.cards["pr-001"] == matching.Match(
        Card.objects.get(game=fow, slug="lantern-acolyte"), "PR-001", "number"
    )
    assert found.cards["lantern acolyte (bel-001)"].by == "name+number"
    assert found.leaders["bel-100"].found.slug == "seraphine-of-the-dawn-bell"


# --- the API's entries ---------------------------------------------------------------------------


def fow_body(cards, **fields) -> dict:
    return {"game": "force-of-will", "name": "Bells", "leader": "seraphine-of-the-dawn-bell",
            "cards": cards, **fields}  # fmt: skip


def rows_of(response) -> list[dict]:
    return sorted(response.json()["cards"], key=lambda r: (r["section"], r["card"]))


def test_api_entries_write_and_read_their_printing(alice):
    client = api_client(alice)
    body = fow_body(
        [
            {"card": "lantern-acolyte", "count": 4, "printing": "pr-001"},
            {"card": "cinder-hound", "count": 2},
            {
                "card": "magic-stone-of-light",
                "count": 8,
                "section": "stones",
                "printing": "BEL-019",
            },
        ]
    )
    response = client.post(DECKS, body, format="json")
    assert response.status_code == 201, response.content
    assert rows_of(response) == [
        {"card": "cinder-hound", "count": 2, "section": "main"},
        {"card": "lantern-acolyte", "count": 4, "section": "main", "printing": "PR-001"},
        {"card": "magic-stone-of-light", "count": 8, "section": "stones", "printing": "BEL-019"},
    ]
    url = f"{DECKS}{response.json()['id']}/"
    assert rows_of(client.get(url)) == rows_of(response)

    # A row without "printing" keeps the entry's; "" (or null) clears it; a new one replaces it.
    change = [
        {"card": "lantern-acolyte", "count": 3},
        {"card": "cinder-hound", "count": 2, "printing": "BEL-005"},
        {"card": "magic-stone-of-light", "count": 8, "section": "stones", "printing": ""},
    ]
    response = client.patch(url, {"cards": change}, format="json")
    assert response.status_code == 200, response.content
    assert rows_of(response) == [
        {"card": "cinder-hound", "count": 2, "section": "main", "printing": "BEL-005"},
        {"card": "lantern-acolyte", "count": 3, "section": "main", "printing": "PR-001"},
        {"card": "magic-stone-of-light", "count": 8, "section": "stones"},
    ]
    text = client.get(url + "export/", {"format": "text"}).content.decode()
    assert "2 Cinder Hound (BEL-005)\n3 Lantern Acolyte (PR-001)\n" in text


NOT_ITS = "not of 'lantern-acolyte'."


@pytest.mark.parametrize(
    ("printing", "message"),
    [
        ("XYZ-999", "No printing 'XYZ-999' in Force of Will."),
        ("BEL-002", f"'BEL-002' is a printing of Dawnspire Paladin, {NOT_ITS}"),
        ("bel-100", f"'BEL-100' is a printing of Seraphine of the Dawn Bell, {NOT_ITS}"),
    ],
)
def test_api_write_of_a_printing_not_of_that_card_is_a_400_naming_it(alice, printing, message):
    client = api_client(alice)
    row = {"card": "lantern-acolyte", "count": 4, "printing": printing}
    before = Deck.objects.count()
    response = client.post(DECKS, fow_body([row]), format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"cards": [message]}
    assert Deck.objects.count() == before

    deck = client.post(DECKS, fow_body([{"card": "undertow", "count": 2}]), format="json").json()
    response = client.patch(f"{DECKS}{deck['id']}/", {"cards": [row]}, format="json")
    assert response.status_code == 400 and response.json() == {"cards": [message]}
    assert [r.get("printing") for r in client.get(f"{DECKS}{deck['id']}/").json()["cards"]] == [
        None
    ]


def test_validate_ignores_the_printing(api):
    body = {
        "leader": "seraphine-of-the-dawn-bell",
        "cards": [{"card": "lantern-acolyte", "count": 4, "printing": "NOT-A-NUMBER"}],
    }
    response = api.post("/api/games/force-of-will/validate/", body, format="json")
    assert response.status_code == 200, response.content


def test_history_records_the_printing_and_its_diff_names_a_change_of_printing(alice, settings):
    settings.HISTORY_MERGE_SECONDS = 0  # each change a version, however soon after the last
    client = api_client(alice)
    row = {"card": "lantern-acolyte", "count": 4, "printing": "PR-001"}
    deck = client.post(DECKS, fow_body([row]), format="json").json()
    url = f"{DECKS}{deck['id']}/"
    client.patch(url, {"cards": [{**row, "printing": "BEL-001"}]}, format="json")
    client.patch(url, {"cards": [{**row, "printing": None}]}, format="json")
    versions = list(Deck.objects.get(share_id=deck["id"]).versions.order_by("number"))
    assert [[r.get("printing") for r in v.contents] for v in versions] == [
        ["PR-001"],
        ["BEL-001"],
        [None],
    ]
    snapshots = [history.Snapshot.of(v) for v in versions]
    assert [str(c) for c in history.diff(snapshots[0], snapshots[1])] == [
        "Lantern Acolyte (Main deck): printing PR-001 → BEL-001"
    ]
    assert [str(c) for c in history.diff(snapshots[1], snapshots[2])] == [
        "Lantern Acolyte (Main deck): printing BEL-001 → none"
    ]


def test_names_beyond_ascii_match_in_any_case_as_before(fow, casual):
    Card.objects.filter(game=fow, slug="undertow").update(name="Ёлка Подводная")
    for text in ("2 Ёлка Подводная", "2 ёлка подводная", "2 ЁЛКА ПОДВОДНАЯ (BEL-012)"):
        contents, _ = by_slug(parse(fow, casual, RULER, text))
        assert contents == {("undertow", "main"): 2}, text


def test_long_lines_of_spaces_are_read_in_linear_time(fow, casual):
    # Lazy patterns backtracking over the spaces took seconds for each of these lines.
    spaces = " " * 20000
    start = time.perf_counter()
    errors = errors_of(fow, casual, RULER, f"1 a{spaces}b", f"1 a ({spaces}x", f"1 a ({spaces})")
    assert time.perf_counter() - start < 1
    assert [e.split(":")[0] for e in errors] == ["line 2", "line 3", "line 4"]
