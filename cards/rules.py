"""The rules reference: section numbers, Markdown rendering with cross-links, and importing rules
documents (`manage.py import_rules`) and the sample glossary and rulings.

Numbers
-------
A section number is dot-separated whole numbers (0-9999), optionally ending in one letter as in
comprehensive rules: ``3``, ``3.1``, ``3.1.2``, ``100.1a``. A section's parent is its number
minus the last part (``3.1.2`` -> ``3.1``, ``100.1a`` -> ``100.1``). The sort key pads each
part to four digits (``0003.0001.0002``) so that text order is rule order. The anchor is made
from the number once (``r3-1-2``) and then kept, whatever the section becomes.

Rendering
---------
`render_markdown` turns Markdown into HTML (tables, fenced code, sane lists), sanitises it with
nh3 (a fixed set of tags and attributes; http, https and mailto links only; script and style
dropped with their content; no event handlers), then walks the *sanitised* HTML's text nodes,
outside links and code, to add cross-links and ``rel="nofollow noopener"`` on external links.
Cross-links: "see 4.2", "see also 4.2", "rule 4.2", "rules 4.2 and 4.3", "section 4.2",
"§ 4.2", the Russian "см. 4.2", "правило 4.2", "пункт 4.2", "раздел 4.2", and a number of two
or more parts in brackets, "(4.2)". Only numbers of existing sections become links; the others
stay plain text.

Parsing
-------
`parse_document` (and `parse_rules`, its list of sections) recognises, in this order:

markdown
    any ATX heading (``# ...``) outside fenced code. A heading that starts with a number
    ("4.2 Title", "4.2. Title", "4 Title") keeps it; any other heading is numbered by position
    (the next child of the nearest enclosing heading). Lines between headings are the body.
rst
    reStructuredText titles: a one-line title after a blank line, underlined (optionally also
    overlined) by one punctuation character repeated at least as long as the title. Levels
    follow the order in which adornment styles are first seen. Comments and directives
    (``.. raw::`` etc.) are dropped with their indented block, except admonitions (note,
    warning, ...), whose text is kept; ``#.`` lists become ``1.`` lists and ```text <url>`_``
    links Markdown links.
asterisk
    lines like ``*** HEADING ***`` are level-1 sections numbered 1, 2, 3...
numbered
    plain text of numbered rules, chosen when a line starts with a number of two or more parts
    (``208.1. text``). A rule line is a number at the start of a line, followed by a dot for a
    one-part number (``208. Heroes``; the dot is optional after ``208.1``), then text. When
    that text is heading-like (at most 60 characters, not ending as a sentence) it is the
    title and the body is the lines that follow; otherwise the title is empty and the text
    opens the body (``RuleSection.display_title`` then shows the start of the body). A missing
    parent (``207`` above ``207.4``) is created with an empty title and body.
plain
    the fallback: a heading is a short line (at most 60 characters) that starts with a capital
    letter, does not end as a sentence (. ! ? : ; or a comma), does not end with a connecting
    word (a, the, of, и, в...), is not one more short line of a list, and is followed by a
    longer line that starts a sentence (a paragraph). Headings are level 1, numbered 1, 2, 3...

In the plain styles (asterisk, numbered, plain) every source line is a paragraph of the body,
and ``•`` bullets become Markdown list items. Non-blank lines before the first section are
skipped and counted (`ParsedDocument.skipped_lines`). Errors are `RulesParseError(line, message)`:
an empty document, no sections, an adornment shorter than its title, a duplicate number, a
number going backwards among its siblings, a title over 200 characters, undecodable bytes.

Importing
---------
`import_rules` parses first (a bad document writes nothing), then, in one transaction, upserts
sections by number: an existing section gets the new title, body and parent and keeps its
anchor; a new one gets a fresh anchor. Sections of the game that the file no longer has are
kept (deleting would break links to their anchors) and reported as `missing`. A dry run
writes nothing and reports the same counts and the tree.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlsplit

import markdown
import nh3
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils.text import slugify

from .text import several_lines

# --- numbers --------------------------------------------------------------------------------

NUMBER = r"\d+(?:\.\d+)*[a-z]?"
_NUMBER_RE = re.compile(r"(\d+(?:\.\d+)*)([a-z]?)")
MAX_PART = 9999
MAX_DEPTH = 8
MAX_TITLE = 200


def normalise_number(number: str) -> str:
    """'03.1.' -> '3.1'; ValueError for anything that is not a section number."""
    text = (number or "").strip().rstrip(".")
    match = _NUMBER_RE.fullmatch(text)
    if not match:
        raise ValueError(f"{number!r} is not a section number: {_NUMBER_HELP}")
    parts = [int(p) for p in match[1].split(".")]
    if any(p > MAX_PART for p in parts):
        raise ValueError(f"{number!r}: each part of a number is at most {MAX_PART}.")
    if len(parts) + bool(match[2]) > MAX_DEPTH:
        raise ValueError(f"{number!r}: a number has at most {MAX_DEPTH} parts.")
    return ".".join(str(p) for p in parts) + match[2]


_NUMBER_HELP = "use numbers such as 3, 3.1 or 3.1.2."


def split_number(number: str) -> list[str]:
    """'3.1.2' -> ['3', '1', '2']; '100.1a' -> ['100', '1', 'a']."""
    match = _NUMBER_RE.fullmatch(number)
    if not match:
        raise ValueError(f"{number!r} is not a section number: {_NUMBER_HELP}")
    return match[1].split(".") + ([match[2]] if match[2] else [])


def parent_number(number: str) -> str | None:
    match = _NUMBER_RE.fullmatch(number)
    if not match:
        raise ValueError(f"{number!r} is not a section number: {_NUMBER_HELP}")
    if match[2]:
        return match[1]
    head, _, _ = match[1].rpartition(".")
    return head or None


def sort_key(number: str) -> str:
    """'3.1.2' -> '0003.0001.0002', so that sorting the text sorts the rules."""
    return ".".join(p.zfill(4) if p.isdigit() else p for p in split_number(number))


def anchor_for(number: str) -> str:
    return "r" + number.replace(".", "-")


def _unique_anchor(base: str, taken: set[str]) -> str:
    anchor, n = base, 2
    while anchor in taken:
        anchor, n = f"{base}_{n}", n + 1
    return anchor


def free_anchor(game, number: str) -> str:
    """An anchor for a new section of `game`: from its number, suffixed if already taken."""
    from .models import RuleSection

    base = anchor_for(number)
    taken = set(
        RuleSection.objects.filter(game=game, anchor__startswith=base).values_list(
            "anchor", flat=True
        )
    )
    return _unique_anchor(base, taken)


def section_href(game_slug: str, number: str, anchor: str) -> str:
    """Where a section is read: the page of its top-level section, at its anchor."""
    top = split_number(number)[0]
    return reverse("rule-section", kwargs={"game": game_slug, "number": top}) + "#" + anchor


def section_links(game) -> dict[str, str]:
    """{number: href} of every section of the game, for cross-links."""
    from .models import RuleSection

    rows = RuleSection.objects.filter(game=game).values_list("number", "anchor")
    return {number: section_href(game.slug, number, anchor) for number, anchor in rows}


def excerpt(markdown_text: str, length: int = 80) -> str:
    """The first sentence (or `length` characters) of a Markdown body, as plain text."""
    text = re.sub(r"[*_`#>\[\]]|^\s*(?:[-+]|\d+\.)\s+", "", markdown_text or "", flags=re.M)
    text = " ".join(text.split())
    sentence = re.match(r".+?[.!?](?=\s|$)", text)
    text = sentence[0] if sentence else text
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


# --- rendering ------------------------------------------------------------------------------

ALLOWED_TAGS = set(
    "a abbr b blockquote br code dd del dl dt em h1 h2 h3 h4 h5 h6 hr i img kbd li ol p pre s "
    "span strong sub sup table tbody td th thead tr u ul".split()
)
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "td": {"align"},
    "th": {"align"},
}
URL_SCHEMES = {"http", "https", "mailto"}
EXTERNAL_REL = "nofollow noopener"
MARKDOWN_EXTENSIONS = ["tables", "fenced_code", "sane_lists"]
MARKDOWN_CONFIG = {"tables": {"use_align_attribute": True}}

# No cross-links inside these elements.
_NO_LINKS = {"a", "code", "pre", "kbd"}
_TAG = re.compile(r"<!--.*?-->|<(?:\"[^\"]*\"|'[^']*'|[^'\">])*>", re.S)
_TAG_NAME = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)")
_HREF = re.compile(r'\shref="([^"]*)"')
_REF_WORDS = (
    r"see(?:\s+also)?|rules?|sections?|"
    r"см\.|смотри(?:те)?|правил[оауе]?|пункт[аеуы]?|раздел[аеуы]?"
)
_REFERENCE = re.compile(
    rf"(?<![\w.])(?:(?:{_REF_WORDS})\s+|§\s*)"
    rf"(?P<numbers>{NUMBER}(?!\w)(?:\s*(?:,|&|and|or|и|или)\s*{NUMBER}(?!\w))*)",
    re.IGNORECASE,
)
_BRACKETED = re.compile(r"\((?P<number>\d+(?:\.\d+)+[a-z]?)\)")
_ONE_NUMBER = re.compile(rf"{NUMBER}(?!\w)")


def render_markdown(text: str, *, game, links: dict[str, str] | None = None) -> str:
    """Markdown -> sanitised HTML with cross-links to the game's sections.

    `links` ({number: href}) saves a query per call when rendering many sections; by default
    the game's sections are read from the database.
    """
    if not (text or "").strip():
        return ""
    converted = markdown.markdown(
        text,
        extensions=MARKDOWN_EXTENSIONS,
        extension_configs=MARKDOWN_CONFIG,
        output_format="html",
    )
    clean = nh3.clean(
        converted,
        tags=ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel=None,
        strip_comments=True,
    )
    if links is None:
        links = section_links(game) if game is not None and game.pk else {}
    return _finish(clean, links)


def _finish(clean_html: str, links: dict[str, str]) -> str:
    """Walk sanitised HTML: cross-link text outside links and code; mark external links."""
    out, depth, position = [], 0, 0
    for match in _TAG.finditer(clean_html):
        text = clean_html[position : match.start()]
        out.append(text if depth else _cross_link(text, links))
        tag = match.group()
        name = _TAG_NAME.match(tag)
        if name:
            closing, tag_name = name[1] == "/", name[2].lower()
            if tag_name in _NO_LINKS and not tag.endswith("/>"):
                depth = max(0, depth - 1) if closing else depth + 1
            if tag_name == "a" and not closing:
                tag = _mark_external(tag)
        out.append(tag)
        position = match.end()
    tail = clean_html[position:]
    out.append(tail if depth else _cross_link(tail, links))
    return "".join(out)


def _mark_external(tag: str) -> str:
    href = _HREF.search(tag)
    if not href:
        return tag
    url = urlsplit(html.unescape(href[1]))
    if url.scheme in ("http", "https") or (not url.scheme and url.netloc):
        return tag[:-1] + f' rel="{EXTERNAL_REL}">'
    return tag


def _cross_link(escaped_text: str, links: dict[str, str]) -> str:
    """Escaped text with section references turned into links (escaped text comes back)."""
    if not links or not escaped_text or not any(c.isdigit() for c in escaped_text):
        return escaped_text
    text = html.unescape(escaped_text)
    spans: list[tuple[int, int, str]] = []
    for match in _REFERENCE.finditer(text):
        start = match.start("numbers")
        for one in _ONE_NUMBER.finditer(match["numbers"]):
            if one[0] in links:
                spans.append((start + one.start(), start + one.end(), one[0]))
    for match in _BRACKETED.finditer(text):
        if match["number"] in links:
            spans.append((match.start("number"), match.end("number"), match["number"]))
    if not spans:
        return escaped_text
    out, position = [], 0
    for start, end, number in sorted(set(spans)):
        if start < position:
            continue
        out.append(html.escape(text[position:start], quote=False))
        href = html.escape(links[number])
        out.append(f'<a class="rule-ref" href="{href}">{html.escape(number)}</a>')
        position = end
    out.append(html.escape(text[position:], quote=False))
    return "".join(out)


# --- parsing --------------------------------------------------------------------------------

STYLES = ("markdown", "rst", "asterisk", "numbered", "plain")
STYLE_NAMES = {
    "markdown": "Markdown",
    "rst": "reStructuredText",
    "asterisk": "plain text with *** headings ***",
    "numbered": "numbered plain text",
    "plain": "plain text",
}


class RulesParseError(ValueError):
    """A rules document that cannot be read; `line` is 1-based."""

    def __init__(self, line: int, message: str):
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class ParsedSection:
    number: str
    title: str
    body: str
    line: int

    @property
    def parent_number(self) -> str | None:
        return parent_number(self.number)

    @property
    def depth(self) -> int:
        return len(split_number(self.number))


@dataclass
class ParsedDocument:
    style: str
    sections: list[ParsedSection]
    skipped_lines: int = 0

    def tree(self) -> str:
        return format_tree(self.sections)


def format_tree(sections) -> str:
    """One line per section: indented by depth, "number title" (untitled: start of body)."""
    return "\n".join(
        ("  " * (s.depth - 1) + f"{s.number} {s.title or excerpt(s.body, 60)}").rstrip()
        for s in sections
    )


@dataclass
class _Heading:
    """A section as a parser sees it, before numbering: `number` None means by position."""

    level: int
    title: str
    line: int
    body: list[str] = field(default_factory=list)
    number: str | None = None


def decode(data: bytes) -> str:
    """UTF-8 (with or without a byte-order mark) -> text; RulesParseError naming the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise RulesParseError(
            line, f"not UTF-8 text (byte 0x{data[e.start]:02x}); save the file as UTF-8"
        ) from None


