"""Markdown: ATX headings (``# ...``) outside fenced code; the lines between are the body.

A heading keeps its own number when it is unmistakable (``4.2 Title``, ``4. Title``) or, as
in ``4 Title``, when most headings of the document are numbered; otherwise (``## 2 PLAYER
GAME`` among unnumbered headings) the number is part of the title and the section is numbered
by position.

Tables: a pipe table comes out between blank lines, unindented unless in a list item, and as
wide as its widest row (Python-Markdown reads none right after a paragraph line, reads a line
after it as a row, drops cells past the header's and reads an indented one as code); grid and
simple tables of reStructuredText, common in community rulebooks, become pipe tables too
(`base.tables_to_markdown`). Tables in fenced code are kept as written."""

from __future__ import annotations

import re

from .base import Heading, Source, Warn, split_title, tables_to_markdown, trim

NAME, LABEL = "markdown", "Markdown"
ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(\S.*?)(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def outside_fences(lines: list[str]):
    """Indexes of lines that are not inside fenced code blocks."""
    fence = None
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if fence:
            if match and match[1][0] == fence[0] and len(match[1]) >= len(fence):
                fence = None
            continue
        if match:
            fence = match[1]
            continue
        yield i


def looks_like(source: Source) -> bool:
    return any(ATX.match(source.lines[i]) for i in outside_fences(source.lines))


def read(source: Source, warn: Warn) -> list[Heading]:
    lines = source.lines
    outside = set(outside_fences(lines))
    headings: list[Heading] = []
    unsure: list[tuple[Heading, str, str]] = []
    for i, line in enumerate(lines):
        match = ATX.match(line) if i in outside else None
        if match:
            number, title, sure = split_title(match[2])
            heading = Heading(len(match[1]), match[2].strip(), i, number if sure else None)
            heading.written = match[2].strip()
            if number and sure:
                heading.title = title
            elif number:
                unsure.append((heading, number, title))
            headings.append(heading)
        elif headings:
            headings[-1].lines.append(line)
    numbered = sum(h.number is not None for h in headings) + len(unsure)
    if unsure and numbered * 2 >= len(headings):
        for heading, number, title in unsure:
            heading.number, heading.title = number, title
    for heading in headings:
        code = set(range(len(heading.lines))) - set(outside_fences(heading.lines))
        heading.body = trim(tables_to_markdown(heading.lines, skip=code))
    return headings
