"""A deck text says its game and format (issue 25, snag 1): the export's first line is a
comment naming both, which the import reads; a text without it lands in the game whose cards
its lines name; the import page offers every game's formats as a choice and never picks a game
silently. Texts without the line import through the API exactly as before."""

import re
from html import unescape

import pytest
from django.urls import reverse

from cards.models import Card, Format, Game
from deckbuilder import services
from deckbuilder.models import Deck
from tests.conftest import api_client

IMPORT = reverse("deck-import")
API_IMPORT = "/api/decks/import/"
RULER = "Seraphine of the Dawn Bell"
FOW_CONSTRUCTED = [  # what the Force of Will sample's Constructed format accepts
    RULER,
    "4 Lantern Acolyte",
    "Magic stone deck:",
    "8 Magic Stone of Light",
    "Side deck:",
    "2 Undertow",
]
COG_TYPED = "Kellantra\n2 Healing\n3 Plant A Seed\n3 Quiet Prayer\n"  # no header


@pytest.fixture
def fow(db):
    return Game.objects.get(slug="force-of-will")


def sections_of(deck: Deck) -> dict[tuple[str, str], int]:
    return {(e.section, e.card.slug): e.count for e in deck.entries.select_related("card")}


def constructed_deck(owner, fow) -> Deck:
    constructed = Format.objects.get(game=fow, slug="constructed")
    return services.deck_import(
        owner=owner, game=fow, format=constructed, text="\n".join(FOW_CONSTRUCTED), name="Bells"
    )


def form_errors(response) -> dict[str, list[str]]:
    return {name: list(errors) for name, errors in response.context["form"].errors.items()}


def test_the_export_starts_with_a_comment_naming_the_game_and_the_format(alice, fow):
    text = services.deck_export_text(constructed_deck(alice, fow))
    assert text.splitlines()[:2] == [
        "# Force of Will — Constructed (CR 12.7) (game: force-of-will; format: constructed)",
        RULER,
    ]
    assert services.read_header(text) == services.TextHeader("force-of-will", "constructed")


def test_a_constructed_export_imported_with_no_game_or_format_chosen_is_constructed_again(
    client, alice, bob, fow
):
    deck = constructed_deck(alice, fow)
    client.force_login(bob)
    body = {"game": "", "format": "", "name": "Again", "text": services.deck_export_text(deck)}
    response = client.post(IMPORT, body)
    assert response.status_code == 302, form_errors(response)
    again = Deck.objects.get(owner=bob, name="Again")
    assert (again.game, again.format.slug, again.leader) == (fow, "constructed", deck.leader)
    assert sections_of(again) == sections_of(deck)
    assert ("stones", "magic-stone-of-light") in sections_of(again)


def test_a_card_of_gods_text_typed_without_a_header_is_detected_as_card_of_gods(
    client, alice, game
):
    client.force_login(alice)
    response = client.post(IMPORT, {"game": "", "format": "", "text": COG_TYPED})
    assert response.status_code == 302, form_errors(response)
    deck = Deck.objects.get(owner=alice)
    assert (deck.game, deck.format.slug, deck.leader.name) == (game, "standard", "Kellantra")
    assert sections_of(deck) == {
        ("main", "healing"): 2,
        ("main", "plant-a-seed"): 3,
        ("main", "quiet-prayer"): 3,
    }


def test_detecting_the_game_takes_five_queries_whatever_the_text(django_assert_num_queries, game):
    names = list(Card.objects.filter(game=game).values_list("name", flat=True))
    text = "Kellantra\n" + "\n".join(f"1 {name}" for name in names * 50)
    with django_assert_num_queries(5):  # cards, leaders, faces, printings; then the game
        assert services.detect_game(text) == game


@pytest.mark.parametrize(
    ("text", "says"),
    [
        # one Berserk card, one Force of Will card: as many lines each
        (
            "1 Barkskin Mantle\n4 Lantern Acolyte\n",
            "several games as often (Berserk. Heroes: 1 line, Force of Will: 1 line)",
        ),
        ("2 No Such Card\n1 Nor This One\n", "no line of the text names a card or a leader"),
    ],
)
def test_an_unclear_game_is_a_form_error_asking_to_choose_it(client, alice, text, says):
    client.force_login(alice)
    response = client.post(IMPORT, {"game": "", "format": "", "text": text})
    assert response.status_code == 400
    [error] = form_errors(response)["game"]
    assert error.startswith("Choose the game") and says in error
    assert not Deck.objects.filter(owner=alice).exists()


