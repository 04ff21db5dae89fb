"""Link previews: the PNG pictures chat apps and social sites show for a shared link (og:image).

A deck's picture (1200×630) shows its name, game, format, owner, card count and verdict (with a
symbol, not colour alone), its leader (art, or a card-like frame with its name and text) and up
to KEY_CARDS of its cards (most copies first, then the costliest); a card's or a leader's shows
it alone, with its name, cost, type and text.

What is drawn is plain data (`Face`, `DeckPicture`), built from what the pages load already
(`face_of`, `leader_face`, `deck_picture`: no query). The drawing functions (`draw_deck`,
`draw_card`) take that data and the storage the art is read from, and return PNG bytes.

Each picture is drawn once and kept as a file in the media storage (`fetch`), under a name
that carries a digest of what it shows and of this module's code (`digest`): a change to the
deck, card or drawing is a new file, and the folder's older files are deleted then. The fonts
are vendored (fonts/: DejaVu Sans, which covers Cyrillic), a bare server has none.
"""

import functools
import hashlib
import io
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.core.files.base import ContentFile
from PIL import Image, ImageColor, ImageDraw, ImageFont, ImageOps

from cards.art import shown
from cards.faces import cost_text
from cards.text import wrap_lines

WIDTH, HEIGHT = 1200, 630
MARGIN = 48
KEY_CARDS = 6

FONTS = Path(__file__).resolve().parent / "fonts"
BACKGROUND = (32, 36, 43)
TEXT = (245, 245, 242)
QUIET = (190, 195, 203)  # 9:1 on the background
INK = (31, 35, 40)
MUTED = (77, 84, 97)
PAPER = (251, 250, 247)
NEUTRAL = (138, 143, 152)  # the frame of a card without colour
LEGAL = ((46, 125, 50), "✓")  # a symbol says it too: never the colour alone
NOT_LEGAL = ((183, 28, 28), "✗")

# Characters that are no text to draw (controls), dropped.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Face:
    """A card or a leader as a picture shows it."""

    name: str
    line: str = ""  # cost and type as the card reads: "2☀ · Spell"
    colours: tuple[str, ...] = ()  # CSS values of its colours (none: a neutral frame)
    text: str = ""
    art: str = ""  # the storage name of its art (the large rendition), "" for none
    count: int = 0  # copies in the deck


@dataclass(frozen=True)
class DeckPicture:
    name: str
    game: str
    format: str
    owner: str
    leader_label: str  # what the game calls its leader ("Hero"), "" for a game without
    leader: Face | None
    cards: tuple[Face, ...]
    card_count: int
    size: str  # the count its format asks for ("40–60"), "" for several sections
    legal: bool
    problems: int


# --- what is drawn, from what the pages load ---------------------------------------------------


def art_file(art) -> str:
    """The storage name of the largest rendition of `art` (cards.art) in its fallback format
    (JPEG or PNG), "" for none."""
    if art is None or not art.renditions:
        return ""
    return art.file_name(art.largest["size"], art.fallback)


def card_art(owner, printing: str = "") -> str:
    """The art of a card or leader: that of the printing numbered `printing` when it has some
    (a deck's entry names the art it shows), else the one its pages show (cards.art.shown)."""
    named = [p for p in owner.printing_list if printing and p.number == printing and p.art_id]
    return art_file(named[0].art if named else shown(owner))


def face_of(card, game, *, count: int = 0, printing: str = "", text: bool = False) -> Face:
    """A card (as `for_listing` loads it, or a deck's entries do) as drawn."""
    kinds = " / ".join(t.name for t in card.type_list)
    return Face(
        name=card.name,
        line=" · ".join(filter(None, [cost_text(card, game), kinds])),
        colours=tuple(c.css for c in card.colour_list),
        text=(card.text or "") if text else "",
        art=card_art(card, printing),
        count=count,
    )


def leader_face(leader, label: str = "") -> Face:
    """A leader (as the game's vocabulary holds it) as drawn, its `label` ("Hero") as its line."""
    return Face(
        name=leader.name,
        line=label,
        colours=tuple(c.css for c in leader.colour_list),
        text=leader.text or "",
        art=card_art(leader),
    )


def key_cards(entries, n: int = KEY_CARDS) -> list[tuple]:
    """The `n` cards a deck is known by, with their copies in all its sections: most copies
    first, then the costliest, then by name. (card, count, printing) each."""
    found: dict[int, list] = {}
    for entry in entries:
        row = found.setdefault(entry.card.pk, [entry.card, 0, entry.printing])
        row[1] += entry.count
    rows = sorted(found.values(), key=lambda r: (-r[1], -r[0].total_cost, r[0].name.casefold()))
    return [tuple(row) for row in rows[:n]]


