"""Card and leader art (cards.art): checked and made into renditions once, at upload (the admin)
or at import (a URL or a path beside the file); shown as <picture> with srcset, sizes, width
and height on the grid, the card page, the leader page and the deck page; given by the API."""

import functools
import http.server
import io
import json
import re
import threading

import pytest
from django import forms
from django.core.exceptions import ValidationError
from django.core.files.storage import FileSystemStorage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from PIL import Image

from cards import art, importers
from cards.models import Art, Card, Game, Leader, Printing
from deckbuilder.models import Visibility
from tests import factories
from tests.html import html_of

FOW = "force-of-will"

pytestmark = pytest.mark.django_db


@pytest.fixture
def fow(db):
    return Game.objects.get(slug=FOW)


def picture(size=(1000, 1400), fmt="JPEG", mode="RGB", colour=(180, 40, 40)) -> bytes:
    """A picture made in memory: a plain field of `colour` with a lighter block in a corner."""
    image = Image.new(mode, size, colour)
    image.paste((250, 250, 250) + ((255,) if mode == "RGBA" else ()), (0, 0, size[0] // 4, 40))
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def files_in(media) -> list[str]:
    """The files under MEDIA_ROOT, as storage names."""
    return sorted(str(p.relative_to(media)) for p in media.rglob("*") if p.is_file())


def opened(media, name: str) -> Image.Image:
    return Image.open(media / name)


# --- storing: renditions once, refusals with the reason, nothing half-written ---------------


def test_renditions_are_made_once_in_three_widths_as_webp_and_jpeg(media):
    stored = art.store_art(data=picture((1000, 1400)), name="rapunzel.jpg")
    assert (stored.width, stored.height, stored.fallback) == (1000, 1400, "jpg")
    assert [(r["size"], r["width"], r["height"]) for r in stored.renditions] == [
        ("small", 160, 224),
        ("normal", 320, 448),
        ("large", 640, 896),
    ]
    prefix = f"art/{stored.digest[:2]}/{stored.digest}"
    assert files_in(media) == sorted(
        f"{prefix}-{size}.{ext}" for size in ("small", "normal", "large") for ext in ("webp", "jpg")
    )
    for rendition in stored.renditions:
        for ext, fmt in (("webp", "WEBP"), ("jpg", "JPEG")):
            image = opened(media, stored.file_name(rendition["size"], ext))
            assert (image.format, image.size) == (fmt, (rendition["width"], rendition["height"]))


def test_the_same_picture_uploaded_twice_is_stored_once(media, monkeypatch):
    first = art.store_art(data=picture(), name="a.jpg")
    written = []
    save = FileSystemStorage.save
    monkeypatch.setattr(
        FileSystemStorage,
        "save",
        lambda self, name, *a, **k: written.append(name) or save(self, name, *a, **k),
    )
    again = art.store_art(data=SimpleUploadedFile("b.jpg", picture()), name="b.jpg")
    assert again.pk == first.pk
    assert Art.objects.count() == 1 and written == []
    assert len(files_in(media)) == 6


def test_a_picture_with_transparency_falls_back_to_png_and_an_opaque_one_to_jpeg(media):
    clear = art.store_art(data=picture((400, 560), "PNG", "RGBA", (10, 120, 40, 0)))
    assert clear.fallback == "png"
    assert opened(media, clear.file_name("small", "png")).format == "PNG"
    assert opened(media, clear.file_name("small", "webp")).mode == "RGBA"
    opaque = art.store_art(data=picture((400, 560), "PNG", "RGBA", (10, 120, 40, 255)))
    assert opaque.fallback == "jpg"


def test_a_picture_narrower_than_a_rendition_is_not_enlarged(media):
    small = art.store_art(data=picture((200, 280)))
    assert [(r["width"], r["height"]) for r in small.renditions] == [(160, 224), (200, 280)]
    assert len(files_in(media)) == 4


def test_a_picture_turned_by_its_exif_orientation_is_stored_upright(media):
    image, out = Image.new("RGB", (1400, 1000), (0, 0, 200)), io.BytesIO()
    exif = image.getexif()
    exif[0x0112] = 6  # rotate 90° clockwise to show
    image.save(out, "JPEG", exif=exif)
    stored = art.store_art(data=out.getvalue())
    assert (stored.width, stored.height) == (1000, 1400)
    assert stored.renditions[-1]["height"] == 896


def truncated_jpeg() -> bytes:
    whole = picture()
    return whole[: len(whole) // 2]


@pytest.mark.parametrize(
    ("data", "limits", "reason"),
    [
        (b"Dear admin, this is a letter, not a picture.\n", {}, "is not a picture"),
        ("truncated", {}, "damaged or cut short"),
        ("whole", {"ART_MAX_BYTES": 2000}, "art may be at most 2 KB"),
        (
            "whole",
            {"ART_MAX_PIXELS": 1_000_000},
            "1000×1400 pixels: art may have at most 1 million",
        ),
        (b"", {}, "is empty"),
    ],
    ids=["text", "truncated", "too-many-bytes", "too-many-pixels", "empty"],
)
def test_a_file_that_is_no_good_picture_is_refused_with_the_reason_and_leaves_nothing(
    media, settings, data, limits, reason
):
    for name, value in limits.items():
        setattr(settings, name, value)
    data = {"truncated": truncated_jpeg(), "whole": picture()}.get(data, data)
    upload = SimpleUploadedFile("letter.jpg", data)
    with pytest.raises(ValidationError) as refused:
        art.store_art(data=upload, name="letter.jpg")
    message = " ".join(refused.value.messages)
    assert message.startswith("letter.jpg ") and reason in message
    assert files_in(media) == [] and not Art.objects.exists()


def test_the_size_limit_speaks_in_megabytes(settings):
    settings.ART_MAX_BYTES = 10 * 1024 * 1024
    upload = SimpleUploadedFile("huge.png", b"x" * (11 * 1024 * 1024))
    with pytest.raises(ValidationError, match=r"huge.png is 11 MB: art may be at most 10 MB"):
        art.check(upload, name="huge.png")


class FailingStorage(FileSystemStorage):
    """Writes three files, then fails: a disk that fills midway."""

    saves = 0

    def _save(self, name, content):
        type(self).saves += 1
        if type(self).saves > 3:
            raise OSError(28, "No space left on device")
        return super()._save(name, content)


def test_a_write_failing_midway_deletes_what_it_wrote_and_makes_no_row(media, settings):
    FailingStorage.saves = 0
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": f"{__name__}.FailingStorage"},
    }
    with pytest.raises(OSError, match="No space"):
        art.store_art(data=picture())
    assert FailingStorage.saves == 4  # three written, the fourth refused
    assert files_in(media) == [] and not Art.objects.exists()


# --- the admin: upload for a printing and a leader ----------------------------------------------


def post_data(response) -> dict:
    """What the admin change form of `response` posts as it stands: every field's value."""
    data = {}
    every = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        every += [inline.formset.management_form, *inline.formset.forms]
    for form in every:
        for name, field in form.fields.items():
            value = form[name].value()
            if isinstance(field, forms.FileField) or value is None or value is False:
                continue
            data[form.add_prefix(name)] = "on" if value is True else value
    return data


def upload_for_printing(client, card: Card, data: bytes, name="art.png"):
    url = reverse("admin:cards_card_change", args=[card.pk])
    fields = post_data(client.get(url))
    fields["printings-0-art_upload"] = SimpleUploadedFile(name, data)
    return client.post(url, fields)


def upload_for_leader(client, leader: Leader, data: bytes, name="art.png"):
    url = reverse("admin:cards_leader_change", args=[leader.pk])
    fields = post_data(client.get(url))
    fields["art_upload"] = SimpleUploadedFile(name, data)
    return client.post(url, fields)


def pictures_in(html: str) -> list[str]:
    return re.findall(r"<picture[^>]*>.*?</picture>", html)


def assert_renditions(found: str, art: Art, sizes: str) -> None:
    """A <picture> of `art`: WebP and fallback srcsets of every width, `sizes`, and the width
    and height of its shape, loaded lazily."""
    webp = ", ".join(f"{art.url(r['size'], 'webp')} {r['width']}w" for r in art.renditions)
    fallback = ", ".join(
        f"{art.url(r['size'], art.fallback)} {r['width']}w" for r in art.renditions
    )
    assert f'<source type="image/webp" srcset="{webp}" sizes="{sizes}">' in found
    assert f'srcset="{fallback}" sizes="{sizes}"' in found
    assert 'width="320" height="448" loading="lazy" decoding="async"' in found
    assert " 160w, " in found and " 640w" in found


def test_staff_upload_art_for_a_printing_and_the_grid_card_and_deck_pages_show_it(
    staff_client, fow, alice
):
    card = Card.objects.get(game=fow, slug="lantern-acolyte")
    response = upload_for_printing(staff_client, card, picture((1000, 1400), "PNG"))
    assert response.status_code == 302
    shown = Printing.objects.get(number="BEL-001").art
    assert shown is not None and shown.fallback == "jpg"

    grid = html_of(staff_client.get(reverse("card-list", args=[FOW]), {"q": "Lantern Acolyte"}))
    [tile] = [p for p in pictures_in(grid) if shown.digest in p]
    assert tile.startswith('<picture class="card-thumb">') and 'alt=""' in tile
    assert_renditions(tile, shown, "(min-width: 48rem) 12.5rem, 45vw")

    page = html_of(staff_client.get(card.get_absolute_url()))
    [large] = [p for p in pictures_in(page) if shown.digest in p]
    assert large.startswith('<picture class="card-picture">') and 'alt="Lantern Acolyte"' in large
    assert_renditions(large, shown, "250px")

    deck = factories.deck(
        alice, fow, {"lantern-acolyte": 4}, lead=None, visibility=Visibility.UNLISTED, name="Lit"
    )
    deck_page = html_of(staff_client.get(reverse("deck-detail", args=[deck.share_id])))
    previews = [p for p in pictures_in(deck_page) if shown.digest in p]
    assert previews
    assert_renditions(previews[0], shown, "(min-width: 48rem) 250px, 180px")


def test_staff_upload_art_for_a_leader_and_its_page_shows_it(staff_client, fow):
    leader = Leader.objects.get(game=fow, slug="seraphine-of-the-dawn-bell")
    response = upload_for_leader(staff_client, leader, picture((640, 896)))
    assert response.status_code == 302
    leader.refresh_from_db()
    assert leader.art is not None
    page = html_of(staff_client.get(leader.get_absolute_url()))
    [found] = pictures_in(page)
    assert 'alt="Seraphine of the Dawn Bell"' in found
    assert_renditions(found, leader.art, "(min-width: 64rem) 20rem, min(20rem, 100vw)")
    assert re.search(r'<figure class="card-art"><picture>', page)
    change = html_of(staff_client.get(reverse("admin:cards_leader_change", args=[leader.pk])))
    assert leader.art.url("small", "jpg") in change  # the current art, small


def test_a_refused_upload_is_an_error_on_the_field_and_nothing_is_saved(staff_client, fow, media):
    leader = Leader.objects.get(game=fow, slug="seraphine-of-the-dawn-bell")
    response = upload_for_leader(staff_client, leader, b"not a picture", name="notes.jpg")
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["art_upload"] == ["notes.jpg is not a picture (JPEG, PNG, WebP or GIF)."]
    card = Card.objects.get(game=fow, slug="lantern-acolyte")
    response = upload_for_printing(staff_client, card, truncated_jpeg(), name="cut.jpg")
    assert response.status_code == 200
    [printings] = [
        f.formset
        for f in response.context["inline_admin_formsets"]
        if f.formset.prefix == "printings"
    ]
    assert "cut.jpg is damaged or cut short" in str(printings.errors[0]["art_upload"])
    leader.refresh_from_db()
    assert leader.art is None and not Printing.objects.filter(art__isnull=False).exists()
    assert files_in(media) == [] and not Art.objects.exists()


def test_staff_remove_a_printings_art_and_the_card_shows_its_face_again(staff_client, fow):
    card = Card.objects.get(game=fow, slug="lantern-acolyte")
    upload_for_printing(staff_client, card, picture())
    url = reverse("admin:cards_card_change", args=[card.pk])
    fields = post_data(staff_client.get(url)) | {"printings-0-clear_art": "on"}
    assert staff_client.post(url, fields).status_code == 302
    assert Printing.objects.get(number="BEL-001").art is None
    page = html_of(staff_client.get(card.get_absolute_url()))
    assert "<picture" not in page and "face.svg" in page


# --- what a page costs: the art comes in the rows already read --------------------------------


def queries_of(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_art_costs_the_card_grid_and_the_deck_page_no_query(client, fow, alice, uncached):
    deck = factories.deck(
        alice,
        fow,
        {"lantern-acolyte": 4, "dawnspire-paladin": 4},
        lead="seraphine-of-the-dawn-bell",
        visibility=Visibility.UNLISTED,
    )
    urls = [
        reverse("card-list", args=[FOW]),
        reverse("deck-detail", args=[deck.share_id]),
        reverse("leader-detail", args=[FOW, "seraphine-of-the-dawn-bell"]),
    ]
    before = [queries_of(client, url) for url in urls]
    stored = art.store_art(data=picture((320, 448)))
    for printing in Printing.objects.filter(game=fow):
        printing.art = stored
        printing.save()
    leader = Leader.objects.get(game=fow, slug="seraphine-of-the-dawn-bell")
    leader.art = stored
    leader.save()
    assert [queries_of(client, url) for url in urls] == before
    assert all("<picture" in html_of(client.get(url)) for url in urls)


# --- importing: a path beside the file, a URL, a bad one --------------------------------------


@pytest.fixture
def web(tmp_path):
    """A local web server of the folder `tmp_path / "site"`: (its address, the folder)."""
    folder = tmp_path / "site"
    folder.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", folder
    server.shutdown()
    server.server_close()
    thread.join()


def exchange_file(card_image="", leader_image="") -> dict:
    return {
        "game": FOW,
        "sets": [{"code": "ART", "name": "Art Test"}],
        "leaders": [
            {"name": "Painted Ruler", "colours": ["light"], "image": leader_image,
             "printings": [{"set": "ART", "number": "ART-100"}]},
        ],
        "cards": [
            {"name": "Painted Resonator", "type": "resonator", "cost": {"light": 1},
             "printings": [{"set": "ART", "number": "ART-001", "image": card_image},
                           {"set": "ART", "number": "ART-002"}]},
        ],
    }  # fmt: skip


def write_file(folder, document) -> str:
    path = folder / "painted.json"
    path.write_text(json.dumps(document))
    return str(path)


def test_an_import_reads_art_from_a_path_beside_the_file_and_from_a_url(tmp_path, web, fow, media):
    base, site = web
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "resonator.png").write_bytes(picture((400, 560), "PNG"))
    (site / "ruler.jpg").write_bytes(picture((600, 840), colour=(20, 20, 160)))
    document = exchange_file("art/resonator.png", f"{base}/ruler.jpg")
    call_command("import_cards", write_file(tmp_path, document), stdout=io.StringIO())
    printing = Printing.objects.get(game=fow, number="ART-001")
    assert printing.image == "art/resonator.png" and printing.art.width == 400
    assert Printing.objects.get(game=fow, number="ART-002").art is None
    leader = Leader.objects.get(game=fow, slug="painted-ruler")
    assert leader.image == f"{base}/ruler.jpg" and leader.art.width == 600
    assert len(files_in(media)) == 12
    # Again, unchanged: nothing read again (the server is gone), nothing written.
    (tmp_path / "art" / "resonator.png").unlink()
    out = io.StringIO()
    call_command("import_cards", write_file(tmp_path, document), stdout=out)
    assert "0 created, 0 updated, 2 unchanged" in out.getvalue()


@pytest.mark.parametrize(
    ("image", "reason"),
    [
        ("{base}/missing.png", "missing.png answered 404"),
        ("{base}/letter.png", "letter.png is not a picture"),
        ("art/nowhere.png", "Cannot read art/nowhere.png beside the file"),
        ("../outside.png", "within the folder of the file"),
        ("/etc/passwd", "not an absolute one"),
        ("ftp://example.org/a.png", "not a ftp: address"),
    ],
    ids=["404", "not-a-picture", "no-file", "outside", "absolute", "scheme"],
)
def test_art_an_import_cannot_read_is_that_rows_error_and_nothing_stays(
    tmp_path, web, fow, media, image, reason
):
    base, site = web
    (site / "letter.png").write_bytes(b"Dear importer")
    (site / "good.jpg").write_bytes(picture((300, 420)))
    (tmp_path.parent / "outside.png").write_bytes(picture((300, 420)))
    # The leader's art is good and read first: stored, then undone with the rest.
    document = exchange_file(image.format(base=base), f"{base}/good.jpg")
    path = write_file(tmp_path, document)
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_cards", path, stdout=io.StringIO(), stderr=(errors := io.StringIO()))
    assert "card row 1 (Painted Resonator), printings[1].image: " in errors.getvalue()
    assert reason in errors.getvalue()
    assert not Card.objects.filter(game=fow, slug="painted-resonator").exists()
    assert not Art.objects.exists() and files_in(media) == []


def test_a_dry_run_reads_and_checks_art_but_stores_none(tmp_path, web, fow, media):
    base, site = web
    (site / "ruler.jpg").write_bytes(picture())
    report = importers.import_records(
        game=fow,
        dry_run=True,
        **importers.read_json(json.dumps(exchange_file("", f"{base}/ruler.jpg"))).records(),
    )
    assert report.errors == [] and report.created == 2
    report = importers.import_records(
        game=fow,
        dry_run=True,
        **importers.read_json(json.dumps(exchange_file("", f"{base}/no.jpg"))).records(),
    )
    assert [(e.kind, e.field) for e in report.errors] == [("leader", "image")]
    assert files_in(media) == [] and not Art.objects.exists()


def test_a_path_in_a_file_uploaded_to_the_admin_asks_for_a_url(staff_client, fow):
    document = exchange_file("art/resonator.png")
    upload = SimpleUploadedFile("painted.json", json.dumps(document).encode())
    response = staff_client.post(reverse("admin:cards_card_import"), {"file": upload})
    assert response.status_code == 200
    assert "a path is read beside a file imported from disk" in html_of(response).lower()
    assert not Card.objects.filter(game=fow, slug="painted-resonator").exists()


# --- the API: the art's address ---------------------------------------------------------------


def test_the_api_gives_the_address_of_the_largest_rendition_for_printings_and_leaders(api, fow):
    stored = art.store_art(data=picture())
    printing = Printing.objects.get(game=fow, number="BEL-001")
    printing.art = stored
    printing.save()
    leader = Leader.objects.get(game=fow, slug="seraphine-of-the-dawn-bell")
    leader.art, leader.image = stored, "art/seraphine.jpg"
    leader.save()
    address = f"http://testserver{stored.url('large', 'jpg')}"
    card = api.get(f"/api/games/{FOW}/cards/lantern-acolyte/").json()
    assert [p["image"] for p in card["printings"]] == [address, ""]
    listed = api.get(f"/api/games/{FOW}/cards/", {"q": "Lantern Acolyte"}).json()["results"]
    assert listed[0]["printings"] == card["printings"]
    assert api.get(f"/api/games/{FOW}/printings/BEL-001/").json()["image"] == address
    assert api.get(f"/api/games/{FOW}/leaders/{leader.slug}/").json()["image"] == address
    other = api.get(f"/api/games/{FOW}/leaders/captain-brand-ashford/").json()
    assert other["image"] == ""  # no art: the stored source, as before


# --- settings: S3-compatible storage by setting -------------------------------------------------


def test_a_bucket_setting_stores_art_in_s3_compatible_storage(monkeypatch):
    from deckbuilder.settings import media_storage

    assert media_storage() == {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    monkeypatch.setenv("AWS_STORAGE_BUCKET_NAME", "deck-art")
    monkeypatch.setenv("AWS_S3_ENDPOINT_URL", "https://s3.example.org")
    monkeypatch.setenv("AWS_S3_CUSTOM_DOMAIN", "art.example.org")
    assert media_storage() == {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": "deck-art",
            "querystring_auth": False,
            "object_parameters": {"CacheControl": "public, max-age=31536000, immutable"},
            "endpoint_url": "https://s3.example.org",
            "custom_domain": "art.example.org",
        },
    }
