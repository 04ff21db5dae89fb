"""Card and leader art: a picture checked and turned into renditions once, at upload.

    art = store_art(data=upload, name="cmf-005.jpg")   # an Art row, its files written

`check` reads a file (bytes or a file object) and refuses, with the reason, what is not a
JPEG, PNG, WebP or GIF picture, is cut short or damaged, or is too large (ART_MAX_BYTES bytes,
ART_MAX_PIXELS pixels): a ValidationError, nothing written. `store` writes each rendition of a
checked picture (WIDTHS, never wider than the original) as WebP and as a fallback (JPEG, or
PNG for a picture with transparency) through Django's default storage, under names made of the
original's SHA-256, then the Art row; the same picture is stored once. If a write fails, the
files it wrote are deleted: nothing half-written stays. Imports read art from a URL (`fetch`)
or a path beside the file (cards.importers).

`shown(card or leader)` is the picture a page shows of it.

Pillow is imported where a picture is read or written, not with the module (the admin imports
it in every process): it costs a worker ~6 MB that pages never use.
"""

import hashlib
import io
import urllib.error
import urllib.request
import warnings
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from .models import Art, Leader

if TYPE_CHECKING:
    from PIL import Image

# The renditions' widths in CSS pixels' worth of image: a grid tile (150-200 px wide, twice that
# on a sharp screen), the card and leader pages (250-320 px), the builder's list.
WIDTHS = {"small": 160, "normal": 320, "large": 640}
FORMATS = ("JPEG", "PNG", "WEBP", "GIF")
WEBP_QUALITY, JPEG_QUALITY = 80, 85


class Picture(NamedTuple):
    """A checked picture, decoded and upright, ready to store."""

    digest: str  # SHA-256 of the file as given
    image: "Image.Image"  # RGB, or RGBA when it has transparency (a large JPEG: decoded smaller)
    fallback: str  # "jpg", or "png" for transparency
    size: tuple[int, int]  # the original's width and height, upright


def file_size(size: int) -> str:
    """12 MB, 1.5 MB, 300 KB, 20 bytes."""
    if size >= 1024 * 1024:
        return f"{size / 1024 / 1024:.1f}".removesuffix(".0") + " MB"
    return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} bytes"


def _bytes_of(data, limit: int) -> bytes:
    """The file's bytes, at most `limit` + 1 of them (enough to know it is too large)."""
    if isinstance(data, bytes | bytearray):
        return bytes(data[: limit + 1])
    if hasattr(data, "seek"):
        data.seek(0)
    return data.read(limit + 1)


