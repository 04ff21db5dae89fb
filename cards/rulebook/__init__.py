"""Rules documents, pure (no models): one parser per style (numbered rules, Markdown,
reStructuredText, plain text) into one document tree, section numbers, and rendering with
cross-links. `cards.services.import_rules` is what writes them to the database."""

from .base import ParseWarning, RulesParseError, decode
from .document import (
    NUMBERINGS,
    STYLE_NAMES,
    STYLES,
    ParsedDocument,
    ParsedSection,
    format_tree,
    parse_document,
    parse_rules,
)
from .numbers import (
    anchor_for,
    depth,
    excerpt,
    normalise_number,
    page_number,
    parent_number,
    sort_key,
    split_number,
    title_anchor,
    unique_anchor,
)
from .render import escape_plain, render_markdown

__all__ = [
    "NUMBERINGS",
    "STYLES",
    "STYLE_NAMES",
    "ParseWarning",
    "ParsedDocument",
    "ParsedSection",
    "RulesParseError",
    "anchor_for",
    "decode",
    "depth",
    "escape_plain",
    "excerpt",
    "format_tree",
    "normalise_number",
    "page_number",
    "parent_number",
    "parse_document",
    "parse_rules",
    "render_markdown",
    "sort_key",
    "split_number",
    "title_anchor",
    "unique_anchor",
]
