"""Plain text without numbers: ``*** HEADING ***`` lines (asterisk), or else short heading
lines (plain). Both give level-1 sections numbered 1, 2, 3...

plain: a heading is a short line (at most 60 characters) that starts with a capital letter,
does not end as a sentence (. ! ? : ; or a comma), does not end with a connecting word (a,
the, of, и, в...), is not one more short line of a list, and is followed by a longer line
that starts a sentence (a paragraph). Bodies are plain text (`base.plain_body`)."""

from __future__ import annotations

import re

from .base import (
    CONNECTORS,
    HEADING_MAX,
    SENTENCE_END,
    Heading,
    Source,
    Warn,
    is_heading_text,
    plain_body,
    split_title,
    wrap_width,
)

ASTERISK = re.compile(r"^\s*\*{3,}\s*(\S.*?)\s*\*{3,}\s*$")


class Asterisk:
    NAME, LABEL = "asterisk", "plain text with *** headings ***"

    @staticmethod
    def looks_like(source: Source) -> bool:
        return any(ASTERISK.match(line) for line in source.lines)

    @staticmethod
    def read(source: Source, warn: Warn) -> list[Heading]:
        headings: list[Heading] = []
        for i, line in enumerate(source.lines):
            match = ASTERISK.match(line)
            if match:
                number, title, sure = split_title(match[1])
                heading = Heading(1, title if sure else match[1], i, number if sure else None)
                heading.written = match[1]
                headings.append(heading)
            elif headings:
                headings[-1].lines.append(line)
        return _finish(headings, source)


def _is_plain_heading(lines: list[str], i: int) -> bool:
    line = lines[i]
    text = line.strip()
    if line[:1].isspace() or not is_heading_text(text) or not text[0].isupper():
        return False
    if text.split()[-1].casefold() in CONNECTORS:
        return False  # "Player got a" continues on the next line
    previous = lines[i - 1].strip() if i else ""
    if previous and len(previous) <= HEADING_MAX and not SENTENCE_END.search(previous):
        return False  # one more short line of a list
    following = next((f.strip() for f in lines[i + 1 :] if f.strip()), None)
    if following is None or following[0].islower() or following[0] in ",;:.)»”’":
        return False
    long_enough = len(following) > HEADING_MAX or SENTENCE_END.search(following)
    return len(following) > len(text) and bool(long_enough)


class Plain:
    NAME, LABEL = "plain", "plain text"

    @staticmethod
    def looks_like(source: Source) -> bool:
        return True

    @staticmethod
    def read(source: Source, warn: Warn) -> list[Heading]:
        headings: list[Heading] = []
        for i, line in enumerate(source.lines):
            if _is_plain_heading(source.lines, i):
                headings.append(Heading(1, line.strip(), i, written=line.strip()))
            elif headings:
                headings[-1].lines.append(line)
        return _finish(headings, source)


def _finish(headings: list[Heading], source: Source) -> list[Heading]:
    wrap = wrap_width(source.lines)
    for heading in headings:
        heading.body = plain_body(heading.lines, wrap=wrap)
    return headings