def test_a_game_chosen_on_the_page_that_the_header_contradicts_is_a_form_error(client, alice, fow):
    text = services.deck_export_text(constructed_deck(alice, fow))
    client.force_login(alice)
    response = client.post(IMPORT, {"game": "card-of-gods", "format": "", "text": text})
    assert response.status_code == 400
    [error] = form_errors(response)["game"]
    assert "Force of Will (force-of-will)" in error and "Card of Gods (card-of-gods)" in error
    assert Deck.objects.filter(owner=alice).count() == 1


def test_a_header_contradicting_the_api_bodys_game_is_a_400_naming_both(alice, bob, fow):
    text = services.deck_export_text(constructed_deck(alice, fow))
    before = Deck.objects.count()
    response = api_client(bob).post(
        API_IMPORT, {"game": "card-of-gods", "text": text}, format="json"
    )
    assert response.status_code == 400
    [error] = response.json()["game"]
    assert "Force of Will (force-of-will)" in error and "Card of Gods (card-of-gods)" in error
    assert Deck.objects.count() == before


def test_through_the_api_a_text_without_header_imports_as_before_and_the_header_gives_the_format(
    alice, bob, fow
):
    exported = services.deck_export_text(constructed_deck(alice, fow))
    old_text = "\n".join(FOW_CONSTRUCTED)  # no header, as texts were before it
    api = api_client(bob)

    def imported(text, **body):
        body = {"game": "force-of-will", "text": text, **body}
        response = api.post(API_IMPORT, body, format="json")
        assert response.status_code == 201, response.content
        return response.json()

    old = imported(old_text)
    assert (old["format"], old["leader"]) == ("casual", "seraphine-of-the-dawn-bell")
    assert imported(old_text, format="constructed")["format"] == "constructed"
    assert imported(exported)["format"] == "constructed"  # the header's, none in the body
    assert imported(exported, format="casual")["format"] == "casual"  # the body's wins


def test_a_header_naming_a_format_its_game_lacks_is_a_format_error(alice):
    text = "# game: card-of-gods; format: constructed\n" + COG_TYPED
    body = {"game": "card-of-gods", "text": text}
    response = api_client(alice).post(API_IMPORT, body, format="json")
    assert response.status_code == 400
    [error] = response.json()["format"]
    assert "'constructed'" in error and "Standard (standard)" in error


def test_the_import_page_offers_every_games_formats_as_a_select_and_preselects_no_game(
    client, alice
):
    client.force_login(alice)
    html = client.get(IMPORT).content.decode()
    game_select = re.search(r'<select name="game".*?</select>', html, re.S).group(0)
    assert re.search(r'<option value="" selected>Detect from the text</option>', game_select)
    assert game_select.count("selected") == 1
    format_select = re.search(r'<select name="format".*?</select>', html, re.S).group(0)
    groups = re.findall(r'<optgroup label="([^"]*)">(.*?)</optgroup>', format_select, re.S)
    by_game = {
        unescape(label): re.findall(r'<option value="([^"]+)"', options)
        for label, options in groups
    }
    assert by_game["Force of Will"] == [
        "force-of-will/casual",
        "force-of-will/constructed",
        "force-of-will/wanderer-sample",
    ]
    assert by_game["Card of Gods"] == ["card-of-gods/standard"]
    assert '<input type="text" name="format"' not in html

    chosen = client.get(IMPORT, {"game": "force-of-will"}).content.decode()
    assert '<option value="force-of-will" selected>' in chosen


def test_a_format_chosen_on_the_page_gives_the_game_and_wins_over_the_header(client, alice, fow):
    text = services.deck_export_text(constructed_deck(alice, fow))
    client.force_login(alice)
    body = {"game": "", "format": "force-of-will/casual", "text": text, "name": "Casual"}
    response = client.post(IMPORT, body)
    assert response.status_code == 302, form_errors(response)
    assert Deck.objects.get(owner=alice, name="Casual").format.slug == "casual"


def test_comments_are_skipped_and_bad_lines_keep_their_numbers(fow):
    casual = Format.objects.get(game=fow, slug="casual")
    text = "\n".join(
        [
            "# Force of Will — Casual (game: force-of-will; format: casual)",  # 1
            RULER,  # 2
            "// my favourite",  # 3
            "4 Lantern Acolyte",  # 4
            "  # a comment, indented",  # 5
            "2 No Such Card",  # 6
        ]
    )
    with pytest.raises(services.TextImportError) as refused:
        services.parse_deck_text(game=fow, fmt=casual, text=text)
    assert refused.value.errors == ["line 6: no card named 'No Such Card' in Force of Will"]
    parsed = services.parse_deck_text(game=fow, fmt=casual, text=text.replace("2 No Such", "//"))
    assert parsed.leader.name == RULER
    assert {(card.slug, section): n for (card, section), n in parsed.contents.items()} == {
        ("lantern-acolyte", "main"): 4
    }
