"""One document tree from any style: `parse_document` picks the parser, numbers the sections
and checks the numbering.

Styles, tried in this order when not given: numbered rules (plain text, or Markdown whose
rules are numbered paragraphs), Markdown headings, reStructuredText titles, ``*** HEADING
***`` lines, plain text with short heading lines.

Numbering (``numbering``):
- by default, as ``document``; but when the document's own numbers repeat or go backwards
  (chapters that each start again at 1), its headings are numbered by position, with a warning;
- ``document``: a section keeps the number the document gives it (numbers that repeat or go
  backwards are an error); one without (``# Setup``) is numbered by position, the next child
  of the enclosing section;
- ``position``: every heading is numbered by position and its text, number included, is its
  title.
A section numbered by position is anchored on its title, so inserting a heading before it
moves its number but not its links; its number still works as an alias.

A lone unnumbered top heading over numbered sections (``# Rulebook`` over ``## 1.
Introduction``) is the document's title, not a section; text under it becomes section 0.
Errors (`RulesParseError`) and warnings name the line as an editor counts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from ..text import several_lines
from . import markdown, numbered, rst
from .base import Heading, ParseWarning, RulesParseError, Source
from .numbers import (
    CHAPTER,
    MAX_PART,
    depth,
    excerpt,
    normalise_number,
    parent_number,
    sort_key,
    split_number,
)
from .plain import Asterisk, Plain

PARSERS = {p.NAME: p for p in (numbered, markdown, rst, Asterisk, Plain)}
STYLES = tuple(PARSERS)
STYLE_NAMES = {name: p.LABEL for name, p in PARSERS.items()}
NUMBERINGS = ("document", "position")
MAX_TITLE = 200


@dataclass(frozen=True)
class ParsedSection:
    number: str
    title: str
    body: str
    line: int
    chapters: bool = False  # the document's rules are chaptered (see numbers)
    by_position: bool = False  # numbered by position: anchored on its title

    @property
    def parent_number(self) -> str | None:
        return parent_number(self.number, self.chapters)

    @property
    def depth(self) -> int:
        return depth(self.number, self.chapters)

    @property
    def sort_key(self) -> str:
        return sort_key(self.number, self.chapters)


@dataclass
class ParsedDocument:
    style: str
    sections: list[ParsedSection]
    skipped_lines: int = 0
    warnings: list[ParseWarning] = field(default_factory=list)
    chapters: bool = False

    def tree(self) -> str:
        return format_tree(self.sections)


def format_tree(sections) -> str:
    """One line per section: indented by depth, "number title" (untitled: start of body)."""
    return "\n".join(
        ("  " * (s.depth - 1) + f"{s.number} {s.title or excerpt(s.body, 60)}").rstrip()
        for s in sections
    )


def parse_rules(text: str, **options) -> list[ParsedSection]:
    return parse_document(text, **options).sections


def parse_document(
    text: str, *, fmt: str | None = None, numbering: str | None = None
) -> ParsedDocument:
    """Find the sections of a rules document; `fmt` forces a style (see STYLES)."""
    if fmt not in (None, "", "auto", *STYLES):
        raise ValueError(f"Unknown format {fmt!r}: use one of {', '.join(STYLES)}.")
    if numbering not in (None, "", *NUMBERINGS):
        raise ValueError(f"Unknown numbering {numbering!r}: use one of {', '.join(NUMBERINGS)}.")
    source = Source.of(text)
    for i, line in enumerate(source.lines):
        try:
            several_lines(line)
        except ValidationError as e:
            raise RulesParseError(source.line(i), e.messages[0]) from None
    if not any(line.strip() for line in source.lines):
        raise RulesParseError(1, "the document is empty")
    style = fmt if fmt in STYLES else detect_style(source)
    warnings: list[ParseWarning] = []

    def warn(index: int, message: str) -> None:
        warnings.append(ParseWarning(source.line(index), message))

    try:
        headings = PARSERS[style].read(source, warn)
        if not headings:
            raise RulesParseError(
                0,
                f"no sections found (read as {STYLE_NAMES[style]}): expected headings such as "
                "'# 1 Title', numbered rules such as '1.1. Text', or short title lines",
            )
        if numbering == "position":
            for heading in headings:
                heading.number, heading.title = None, heading.written or heading.title
        elif style in ("markdown", "rst"):
            headings = _document_title(headings, warn)
        chapters = _chaptered(headings)
        try:
            sections = _number(headings, chapters)
        except NumberingError as e:
            if numbering or style == "numbered":
                raise
            warn(e.line, f"{e.message}: headings numbered by position instead")
            for heading in headings:  # their own numbers stay in their titles
                heading.number, heading.title = None, heading.written or heading.title
            chapters = False
            sections = _number(headings, chapters)
    except RulesParseError as e:  # parsers count lines from 0: the editor's line number
        raise RulesParseError(source.line(e.line), e.message) from None
    sections = [
        ParsedSection(s.number, s.title, s.body, source.line(s.line), chapters, s.by_position)
        for s in sections
    ]
    first = headings[0].line
    skipped = sum(1 for line in source.lines[:first] if line.strip())
    warnings.sort(key=lambda w: w.line)
    return ParsedDocument(style, sections, skipped, warnings, chapters)


def detect_style(source: Source) -> str:
    return next(name for name, parser in PARSERS.items() if parser.looks_like(source))


def _document_title(headings: list[Heading], warn) -> list[Heading]:
    """Without a lone unnumbered top heading over numbered ones (kept as section 0 if it has
    text of its own)."""
    top = headings[0]
    rest = headings[1:]
    if (
        top.number is None
        and rest
        and all(h.level > top.level for h in rest)
        and any(h.number is not None for h in rest)
    ):
        if top.body.strip():
            top.number = "0"
            warn(top.line, f"{top.title!r} is the document's title; its text is section 0")
            return headings
        warn(top.line, f"{top.title!r} is the document's title, not a section")
        return rest
    return headings


def _chaptered(headings: list[Heading]) -> bool:
    """Numbers in chapters of hundreds (see numbers): a chapter whose next one-part rule is in
    its hundreds."""
    chapter = None
    for heading in headings:
        number = heading.number
        if not (number and number.isdigit()):
            continue
        n = int(number)
        if n < CHAPTER:
            chapter = n
        elif chapter is not None and n // CHAPTER == chapter:
            return True
        else:
            chapter = None
    return False


class NumberingError(RulesParseError):
    """A document's own numbers repeat or go backwards."""


