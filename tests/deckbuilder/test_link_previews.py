"""Link previews: a shared deck's, card's or leader's page names a picture (og:image, with
twitter:card) that chat apps show; a deck's is a PNG drawn on the server once per version and
kept as a file in the media storage (deckbuilder.previews). The storage writes to a folder of
each test's own (`media`, tests/conftest.py)."""

import io
import threading
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from PIL import Image

from cards import services as card_services
from cards.art import store_art
from cards.models import Card, Game, Printing
from deckbuilder import previews, services
from deckbuilder.models import Visibility
from tests import factories
from tests.html import meta

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"


@pytest.fixture
def draws(monkeypatch) -> list[str]:
    """The names of the pictures drawn (previews.draw_deck and draw_card, counted)."""
    drawn = []
    for name in ("draw_deck", "draw_card"):
        real = getattr(previews, name)

        def counted(*args, real=real, name=name, **kwargs):
            drawn.append(name)
            return real(*args, **kwargs)

        monkeypatch.setattr(previews, name, counted)
    return drawn


def png_of(response) -> Image.Image:
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    picture = Image.open(io.BytesIO(b"".join(response.streaming_content)))
    assert picture.format == "PNG"
    return picture


def stored(media: Path, folder: str) -> list[str]:
    """The pictures kept in a folder of the media storage."""
    found = media / "previews" / folder
    return sorted(p.name for p in found.iterdir()) if found.exists() else []


def preview_path(deck) -> str:
    return reverse("deck-preview", args=[deck.share_id, deck.version])


def preview_of(client, deck) -> str:
    """The og:image of the deck's page, as a path on this site."""
    url = meta(client.get(deck.get_absolute_url()), "property", "og:image")
    assert url and url.startswith("http://testserver/")
    return url.removeprefix("http://testserver")


# --- the deck page -----------------------------------------------------------------------------


@pytest.mark.parametrize("visibility", [Visibility.PUBLIC, Visibility.UNLISTED])
def test_a_shared_deck_page_names_its_picture_absolute_with_its_size_and_a_large_card(
    client, alice, game, visibility
):
    deck = factories.deck(alice, game, visibility=visibility)
    response = client.get(deck.get_absolute_url())
    assert meta(response, "property", "og:image") == f"http://testserver{preview_path(deck)}"
    assert preview_path(deck).endswith(f"/preview-{deck.version}.png")
    assert meta(response, "property", "og:image:type") == "image/png"
    assert meta(response, "property", "og:image:width") == "1200"
    assert meta(response, "property", "og:image:height") == "630"
    alt = meta(response, "property", "og:image:alt")
    assert "Gottfried ten" in alt and "Gottfried" in alt and "10 cards" in alt
    assert "legal in Standard" in alt
    assert meta(response, "name", "twitter:card") == "summary_large_image"


def test_a_private_deck_page_names_no_picture_no_one_else_could_open(client, alice, game):
    deck = factories.deck(alice, game, visibility=Visibility.PRIVATE)
    client.force_login(alice)
    response = client.get(deck.get_absolute_url())
    assert response.status_code == 200
    assert meta(response, "property", "og:image") is None
    assert meta(response, "name", "twitter:card") == "summary"


def test_pages_without_a_picture_of_their_own_say_summary(client):
    assert meta(client.get(reverse("home")), "name", "twitter:card") == "summary"


# --- the deck's picture --------------------------------------------------------------------------


def test_the_picture_is_a_1200_by_630_png_kept_publicly_by_caches(client, alice, game):
    deck = factories.deck(alice, game, visibility=Visibility.UNLISTED)
    response = client.get(preview_of(client, deck))
    assert png_of(response).size == (1200, 630)
    control = response["Cache-Control"]
    assert "public" in control and "max-age=604800" in control
    assert response["ETag"]


