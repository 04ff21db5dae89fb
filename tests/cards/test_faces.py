"""Card faces: the SVG drawn for a card without an image (cards.faces), the view serving it, and
the pictures the card grid, the builder, the deck page and the card page show (image or face).
"""

import re
import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import faces, services
from cards.models import Card, Game
from cards.templatetags.badges import card_image
from deckbuilder import services as deck_services
from deckbuilder.models import Visibility
from tests.html import html_of

SVG = "{http://www.w3.org/2000/svg}"
GAME = "card-of-gods"


def loaded(game_slug: str, slug: str) -> tuple[Card, Game]:
    """A card as the pages load it (for_listing()), with its game and the game's stats."""
    game = Game.objects.prefetch_related(*Game.VOCABULARY).get(slug=game_slug)
    card = Card.objects.filter(game=game).for_listing().get(slug=slug)
    card.game = game
    return card, game


def face_of(game_slug: str, slug: str) -> str:
    return faces.card_face_svg(*loaded(game_slug, slug))


def parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode())


def lines_of(root: ET.Element) -> list[str]:
    """The text of each <text> element, in document order."""
    return ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]


def face_url(slug: str, game: str = GAME) -> str:
    return reverse("card-face", kwargs={"game": game, "slug": slug})


# --- the drawing ----------------------------------------------------------------------------


def test_face_is_well_formed_svg_in_a_card_shaped_frame(game):
    root = parsed(face_of(GAME, "blood-pact"))
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox") == "0 0 250 350"
    assert root.find(f"{SVG}title").text == "Blood Pact"


def test_face_writes_name_cost_symbols_with_amounts_type_rarity_colours_and_text(game):
    lines = lines_of(parsed(face_of(GAME, "fiery-earth")))
    assert lines[0] == "Fiery Earth"
    # yellow ☀ pays creation, red ✹ destruction: in the game's colour order, amount first
    assert "1☀ 1✹" in lines
    assert "◆ Uncommon" in lines  # the rarity's symbol, with its name
    assert "God Card · Yellow / Red" in lines  # the type, and the colours in words too
    assert "The ground burns until the end of activation." in " ".join(lines)


def test_face_of_a_card_without_cost_or_colour_says_so_on_a_neutral_frame(game):
    svg = face_of(GAME, "quiet-prayer")
    lines = lines_of(parsed(svg))
    assert "No cost" in lines
    assert "God Card · Colourless" in lines
    assert f'fill="{faces.NEUTRAL}"' in svg


def test_frame_takes_the_colour_css_value_and_splits_for_several_colours(game):
    healing = face_of(GAME, "healing")  # green
    assert 'fill="#2e8b57"' in healing and "linearGradient" not in healing
    pact = parsed(face_of(GAME, "blood-pact"))  # three colours: one band each
    stops = [stop.get("stop-color") for stop in pact.iter(f"{SVG}stop")]
    assert sorted(set(stops)) == sorted({"#d4a017", "#c0392b", "#333333"})


def test_a_colour_value_that_is_not_a_colour_draws_the_neutral_frame(game):
    game.colours.filter(slug="green").update(css='red" onload="x')
    svg = face_of(GAME, "healing")
    assert "onload" not in svg
    assert f'fill="{faces.NEUTRAL}"' in svg


def test_face_writes_stats_with_their_names_and_keywords(db):
    lines = lines_of(parsed(face_of("force-of-will", "lantern-acolyte")))
    assert "ATK 200 / DEF 300" in lines
    assert "Human" in lines
    assert "Resonator · Light" in lines
    assert "1☀" in lines


def test_generic_cost_is_written_with_the_games_word_for_it(db):
    lines = lines_of(parsed(face_of("irdya", "hired-sellsword")))
    assert "2 Gold" in lines


def test_a_long_cost_is_written_whole_and_the_rarity_moves_to_the_type_line(db):
    cost, kind, rarity = list(
        parsed(face_of("force-of-will", "blazing-standard")).iter(f"{SVG}text")
    )[1:4]
    assert cost.text == "1♨ 1 Any attribute"
    assert (kind.text, rarity.text) == ("Addition · Fire", "◆ Uncommon")
    assert kind.get("y") == rarity.get("y") != cost.get("y")


