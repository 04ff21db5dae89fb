"""Section numbers: ``3``, ``3.1``, ``100.1a``, ``903.1a-3``.

A number is dot-separated whole numbers (0-9999), then optionally one letter (``100.1a``, as
comprehensive rules number their sub-rules) and a hyphenated part (``903.1a-3``). A section's
parent is its number minus the last part (``3.1.2`` -> ``3.1``, ``100.1a`` -> ``100.1``,
``903.1a-3`` -> ``903.1a``).

Chapters: comprehensive rules group their one-part rules in hundreds under chapter lines
(``1. Game Concepts`` holds ``100. General`` ... ``199``). In a game whose rules are
*chaptered*, a number from 100 up has the chapter of its hundreds as the parent of its first
part (``100`` -> ``1``), and its sort key and depth say so. Every function here takes that
flag; nothing else changes (a section is still read on the page of its first part).
"""

from __future__ import annotations

import functools
import re
import unicodedata

NUMBER = r"\d+(?:\.\d+)*(?:[a-z](?:-\d+)?)?"
_NUMBER_RE = re.compile(r"(\d+(?:\.\d+)*)(?:([a-z])(?:-(\d+))?)?")
MAX_PART = 9999
MAX_DEPTH = 8
CHAPTER = 100  # a chaptered rule's chapter is its first part divided by this
HELP = "use numbers such as 3, 3.1, 3.1.2 or 100.1a."


@functools.lru_cache(maxsize=1 << 16)  # a rulebook asks about each number many times
def _parts(number: str) -> tuple[str, ...]:
    match = _NUMBER_RE.fullmatch(number or "")
    if not match:
        raise ValueError(f"{number!r} is not a section number: {HELP}")
    return (*match[1].split("."), *(p for p in match.groups()[1:] if p))


def normalise_number(number: str) -> str:
    """'03.1.' -> '3.1'; ValueError for anything that is not a section number."""
    text = (number or "").strip().rstrip(".")
    parts = _parts(text)
    if any(p.isdigit() and int(p) > MAX_PART for p in parts):
        raise ValueError(f"{number!r}: each part of a number is at most {MAX_PART}.")
    if len(parts) > MAX_DEPTH:
        raise ValueError(f"{number!r}: a number has at most {MAX_DEPTH} parts.")
    match = _NUMBER_RE.fullmatch(text)
    head = ".".join(str(int(p)) for p in match[1].split("."))
    letter = match[2] or ""
    return head + letter + (f"-{int(match[3])}" if match[3] else "")


def split_number(number: str) -> list[str]:
    """'3.1.2' -> ['3', '1', '2']; '100.1a' -> ['100', '1', 'a']; '903.1a-3' -> [..., 'a', '3']."""
    return list(_parts(number))


def chapter_of(number: str, chapters: bool) -> str | None:
    """The chapter of a one-part number in chaptered rules ('100' -> '1'), else None."""
    first = int(_parts(number)[0])
    return str(first // CHAPTER) if chapters and first >= CHAPTER else None


def parent_number(number: str, chapters: bool = False) -> str | None:
    match = _NUMBER_RE.fullmatch(number or "")
    if not match:
        raise ValueError(f"{number!r} is not a section number: {HELP}")
    if match[3]:
        return match[1] + match[2]
    if match[2]:
        return match[1]
    head, _, _ = match[1].rpartition(".")
    return head or chapter_of(number, chapters)


def depth(number: str, chapters: bool = False) -> int:
    return len(_parts(number)) + (chapter_of(number, chapters) is not None)


@functools.lru_cache(maxsize=1 << 16)
def sort_key(number: str, chapters: bool = False) -> str:
    """'3.1.2' -> '0003.0001.0002', so that sorting the text sorts the rules; chaptered
    '100.1' -> '0001.0100.0001' (after chapter 1, before chapter 2)."""
    key = ".".join(p.zfill(4) if p.isdigit() else p for p in _parts(number))
    chapter = chapter_of(number, chapters)
    return f"{chapter.zfill(4)}.{key}" if chapter else key


def page_number(number: str) -> str:
    """The section whose page shows this one: its first part ('5.4.1' -> '5', '100.1a' -> '100')."""
    return _parts(number)[0]


def anchor_for(number: str) -> str:
    return "r" + number.replace(".", "-")


def title_anchor(title: str) -> str:
    """An anchor from a title: 'Two-player Setup' -> 'two-player-setup' (any script's letters;
    at most 60 characters, cut at a word); '' if the title has no letters or digits."""
    text = unicodedata.normalize("NFKC", title).casefold()
    words = re.findall(r"[^\W_]+", text)
    anchor = ""
    for word in words:
        if len(anchor) + len(word) + 1 > 60:
            break
        anchor = f"{anchor}-{word}" if anchor else word
    return anchor or (words[0][:60] if words else "")


def unique_anchor(base: str, taken: set[str]) -> str:
    anchor, n = base, 2
    while anchor in taken:
        anchor, n = f"{base}_{n}", n + 1
    return anchor


def excerpt(markdown_text: str, length: int = 80) -> str:
    """The first sentence (or `length` characters) of a Markdown body, as plain text."""
    text = re.sub(r"\\(?=\W)", "", markdown_text or "")  # escapes of plain text
    text = re.sub(r"[*_`#>\[\]|]|^\s*(?:[-+]|\d+\.)\s+", "", text, flags=re.M)
    text = " ".join(text.replace("&lt;", "<").replace("&amp;", "&").split())
    sentence = re.match(r".+?[.!?](?=\s|$)", text)
    text = sentence[0] if sentence else text
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"
