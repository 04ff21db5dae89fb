"""The home page: every game with its picture, the flagship first, a "Build a deck" link for
everyone (signed out, it leads to log in or sign up and back), in a number of queries that does
not grow with the games; and the game page's picture and "Build a deck"."""

import json
import re
from urllib.parse import quote

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services
from cards.models import Art, CardSet, Game, Leader, Printing
from tests.conftest import SAMPLE
from tests.html import html_of

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"


def game_items(response) -> list[str]:
    """The HTML of each game of the home page, in order."""
    html = html_of(response)
    games = html[html.index('<ul class="game-list">') :]
    return games[: games.index("</section>")].split('<li class="game-item')[1:]


def game_slugs(response) -> list[str]:
    return [re.search(r'href="/games/([^/]+)/"', item).group(1) for item in game_items(response)]


def build_a_deck_href(slug: str) -> str:
    return f"{reverse('deck-new')}?game={slug}"


def test_the_flagship_game_comes_first_then_the_others_by_name(client, game):
    slugs = game_slugs(client.get(reverse("home")))
    assert slugs[0] == GAME
    others = Game.objects.exclude(slug=GAME).order_by("name")
    assert slugs[1:] == [g.slug for g in others]


def test_the_flagship_is_a_setting(client, game, settings):
    settings.FLAGSHIP_GAME = "irdya"
    slugs = game_slugs(client.get(reverse("home")))
    assert slugs[0] == "irdya"
    assert slugs.index(GAME) > 0


def test_each_game_shows_a_picture_of_one_of_its_cards(client, game):
    items = game_items(client.get(reverse("home")))
    assert len(items) == Game.objects.count()
    for slug, item in zip(game_slugs(client.get(reverse("home"))), items, strict=True):
        first = Game.objects.get(slug=slug).cards.order_by("name").first()
        face = reverse("card-face", kwargs={"game": slug, "slug": first.slug})
        assert f'<img class="card-thumb" src="{face}" alt=""' in item, slug


def test_a_leader_with_a_picture_is_shown_rather_than_a_card(client, game):
    kellantra = Leader.objects.get(game=game, slug="kellantra")
    kellantra.image = "https://img.example.com/kellantra.jpg"
    kellantra.save()
    [item] = [i for i in game_items(client.get(reverse("home"))) if f"/games/{GAME}/" in i]
    assert 'src="https://img.example.com/kellantra.jpg"' in item
    assert "/face.svg" not in item
    page = html_of(client.get(reverse("game-detail", kwargs={"game": GAME})))
    assert 'src="https://img.example.com/kellantra.jpg"' in page
    assert f'href="{reverse("leader-detail", args=[GAME, "kellantra"])}">Kellantra</a>' in page


@pytest.mark.parametrize("signed_in", [False, True])
def test_every_game_offers_build_a_deck_to_everyone(client, game, alice, signed_in):
    if signed_in:
        client.force_login(alice)
    response = client.get(reverse("home"))
    for slug, item in zip(game_slugs(response), game_items(response), strict=True):
        link = re.search(r'<a class="button" href="([^"]+)">Build a deck', item)
        assert link and link.group(1) == build_a_deck_href(slug), slug
    page = html_of(client.get(reverse("game-detail", kwargs={"game": GAME})))
    assert f'href="{build_a_deck_href(GAME)}">Build a deck</a>' in page


def test_build_a_deck_signed_out_leads_to_log_in_or_sign_up_and_back(client, game):
    target = build_a_deck_href(GAME)
    response = client.get(target)
    login = f"{reverse('login')}?next={quote(target, safe='/')}"
    assert response.status_code == 302 and response.url == login
    page = html_of(client.get(login))
    assert f'href="{reverse("signup")}?next={quote(target, safe="/")}"' in page


def with_art(card) -> None:
    """Art for `card`'s (new) printing: a stored picture's row, as cards.art keeps it."""
    digest = f"{card.pk:064x}"
    shown = Art.objects.create(
        digest=digest, width=250, height=350, fallback="jpg", renditions=[SIZE]
    )
    card_set = CardSet.objects.get_or_create(game=card.game, code="ART", name="Art")[0]
    Printing.objects.create(card=card, set=card_set, number=f"ART-{card.pk}", art=shown)


SIZE = {"size": "small", "width": 160, "height": 224}


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_the_home_page_queries_do_not_grow_with_the_games(client, game):
    def queries() -> int:
        client.get(reverse("home"))  # the navigation's games, read once per version of them
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("home")).status_code == 200
        return len(ctx.captured_queries)

    def more_game(n: int, *, leader_image: str = "", art: bool = False) -> None:
        more = services.save_game(
            definition={**definition, "slug": f"more-{n}", "name": f"More {n}"}
        )
        card = services.save_card(game=more, fields={"name": f"Card {n}"}, keywords=[])
        services.save_leader(
            game=more,
            fields={"name": f"Leader {n}", "image": leader_image},
            colours=[],
            keywords=[],
        )
        if art:
            with_art(card)

    # Pictures of each kind: a leader's image, a card's art, a card's drawn face (the others).
    definition = json.loads(SAMPLE.read_text())["game"]
    more_game(1, leader_image="https://img.example.com/1.jpg")
    more_game(2, art=True)
    before = queries()
    more_game(3, leader_image="https://img.example.com/3.jpg")
    more_game(4, art=True)
    more_game(5)
    assert queries() == before
    response = client.get(reverse("home"))
    items = dict(zip(game_slugs(response), game_items(response), strict=True))
    assert len(items) == Game.objects.count()
    assert 'src="https://img.example.com/3.jpg"' in items["more-3"]
    assert "<picture" in items["more-4"] and Art.objects.last().digest in items["more-4"]
    assert 'src="/games/more-5/cards/card-5/face.svg"' in items["more-5"]