def test_long_text_is_wrapped_onto_lines_that_fit_and_ends_in_an_ellipsis(game):
    text = " ".join(
        f"Sentence {i} makes the effect text much longer than a face." for i in range(30)
    )
    services.save_card(
        game=game,
        fields={"name": "Verbose", "rarity": game.rarities.first(), "text": text},
        keywords=[],
    )
    root = parsed(face_of(GAME, "verbose"))
    rule = float(root.find(f".//{SVG}line").get("y1"))  # under the type line
    body = [e for e in root.iter(f"{SVG}text") if float(e.get("y")) > rule]
    lines = ["".join(e.itertext()) for e in body]
    assert len(lines) > 5  # wrapped, not one long line
    assert lines[0].startswith("Sentence 0 makes")
    assert all(faces.text_width(line, faces.TEXT_SIZE) <= faces.LINE_WIDTH for line in lines)
    assert lines[-1].endswith("…")
    assert len(" ".join(lines)) < len(text)  # cut where the room ends
    ys = [float(e.get("y")) for e in body]
    assert ys == sorted(ys) and ys[-1] < faces.HEIGHT - faces.BORDER


def test_wrap_keeps_paragraphs_and_breaks_words_longer_than_a_line():
    lines = faces.wrap("One two.\nThree " + "x" * 80, 11.5, 100, 10)
    assert lines[0] == "One two."
    assert lines[1] == "Three"
    assert all(faces.text_width(line, 11.5) <= 100 for line in lines)
    assert "".join(lines[2:]) == "x" * 80


def test_long_name_takes_two_smaller_lines(game):
    name = "The Extraordinarily Long Name Of A Rather Verbose Card"
    services.save_card(
        game=game, fields={"name": name, "rarity": game.rarities.first()}, keywords=[]
    )
    root = parsed(face_of(GAME, "the-extraordinarily-long-name-of-a-rather-verbose-card"))
    first, second = list(root.iter(f"{SVG}text"))[:2]
    assert first.get("font-weight") == second.get("font-weight") == "bold"
    assert f"{first.text} {second.text}".rstrip("…") in name


def test_markup_in_name_and_text_is_escaped_never_a_script_element(game):
    services.save_card(
        game=game,
        fields={
            "name": 'Evil <script>alert("x")</script> & Co\'s',
            "slug": "evil",
            "rarity": game.rarities.first(),
            "text": '<script>steal()</script> & <img src=x onerror=alert(1)> "quoted"',
            "condition": "</text><script>x()</script>",
        },
        keywords=["<b>Bold</b>"],
    )
    svg = face_of(GAME, "evil")
    root = parsed(svg)  # well formed
    tags = {element.tag for element in root.iter()}
    assert f"{SVG}script" not in tags and "script" not in tags and f"{SVG}img" not in tags
    assert "<script" not in svg and "<img" not in svg
    assert root.find(f"{SVG}title").text == 'Evil <script>alert("x")</script> & Co\'s'
    text = " ".join(lines_of(root))
    assert "<script>steal()</script> & <img" in text
    assert "<b>Bold</b>" in text


def test_characters_xml_forbids_are_dropped_so_the_face_still_parses(game):
    card, game = loaded(GAME, "healing")
    card.text = "Heal\x00 all\x0b lost\x1f wounds."  # in memory: PostgreSQL refuses NUL
    assert "Heal all lost wounds." in lines_of(parsed(faces.card_face_svg(card, game)))


def test_faces_of_every_sample_card_parse(db):
    for card in Card.objects.select_related("game").order_by("pk"):
        parsed(face_of(card.game.slug, card.slug))


def test_drawing_a_face_runs_no_query(game):
    card, game = loaded(GAME, "blood-pact")
    with CaptureQueriesContext(connection) as queries:
        faces.card_face_svg(card, game)
    assert len(queries) == 0


# --- the view -------------------------------------------------------------------------------


