"""Markdown -> sanitised HTML with cross-links, and plain text -> Markdown (escaped).

`render_markdown` turns Markdown into HTML (tables, fenced code, sane lists), sanitises it with
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
    converted = _converter().reset().convert(text)
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
