"""What every parser shares: the source lines, errors and warnings, the section a parser finds
(`Heading`), and plain text -> Markdown paragraphs."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from .numbers import NUMBER
from .render import escape_plain


class RulesParseError(ValueError):
    """A rules document that cannot be read; `line` is 1-based, as an editor counts lines."""

    def __init__(self, line: int, message: str):
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class ParseWarning:
    """A guess the reader made (`line`, what it did); listed by the dry run."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


Warn = Callable[[int, str], None]  # warn(index of the line, message)


@dataclass
class Heading:
    """A section as a parser finds it. `number` None means numbered by position: the next
    child of the nearest enclosing heading of a lower `level`. `body` is Markdown."""

    level: int
    title: str
    line: int  # index in Source.lines
    number: str | None = None
    body: str = ""
    lines: list[str] = field(default_factory=list)  # the parser's own working copy
    titled: bool = False  # its text is its title (a Markdown heading)
    written: str = ""  # as written, number included (kept whole by --numbering=position)


@dataclass
class Source:
    """A document as lines. A line is what an editor shows as one: ended by LF, CRLF or, in a
    file without LF, CR. A lone CR inside a line (PDF dumps have them) splits it here too, but
    both parts keep the line's number. `breaks`: indexes of lines that held a form feed."""

    lines: list[str]
    numbers: list[int]
    breaks: set[int]

    @classmethod
    def of(cls, text: str) -> Source:
        text = text.lstrip("\ufeff")
        rows = text.split("\n") if "\n" in text else text.split("\r")
        lines, numbers, breaks = [], [], set()
        for number, row in enumerate(rows, 1):
            for part in row.removesuffix("\r").split("\r"):
                if "\f" in part:  # a PDF dump's page break: layout only
                    breaks.add(len(lines))
                    part = part.replace("\f", "")
                lines.append(part)
                numbers.append(number)
        return cls(lines, numbers, breaks)

    def line(self, index: int) -> int:
        """The editor's line number of line `index` (0-based; past the end: the last line)."""
        if not self.numbers:
            return 1
        return self.numbers[min(max(index, 0), len(self.numbers) - 1)]


def decode(data: bytes) -> str:
    """UTF-8 (with or without a byte-order mark) -> text; RulesParseError naming the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise RulesParseError(
            line, f"not UTF-8 text (byte 0x{data[e.start]:02x}); save the file as UTF-8"
        ) from None


# --- headings in text -----------------------------------------------------------------------

SENTENCE_END = re.compile(r"[.!?:;,…][\"'»”’)\]]*$")
CONNECTORS = set(
    "a an and as at by for from in of on or the to with "
    "а в во для до и из или к на но о об от по с со".split()
)
HEADING_MAX = 60
NUMBERED_TITLE = re.compile(rf"^(?P<number>{NUMBER})(?P<dot>\.?)(?:\s+(?P<title>\S.*))?$")


def is_heading_text(text: str) -> bool:
    """Short and not a sentence: a title rather than a rule's text."""
    return 0 < len(text) <= HEADING_MAX and not SENTENCE_END.search(text)


def split_title(text: str) -> tuple[str | None, str, bool]:
    """'4.2. Title' -> ('4.2', 'Title', True); '2 Player game' -> ('2', 'Player game', False);
    'Title' -> (None, 'Title', False). The flag: the number is unmistakable (a dot or parts)."""
    match = NUMBERED_TITLE.match(text.strip())
    if match:
        sure = bool(match["dot"]) or "." in match["number"] or not match["title"]
        return match["number"], (match["title"] or "").strip(), sure
    return None, text.strip(), False


def trim(lines: list[str]) -> str:
    """Body lines without blank lines at either end or runs of blank lines."""
    text = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


# --- plain text -> Markdown -----------------------------------------------------------------

BULLET = re.compile(r"^\s*[•·▪◦●‣■□➢►–—]\s*|^\s*[-*+]\s+")
LIST_ITEM = re.compile(r"^\s*(?P<n>\d{1,3}|[a-zа-я])[.)]\s+(?=\S)")
_HYPHENATED = re.compile(r"\w-$")


def starts_lower(text: str) -> bool:
    first = text.lstrip("\"'«“‘([")[:1]
    return first.islower() or first in ",;:.)»”’"


def runs_on_from(last: str, line: str, wrap: int | None) -> bool:
    """Whether `line` continues the sentence of `last`, the line before it (no blank line
    between): it goes on in lower case, or `last` does not end a sentence and either `line`
    does not start with a capital, `last` ends with a connecting word ("of", "the"), or the
    text is hard-wrapped and `last` reached the margin."""
    if not last:
        return False
    if starts_lower(line):
        return True
    if SENTENCE_END.search(last):
        return False
    return (
        not line[:1].isupper()
        or last.split()[-1].casefold() in CONNECTORS
        or bool(wrap and len(last) >= 0.6 * wrap)
    )


def wrap_width(lines: list[str]) -> int | None:
    """The width a hard-wrapped text was wrapped at (most lines end near it), or None when
    lines are paragraphs (a PDF dump wraps at 60-120 characters; a text file does not)."""
    lengths = sorted(len(line.strip()) for line in lines if len(line.strip()) > 20)
    if len(lengths) < 5:
        return None
    width = lengths[int(len(lengths) * 0.9)]
    return width if width <= 120 else None


def plain_body(lines: list[str], *, markup: bool = False, wrap: int | None = None) -> str:
    """Plain text as Markdown: bullets and numbered items (after a line ending in a colon, or
    after another item) become list items, and the text is escaped (`markup`: it is Markdown
    already, keep it). A line joins the one before it (no blank line between) when it goes on
    in lower case, or when the text is hard-wrapped at `wrap` characters and the line before
    reached the margin without ending a sentence; otherwise each line is a paragraph."""
    blocks: list[list[str]] = []  # [kind ("p", "ul", "ol"), text]
    last = ""  # the previous non-blank line, as written
    for raw in lines:
        line = unicodedata.normalize("NFC", raw).strip()
        if not line:
            last = ""
            continue
        bullet = BULLET.match(line)
        if bullet and markup and line[:1] in "-*+":
            bullet = None  # Markdown's own list: kept as written
        item = LIST_ITEM.match(line)
        after_colon = bool(blocks) and blocks[-1][1].endswith(":")
        in_list = bool(blocks) and blocks[-1][0] != "p" and bool(last)
        runs_on = runs_on_from(last, line, wrap)
        if bullet:
            blocks.append(["ul", line[bullet.end() :]])
        elif item and (after_colon or in_list or not last):
            blocks.append(["ol", line])
        elif runs_on:
            glue = "" if _HYPHENATED.search(blocks[-1][1]) else " "
            blocks[-1][1] += glue + line
        else:
            blocks.append(["p", line])
        last = line
    out: list[str] = []
    previous = None
    for kind, text in blocks:
        if kind == "ol":
            item = LIST_ITEM.match(text)
            number = item["n"] if item["n"].isdigit() else None
            text = text[item.end() :]
        text = text if markup else escape_plain(text)
        if kind == "ul":
            text = "- " + text
        elif kind == "ol":
            text = f"{number}. {text}" if number else f"- {text}"
        if out:
            out.append("\n" if kind != "p" and kind == previous else "\n\n")
        out.append(text)
        previous = kind
    return "".join(out)
