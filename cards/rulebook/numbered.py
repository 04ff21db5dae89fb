"""Numbered rules: comprehensive-rules texts as published, in plain text (also PDF-to-text
dumps) or in Markdown (a PDF converted to Markdown, numbered paragraphs under headings).

A rule is a line that starts with a section number followed by its text: ``100.1. These
rules...``, ``100.1a A game...``, ``903.1a-3 ...``, a chapter ``1. Game Concepts``, a section
``100. General``. Whether a numbered line *is* a rule is told by the numbering it is in: it
must follow the rule before it (the next sibling, a first child, or the next of an ancestor)
and its text must start a sentence. Anything else is text of the rule before it: a
hard-wrapped line (``903.2m and apply that rule.``), a numbered list item (``1. «Will of
Hope»``), a number repeated. Such guesses on lines that look like rules are warnings.

Around the rules:
- page furniture is dropped: form feeds, page-number lines, and running headers or footers
  (a line repeated next to page breaks);
- a contents page (the numbering starts over: ``1. Game Concepts`` listed, then again with its
  rules) is skipped; unnumbered entries it lists (Glossary, Credits) are the back matter;
- the text before the first rule is kept as section 0, titled by its first line;
- back matter after the rules (Glossary, Credits, ...) becomes sections numbered after the
  last chapter; in a glossary each term (a short line, then its definition) is a subsection;
- indentation is layout; a rule's hard-wrapped lines join into paragraphs and list items
  (`base.plain_body`); plain text is escaped, Markdown kept as written.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from . import markdown
from .base import (
    SENTENCE_END,
    Heading,
    Source,
    Warn,
    is_heading_text,
    plain_body,
    runs_on_from,
    starts_lower,
    wrap_width,
)
from .numbers import CHAPTER, NUMBER, parent_number, sort_key, split_number

NAME, LABEL = "numbered", "numbered rules"

# A rule: its number, then its text after a space, or right after the number's dot when the
# text starts with a letter ("901.4.All players", as PDF dumps glue them).
RULE = re.compile(
    rf"^(?P<number>{NUMBER})(?P<dot>\.?)(?:\s+(?P<text>\S.*)|(?<=\.)(?P<glued>[^\W\d_].*))?$"
)
# A contents entry with its page: a title, a dotted leader, a page number ("General ..... 3",
# "1400. Old Rules and Wordings ..... 102"). Never a rule, wherever it is.
LEADER = re.compile(r"(?:\s*[.·…]){4,}\s*\d{1,4}$")
PAGE_NUMBER = re.compile(
    r"^(?:[-–—]\s*)?\d{1,4}(?:\s*[-–—])?$|^(?:page|p\.|стр\.?|страница)\s*\d+"
    r"(?:\s*(?:of|из|/)\s*\d+)?$|^\d{1,4}\s*(?:/|of|из)\s*\d{1,4}$",
    re.IGNORECASE,
)
CONTENTS = {"contents", "table of contents", "содержание", "оглавление"}
BACK_MATTER = re.compile(
    r"^(?:glossary|credits|index|appendix|glossary of terms|"
    r"глоссарий|словарь|словарь терминов|термины|авторы|приложение)\b",
    re.IGNORECASE,
)
GLOSSARY = re.compile(r"glossary|глоссарий|словар|термин", re.IGNORECASE)
REFERRING = re.compile(  # a line that ends so is continued by the number on the next
    r"(?:\b(?:rules?|see|sections?|and|or|of|in|under|to)|правил\w*|пункт\w*|раздел\w*|см\.)$"
)
DATA_IMAGE = re.compile(r"!\[[^\]]*\]\(data:[^)]*\)")
NEXT_GAP = 50  # a sub-rule skips at most this many numbers after the one before it
FIRST_CHILD = 10  # a first sub-rule is numbered at most this


@dataclass
class Row:
    index: int  # in Source.lines
    text: str  # stripped, heading marks removed
    heading: bool = False  # a Markdown heading
    number: str | None = None  # a rule-like number at the start
    rest: str = ""  # the text after it
    dot: bool = False  # the number ends with a dot


def looks_like(source: Source) -> bool:
    """Plain text with numbered rules, or Markdown whose rules are numbered paragraphs."""
    lines = source.lines
    if markdown.looks_like(source):
        outside = set(markdown.outside_fences(lines))
        headings = sum(1 for i in outside if markdown.ATX.match(lines[i]))
        numbered = sum(1 for i in outside if _multi_part_rule(lines[i]))
        return numbered >= 3 and numbered * 4 >= headings
    rules = [line for line in lines if RULE.match(line.strip())]
    return len(rules) >= 2 and any(_multi_part_rule(line) for line in rules)


def _multi_part_rule(line: str) -> bool:
    match = RULE.match(line.strip())
    return bool(match and match["text"] and "." in match["number"])


def read(source: Source, warn: Warn) -> list[Heading]:
    markup = markdown.looks_like(source)
    rows = _rows(source, markup, warn)
    rows = _drop_furniture(rows, source, warn)
    rows, listed = _skip_contents(rows, warn)
    chapters = _chaptered(rows)
    wrap = wrap_width([r.text for r in rows])
    hundreds, following = {}, None
    for row in reversed(rows):
        hundreds[row.index] = following
        if row.number and row.number.isdigit() and int(row.number) >= CHAPTER:
            following = int(row.number) // CHAPTER
    headings: list[Heading] = []
    front: list[Row] = []
    current: str | None = None
    seen: set[str] = set()
    glossary = False
    last_text = ""
    for row in rows:
        if current is not None and _back_matter(row, listed, last_text):
            glossary = bool(GLOSSARY.search(row.text))
            headings.append(Heading(1, row.text, row.index, written=row.text))
            current, last_text = "", ""  # no rules after the back matter
            continue
        if current == "":  # back matter
            if glossary and _term(row, last_text):
                headings.append(Heading(2, row.text, row.index, written=row.text))
            elif row.heading and row.text and not glossary:
                headings.append(Heading(2, row.text, row.index, written=row.text))
            else:
                headings[-1].lines.append(row.text)
            last_text = row.text
            continue
        if row.number and _follows(row, current, seen, chapters, last_text, hundreds):
            heading = Heading(len(split_number(row.number)), "", row.index, number=row.number)
            heading.written = row.text
            heading.lines.append(row.rest)
            heading.titled = row.heading
            headings.append(heading)
            seen.add(row.number)
            current = row.number
        elif current is None:
            front.append(row)
        else:
            if row.number and row.rest[:1].isupper() and not row.heading:
                what = "appears again" if row.number in seen else "does not follow the numbering"
                warn(row.index, f"{row.number} {what}: read as text of {current}")
            headings[-1].lines.extend(["", f"#### {row.text}", ""] if row.heading else [row.text])
        last_text = row.text
    for heading in headings:
        _finish(heading, markup, wrap)
    if any(r.text for r in front):
        headings.insert(0, _front_matter(front, markup, wrap, warn))
    return headings


def _rows(source: Source, markup: bool, warn: Warn) -> list[Row]:
    rows = []
    code = set(range(len(source.lines))) - set(markdown.outside_fences(source.lines))
    for i, line in enumerate(source.lines):
        text, heading = line.strip(), False
        if markup and i not in code:
            match = markdown.ATX.match(line)
            if match:
                text, heading = match[2].strip(), True
            if "](data:" in text:
                size = len(text)
                text = DATA_IMAGE.sub("", text).strip()
                warn(i, f"an image embedded in the text ({size // 1024} KB) was dropped")
        row = Row(i, text, heading)
        match = RULE.match(text) if i not in code and not LEADER.search(text) else None
        if match and (match["dot"] or "." in match["number"] or match["number"][-1].isalpha()):
            row.number, row.dot = match["number"], bool(match["dot"])
            row.rest = match["text"] or match["glued"] or ""
        rows.append(row)
    return rows


def _drop_furniture(rows: list[Row], source: Source, warn: Warn) -> list[Row]:
    """Without page numbers and running headers or footers (a line repeated at page breaks)."""
    pages = {r.index for r in rows if PAGE_NUMBER.match(r.text) and not r.heading}
    breaks = source.breaks | pages
    near = {i + d for i in breaks for d in (-2, -1, 0, 1, 2)}
    repeated = Counter(r.text for r in rows if r.text and r.index in near and not r.number)
    running = {text for text, n in repeated.items() if n >= 2 and len(text) <= 100}
    kept = []
    for row in rows:
        if row.index in pages:
            continue
        if row.text in running and row.index in near:
            continue
        kept.append(row)
    if pages:
        warn(min(pages), f"{len(pages)} page-number lines dropped (the first here)")
    for text in sorted(running):
        first = next(r.index for r in rows if r.text == text and r.index in near)
        warn(first, f"running header or footer {text[:60]!r} dropped wherever it repeats")
    return kept


def _skip_contents(rows: list[Row], warn: Warn) -> tuple[list[Row], set[str]]:
    """Without the contents page, and the unnumbered entries it lists (casefolded)."""
    rows, paged = _skip_paged_contents(rows, warn)
    numbered = [k for k, r in enumerate(rows) if r.number]
    if not numbered:
        return rows, paged
    first = numbered[0]
    again = next((k for k in numbered[1:] if rows[k].number == rows[first].number), None)
    if again is None:
        return rows, paged
    listed = [rows[k] for k in numbered if first <= k < again]
    if sum(is_heading_text(r.rest) for r in listed) < 0.8 * len(listed):
        return rows, paged
    start = first
    while start and not rows[start - 1].text:
        start -= 1
    if start and rows[start - 1].text.casefold().rstrip(":") in CONTENTS:
        start -= 1
    entries = {r.text.casefold() for r in rows[first:again] if r.text and not r.number}
    warn(
        rows[start].index,
        f"a table of contents ({len(listed)} entries, to line {rows[again - 1].index + 1}) "
        "was skipped",
    )
    return rows[:start] + rows[again:], entries | paged


def _skip_paged_contents(rows: list[Row], warn: Warn) -> tuple[list[Row], set[str]]:
    """Without the entries of a contents page that gives pages (a dotted leader and a page
    number: a PDF's contents as `pdftotext` prints them; its bare chapter numbers went with the
    page numbers) and the title above them; with the titles they list (casefolded)."""
    entries = [k for k, r in enumerate(rows) if LEADER.search(r.text) and not r.heading]
    if not entries:
        return rows, set()
    drop = set(entries)
    above = entries[0] - 1
    while above >= 0 and not rows[above].text:
        above -= 1
    if above >= 0 and rows[above].text.casefold().rstrip(":") in CONTENTS:
        drop.add(above)
    titles = set()
    for k in entries:  # "1400. Old Rules ..... 102" lists "old rules"
        title = LEADER.sub("", rows[k].text).strip()
        match = RULE.match(title)
        titles.add((match and (match["text"] or match["glued"]) or title).casefold())
    warn(
        rows[entries[0]].index,
        f"a table of contents ({len(entries)} entries with page numbers, to line "
        f"{rows[entries[-1]].index + 1}) was skipped",
    )
    return [r for k, r in enumerate(rows) if k not in drop], titles


def _chaptered(rows: list[Row]) -> bool:
    """Chapters of hundreds: a chapter line (``1. Game Concepts``) whose next one-part rule
    is in its hundreds (``100. General``)."""
    chapter = None
    for row in rows:
        if not (row.number and row.number.isdigit() and row.dot):
            continue
        n = int(row.number)
        if n < CHAPTER and is_heading_text(row.rest):
            chapter = n
        elif n >= CHAPTER:
            if chapter is not None and n // CHAPTER == chapter:
                return True
            chapter = None
    return False


def _follows(
    row: Row, current: str | None, seen: set[str], chapters: bool, last: str, hundreds: dict
) -> bool:
    """Whether a numbered line is the next rule after `current` (None: the first rule).
    `hundreds`: {row index: the chapter of the next one-part rule from 100 up after it}."""
    number, text = row.number, row.rest
    if number in seen or not text or starts_lower(text):
        return False
    if not (text[0].isalnum() or text[0] in "\"'«“‘([{"):
        return False
    if not row.heading and REFERRING.search(last):
        return False  # "... as described in rule" + "702.19 ...": a wrapped reference
    if number.isdigit():  # a one-part number: a chapter or section line, or a list item
        if last.endswith(":"):
            return False  # "... as follows:" + "1. Draw a card."
        if chapters and int(number) < CHAPTER:  # a chapter: titled, and its hundreds follow
            return is_heading_text(text) and hundreds.get(row.index) == int(number)
    if current is None:
        return True
    if sort_key(number, chapters) <= sort_key(current, chapters):
        return False
    parent = parent_number(number, chapters)
    ancestors = []
    walk: str | None = current
    while walk is not None:
        ancestors.append(walk)
        walk = parent_number(walk, chapters)
    last_part = split_number(number)[-1]
    if parent == current:  # a first sub-rule (of a chapter: the first of its hundreds)
        first = int(parent) * CHAPTER if chapters and "." not in number and parent else 0
        return not last_part.isdigit() or int(last_part) - first <= FIRST_CHILD
    sibling = next((a for a in ancestors if parent_number(a, chapters) == parent), None)
    if sibling is not None:  # the next of current or of one of its ancestors
        before = split_number(sibling)[-1]
        if last_part.isdigit() and before.isdigit() and "." in number:  # sections may jump
            return int(last_part) - int(before) <= NEXT_GAP
        return True
    # a parent not written (a rule under a section the document leaves out): a jump forward
    return parent is None or parent not in seen


def _back_matter(row: Row, listed: set[str], last: str) -> bool:
    """An unnumbered title after the rules: one the contents listed, or a known name."""
    if row.number or not row.text or not is_heading_text(row.text):
        return False
    if last and not SENTENCE_END.search(last) and not row.heading:
        return False
    folded = row.text.casefold().rstrip(":")
    return folded in listed or (bool(BACK_MATTER.match(folded)) and len(folded) <= 30)


def _term(row: Row, last: str) -> bool:
    """A glossary term: a heading, or a short line after a blank line or a finished sentence."""
    if row.heading:
        return bool(row.text)
    text = row.text
    return (
        bool(text)
        and is_heading_text(text)
        and not row.number
        and (not last or bool(SENTENCE_END.search(last)))
        and text[0] not in "-•*"
    )


def _finish(heading: Heading, markup: bool, wrap: int | None) -> None:
    """Title and Markdown body of a rule (or back-matter section) from its lines."""
    lines = heading.lines
    if heading.number is not None and lines:
        first, rest = lines[0], lines[1:]
        title_like = is_heading_text(first) and not (
            rest and rest[0].strip() and runs_on_from(first, rest[0].strip(), wrap)
        )
        if heading.titled or (title_like and first):
            heading.title, lines = first, rest
    heading.body = plain_body(lines, markup=markup, wrap=wrap)


def _front_matter(rows: list[Row], markup: bool, wrap: int | None, warn: Warn) -> Heading:
    """The text before the first rule as section 0, titled by its first line."""
    texts = [r for r in rows if r.text]
    title = texts[0].text if is_heading_text(texts[0].text) else "Introduction"
    lines: list[str] = []
    for row in rows:
        if row is texts[0] and title == row.text:
            continue
        if row.heading or (row.text and is_heading_text(row.text) and row.text.isupper()):
            lines.extend(["", f"### {row.text}" if markup else row.text, ""])
        else:
            lines.append(row.text)
    heading = Heading(1, title, texts[0].index, number="0", written=title)
    heading.body = plain_body(lines, markup=markup, wrap=wrap)
    warn(texts[0].index, f"the text before the first rule is kept as section 0, {title!r}")
    return heading