def deck_picture(deck, entries, leader, *, size: str = "") -> DeckPicture:
    """A deck (with its game, format, owner and verdicts) and its entries with their cards."""
    game = deck.game
    return DeckPicture(
        name=deck.name,
        game=game.name,
        format=deck.format.name,
        owner=deck.owner.get_username(),
        leader_label=game.leader_label,
        leader=leader_face(leader, game.leader_label) if leader else None,
        cards=tuple(
            face_of(card, game, count=count, printing=printing)
            for card, count, printing in key_cards(entries)
        ),
        card_count=deck.card_count,
        size=size,
        legal=deck.legal,
        problems=len(deck.problems),
    )


@functools.cache
def _code() -> bytes:
    """This module's source: a change to the drawing draws every picture anew."""
    return Path(__file__).read_bytes()


def digest(picture: Face | DeckPicture) -> str:
    """A short digest of what `picture` shows and of the code that draws it."""
    return hashlib.sha256(_code() + repr(picture).encode()).hexdigest()[:16]


def deck_file(share_id: str, version: int, picture: DeckPicture) -> str:
    return f"previews/decks/{share_id}/{version}-{digest(picture)}.png"


def forget_deck(storage, share_id: str) -> None:
    """Delete every picture of a deck (it is gone)."""
    folder = f"previews/decks/{share_id}"
    if storage.exists(folder):
        for name in storage.listdir(folder)[1]:
            storage.delete(f"{folder}/{name}")


def face_file(kind: str, pk: int, picture: Face) -> str:
    """The file of a card's (`kind` "cards") or leader's ("leaders") picture."""
    return f"previews/{kind}/{pk}/{digest(picture)}.png"


# --- keeping pictures --------------------------------------------------------------------------


def store(storage, name: str, data: bytes) -> None:
    """Save `data` at `name` whole or not at all: a reader never finds a half-written file.

    On a local disk the file is written under a temporary name beside it, then renamed over
    `name` (atomic): two requests drawing the same picture at once both succeed, and the last
    rename wins with the same bytes. An object store (S3) shows an object only once it is
    uploaded whole; if it refuses to overwrite and saves under another name, that copy goes."""
    try:
        path = Path(storage.path(name))
    except NotImplementedError:  # no local path: an object store
        saved = storage.save(name, ContentFile(data))
        if saved != name:
            storage.delete(saved)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, getattr(storage, "file_permissions_mode", None) or 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def fetch(storage, name: str, draw: Callable[[], bytes]):
    """The picture stored at `name`, as an open file; when there is none yet, `draw()` makes
    it (returned as a file in memory), it is stored, and the older pictures of its folder (other
    versions of the deck, other states of the card) are deleted."""
    if storage.exists(name):
        try:
            return storage.open(name, "rb")
        except FileNotFoundError:  # deleted since (a newer version was drawn): draw it again
            pass
    data = draw()
    store(storage, name, data)
    folder, own = name.rsplit("/", 1)
    for other in storage.listdir(folder)[1]:
        if other != own and other.endswith(".png"):  # never another request's .part file
            storage.delete(f"{folder}/{other}")
    return io.BytesIO(data)


# --- drawing -------------------------------------------------------------------------------


