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