@dataclass
class _Numbered:
    number: str
    title: str
    body: str
    line: int
    by_position: bool


def _number(headings: list[Heading], chapters: bool) -> list[_Numbered]:
    """Give every heading a number (its own, or the next one under its parent), create
    missing parents, and check that numbers are unique and increase among siblings."""
    sections: list[_Numbered] = []
    seen: dict[str, int] = {}  # number -> line index
    last_child: dict[str | None, str] = {}  # parent number -> last child's number
    stack: list[tuple[int, str]] = []  # (heading level, number) of the enclosing headings

    def add(number: str, title: str, body: str, line: int, by_position: bool) -> None:
        parent = parent_number(number, chapters)
        if parent is not None and parent not in seen:
            add(parent, "", "", line, False)  # e.g. 207 for a document starting at 207.4
        if number in seen:
            raise NumberingError(
                line, f"section {number} appears twice (first on line {seen[number] + 1})"
            )
        previous = last_child.get(parent)
        if previous is not None and sort_key(number, chapters) < sort_key(previous, chapters):
            raise NumberingError(
                line, f"section {number} comes after {previous}: numbers must increase"
            )
        if len(title) > MAX_TITLE:
            raise RulesParseError(line, f"the title is longer than {MAX_TITLE} characters")
        seen[number] = line
        last_child[parent] = number
        sections.append(_Numbered(number, title, body, line, by_position))

    for heading in headings:
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        by_position = heading.number is None
        if by_position:
            parent = stack[-1][1] if stack else None
            previous = last_child.get(parent)
            last_part = split_number(previous)[-1] if previous else "0"
            next_part = int(last_part) + 1 if last_part.isdigit() else 1
            if next_part > MAX_PART:
                raise RulesParseError(heading.line, f"more than {MAX_PART} sections at one level")
            number = f"{parent}.{next_part}" if parent else str(next_part)
        else:
            number = heading.number
        try:
            number = normalise_number(number)
        except ValueError as e:
            raise RulesParseError(heading.line, str(e)) from None
        add(number, heading.title, heading.body, heading.line, by_position)
        stack.append((heading.level, number))
    return sections


__all__ = [
    "NUMBERINGS",
    "STYLES",
    "STYLE_NAMES",
    "ParsedDocument",
    "ParsedSection",
    "detect_style",
    "format_tree",
    "parse_document",
    "parse_rules",
]
