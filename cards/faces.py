"""Card faces: an SVG picture of a card for the cards that have no image of their own.

`card_face_svg(card, game)` draws, in a card-shaped frame (viewBox 0 0 250 350) whose border and
header take the card's colour (a split frame for several colours, a neutral one for none), its
name, cost (each colour's symbol with its amount), type, colours in words, rarity symbol,
keywords, the condition and effect text wrapped onto lines (ellipsis when it does not fit) and
its stats with their names.

It is pure: it reads only what `Card.objects.for_listing()` loads and prefetches, and the game's
prefetched stats (as `card.game`, for `Card.stat_items`). Everything written comes from data
(names and text are user data) and goes through `_xml()`, which escapes it for XML and drops the
characters XML 1.0 forbids, so the document always parses and never carries markup of its own.
SVG has no text wrapping: lines are cut here, by an estimate of each character's width.
"""

import hashlib
import re
import unicodedata

from .models import Card, Game
from .pagecache import release
from .text import wrap_lines

WIDTH, HEIGHT = 250, 350

INK = "#1f2328"
MUTED = "#4d5461"  # 7:1 on the paper
PAPER = "#fbfaf7"
NEUTRAL = "#8a8f98"  # the frame of a card without colour
FONT = "'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif"

# What a colour's CSS value may be to reach a fill attribute (the same as colours.css allows):
# #hex, names, rgb()/hsl(). Anything else draws the neutral frame.
CSS_COLOUR = re.compile(r"[#a-zA-Z0-9(),.%/ -]+")

# Characters XML 1.0 refuses: C0 controls but tab/newline/return, surrogates, U+FFFE/U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

# Geometry (user units of the viewBox).
BORDER = 9  # frame width around the paper
LEFT = BORDER + 9  # text margin
RIGHT = WIDTH - BORDER - 9
LINE_WIDTH = RIGHT - LEFT
PAPER_BOTTOM = HEIGHT - BORDER
TEXT_SIZE, LEADING = 12, 15  # the condition and effect text


def _xml(value) -> str:
    """`value` as text safe in XML content and in double- or single-quoted attributes."""
    text = _NOT_XML.sub("", str(value))
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def _char_width(char: str) -> float:
    """An estimate of a character's advance, in ems, in a common sans-serif font."""
    if unicodedata.combining(char):
        return 0.0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 1.0
    if char in "il.,:;'|!`ıìíîï":
        return 0.28
    if char in 'fjrtI()[]{}-"“”‘’ ·/':
        return 0.36
    if char in "mwMWшщжмюШЩЖМЮ@%":
        return 0.86
    if char.isupper():
        return 0.68
    if char.isalnum():
        return 0.56
    return 0.8  # symbols: ☀, ★, ❦…


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The estimated width of `text` set in `size` user units (bold is wider): a little more
    than DejaVu Sans takes, the widest of the usual fonts (Arial, Helvetica, Segoe UI and
    Roboto take less), so lines never run out of the frame, only end a little early."""
    return sum(_char_width(c) for c in text) * size * (1.2 if bold else 1.06)


def _fit(text: str, size: float, width: float, *, bold: bool = False) -> str:
    """`text`, cut and ended with an ellipsis if it is wider than `width`."""
    if text_width(text, size, bold=bold) <= width:
        return text
    while text and text_width(text + "…", size, bold=bold) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def wrap(text: str, size: float, width: float, max_lines: int, *, bold: bool = False) -> list[str]:
    """`text` in lines no wider than `width` (paragraphs kept), at most `max_lines` of them:
    the last of those ends with an ellipsis when text is left over."""
    return wrap_lines(
        _NOT_XML.sub("", str(text)),
        width,
        max_lines,
        measure=lambda line: text_width(line, size, bold=bold),
        shorten=lambda line: _fit(line + "…", size, width, bold=bold),
    )


def _paint(css: str) -> str:
    """A colour's CSS value as a fill, or the neutral grey for a value that is not a colour."""
    css = (css or "").strip()
    return css if CSS_COLOUR.fullmatch(css) else NEUTRAL


