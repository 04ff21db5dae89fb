"""What every parser shares: the source lines, errors and warnings, the section a parser finds
(`Heading`), tables (reStructuredText grid and simple tables, pipe tables) -> Markdown pipe
tables, and plain text -> Markdown paragraphs and tables."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Container, Iterator
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


# --- tables -> Markdown pipe tables ---------------------------------------------------------

GRID_BORDER = re.compile(r"^\+(?:[-=]+\+)+$")  # +----+----+ (+====+ under a header)
SIMPLE_RULE = re.compile(r"^=+(?: +=+)+$")  # =====  ===== (two columns at least)
SPAN_RULE = re.compile(r"^-+(?: +-+)*$")  # -----  ----- under a column-spanning header
PIPE_RULE = re.compile(r"^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?$")  # |:---|---:|
_CODE_OR_PIPE = re.compile(r"(`+).+?\1|\\.|\|")  # a pipe in code or escaped splits no cell
_MARKDOWN_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s")
_ALIGN_RULES = {"left": ":---", "right": "---:", "center": ":---:", "": "---"}

Table = tuple[int, list[list[str]], list[str]]  # (end index, rows with the header first, aligns)


def tables_to_markdown(
    lines: list[str], *, markup: bool = True, skip: Container[int] = ()
) -> list[str]:
    """`lines` with every table as a Markdown pipe table between blank lines (see
    `table_blocks`)."""
    out: list[str] = []
    for block in table_blocks(lines, markup=markup, skip=skip):
        out.extend(["", *block, ""] if isinstance(block, list) else [block])
    return out


def table_blocks(
    lines: list[str], *, markup: bool = True, skip: Container[int] = ()
) -> Iterator[str | list[str]]:
    """The lines one by one, except that a table comes as one list of Markdown pipe-table lines.
    Tables: reStructuredText grid tables (a row above a ``+===+`` line is the header, else the
    first row), simple tables (``=====  =====`` rules; the rows above the second rule are the
    header when there are three rules, else the first row) and pipe tables (a ``|---|`` line
    under the header), indented or not (see `_list_indent`). A cell's lines are joined with
    spaces; a cell spanning columns keeps its text in its first column. Cells are Markdown
    (`markup`: pipes escaped) or plain text (escaped). Lines in `skip` (code) start no table."""
    i = 0
    while i < len(lines):
        table = None if i in skip else _grid(lines, i) or _simple(lines, i) or _pipe(lines, i)
        if not table:
            yield lines[i]
            i += 1
            continue
        start, (i, rows, aligns) = i, table
        width = max(len(aligns), *(len(row) for row in rows))
        cell = _escape_cell if markup else _escape_plain_cell
        block = []
        for k, row in enumerate(rows):
            row = [cell(" ".join(text.split())) for text in row] + [""] * (width - len(row))
            block.append("| " + " | ".join(row) + " |")
            if not k:  # Python-Markdown needs the rule under the header, as wide as the rows
                rules = [_ALIGN_RULES[a] for a in aligns] + ["---"] * (width - len(aligns))
                block.append("|" + "|".join(rules) + "|")
        indent = _list_indent(lines, start) if markup else ""
        yield [indent + line for line in block]


def _list_indent(lines: list[str], i: int) -> str:
    """The indentation of the table at line `i` when it is inside a Markdown list item (the
    line above it with less indentation is an item): kept, it stays in the item. Elsewhere it
    goes, as four spaces would make the table code."""
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    for line in reversed(lines[:i]):
        if line.strip() and len(line) - len(line.lstrip()) < len(indent):
            return indent if _MARKDOWN_ITEM.match(line) else ""
    return ""


def _escape_cell(text: str) -> str:
    """Markdown cell text with its pipes escaped, except in code spans and those escaped."""
    return _CODE_OR_PIPE.sub(lambda m: "\\|" if m[0] == "|" else m[0], text)


def _escape_plain_cell(text: str) -> str:
    """Plain cell text as Markdown; its `\\|` (a pipe that is no column edge) is a pipe."""
    return escape_plain(text.replace("\\|", "|"))


def _indented(lines: list[str], i: int, rule: re.Pattern) -> int | None:
    """The indentation of line `i` if, without it, it matches `rule`."""
    line = lines[i].expandtabs().rstrip()
    return len(line) - len(line.lstrip()) if rule.match(line.strip()) else None


def _grid(lines: list[str], i: int) -> Table | None:
    indent = _indented(lines, i, GRID_BORDER)
    if indent is None:
        return None
    block = []
    for line in lines[i:]:
        line = line.expandtabs().rstrip()
        if line[:indent].strip() or line[indent : indent + 1] not in ("+", "|"):
            break
        block.append(line[indent:])
    while block and not GRID_BORDER.match(block[-1]):
        block.pop()
    if len(block) < 3:
        return None
    columns = [k for k, c in enumerate(block[0]) if c == "+"]
    right = columns.pop()  # the right border
    rows: list[list[list[str]]] = []
    header = 0
    cells = None
    for line in block[1:]:
        if GRID_BORDER.match(line):  # a full border ends a row
            if cells:
                rows.append(cells)
            cells = None
            header = header or (len(rows) if "=" in line else 0)
            continue
        cells = cells or [[] for _ in columns]
        # A cell starts at each column edge drawn in this line; one spanning columns (no edge
        # drawn) keeps its text in its first column, as does text past the right border.
        edges = [k for k in columns if line[k : k + 1] in ("|", "+")]
        past = line[right + 1 :].strip() or line[right : right + 1] not in ("|", "+")
        for start, end in zip(edges, [*edges[1:], len(line) if past else right], strict=True):
            text = line[start + 1 : end]
            if text.strip() and not re.fullmatch(r"[-=]+", text):  # not a row-span border
                cells[columns.index(start)].append(text)
    rows = [[" ".join(pieces) for pieces in row] for row in rows]
    return i + len(block), _with_header(rows, header), []


def _simple(lines: list[str], i: int) -> Table | None:
    indent = _indented(lines, i, SIMPLE_RULE)
    if indent is None:
        return None
    if i + 1 == len(lines) or not lines[i + 1].strip():
        return None  # a rule followed by a blank line ends a table, it starts none
    starts = [m.start() for m in re.finditer(r"=+", lines[i].expandtabs())]
    rules, rows, header, fresh = 0, [], 0, True  # fresh: no row since the last rule
    for j in range(i + 1, len(lines)):
        line = lines[j].expandtabs().rstrip()
        if not line and not lines[j - 1].strip():
            return None  # two blank lines: no bottom rule, not a table
        if SIMPLE_RULE.match(line.strip()):
            rules += 1
            if j + 1 == len(lines) or not lines[j + 1].strip():  # the bottom rule
                return j + 1, _with_header(rows, header if rules > 1 else 0), []
            header, fresh = header or len(rows), True
        elif line[:indent].strip():
            return None  # text left of the table: not one
        elif line.strip() and not SPAN_RULE.match(line.strip()):
            texts = [line[a:b] for a, b in zip(starts, [*starts[1:], len(line)], strict=False)]
            if not fresh and not texts[0].strip():  # an empty first column continues a row
                rows[-1] = [f"{a} {b}" for a, b in zip(rows[-1], texts, strict=False)]
            else:
                rows.append(texts)
            fresh = False
    return None


def _with_header(rows: list[list[str]], header: int) -> list[list[str]]:
    """Rows under one header row: the `header` rows above the header line joined, else (no
    header line) the first row, as Markdown tables always have one."""
    if header > 1:
        rows = [[" ".join(texts) for texts in zip(*rows[:header], strict=False)], *rows[header:]]
    return rows


def _pipe(lines: list[str], i: int) -> Table | None:
    if "|" not in lines[i]:
        return None
    if not _pipe_rule(lines, i + 1):
        return None
    end = i + 2
    while end < len(lines) and "|" in lines[end] and not _pipe_rule(lines, end + 1):
        end += 1  # a row, unless a rule under it makes it the header of a table of its own
    rows = [_pipe_cells(lines[k]) for k in (i, *range(i + 2, end))]
    return end, rows, [_align(cell.strip()) for cell in _pipe_cells(lines[i + 1])]


def _pipe_rule(lines: list[str], i: int) -> bool:
    return i < len(lines) and "|" in lines[i] and bool(PIPE_RULE.match(lines[i].strip()))


def _align(rule: str) -> str:
    left, right = rule.startswith(":"), rule.endswith(":")
    return "center" if left and right else "left" if left else "right" if right else ""


def _pipe_cells(line: str) -> list[str]:
    line = line.strip()
    cuts = [m.start() for m in _CODE_OR_PIPE.finditer(line) if m[0] == "|"]
    cells = [line[a + 1 : b] for a, b in zip([-1, *cuts], [*cuts, len(line)], strict=False)]
    if cuts and cuts[0] == 0:  # a leading pipe
        cells = cells[1:]
    if cuts and cuts[-1] == len(line) - 1:  # a trailing pipe
        cells = cells[:-1]
    return cells


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
    reached the margin without ending a sentence; otherwise each line is a paragraph. Tables
    (pipe, grid or simple, see `table_blocks`) become Markdown tables, their cells escaped."""
    blocks: list[list[str]] = []  # [kind ("p", "ul", "ol", "table"), text]
    last = ""  # the previous non-blank line, as written
    lines = [unicodedata.normalize("NFC", line) for line in lines]
    for raw in table_blocks(lines, markup=markup):
        if isinstance(raw, list):  # a table: a block of its own, never joined or escaped
            blocks.append(["table", "\n".join(raw)])
            last = ""
            continue
        line = raw.strip()
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
        text = text if markup or kind == "table" else escape_plain(text)
        if kind == "ul":
            text = "- " + text
        elif kind == "ol":
            text = f"{number}. {text}" if number else f"- {text}"
        if out:
            out.append("\n" if kind in ("ul", "ol") and kind == previous else "\n\n")
        out.append(text)
        previous = kind
    return "".join(out)
