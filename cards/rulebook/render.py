"""Markdown -> sanitised HTML with cross-links, and plain text -> Markdown (escaped).

`render_markdown` turns Markdown into HTML (tables, fenced code, sane lists; a list nested under
a list item by the item's own indentation, 2 or 3 spaces as CommonMark takes it, is nested as
Python-Markdown's 4 spaces would be: see `nest_lists`), sanitises it with
nh3 (a fixed set of tags and attributes; http, https and mailto links only; script and style
dropped with their content; no event handlers), then walks the *sanitised* HTML's text nodes,
outside links and code, to add cross-links and ``rel="nofollow noopener"`` on external links.

Cross-links: "see 4.2", "see also 4.2", "rule 4.2", "rules 4.2 and 4.3", ranges ("rules
903.6–903.11": both ends), "section 4.2", "§ 4.2", the Russian "см. 4.2", "правило 4.2",
"пункт 4.2", "раздел 4.2", and a number in brackets: "(4.2)", "(907.6.)", or a one-part
number from 100 up, as comprehensive rules cite their rules, "(404)". Only numbers of existing
sections (`links`, {number: href}) become links; the others stay plain text.
"""

from __future__ import annotations

import html
import re
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

import markdown
import nh3

from .numbers import NUMBER

ALLOWED_TAGS = set(
    "a abbr b blockquote br code dd del dl dt em h1 h2 h3 h4 h5 h6 hr i img kbd li ol p pre s "
    "span strong sub sup table tbody td th thead tr u ul".split()
)
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
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
_JOINS = r",|&|and|or|to|through|и|или|до|по|[–—-]"
_REFERENCE = re.compile(
    rf"(?<![\w.])(?:(?:{_REF_WORDS})\s+|§\s*)"
    rf"(?P<numbers>{NUMBER}(?!\w)(?:\s*(?:{_JOINS})\s*{NUMBER}(?!\w))*)",
    re.IGNORECASE,
)
_BRACKETED = re.compile(r"\((?P<number>\d+(?:\.\d+)+(?:[a-z](?:-\d+)?)?|[1-9]\d{2,3})\.?\)")
_ONE_NUMBER = re.compile(rf"{NUMBER}(?!\w)")


_local = threading.local()


def _converter() -> markdown.Markdown:
    """This thread's Markdown converter: making one loads its extensions, which costs more
    than converting a rule."""
    if not hasattr(_local, "converter"):
        _local.converter = markdown.Markdown(
            extensions=MARKDOWN_EXTENSIONS,
            extension_configs=MARKDOWN_CONFIG,
            output_format="html",
        )
    return _local.converter


def render_markdown(text: str, links: dict[str, str] | None = None) -> str:
    """Markdown -> sanitised HTML with cross-links to the sections in `links`."""
    if not (text or "").strip():
        return ""
    converted = _converter().reset().convert(nest_lists(text))
    clean = nh3.clean(
        converted,
        tags=ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel=None,
        strip_comments=True,
    )
    return _finish(clean, links or {})


# --- nested lists ---------------------------------------------------------------------------
# Python-Markdown nests a block in a list item only when it is indented by 4 spaces a level;
# CommonMark, and every rulebook written for it or converted from PDF, by the item's own
# indentation: 2 spaces under "- ", 3 under "1. ". nest_lists re-indents what is inside list
# items to Python-Markdown's 4 spaces a level, so that both read the same. Lines outside list
# items (indented code, "- " lines inside a paragraph, fenced code) are left as they are.

_ANY_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)", re.M)
_ITEM = re.compile(r"(?P<indent> *)(?P<marker>[-*+]|\d{1,9}[.)])(?P<space> *)(?P<rest>.*)")
_FENCE = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})")
_RULE_LINE = re.compile(r" {0,3}([-*_])(?: *\1){2,} *")
TAB = 4  # Python-Markdown's tab_length: the indentation of one level
NESTED = 2  # a marker indented this much more than its item's marker is a nested item's


@dataclass
class _Item:
    """An open list item of the source: where its marker is, where its text starts."""

    marker: int
    column: int
    depth: int

    @property
    def nests_at(self) -> int:
        """How far in a marker must be to start a list nested in this item: its text's column
        (CommonMark), or 2 spaces past its marker ("10. Ten" and "   - a" under it)."""
        return min(self.column, self.marker + NESTED)


def nest_lists(text: str) -> str:
    """`text` with the lines inside list items re-indented to 4 spaces a level: a nested
    item's marker at 4 x its depth, any other line at 4 x (its item's depth + 1) plus what it
    has beyond the item's text column (so that indented code inside an item stays code)."""
    if not _ANY_ITEM.search(text):
        return text
    out: list[str] = []
    items: list[_Item] = []  # the open list items, outermost first
    fence = ""  # the fence of the fenced code block the line is in
    after_blank = True
    for line in text.split("\n"):
        if fence:
            out.append(line)
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
            continue
        if not line.strip():
            out.append(line)
            after_blank = True
            continue
        body = line.lstrip(" \t")
        indent = len(line[: len(line) - len(body)].expandtabs(TAB))
        expanded = " " * indent + body  # tabs in the indentation as the columns they reach
        item = _ITEM.fullmatch(expanded)
        opening = _FENCE.match(expanded)
        if opening or _RULE_LINE.fullmatch(expanded):
            item = None  # "* * *" is a rule, not an item
        if item and items and indent >= items[-1].column + TAB:
            item = None  # indented code inside the item
        in_list = bool(items)
        # The items this line is not inside of end, at an item of their own or after a blank
        # line (a line right after an item's text, however indented, continues that text).
        if item:
            while items and indent < items[-1].nests_at:
                items.pop()
        elif after_blank or opening:
            while items and indent < items[-1].column:
                items.pop()
        if opening and not items:
            fence = opening["fence"]
            out.append(line)
        elif item and (in_list or after_blank) and (items or indent < TAB):
            depth = len(items)
            space = len(item["space"])
            width = len(item["marker"]) + (space if item["rest"] and space <= TAB else 1)
            items.append(_Item(indent, indent + width, depth))
            out.append(" " * (TAB * depth) + body if depth else line)
        elif items and indent >= items[-1].column:
            inner = items[-1]
            out.append(" " * (TAB * (inner.depth + 1) + indent - inner.column) + body)
        else:
            out.append(line)
        after_blank = False
    return "\n".join(out)


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


# --- plain text -----------------------------------------------------------------------------

_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]|])")
_LINE_START = re.compile(r"^(\s*)(?:([#>+-])|(\d+)(?=[.)](?:\s|$)))", re.M)


def escape_plain(text: str) -> str:
    """Plain text as Markdown that renders as that text: `a <Shinobi> EX Area` keeps its
    brackets, `>>> (Effect)` is not a quote, `*` and `_` are not emphasis, `1.` mid-paragraph
    is not a list."""
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    text = _INLINE_SPECIAL.sub(r"\\\1", text)
    return _LINE_START.sub(lambda m: m[1] + (f"\\{m[2]}" if m[2] else f"{m[3]}\\"), text)