def _frame(colours: list) -> tuple[str, str, str]:
    """(<defs> content, fill, accent) of the frame: the one colour, a split of several (in
    diagonal bands; the accent for lines is the first), or neutral grey for none."""
    paints = [_xml(_paint(c.css)) for c in colours]
    if not paints:
        return "", NEUTRAL, NEUTRAL
    if len(paints) == 1:
        return "", paints[0], paints[0]
    stops = []
    for i, paint in enumerate(paints):
        start, stop = 100 * i / len(paints), 100 * (i + 1) / len(paints)
        stops.append(f'<stop offset="{start:.2f}%" stop-color="{paint}"/>')
        stops.append(f'<stop offset="{stop:.2f}%" stop-color="{paint}"/>')
    gradient = '<linearGradient id="frame" x1="0" y1="0" x2="1" y2="1">'
    return gradient + "".join(stops) + "</linearGradient>", "url(#frame)", paints[0]


def _line(
    x, y, text: str, room: float, *, size, bold=False, anchor="start", fill=INK, italic=False
):
    """One line of `text` (escaped here), cut with an ellipsis if wider than `room`."""
    text = _fit(text, size, room, bold=bold)
    attributes = [f'x="{x}"', f'y="{y}"', f'font-size="{size}"', f'fill="{fill}"']
    if bold:
        attributes.append('font-weight="bold"')
    if italic:
        attributes.append('font-style="italic"')
    if anchor != "start":
        attributes.append(f'text-anchor="{anchor}"')
    return f"<text {' '.join(attributes)}>{_xml(text)}</text>"


def cost_text(card: Card, game: Game) -> str:
    """The cost as written on the face: each colour's amount and symbol ("2☀ 1✹"), then the
    generic amount with the game's word for it; "No cost" when there is none."""
    parts = []
    for colour, amount in card.cost_items:
        if getattr(colour, "is_symbol", False):  # X, moon...: "X", "2☾"
            parts.append(colour.symbol if amount == 1 else f"{amount}{colour.symbol}")
        elif colour is not None:
            parts.append(f"{amount}{colour.symbol}" if colour.symbol else f"{amount} {colour.name}")
        else:
            label = game.generic_cost_label
            named = label and label.casefold() != game.cost_label.casefold()
            parts.append(f"{amount} {label}" if named else str(amount))
    return " ".join(parts) if parts else "No cost"


def stats_text(card: Card) -> str:
    """The stats with their names: "ATK 3 / HP 4"."""
    if not card.stats:  # no need to read the game's stats
        return ""
    return " / ".join(f"{stat.name} {value}" for stat, value in card.stat_items)


