"""Text that people read must show what it says: no control characters, which terminals and
some fonts render as nothing, and no bidirectional overrides or isolates, which reorder what
follows them so one name can pass for another (U+202E makes "abc.exe" read as "exe.cba")."""

import re

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

# C0 and C1 controls and DEL; the bidi embeddings, overrides (U+202A–U+202E) and isolates
# (U+2066–U+2069); invisible marks that reorder text around them (U+200E, U+200F, U+061C).
_HIDDEN = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_IN_LINE = re.compile(f"[{_HIDDEN}\t\n\r]")
_IN_TEXT = re.compile(f"[{_HIDDEN}]")  # several lines: tabs and line breaks are fine


@deconstructible
class ShownText:
    """A validator: refuse hidden characters (`multiline` allows tabs and line breaks)."""

    def __init__(self, multiline: bool = False):
        self.multiline = multiline

    def __call__(self, value):
        match = (_IN_TEXT if self.multiline else _IN_LINE).search(str(value))
        if match:
            raise ValidationError(
                "Control and bidirectional-override characters are not allowed "
                "(U+%(code)04X at position %(position)d).",
                code="hidden_character",
                params={"code": ord(match.group()), "position": match.start() + 1},
            )

    def __eq__(self, other):
        return isinstance(other, ShownText) and other.multiline == self.multiline


one_line = ShownText()
several_lines = ShownText(multiline=True)


# --- JSON read from people (API bodies, import files) ----------------------------------

MAX_DEPTH = 32  # no body of this API nests more than a few levels


def problem(data, *, strings: bool = True) -> str | None:
    """What is wrong with parsed JSON, or None: too deep, a NUL character (PostgreSQL cannot
    store one), or a lone surrogate such as "\\ud800" (UTF-8 cannot encode one); only too deep
    if not `strings` (cards.importers.load_json: its rows report bad strings). Iterative: the
    document may be deep."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels."
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                stack += [(key, depth), (item, depth + 1)]
        elif strings and isinstance(value, str):
            if "\x00" in value:
                return "NUL characters (\\u0000) are not allowed in strings."
            try:
                value.encode()
            except UnicodeEncodeError:
                return "Unpaired surrogates (\\ud800-\\udfff) are not allowed in strings."
    return None


def article(phrase: str) -> str:
    """The indefinite article before `phrase`: "an" before a vowel ("an Irdya card game", "an
    Of Gods and Men format"), else "a"."""
    return "an" if phrase[:1].lower() in "aeiou" and phrase[:1] else "a"


def wrap_lines(text: str, width: float, max_lines: int, *, measure, shorten) -> list[str]:
    """`text` in at most `max_lines` lines, each no wider than `width` by `measure` (a drawn
    face's estimate, a font's length): paragraphs kept, words placed greedily, a word wider
    than a line in pieces. When text is left over, the last line is `shorten(line)`, which adds
    the ellipsis."""
    if max_lines <= 0:
        return []
    lines: list[str] = []
    for paragraph in text.splitlines():
        line = ""
        for word in paragraph.split():
            for piece in _pieces(word, width, measure):
                candidate = f"{line} {piece}" if line else piece
                if line and measure(candidate) > width:
                    lines.append(line)
                    line = piece
                else:
                    line = candidate
        if line:
            lines.append(line)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = shorten(lines[-1].rstrip(" .,;:"))
    return lines


def _pieces(word: str, width: float, measure) -> list[str]:
    """A word, or a word wider than a line in pieces that fit."""
    if measure(word) <= width:
        return [word]
    pieces, piece = [], ""
    for char in word:
        if piece and measure(piece + char) > width:
            pieces.append(piece)
            piece = ""
        piece += char
    return [*pieces, piece] if piece else pieces