def parse_rules(text: str, *, fmt: str | None = None) -> list[ParsedSection]:
    return parse_document(text, fmt=fmt).sections


def parse_document(text: str, *, fmt: str | None = None) -> ParsedDocument:
    """Find the sections of a rules document; `fmt` forces a style (see STYLES)."""
    if fmt not in (None, "", "auto", *STYLES):
        raise ValueError(f"Unknown format {fmt!r}: use one of {', '.join(STYLES)}.")
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [line.replace("\f", "") for line in lines]  # PDF dumps' page breaks: layout only
    for number, line in enumerate(lines, 1):
        try:
            several_lines(line)
        except ValidationError as e:
            raise RulesParseError(number, e.messages[0]) from None
    if not any(line.strip() for line in lines):
        raise RulesParseError(1, "the document is empty")
    style = fmt if fmt in STYLES else detect_style(lines)
    if style == "numbered":
        headings = _numbered_headings(lines)
    else:
        headings = {
            "markdown": _markdown_headings,
            "rst": _rst_headings,
            "asterisk": _asterisk_headings,
            "plain": _plain_headings,
        }[style](lines)
    if not headings:
        raise RulesParseError(
            1,
            f"no sections found (read as {STYLE_NAMES[style]}): expected headings such as "
            "'# 1 Title', numbered rules such as '1.1. Text', or short title lines",
        )
    first = headings[0].line
    skipped = sum(1 for line in lines[: first - 1] if line.strip())
    return ParsedDocument(style, _number(headings, style), skipped)