def card_face_svg(card: Card, game: Game) -> str:
    """The face of `card` (loaded with for_listing(); `game` with its stats prefetched, also as
    `card.game`) as a standalone SVG document."""
    colours = card.colour_list
    keywords = [k.name for k in card.keyword_list]
    defs, frame, accent = _frame(colours)
    parts = []

    # Header: the name (one line, or two smaller ones), then the cost.
    name = " ".join(str(card.name).split())
    name_size = 15 if text_width(name, 15, bold=True) <= LINE_WIDTH else 13
    y = BORDER + 20
    for line in wrap(name, name_size, LINE_WIDTH, 2, bold=True):
        parts.append(_line(LEFT, y, line, LINE_WIDTH, size=name_size, bold=True))
        y += name_size + 3

    # The cost; the rarity's symbol and name on its right, or on the type line's if the cost
    # takes the room.
    y += 4
    cost = cost_text(card, game)
    rarity = ""
    if card.rarity_id:
        rarity = " ".join(filter(None, [card.rarity.symbol, card.rarity.name]))
    rarity_width = min(text_width(rarity, 11), LINE_WIDTH / 2) + 8 if rarity else 0
    beside_cost = text_width(cost, 14, bold=True) + rarity_width <= LINE_WIDTH
    cost_room = LINE_WIDTH - rarity_width if beside_cost else LINE_WIDTH
    parts.append(_line(LEFT, y, cost, cost_room, size=14, bold=True))
    if rarity and beside_cost:
        parts.append(_line(RIGHT, y, rarity, rarity_width - 8, size=11, anchor="end"))
    header_bottom = y + 8

    # Type line: the type and the colours in words.
    y = header_bottom + 16
    words = [" / ".join(t.name for t in card.type_list)]
    if game.colour_label:
        words.append(" / ".join(c.name for c in colours) or game.no_colour_name)
    type_room = LINE_WIDTH if beside_cost else LINE_WIDTH - rarity_width
    parts.append(_line(LEFT, y, " · ".join(words), type_room, size=11.5))
    if rarity and not beside_cost:
        parts.append(_line(RIGHT, y, rarity, rarity_width - 8, size=11, anchor="end"))
    y += 7
    parts.append(
        f'<line x1="{LEFT}" y1="{y}" x2="{RIGHT}" y2="{y}" stroke="{accent}" stroke-width="1.5"/>'
    )

    # Body: keywords, then the condition and the text, as far as the room goes.
    stats = stats_text(card)
    bottom = PAPER_BOTTOM - (40 if stats else 12)  # the last baseline
    y += 16
    for line in wrap(" · ".join(keywords), 11, LINE_WIDTH, 2, bold=True):
        parts.append(_line(LEFT, y, line, LINE_WIDTH, size=11, bold=True, fill=MUTED))
        y += 14
    size, leading = TEXT_SIZE, LEADING
    y += 2
    room = max(int((bottom - y) // leading) + 1, 0)
    when = f"When: {card.condition}" if card.condition else ""
    other = "".join(f"⟲ {face.name} " for face in card.face_list)  # its other faces, by name
    if other:
        for line in wrap(other.strip(), size, LINE_WIDTH, 1):
            parts.append(_line(LEFT, y, line, LINE_WIDTH, size=size, italic=True, fill=MUTED))
            y += leading
            room -= 1
    condition = wrap(when, size, LINE_WIDTH, room - 1 if card.text else room)
    text = wrap(card.text or "", size, LINE_WIDTH, room - len(condition))
    for line in condition:
        parts.append(_line(LEFT, y, line, LINE_WIDTH, size=size, italic=True, fill=MUTED))
        y += leading
    for line in text:
        parts.append(_line(LEFT, y, line, LINE_WIDTH, size=size))
        y += leading

    # Stats, in a box at the bottom.
    if stats:
        box_y = PAPER_BOTTOM - 32
        parts.append(
            f'<rect x="{LEFT - 4}" y="{box_y}" width="{LINE_WIDTH + 8}" height="24" rx="5" '
            f'fill="#ffffff" stroke="{accent}" stroke-width="1.5"/>'
        )
        parts.append(
            _line(WIDTH / 2, box_y + 17, stats, LINE_WIDTH - 8, size=13, bold=True, anchor="middle")
        )

    title = _xml(card.name)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{title}" '
        f'font-family="{_xml(FONT)}">'
        f"<title>{title}</title>"
        f'<defs>{defs}<clipPath id="paper"><rect x="{BORDER}" y="{BORDER}" '
        f'width="{WIDTH - 2 * BORDER}" height="{HEIGHT - 2 * BORDER}" rx="8"/></clipPath></defs>'
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="14" fill="{frame}"/>'
        f'<rect x="{BORDER}" y="{BORDER}" width="{WIDTH - 2 * BORDER}" '
        f'height="{HEIGHT - 2 * BORDER}" rx="8" fill="{PAPER}"/>'
        f'<g clip-path="url(#paper)">'
        f'<rect x="{BORDER}" y="{BORDER}" width="{WIDTH - 2 * BORDER}" '
        f'height="{header_bottom - BORDER}" fill="{frame}" fill-opacity="0.22"/>'
        + "".join(parts)
        + "</g></svg>\n"
    )


def face_etag(card: Card, game: Game) -> str:
    """A strong ETag of the face: it changes with the card (`updated`), with anything of the
    game it draws (`rules_version` is bumped on every change of its vocabulary) and with the
    drawing itself (the release: its code)."""
    key = f"{card.pk}:{card.updated.isoformat()}:{game.pk}:{game.rules_version}:{release()}"
    return '"' + hashlib.sha256(key.encode()).hexdigest()[:32] + '"'
