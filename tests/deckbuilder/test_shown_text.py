"""Names and texts people read refuse control and bidirectional-override characters (400 naming
the field), for decks written by players and for cards, leaders and rules written by staff."""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from cards import rulebook, services
from cards.models import Game
from cards.text import one_line, several_lines
from deckbuilder.models import Deck
from tests.conftest import api_client

pytestmark = pytest.mark.django_db
HIDDEN = ["\x01", "\x1b[31m", "\u202e", "\u2066", "\x7f", "\x85"]


@pytest.mark.parametrize("char", HIDDEN)
def test_hidden_characters_are_refused_with_their_code_point(char):
    with pytest.raises(ValidationError, match=f"U\\+{ord(char[0]):04X} at position 4"):
        one_line("abc" + char + "def")
    with pytest.raises(ValidationError):
        several_lines("line\n" + char)


def test_ordinary_text_of_every_script_passes():
    one_line("Ярость Богов — 怒り 👩‍👩‍👧 Ünïcödé")  # the emoji holds zero-width joiners: fine
    several_lines("First line\n\tindented\r\nthird")
    with pytest.raises(ValidationError):
        one_line("two\nlines")


@pytest.mark.parametrize("field", ["name", "description"])
@pytest.mark.parametrize("char", HIDDEN)
def test_api_refuses_a_deck_name_or_description_with_hidden_characters(alice, field, char):
    body = {"game": "card-of-gods", "leader": None, "name": "Plain", "cards": []}
    body[field] = f"Deck{char}name"
    response = api_client(alice).post("/api/decks/", body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert not Deck.objects.filter(owner=alice).exists()


def test_a_multi_line_description_is_fine(alice):
    body = {"game": "card-of-gods", "leader": None, "name": "Plain", "cards": []}
    body["description"] = "Line one.\nLine two."
    assert api_client(alice).post("/api/decks/", body, format="json").status_code == 201


def test_the_new_deck_page_refuses_a_bidi_override_in_the_name(alice):
    client = Client()
    client.force_login(alice)
    form = {"game": "card-of-gods", "leader": "gottfried", "name": "evil\u202etxt.exe"}
    response = client.post("/decks/new/", form)
    assert response.status_code == 400
    assert "bidirectional" in response.content.decode()
    assert not Deck.objects.filter(owner=alice).exists()


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("cards", {"name": "Tricky\u202eName", "rarity": "common", "cost": {"life": 1}}),
        ("cards", {"name": "Fine", "rarity": "common", "cost": {"life": 1}, "text": "a\x1bb"}),
        ("leaders", {"name": "Bad\x01Leader", "colours": ["green"]}),
    ],
)
def test_staff_writes_refuse_hidden_characters_naming_the_field(staff_api, kind, body):
    response = staff_api.post(f"/api/games/card-of-gods/{kind}/", body, format="json")
    assert response.status_code == 400, response.content
    assert set(response.json()) <= {"name", "text"} and response.json()


def test_a_rules_document_with_a_bidi_override_is_refused_naming_its_line():
    game = Game.objects.get(slug="card-of-gods")
    text = "# 1 Basics\n\nPlay fair.\n\n# 2 Turns\n\nYour \u202eturn.\n"
    with pytest.raises(rulebook.RulesParseError) as error:
        services.import_rules(game=game, text=text)
    assert error.value.line == 7 and "U+202E" in error.value.message


def test_form_feeds_of_a_pdf_dump_are_page_layout_not_text():
    document = rulebook.parse_document("1. Basics\n1.1. Play fair.\n\f1.2. Take turns.\n")
    assert [s.number for s in document.sections][-1] == "1.2"