def check(data, *, name: str = "") -> Picture:
    """The picture in `data` (bytes, or a file such as an upload), or a ValidationError that
    says why it is refused."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    what = name or "The file"
    limit = settings.ART_MAX_BYTES
    size = getattr(data, "size", None)  # an upload knows its size: no need to read it all
    if size is not None and size > limit:
        raise ValidationError(
            f"{what} is {file_size(size)}: art may be at most {file_size(limit)}."
        )
    raw = _bytes_of(data, limit)
    if not raw:
        raise ValidationError(f"{what} is empty.")
    if len(raw) > limit:
        raise ValidationError(f"{what} is larger than {file_size(limit)}, the most art may be.")
    not_a_picture = f"{what} is not a picture (JPEG, PNG, WebP or GIF)."
    try:
        with warnings.catch_warnings():  # Pillow's own limit, far above ours: an error too
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(raw), formats=FORMATS)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ValidationError(f"{what} has too many pixels.") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise ValidationError(not_a_picture) from None
    width, height = image.size
    most = settings.ART_MAX_PIXELS
    if width * height > most:  # read from the header, before decoding
        raise ValidationError(
            f"{what} is {width}×{height} pixels: art may have at most {most / 1e6:g} million."
        )
    try:
        # A large JPEG is decoded at the smallest scale still as wide as the largest rendition.
        largest = max(WIDTHS.values())
        image.draft("RGB", (largest, largest))
        image.load()
        decoded = image.size
        image = ImageOps.exif_transpose(image)
    except Exception as e:  # noqa: BLE001 (a damaged file raises anything from Pillow's decoders)
        raise ValidationError(f"{what} is damaged or cut short ({e}).") from None
    upright = (height, width) if image.size != decoded else (width, height)  # turned by EXIF
    fallback = "jpg"
    if image.has_transparency_data:
        image = image.convert("RGBA")
        if image.getchannel("A").getextrema()[0] < 255:
            fallback = "png"
    image = image.convert("RGBA" if fallback == "png" else "RGB")
    return Picture(hashlib.sha256(raw).hexdigest(), image, fallback, upright)


def renditions(width: int, height: int) -> list[dict]:
    """The renditions of a picture of this size, narrowest first: each of WIDTHS it reaches
    (a picture narrower than one is not enlarged: its own width, once)."""
    found, last = [], 0
    for size, wanted in WIDTHS.items():
        shown = min(wanted, width)
        if shown > last:
            found.append(
                {"size": size, "width": shown, "height": max(1, round(height * shown / width))}
            )
            last = shown
    return found


def _encode(image: "Image.Image", ext: str) -> bytes:
    out = io.BytesIO()
    if ext == "webp":
        image.save(out, "WEBP", quality=WEBP_QUALITY, method=4)
    elif ext == "jpg":
        image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True, progressive=True)
    else:
        image.save(out, "PNG", optimize=True)
    return out.getvalue()


def store(picture: Picture) -> Art:
    """The Art of a checked picture: the stored one when the same picture was stored before;
    else its renditions are written, then its row. If a write fails, the files written here
    are deleted and the error raised."""
    from PIL import Image

    found = Art.objects.filter(digest=picture.digest).first()
    if found is not None:
        return found
    image = picture.image
    art = Art(
        digest=picture.digest,
        width=picture.size[0],
        height=picture.size[1],
        fallback=picture.fallback,
        renditions=renditions(image.width, image.height),
    )
    written = []
    try:
        for rendition in reversed(art.renditions):  # each from the one before: less to resize
            size = (rendition["width"], rendition["height"])
            image = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
            for ext in ("webp", art.fallback):
                name = art.file_name(rendition["size"], ext)
                if default_storage.exists(name):  # named by its content: these very bytes
                    continue
                saved = default_storage.save(name, ContentFile(_encode(image, ext)))
                if saved != name:  # written meanwhile by another upload of the same picture
                    default_storage.delete(saved)
                else:
                    written.append(saved)
        with transaction.atomic():
            art.save()
    except IntegrityError:  # stored meanwhile by another upload: its files are these
        return Art.objects.get(digest=picture.digest)
    except BaseException:
        for name in written:
            default_storage.delete(name)
        raise
    return art


def store_art(*, data, name: str = "") -> Art:
    """Check `data` (bytes or a file) and store it: the Art, or a ValidationError saying why
    the file is refused (nothing is then written)."""
    return store(check(data, name=name))


def discard(digests) -> None:
    """Delete the files of the art of these digests that has no row (after a rollback undid
    the rows of art stored in the transaction: nothing half-written stays)."""
    digests = set(digests)
    kept = set(Art.objects.filter(digest__in=digests).values_list("digest", flat=True))
    for digest in digests - kept:
        for size in WIDTHS:
            for ext in ("webp", "jpg", "png"):
                default_storage.delete(Art(digest=digest).file_name(size, ext))


def source_problem(source: str) -> str | None:
    """Why `source` (a printing's or leader's `image` in an import) names no art that can be
    read: an http(s) URL or a path relative to the file are; None when it is one of them."""
    parts = urlsplit(source)
    if parts.scheme in ("http", "https"):
        return None if parts.netloc else "A URL needs a host: https://example.org/art.jpg."
    if parts.scheme and len(parts.scheme) > 1:  # "c:" is a Windows drive, not a scheme
        return f"Give an http(s) URL or a path relative to the file, not a {parts.scheme}: address."
    if source.startswith(("/", "\\")) or (len(source) > 1 and source[1] == ":"):
        return "Give a path relative to the file (its folder or below), not an absolute one."
    return None


def validate_source(source: str) -> None:
    """A validator of `image` (source_problem as a ValidationError)."""
    problem = source_problem(source)
    if problem:
        raise ValidationError(problem)


def fetch(url: str) -> bytes:
    """The file at an http(s) `url` (at most ART_MAX_BYTES + 1 bytes are read: enough for
    `check` to refuse it), or a ValidationError saying why it cannot be read."""
    problem = source_problem(url)
    if problem or not url.startswith(("http://", "https://")):
        raise ValidationError(problem or f"Not an http(s) URL: {url}.")
    request = urllib.request.Request(url, headers={"User-Agent": "deckbuilder-art-import"})  # noqa: S310 (http(s) only)
    try:
        with urllib.request.urlopen(request, timeout=settings.ART_FETCH_TIMEOUT) as answer:  # noqa: S310
            return answer.read(settings.ART_MAX_BYTES + 1)
    except urllib.error.HTTPError as e:
        raise ValidationError(f"{url} answered {e.code} {e.reason}.") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        raise ValidationError(f"Cannot read {url}: {reason}.") from None


def shown(owner) -> Art | None:
    """The art a page shows of a card or leader: a leader's own, else that of its first
    printing (by position) that has art; None: it has none (its printings as held or
    prefetched, with their art in their rows: no query where the pages load them)."""
    if isinstance(owner, Leader) and owner.art_id:
        return owner.art
    for printing in owner.printing_list:
        if printing.art_id:
            return printing.art
    return None