def detect_style(lines: list[str]) -> str:
    if any(_ATX.match(lines[i]) for i in _outside_fences(lines)):
        return "markdown"
    if any(_rst_title_at(lines, i) for i in range(len(lines))):
        return "rst"
    if any(_ASTERISK.match(line) for line in lines):
        return "asterisk"
    numbered = [m for m in map(_NUMBERED.match, lines) if m]
    if len(numbered) >= 2 and any("." in (m["multi"] or "") for m in numbered):
        return "numbered"
    return "plain"


def _number(headings: list[_Heading], style: str) -> list[ParsedSection]:
    """Give every heading a number (its own, or the next one under its parent), create
    missing parents, and check that numbers are unique and increase among siblings."""
    sections: list[ParsedSection] = []
    seen: dict[str, int] = {}  # number -> line
    last_child: dict[str | None, str] = {}  # parent number -> last child's number
    stack: list[tuple[int, str]] = []  # (heading level, number) of the enclosing headings
    plain = style in ("asterisk", "numbered", "plain")

    def add(number: str, title: str, body: str, line: int) -> None:
        parent = parent_number(number)
        if parent is not None and parent not in seen:
            add(parent, "", "", line)  # e.g. 207 for a document starting at 207.4
        if number in seen:
            raise RulesParseError(
                line, f"section {number} appears twice (first on line {seen[number]})"
            )
        previous = last_child.get(parent)
        if previous is not None and sort_key(number) < sort_key(previous):
            raise RulesParseError(
                line, f"section {number} comes after {previous}: numbers must increase"
            )
        if len(title) > MAX_TITLE:
            raise RulesParseError(line, f"the title is longer than {MAX_TITLE} characters")
        seen[number] = line
        last_child[parent] = number
        sections.append(ParsedSection(number, title, body, line))

    for heading in headings:
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        number = heading.number
        if number is not None:
            try:
                number = normalise_number(number)
            except ValueError as e:
                raise RulesParseError(heading.line, str(e)) from None
        else:
            parent = stack[-1][1] if stack else None
            previous = last_child.get(parent)
            last_part = split_number(previous)[-1] if previous else "0"
            next_part = int(last_part) + 1 if last_part.isdigit() else 1
            number = f"{parent}.{next_part}" if parent else str(next_part)
            try:
                number = normalise_number(number)
            except ValueError as e:
                raise RulesParseError(heading.line, str(e)) from None
        body = _plain_to_markdown(heading.body) if plain else _trim(heading.body)
        add(number, heading.title, body, heading.line)
        stack.append((heading.level, number))
    return sections