def test_the_picture_is_drawn_once_then_read_from_its_file(client, alice, game, draws, media):
    deck = factories.deck(alice, game)
    url = preview_of(client, deck)
    first = b"".join(client.get(url).streaming_content)
    second = b"".join(client.get(url).streaming_content)
    assert draws == ["draw_deck"]
    assert first == second
    [name] = stored(media, f"decks/{deck.share_id}")
    assert (media / "previews" / "decks" / deck.share_id / name).read_bytes() == first
    assert name.startswith(f"{deck.version}-")


def test_a_reader_who_has_the_picture_gets_304(client, alice, game, draws):
    deck = factories.deck(alice, game)
    url = preview_of(client, deck)
    etag = client.get(url)["ETag"]
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert draws == ["draw_deck"]


def test_a_new_version_is_a_new_address_and_the_old_file_goes(client, alice, game, media):
    deck = factories.deck(alice, game)
    old = preview_of(client, deck)
    png_of(client.get(old))
    [old_file] = stored(media, f"decks/{deck.share_id}")

    deck = services.deck_update(deck=deck, name="Gottfried renamed")
    new = preview_of(client, deck)
    assert new != old and new.endswith(f"/preview-{deck.version}.png")
    response = client.get(old)  # a chat app's old link: the deck as it is now
    assert response.status_code == 302 and response["Location"] == new
    png_of(client.get(new))
    [new_file] = stored(media, f"decks/{deck.share_id}")
    assert new_file != old_file


def test_a_deleted_decks_pictures_go_with_it(
    client, alice, game, media, django_capture_on_commit_callbacks
):
    deck = factories.deck(alice, game)
    png_of(client.get(preview_of(client, deck)))
    with django_capture_on_commit_callbacks(execute=True):
        services.deck_delete(deck=deck)
    assert stored(media, f"decks/{deck.share_id}") == []


def test_a_change_that_keeps_the_version_draws_anew(client, alice, game, draws, media):
    """A card renamed in the reference changes what the picture shows, not the deck's version:
    the file is named by what it shows, so the picture follows."""
    deck = factories.deck(alice, game)
    url = preview_of(client, deck)
    before = b"".join(client.get(url).streaming_content)
    despair = Card.objects.get(game=game, slug="despair")
    despair.name = "Deep Despair"
    despair.save()
    assert preview_of(client, deck) == url
    after = b"".join(client.get(url).streaming_content)
    assert draws == ["draw_deck", "draw_deck"] and before != after
    assert len(stored(media, f"decks/{deck.share_id}")) == 1


def test_a_private_decks_picture_is_its_owners_only(client, alice, bob, game):
    deck = factories.deck(alice, game, visibility=Visibility.PRIVATE)
    url = preview_path(deck)
    assert client.get(url).status_code == 404
    client.force_login(bob)
    assert client.get(url).status_code == 404
    client.force_login(alice)
    response = client.get(url)
    assert png_of(response).size == (1200, 630)
    assert "private" in response["Cache-Control"] and "public" not in response["Cache-Control"]


def test_an_unlisted_decks_picture_is_anyones_with_the_link(client, alice, bob, game):
    deck = factories.deck(alice, game, visibility=Visibility.UNLISTED)
    url = preview_path(deck)
    assert png_of(client.get(url)).size == (1200, 630)
    client.force_login(bob)
    assert png_of(client.get(url)).size == (1200, 630)


def test_no_such_deck_has_no_picture(client):
    assert client.get(reverse("deck-preview", args=["nosuchdeck", 1])).status_code == 404


def test_a_russian_deck_draws(client, alice):
    berserk = Game.objects.get(slug="berserk-heroes")
    hero = berserk.leaders.first()
    slugs = list(berserk.cards.values_list("slug", flat=True)[:3])
    deck = factories.deck(
        alice,
        berserk,
        dict.fromkeys(slugs, 1),
        lead=hero.slug,
        visibility=Visibility.UNLISTED,
        name="Колода тьмы: степи и болота",
    )
    assert png_of(client.get(preview_of(client, deck))).size == (1200, 630)


