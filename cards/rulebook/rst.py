"""reStructuredText: a one-line title after a blank line, underlined (optionally also
overlined) by one punctuation character repeated at least as long as the title. Levels follow
the order in which adornment styles are first seen. Comments and directives (``.. raw::``
etc.) are dropped with their indented block, except admonitions (note, warning, ...), whose
text is kept; ``#.`` lists become ``1.`` lists and ```text <url>`_`` links Markdown links. Grid
tables (``+----+`` borders) and simple tables (``=====  =====`` rules) become Markdown pipe
tables (`base.tables_to_markdown`)."""

from __future__ import annotations

import re

from .base import Heading, RulesParseError, Source, Warn, split_title, tables_to_markdown, trim

NAME, LABEL = "rst", "reStructuredText"
ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
EXPLICIT = re.compile(r"^\.\.(?:\s+(?:(?P<directive>[\w-]+)::)?|$)")
ADMONITIONS = set(
    "admonition attention caution danger error hint important note tip warning".split()
)
LINK = re.compile(r"`([^`<]+?)\s*<([^<>`\s]+)>`__?")


def _is_text(line: str) -> bool:
    return bool(line.strip()) and not line[0].isspace() and not ADORNMENT.match(line)


def title_at(lines: list[str], i: int):
    """(title, style, underline line index, line count) if a title starts at line i."""
    if i and lines[i - 1].strip():
        return None
    if (  # overline + title + underline
        i + 2 < len(lines)
        and ADORNMENT.match(lines[i])
        and lines[i + 1].strip()
        and ADORNMENT.match(lines[i + 2])
        and lines[i].strip() == lines[i + 2].strip()
    ):
        return lines[i + 1].strip(), (lines[i][0], True), i + 2, 3
    if i + 1 < len(lines) and _is_text(lines[i]) and ADORNMENT.match(lines[i + 1]):
        return lines[i].strip(), (lines[i + 1][0], False), i + 1, 2
    return None


def looks_like(source: Source) -> bool:
    return any(title_at(source.lines, i) for i in range(len(source.lines)))


def read(source: Source, warn: Warn) -> list[Heading]:
    lines = source.lines
    headings: list[Heading] = []
    levels: dict[tuple[str, bool], int] = {}
    i = 0
    while i < len(lines):
        title = title_at(lines, i)
        if title:
            text, style, underline, count = title
            width = len(lines[underline].rstrip())
            if width < len(text):
                raise RulesParseError(
                    underline,
                    f"the underline of {text!r} is shorter than the title "
                    f"({width} < {len(text)} characters)",
                )
            level = levels.setdefault(style, len(levels) + 1)
            number, text, sure = split_title(text)
            heading = Heading(level, text if sure else title[0], i, number if sure else None)
            heading.written = title[0]
            headings.append(heading)
            i += count
            continue
        explicit = EXPLICIT.match(lines[i])
        if explicit:
            directive = (explicit["directive"] or "").lower()
            argument = lines[i].split("::", 1)[1].strip() if directive else ""
            block, i = _block(lines, i)
            if headings and directive in ADMONITIONS:
                label = argument or directive.capitalize()
                headings[-1].lines.extend(["", f"> **{label}:**", *(f"> {b}" for b in block), ""])
            continue
        if headings:
            headings[-1].lines.append(lines[i])
        i += 1
    for heading in headings:
        # Tables first: rewriting links inside one would shift its columns.
        body = tables_to_markdown(heading.lines)
        heading.body = trim([LINK.sub(r"[\1](\2)", _numbered_list(line)) for line in body])
    return headings


def _numbered_list(line: str) -> str:
    return re.sub(r"^(\s*)#\.(\s)", r"\g<1>1.\2", line)


def _block(lines: list[str], start: int) -> tuple[list[str], int]:
    """The indented content after an explicit markup line (dedented), and the next index."""
    i, block = start + 1, []
    while i < len(lines) and (not lines[i].strip() or lines[i][0].isspace()):
        block.append(lines[i])
        i += 1
    while block and not block[-1].strip():
        block.pop()
    indent = min((len(b) - len(b.lstrip()) for b in block if b.strip()), default=0)
    return [b[indent:] for b in block], i