def test_face_view_serves_svg_cached_for_a_day_under_a_scriptless_policy(client, game):
    response = client.get(face_url("plant-a-seed"))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert response["X-Content-Type-Options"] == "nosniff"
    cache = {part.strip() for part in response["Cache-Control"].split(",")}
    assert cache == {"public", "max-age=86400"}
    policy = response["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy
    assert "'unsafe-eval'" not in policy
    assert re.fullmatch(r'"[0-9a-f]{32}"', response["ETag"])
    assert "Plant A Seed" in lines_of(parsed(response.content.decode()))


def test_face_view_answers_304_to_its_etag_in_one_query(client, game):
    etag = client.get(face_url("healing"))["ETag"]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(face_url("healing"), HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag
    assert len(queries) == 1


def test_face_etag_changes_when_the_card_changes(client, game):
    before = client.get(face_url("healing"))["ETag"]
    healing = Card.objects.get(game=game, slug="healing")
    healing.text = "Heal everything."
    healing.save()
    response = client.get(face_url("healing"), HTTP_IF_NONE_MATCH=before)
    assert response.status_code == 200
    assert response["ETag"] != before
    assert "Heal everything." in " ".join(lines_of(parsed(response.content.decode())))


def test_face_etag_changes_when_a_colour_of_the_game_changes(client, game):
    before = client.get(face_url("healing"))["ETag"]
    green = game.colours.get(slug="green")
    green.css = "#00aa00"
    green.save()
    response = client.get(face_url("healing"), HTTP_IF_NONE_MATCH=before)
    assert response.status_code == 200
    assert 'fill="#00aa00"' in response.content.decode()


@pytest.mark.parametrize(
    ("game_slug", "slug"),
    [(GAME, "no-such-card"), ("no-such-game", "healing"), ("irdya", "healing")],
)
def test_face_of_an_unknown_card_is_404(client, game, game_slug, slug):
    assert client.get(face_url(slug, game_slug)).status_code == 404


def test_face_view_draws_in_six_queries_whatever_the_vocabulary(client, db):
    for game_slug, slug in [(GAME, "blood-pact"), ("force-of-will", "lantern-acolyte")]:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(face_url(slug, game_slug))
        assert response.status_code == 200
        # the card with game, rarity, type; colours, keywords, other faces and types, stats
        assert len(queries) == 6


def test_face_view_draws_the_same_face_as_the_loaded_card(client, db):
    for game_slug, slug in [(GAME, "blood-pact"), ("force-of-will", "lantern-acolyte")]:
        served = client.get(face_url(slug, game_slug)).content.decode()
        assert served == face_of(game_slug, slug)


def test_face_view_refuses_post(client, game):
    assert client.post(face_url("healing")).status_code == 405


# --- the pages show it ----------------------------------------------------------------------


def test_picture_shows_the_face_or_else_the_image_url(game):
    card, game = loaded(GAME, "healing")
    html = card_image(card, game)
    assert f'src="{face_url("healing")}"' in html
    assert 'loading="lazy"' in html and 'decoding="async"' in html
    assert 'width="100" height="140"' in html
    card.image = "https://img.example.com/healing.png"
    html = render_to_string("partials/card_tile.html", {"card": card, "game": game})
    assert 'src="https://img.example.com/healing.png"' in html
    assert "face.svg" not in html


def test_name_with_preview_links_the_card_and_hides_the_picture_from_screen_readers(game):
    card, game = loaded(GAME, "healing")
    html = card_image(card, game, "name")
    assert f'<a href="{reverse("card-detail", args=[GAME, "healing"])}">Healing</a>' in html
    assert re.search(
        r'<span class="card-preview" aria-hidden="true"><img src="[^"]+face\.svg" alt=""', html
    )


def test_card_grid_shows_each_cards_face_and_the_image_where_there_is_one(client, game):
    Card.objects.filter(game=game, slug="healing").update(image="https://img.example.com/h.png")
    html = html_of(client.get(reverse("card-list", args=[GAME])))
    assert html.count('class="card-thumb"') == Card.objects.filter(game=game).count()
    assert f'src="{face_url("blood-pact")}"' in html
    assert 'src="https://img.example.com/h.png"' in html
    assert f'src="{face_url("healing")}"' not in html


def test_card_page_shows_the_large_face_with_the_card_name_as_alt(client, game):
    html = html_of(client.get(reverse("card-detail", args=[GAME, "despair"])))
    assert re.search(rf'<img class="card-picture" src="{face_url("despair")}" alt="Despair"', html)


def test_builder_list_shows_a_thumbnail_and_a_preview_of_each_card(client, alice, game):
    deck = deck_services.deck_create(
        owner=alice, game=game, leader=None, name="Faces", visibility=Visibility.PRIVATE
    )
    client.force_login(alice)
    html = html_of(client.get(reverse("deck-edit", args=[deck.share_id])))
    assert f'class="card-thumb small" src="{face_url("blood-pact")}"' in html
    assert 'class="has-preview"' in html and 'class="card-preview" aria-hidden="true"' in html


def test_deck_page_card_names_preview_their_faces(client, alice, game):
    deck = deck_services.deck_create(
        owner=alice,
        game=game,
        leader=None,
        name="Faces",
        visibility=Visibility.UNLISTED,
        contents={(Card.objects.get(game=game, slug="healing"), "main"): 2},
    )
    html = html_of(client.get(reverse("deck-detail", args=[deck.share_id])))
    preview = re.search(
        r'<span class="deck-card-name"><span class="has-preview">.*?</span></span>', html, re.S
    )
    assert preview and f'src="{face_url("healing")}" alt=""' in preview.group(0)


def test_pages_with_faces_keep_their_query_counts_constant(client, game):
    """The picture needs only the game's and the card's slugs: no query per card."""
    rarity = game.rarities.first()

    def count(url):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    url = reverse("card-list", args=[GAME])
    before = count(url)
    for i in range(12):
        services.save_card(
            game=game,
            fields={"name": f"Face {i:02d}", "rarity": rarity, "cost": {"life": 1}},
            keywords=["Keld"],
        )
    assert count(url) == before