def _trim(lines: list[str]) -> str:
    """Body lines without blank lines at either end or runs of blank lines."""
    text = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


_BULLET = re.compile(r"^\s*[•·▪◦●‣]\s*")
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s")


def _plain_to_markdown(lines: list[str]) -> str:
    """Plain text: each line a paragraph; bullets as Markdown list items, and consecutive list
    items (blank lines between them or not) as one list."""
    out: list[str] = []
    previous_item = False
    for line in lines:
        text = _BULLET.sub("- ", line.strip()) if _BULLET.match(line) else line.strip()
        if not text:
            continue
        item = bool(_LIST_ITEM.match(text))
        if out:
            out.append("\n" if item and previous_item else "\n\n")
        out.append(text)
        previous_item = item
    return "".join(out)


def _split_title(text: str) -> tuple[str | None, str]:
    """'4.2. Title' -> ('4.2', 'Title'); 'Title' -> (None, 'Title')."""
    match = _NUMBERED_TITLE.match(text)
    if match:
        return match["number"], (match["title"] or "").strip()
    return None, text.strip()


_NUMBERED_TITLE = re.compile(rf"^(?P<number>{NUMBER})\.?(?:\s+(?P<title>\S.*))?$")

# markdown ---------------------------------------------------------------------------------

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(\S.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _outside_fences(lines: list[str]):
    """Indexes of lines that are not inside fenced code blocks."""
    fence = None
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence:
            if match and match[1][0] == fence[0] and len(match[1]) >= len(fence):
                fence = None
            continue
        if match:
            fence = match[1]
            continue
        yield i


def _markdown_headings(lines: list[str]) -> list[_Heading]:
    outside = set(_outside_fences(lines))
    headings: list[_Heading] = []
    for i, line in enumerate(lines):
        match = _ATX.match(line) if i in outside else None
        if match:
            number, title = _split_title(match[2])
            headings.append(_Heading(len(match[1]), title, i + 1, number=number))
        elif headings:
            headings[-1].body.append(line)
    return headings


# reStructuredText -------------------------------------------------------------------------

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
_EXPLICIT = re.compile(r"^\.\.(?:\s+(?:(?P<directive>[\w-]+)::)?|$)")
_ADMONITIONS = set(
    "admonition attention caution danger error hint important note tip warning".split()
)
_RST_LINK = re.compile(r"`([^`<]+?)\s*<([^<>`\s]+)>`__?")


def _is_text(line: str) -> bool:
    return bool(line.strip()) and not line[0].isspace() and not _ADORNMENT.match(line)


def _rst_title_at(lines: list[str], i: int):
    """(title, style, underline line index, line count) if a title starts at line i."""
    before_ok = i == 0 or not lines[i - 1].strip()
    if not before_ok:
        return None
    # overline + title + underline
    if (
        i + 2 < len(lines)
        and _ADORNMENT.match(lines[i])
        and lines[i + 1].strip()
        and _ADORNMENT.match(lines[i + 2])
        and lines[i].strip() == lines[i + 2].strip()
    ):
        return lines[i + 1].strip(), (lines[i][0], True), i + 2, 3
    if i + 1 < len(lines) and _is_text(lines[i]) and _ADORNMENT.match(lines[i + 1]):
        return lines[i].strip(), (lines[i + 1][0], False), i + 1, 2
    return None


def _rst_headings(lines: list[str]) -> list[_Heading]:
    headings: list[_Heading] = []
    levels: dict[tuple[str, bool], int] = {}
    i = 0
    while i < len(lines):
        title = _rst_title_at(lines, i)
        if title:
            text, style, underline, count = title
            width = len(lines[underline].rstrip())
            if width < len(text):
                raise RulesParseError(
                    underline + 1,
                    f"the underline of {text!r} is shorter than the title "
                    f"({width} < {len(text)} characters)",
                )
            level = levels.setdefault(style, len(levels) + 1)
            number, text = _split_title(text)
            headings.append(_Heading(level, text, i + 1, number=number))
            i += count
            continue
        explicit = _EXPLICIT.match(lines[i])
        if explicit:
            directive = (explicit["directive"] or "").lower()
            argument = lines[i].split("::", 1)[1].strip() if directive else ""
            block, i = _rst_block(lines, i)
            if headings and directive in _ADMONITIONS:
                label = argument or directive.capitalize()
                headings[-1].body.extend(["", f"> **{label}:**", *(f"> {b}" for b in block), ""])
            continue
        if headings:
            line = lines[i]
            line = re.sub(r"^(\s*)#\.(\s)", r"\g<1>1.\2", line)
            headings[-1].body.append(_RST_LINK.sub(r"[\1](\2)", line))
        i += 1
    return headings


def _rst_block(lines: list[str], start: int) -> tuple[list[str], int]:
    """The indented content after an explicit markup line (dedented), and the next index."""
    i, block = start + 1, []
    while i < len(lines) and (not lines[i].strip() or lines[i][0].isspace()):
        block.append(lines[i])
        i += 1
    while block and not block[-1].strip():
        block.pop()
    indent = min((len(b) - len(b.lstrip()) for b in block if b.strip()), default=0)
    return [b[indent:] for b in block], i


# plain text -------------------------------------------------------------------------------

_ASTERISK = re.compile(r"^\s*\*{3,}\s*(\S.*?)\s*\*{3,}\s*$")
_NUMBERED = re.compile(
    r"^(?:(?P<multi>\d+(?:\.\d+)+[a-z]?)\.?|(?P<single>\d+)\.)(?:\s+(?P<text>\S.*?))?\s*$"
)
_SENTENCE_END = re.compile(r"[.!?:;,…][\"'»”’)\]]*$")
_CONNECTORS = set(
    "a an and as at by for from in of on or the to with "
    "а в во для до и из или к на но о об от по с со".split()
)
HEADING_MAX = 60


def _asterisk_headings(lines: list[str]) -> list[_Heading]:
    headings: list[_Heading] = []
    for i, line in enumerate(lines):
        match = _ASTERISK.match(line)
        if match:
            number, title = _split_title(match[1])
            headings.append(_Heading(1, title, i + 1, number=number))
        elif headings:
            headings[-1].body.append(line)
    return headings


def _is_heading_text(text: str) -> bool:
    """Short and not a sentence: a title rather than a rule's text."""
    return 0 < len(text) <= HEADING_MAX and not _SENTENCE_END.search(text)


def _numbered_headings(lines: list[str]) -> list[_Heading]:
    headings: list[_Heading] = []
    for i, line in enumerate(lines):
        match = _NUMBERED.match(line)
        if match:
            number = match["multi"] or match["single"]
            text = match["text"] or ""
            heading = _Heading(len(split_number(number)), "", i + 1, number=number)
            if _is_heading_text(text):
                heading.title = text
            else:
                heading.body.append(text)
            headings.append(heading)
        elif headings:
            headings[-1].body.append(line)
    return headings


def _is_plain_heading(lines: list[str], i: int) -> bool:
    line = lines[i]
    text = line.strip()
    if line[:1].isspace() or not _is_heading_text(text) or not text[0].isupper():
        return False
    if text.split()[-1].casefold() in _CONNECTORS:
        return False  # "Player got a" continues on the next line
    previous = lines[i - 1].strip() if i else ""
    if previous and len(previous) <= HEADING_MAX and not _SENTENCE_END.search(previous):
        return False  # one more short line of a list
    following = next((f.strip() for f in lines[i + 1 :] if f.strip()), None)
    if following is None or following[0].islower() or following[0] in ",;:.)»”’":
        return False
    long_enough = len(following) > HEADING_MAX or _SENTENCE_END.search(following)
    return len(following) > len(text) and bool(long_enough)


def _plain_headings(lines: list[str]) -> list[_Heading]:
    headings: list[_Heading] = []
    for i, line in enumerate(lines):
        if _is_plain_heading(lines, i):
            headings.append(_Heading(1, line.strip(), i + 1))
        elif headings:
            headings[-1].body.append(line)
    return headings


# --- importing ------------------------------------------------------------------------------


@dataclass
class ImportReport:
    game_slug: str
    style: str
    sections: list[ParsedSection]
    dry_run: bool
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    missing: list[str] = field(default_factory=list)  # numbers in the game but not the file
    skipped_lines: int = 0

    def tree(self) -> str:
        return format_tree(self.sections)

    def summary(self) -> str:
        verb = "Would import" if self.dry_run else "Imported"
        text = (
            f"{verb} {len(self.sections)} sections of {self.game_slug} "
            f"({STYLE_NAMES[self.style]}): {self.created} created, {self.updated} updated, "
            f"{self.unchanged} unchanged."
        )
        if self.missing:
            text += (
                f" {len(self.missing)} sections not in the file were kept: "
                f"{', '.join(self.missing[:10])}{'…' if len(self.missing) > 10 else ''}."
            )
        if self.skipped_lines:
            text += f" {self.skipped_lines} lines before the first section were skipped."
        return text


def import_rules(*, game, text: str, dry_run: bool = False, fmt: str | None = None) -> ImportReport:
    """Parse `text` and upsert its sections into `game` by number (see the module doc).

    RulesParseError before anything is written if the document cannot be parsed.
    """
    from .models import RuleSection

    document = parse_document(text, fmt=fmt)
    report = ImportReport(
        game.slug, document.style, document.sections, dry_run, skipped_lines=document.skipped_lines
    )
    with transaction.atomic():
        existing = {s.number: s for s in RuleSection.objects.filter(game=game)}
        for section in existing.values():
            section.game = game  # rendering and URLs read it: no query per section
        numbers = {s.number for s in document.sections}
        report.missing = sorted((n for n in existing if n not in numbers), key=sort_key)
        taken = {s.anchor for s in existing.values()}
        anchors = {}
        for parsed in document.sections:
            if parsed.number in existing:
                anchors[parsed.number] = existing[parsed.number].anchor
            else:
                anchors[parsed.number] = _unique_anchor(anchor_for(parsed.number), taken)
                taken.add(anchors[parsed.number])
        links = {n: section_href(game.slug, n, s.anchor) for n, s in existing.items()}
        links.update({n: section_href(game.slug, n, a) for n, a in anchors.items()})

        saved: dict[str, RuleSection] = dict(existing)
        for parsed in document.sections:
            section = existing.get(parsed.number)
            parent = saved.get(parsed.parent_number) if parsed.parent_number else None
            if section is None:
                report.created += 1
                section = RuleSection(
                    game=game, number=parsed.number, anchor=anchors[parsed.number]
                )
            elif (section.title, section.body, section.parent_id) == (
                parsed.title,
                parsed.body,
                parent.pk if parent else None,
            ):
                report.unchanged += 1
                if not dry_run:
                    _refresh_html(section, game, links)
                continue
            else:
                report.updated += 1
            if dry_run:
                continue
            section.title, section.body, section.parent = parsed.title, parsed.body, parent
            section.save(links=links)
            saved[parsed.number] = section
        if not dry_run:
            for number in report.missing:
                _refresh_html(existing[number], game, links)
    return report


def _refresh_html(section, game, links) -> None:
    """Re-render a section whose source did not change: cross-links may have appeared."""
    rendered = render_markdown(section.body, game=game, links=links)
    if rendered != section.body_html:
        type(section).objects.filter(pk=section.pk).update(body_html=rendered)
        section.body_html = rendered


def rerender_sections(game) -> int:
    """Re-render every section and glossary definition of the game (after an admin edit that
    may add or remove cross-link targets); returns how many changed."""
    from .models import GlossaryTerm, RuleSection

    links = section_links(game)
    changed = 0
    for section in RuleSection.objects.filter(game=game):
        before = section.body_html
        _refresh_html(section, game, links)
        changed += section.body_html != before
    for term in GlossaryTerm.objects.filter(game=game):
        rendered = render_markdown(term.definition, game=game, links=links)
        if rendered != term.definition_html:
            GlossaryTerm.objects.filter(pk=term.pk).update(definition_html=rendered)
            changed += 1
    return changed


# --- glossary and rulings (sample content files) --------------------------------------------


class ContentError(ValueError):
    """A bad entry in a glossary or rulings file; the message names the entry."""


@dataclass
class UpsertReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def summary(self) -> str:
        return f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"


def _upsert(model, lookup: dict, values: dict, report: UpsertReport):
    instance = model.objects.filter(**lookup).first()
    if instance is None:
        instance = model(**lookup, **values)
        instance.full_clean()
        instance.save()
        report.created += 1
    elif any(getattr(instance, k) != v for k, v in values.items()):
        for name, value in values.items():
            setattr(instance, name, value)
        instance.full_clean()
        instance.save()
        report.updated += 1
    else:
        report.unchanged += 1
    return instance


def _entries(entries, required: dict[str, type], optional: dict[str, type]):
    if not isinstance(entries, list):
        raise ContentError("expected a list of entries")
    for index, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise ContentError(f"entry {index}: expected an object")
        unknown = set(entry) - set(required) - set(optional)
        missing = set(required) - set(entry)
        if unknown or missing:
            raise ContentError(
                f"entry {index}: "
                + "; ".join(
                    filter(
                        None,
                        [
                            missing and f"missing {', '.join(sorted(missing))}",
                            unknown and f"unknown {', '.join(sorted(unknown))}",
                        ],
                    )
                )
            )
        for name, kind in {**required, **optional}.items():
            if name in entry and entry[name] is not None and not isinstance(entry[name], kind):
                raise ContentError(f"entry {index}: {name} must be a {kind.__name__}")
        yield index, entry


def import_glossary(*, game, entries) -> UpsertReport:
    """Upsert glossary terms from [{"term", "aliases", "definition", "section"}]; terms are
    matched by slug. ContentError (nothing written) for a bad entry or an unknown section."""
    from django.core.exceptions import ValidationError

    from .models import GlossaryTerm, RuleSection

    report = UpsertReport()
    sections = {s.number: s for s in RuleSection.objects.filter(game=game)}
    with transaction.atomic():
        for index, entry in _entries(
            entries, {"term": str, "definition": str}, {"aliases": list, "section": str}
        ):
            term = entry["term"].strip()
            section = None
            if entry.get("section"):
                section = sections.get(entry["section"].strip())
                if section is None:
                    raise ContentError(f"entry {index} ({term}): no section {entry['section']}")
            aliases = entry.get("aliases") or []
            if not all(isinstance(a, str) for a in aliases):
                raise ContentError(f"entry {index} ({term}): aliases must be strings")
            try:
                _upsert(
                    GlossaryTerm,
                    {"game": game, "slug": slugify(term, allow_unicode=True)},
                    {
                        "term": term,
                        "aliases": [a.strip() for a in aliases if a.strip()],
                        "definition": entry["definition"].strip(),
                        "section_id": section.pk if section else None,
                    },
                    report,
                )
            except ValidationError as e:
                raise ContentError(f"entry {index} ({term}): {'; '.join(e.messages)}") from None
    return report


def import_rulings(*, game, entries) -> UpsertReport:
    """Upsert rulings from [{"card", "question", "answer", "source", "date"}] (card by slug,
    date as YYYY-MM-DD), matched by card and question."""
    from django.core.exceptions import ValidationError

    from .models import Card, Ruling

    report = UpsertReport()
    cards = {c.slug: c for c in Card.objects.filter(game=game)}
    with transaction.atomic():
        for index, entry in _entries(
            entries,
            {"card": str, "question": str, "answer": str, "date": str},
            {"source": str},
        ):
            card = cards.get(entry["card"])
            if card is None:
                raise ContentError(f"entry {index}: no card {entry['card']!r} in {game.slug}")
            try:
                when = date.fromisoformat(entry["date"])
            except ValueError:
                raise ContentError(
                    f"entry {index}: date {entry['date']!r} is not YYYY-MM-DD"
                ) from None
            try:
                _upsert(
                    Ruling,
                    {"card": card, "question": entry["question"].strip()},
                    {
                        "answer": entry["answer"].strip(),
                        "source": (entry.get("source") or "").strip(),
                        "date": when,
                    },
                    report,
                )
            except ValidationError as e:
                raise ContentError(f"entry {index}: {'; '.join(e.messages)}") from None
    return report