@pytest.mark.parametrize(
    ("slug", "counts", "lead"),
    [("of-gods-and-men", None, None), (GAME, {}, "gottfried"), (GAME, {}, None)],
    ids=["game-without-leaders", "no-cards", "no-leader-no-cards"],
)
def test_a_deck_without_leader_or_cards_draws(client, alice, slug, counts, lead):
    game = Game.objects.get(slug=slug)
    if counts is None:
        counts = dict.fromkeys(game.cards.values_list("slug", flat=True)[:2], 1)
    deck = factories.deck(
        alice, game, counts, lead=lead, visibility=Visibility.UNLISTED, name="Bare"
    )
    assert png_of(client.get(preview_of(client, deck))).size == (1200, 630)


def _sprouts(game, count):
    rarity = game.rarities.get(slug="common")
    card_services.save_cards(
        game=game,
        writes=[
            card_services.CardWrite({"name": f"Sprout {i}", "rarity": rarity, "cost": {}}, [])
            for i in range(count)
        ],
    )


@pytest.mark.usefixtures("uncached")
def test_the_picture_costs_the_same_few_queries_for_2_and_60_cards(client, alice, game):
    _sprouts(game, 60)
    unlisted = {"lead": None, "visibility": Visibility.UNLISTED}
    small = factories.deck(alice, game, {"sprout-0": 1, "sprout-1": 1}, name="S", **unlisted)
    big = factories.deck(alice, game, {f"sprout-{i}": 1 for i in range(60)}, **unlisted)
    client.get(preview_path(small))  # the caches (the game's vocabulary) are warm

    def queries(deck, times=1):
        counts = []
        for _ in range(times):
            with CaptureQueriesContext(connection) as captured:
                assert client.get(preview_path(deck)).status_code == 200
            counts.append(len(captured))
        return counts

    # the deck, its verdicts, its entries with their cards: drawn or read from its file
    assert queries(small, 2) == queries(big, 2) == [3, 3]


# --- keeping pictures ----------------------------------------------------------------------------