@functools.cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(
        str(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")), size
    )


def clean(text: str) -> str:
    return _CONTROL.sub("", str(text))


def fit(text: str, face: ImageFont.FreeTypeFont, width: float) -> str:
    """`text` on one line, cut with an ellipsis when wider than `width`."""
    text = " ".join(clean(text).split())
    if face.getlength(text) <= width:
        return text
    while text and face.getlength(text.rstrip() + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def wrap(text: str, face: ImageFont.FreeTypeFont, width: float, lines: int) -> list[str]:
    """`text` in at most `lines` lines no wider than `width` (paragraphs kept, a word too long
    cut), the last ending with an ellipsis when text is left over."""
    return wrap_lines(
        clean(text),
        width,
        lines,
        measure=face.getlength,
        shorten=lambda line: fit(line + " …", face, width),
    )


def paint(css: str) -> tuple[int, int, int]:
    """A colour's CSS value as RGB (#hex, rgb(), hsl(), names); neutral grey for anything else."""
    try:
        return ImageColor.getrgb((css or "").strip())[:3]
    except ValueError:
        return NEUTRAL


def blend(colour, other, amount: float) -> tuple[int, int, int]:
    """`amount` of `colour` over `other`."""
    return tuple(round(a * amount + b * (1 - amount)) for a, b in zip(colour, other, strict=True))


def open_art(storage, name: str, size: tuple[int, int]) -> Image.Image | None:
    """The art stored at `name`, cropped to fill `size`; None when it cannot be read."""
    if not name:
        return None
    try:
        with storage.open(name, "rb") as file, Image.open(file) as art:
            return ImageOps.fit(art.convert("RGB"), size, Image.Resampling.LANCZOS)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None  # missing or not a picture: the frame is drawn instead


def draw_face(canvas: Image.Image, box, face: Face, storage, *, text: bool = False) -> bool:
    """`face` in `box` (x, y, width, height): its art with its name on a band, or a card-like
    frame in its colours (split for several, neutral grey for none) with its name, its line
    and, with `text`, its text. True when its art was drawn."""
    x, y, w, h = box
    draw = ImageDraw.Draw(canvas)
    colours = [paint(css) for css in face.colours] or [NEUTRAL]
    radius, border = max(6, w // 18), max(4, w // 26)
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=255)
    frame = Image.new("RGB", (w, h))
    band = w / len(colours)
    for i, colour in enumerate(colours):
        ImageDraw.Draw(frame).rectangle((round(i * band), 0, round((i + 1) * band), h), colour)
    canvas.paste(frame, (x, y), mask)
    ix, iy, iw, ih = x + border, y + border, w - 2 * border, h - 2 * border  # the paper
    inner_mask = Image.new("L", (iw, ih), 0)
    ImageDraw.Draw(inner_mask).rounded_rectangle((0, 0, iw - 1, ih - 1), radius // 2, fill=255)
    size = max(14, w // 13)
    words = clean(face.name).split() or [""]
    while size > 11 and max(font(size, True).getlength(word) for word in words) > iw - 2 * border:
        size -= 1  # a long word on a small card: smaller, rather than cut
    art = open_art(storage, face.art, (iw, ih))
    if art is not None:
        canvas.paste(art, (ix, iy), inner_mask)
        lines = wrap(face.name, font(size, True), iw - 2 * border, 2)
        strip = len(lines) * round(size * 1.25) + border * 2
        shade = Image.new("RGBA", (iw, strip), (0, 0, 0, 170))
        canvas.paste(shade, (ix, iy + ih - strip), shade)
        ty = iy + ih - strip + border
        for line in lines:
            draw.text((ix + border, ty), line, font=font(size, True), fill=TEXT)
            ty += round(size * 1.25)
    else:
        canvas.paste(PAPER, (ix, iy, ix + iw, iy + ih), inner_mask)
        room = iw - 2 * border
        lines = wrap(face.name, font(size, True), room, 3)
        line_size = max(11, round(size * 0.8))
        header = (
            border + len(lines) * round(size * 1.25) + (round(line_size * 1.4) if face.line else 0)
        )
        tint = Image.new("RGB", (iw, header + border), blend(colours[0], PAPER, 0.22))
        canvas.paste(tint, (ix, iy), inner_mask.crop((0, 0, iw, header + border)))
        ty = iy + border
        for line in lines:
            draw.text((ix + border, ty), line, font=font(size, True), fill=INK)
            ty += round(size * 1.25)
        if face.line:
            draw.text(
                (ix + border, ty),
                fit(face.line, font(line_size), room),
                font=font(line_size),
                fill=MUTED,
            )
        ty = iy + header + border
        draw.line((ix + border, ty, ix + iw - border, ty), fill=colours[0], width=max(2, w // 120))
        if text and face.text:
            text_size = max(11, round(size * 0.7))
            leading = round(text_size * 1.35)
            ty += border
            room_lines = max(0, (iy + ih - border - ty) // leading)
            for line in wrap(face.text, font(text_size), room, room_lines):
                draw.text((ix + border, ty), line, font=font(text_size), fill=INK)
                ty += leading
    return art is not None


def verdict(picture: DeckPicture) -> tuple[tuple[int, int, int], str]:
    """(colour, words with their symbol) of the deck's verdict."""
    if picture.legal:
        colour, symbol = LEGAL
        return colour, f"{symbol} Legal in {picture.format}"
    colour, symbol = NOT_LEGAL
    n = picture.problems
    problems = f": {n} problem{'s' if n != 1 else ''}" if n else ""
    return colour, f"{symbol} Not legal{problems}"


def png(canvas: Image.Image) -> bytes:
    out = io.BytesIO()
    canvas.save(out, "PNG", optimize=True)
    return out.getvalue()


def footer(draw: ImageDraw.ImageDraw) -> None:
    draw.text(
        (WIDTH - MARGIN, HEIGHT - 30), "Deckbuilder", font=font(24, True), fill=QUIET, anchor="rs"
    )


def draw_deck(picture: DeckPicture, storage) -> bytes:
    """The deck's picture (WIDTH×HEIGHT PNG); art read from `storage`."""
    canvas = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    left = MARGIN
    if picture.leader is not None:
        height = HEIGHT - 2 * MARGIN
        width = height * 5 // 7
        draw_face(canvas, (MARGIN, MARGIN, width, height), picture.leader, storage, text=True)
        left = MARGIN + width + 40
    room = WIDTH - MARGIN - left

    y = MARGIN
    about = " · ".join(filter(None, [picture.game, picture.format]))
    draw.text((left, y), fit(about, font(26), room), font=font(26), fill=QUIET)
    y += 44
    name_font = font(52, True)
    lines = wrap(picture.name, name_font, room, 2)
    if len(lines) > 1:
        name_font = font(44, True)
        lines = wrap(picture.name, name_font, room, 2)
    for line in lines:
        draw.text((left, y), line, font=name_font, fill=TEXT)
        y += round(name_font.size * 1.2)

    y += 14
    colour, words = verdict(picture)
    words = fit(words, font(28, True), room - 40)
    width = round(font(28, True).getlength(words)) + 40
    draw.rounded_rectangle((left, y, left + width, y + 52), 26, fill=colour)
    draw.text((left + 20, y + 26), words, font=font(28, True), fill=(255, 255, 255), anchor="lm")
    y += 70

    count = f"{picture.card_count}/{picture.size}" if picture.size else str(picture.card_count)
    cards = "card" if picture.card_count == 1 and not picture.size else "cards"
    facts = [f"{count} {cards}", f"by {picture.owner}"]
    if picture.leader_label and picture.leader is None:
        facts.insert(0, f"No {picture.leader_label.lower()}")
    draw.text((left, y), fit(" · ".join(facts), font(26), room), font=font(26), fill=QUIET)

    top, gap = y + 56, 14
    bottom = HEIGHT - MARGIN - 30 - 34  # the copies are written under each card
    if picture.cards:
        card_w = min((room - gap * (KEY_CARDS - 1)) // KEY_CARDS, (bottom - top) * 5 // 7)
        card_h = card_w * 7 // 5
        for i, face in enumerate(picture.cards):
            x = left + i * (card_w + gap)
            draw_face(canvas, (x, top, card_w, card_h), face, storage)
            copies = f"{face.count}×"
            draw.text(
                (x + card_w / 2, top + card_h + 8),
                copies,
                font=font(24, True),
                fill=TEXT,
                anchor="mt",
            )
    else:
        draw.text((left, top), "No cards yet", font=font(26), fill=QUIET)
    footer(draw)
    return png(canvas)


def draw_card(face: Face, game: str, storage) -> bytes:
    """A card's or a leader's picture (WIDTH×HEIGHT PNG): its art or frame, and beside it its
    name, game, line and (when the art hides them) its text."""
    canvas = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    height = HEIGHT - 2 * MARGIN
    width = height * 5 // 7
    with_art = draw_face(canvas, (MARGIN, MARGIN, width, height), face, storage, text=True)
    left = MARGIN + width + 48
    room = WIDTH - MARGIN - left
    y = MARGIN
    draw.text((left, y), fit(game, font(26), room), font=font(26), fill=QUIET)
    y += 44
    for line in wrap(face.name, font(52, True), room, 2):
        draw.text((left, y), line, font=font(52, True), fill=TEXT)
        y += 62
    y += 10
    for line in wrap(face.line, font(30), room, 2):
        draw.text((left, y), line, font=font(30), fill=TEXT)
        y += 40
    if with_art and face.text:
        y += 16
        room_lines = max(0, (HEIGHT - MARGIN - 40 - y) // 34)
        for line in wrap(face.text, font(25), room, room_lines):
            draw.text((left, y), line, font=font(25), fill=QUIET)
            y += 34
    footer(draw)
    return png(canvas)