def test_two_requests_storing_one_picture_at_once_leave_one_whole_file(tmp_path):
    storage = FileSystemStorage(location=tmp_path)
    data = b"\x89PNG" + bytes(range(256)) * 4096  # larger than a write's chunk
    ready = threading.Barrier(2)

    def store():
        ready.wait()
        previews.store(storage, "previews/decks/x/1-a.png", data)

    threads = [threading.Thread(target=store) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [p.name for p in (tmp_path / "previews/decks/x").iterdir()] == ["1-a.png"]
    assert (tmp_path / "previews/decks/x/1-a.png").read_bytes() == data


def test_a_reader_never_finds_a_picture_half_written(tmp_path):
    """A request reading the picture while another stores it reads all of it or nothing (a
    plain storage.save() writes the file in chunks, under its name, for anyone to read)."""
    storage = FileSystemStorage(location=tmp_path)
    name, data = "previews/decks/x/1-a.png", b"\x89PNG" + bytes(range(256)) * 128 * 1024
    sizes, done = set(), threading.Event()

    def read():
        while not done.is_set():
            if storage.exists(name):
                with storage.open(name) as file:
                    sizes.add(len(file.read()))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        previews.store(storage, name, data)
    finally:
        done.set()
        reader.join()
    assert sizes <= {len(data)}


def test_fetch_keeps_only_the_newest_picture_of_a_folder(tmp_path):
    storage = FileSystemStorage(location=tmp_path)
    previews.fetch(storage, "previews/decks/x/1-a.png", lambda: b"one")
    assert previews.fetch(storage, "previews/decks/x/1-a.png", lambda: b"again").read() == b"one"
    previews.fetch(storage, "previews/decks/x/2-b.png", lambda: b"two")
    assert [p.name for p in (tmp_path / "previews/decks/x").iterdir()] == ["2-b.png"]


# --- cards and leaders ---------------------------------------------------------------------------


def test_a_card_page_without_art_names_its_drawn_picture(client, game, draws):
    url = reverse("card-detail", kwargs={"game": GAME, "slug": "fiery-earth"})
    response = client.get(url)
    picture = reverse("card-preview", kwargs={"game": GAME, "slug": "fiery-earth"})
    assert meta(response, "property", "og:image") == f"http://testserver{picture}"
    assert meta(response, "property", "og:image:width") == "1200"
    assert meta(response, "property", "og:image:alt") == "Fiery Earth, god card of Card of Gods"
    assert meta(response, "name", "twitter:card") == "summary_large_image"
    assert png_of(client.get(picture)).size == (1200, 630)
    png_of(client.get(picture))
    assert draws == ["draw_card"]


def test_a_card_with_a_picture_of_its_own_names_it(client, game):
    healing = Card.objects.get(game=game, slug="healing")
    healing.image = "https://img.example.com/healing.png"
    healing.save()
    response = client.get(reverse("card-detail", kwargs={"game": GAME, "slug": "healing"}))
    assert meta(response, "property", "og:image") == "https://img.example.com/healing.png"
    assert meta(response, "name", "twitter:card") == "summary"  # a portrait picture


def test_an_edited_card_is_drawn_anew_and_its_old_picture_goes(client, game, draws, media):
    card = Card.objects.get(game=game, slug="healing")
    url = reverse("card-preview", kwargs={"game": GAME, "slug": "healing"})
    before = b"".join(client.get(url).streaming_content)
    card.text = "Heal every wound."
    card.save()
    after = b"".join(client.get(url).streaming_content)
    assert draws == ["draw_card", "draw_card"] and before != after
    assert len(stored(media, f"cards/{card.pk}")) == 1


def test_a_leader_page_names_its_drawn_picture(client, game):
    url = reverse("leader-detail", kwargs={"game": GAME, "slug": "kellantra"})
    response = client.get(url)
    picture = reverse("leader-preview", kwargs={"game": GAME, "slug": "kellantra"})
    assert meta(response, "property", "og:image") == f"http://testserver{picture}"
    assert meta(response, "name", "twitter:card") == "summary_large_image"
    assert png_of(client.get(picture)).size == (1200, 630)


def test_no_such_card_or_leader_has_no_picture(client):
    for name in ("card-preview", "leader-preview"):
        url = reverse(name, kwargs={"game": GAME, "slug": "nobody"})
        assert client.get(url).status_code == 404


# --- art -----------------------------------------------------------------------------------------

BLUE = (20, 60, 200)


def painted(number: str, colour=BLUE) -> Printing:
    """The printing numbered `number` (Force of Will's sample pool), with art of one colour."""
    picture = io.BytesIO()
    Image.new("RGB", (500, 700), colour).save(picture, "PNG")
    printing = Printing.objects.get(number=number)
    printing.art = store_art(data=picture.getvalue(), name=f"{number}.png")
    printing.save()
    return printing


def near(pixel, colour, by=12) -> bool:
    return all(abs(a - b) <= by for a, b in zip(pixel, colour, strict=True))


def test_a_card_page_with_art_names_its_largest_rendition(client, draws):
    painted("BEL-001")
    url = reverse("card-detail", kwargs={"game": "force-of-will", "slug": "lantern-acolyte"})
    response = client.get(url)
    image = meta(response, "property", "og:image")
    assert image.startswith("http://testserver/media/art/") and image.endswith("-large.jpg")
    assert meta(response, "property", "og:image:width") == "500"  # never enlarged
    assert meta(response, "property", "og:image:height") == "700"
    assert meta(response, "name", "twitter:card") == "summary"  # a portrait picture
    assert draws == []


def test_a_deck_picture_shows_its_leaders_and_cards_art(client, alice):
    fow = Game.objects.get(slug="force-of-will")
    leader = painted("BEL-100").leader
    card = painted("BEL-001", (200, 40, 30)).card
    deck = factories.deck(
        alice, fow, {card.slug: 4}, lead=leader.slug, visibility=Visibility.UNLISTED, name="Art"
    )
    picture = png_of(client.get(preview_of(client, deck))).convert("RGB")
    assert near(picture.getpixel((200, 300)), BLUE)  # the leader's portrait, on the left
    key_card = [x for x in range(480, 1150) if near(picture.getpixel((x, 340)), (200, 40, 30))]
    assert key_card  # the key card's art, on the right
