"""Markdown numbering, cross-references and the real rulebooks admins will import
(cards.rulebook). Pure: no database. The real documents live beside the project in
../shared/rulebooks (or $RULEBOOKS); without them those tests skip, saying why."""

import os
import re
from pathlib import Path

import pytest

from cards import rulebook

ROOT = Path(__file__).resolve().parents[2]
RULEBOOKS = Path(os.environ.get("RULEBOOKS", ROOT.parent / "shared" / "rulebooks"))


def rulebook_text(name: str) -> str:
    path = RULEBOOKS / name
    if not path.is_file():  # a clone on its own: the published rulebooks are not ours to ship
        pytest.skip(f"no {name} at {RULEBOOKS}: they live beside the project (or set RULEBOOKS)")
    return rulebook.decode(path.read_bytes())


def numbers(document) -> list[str]:
    return [s.number for s in document.sections]


# --- Markdown headings with numbers ----------------------------------------------------------


def test_a_lone_title_over_numbered_headings_is_the_documents_title():
    document = rulebook.parse_document("# Rulebook\n\n## 1. Introduction\n\nHello.\n\n## 2. Play\n")
    assert numbers(document) == ["1", "2"]
    assert document.sections[0].title == "Introduction"
    assert [w.message for w in document.warnings] == [
        "'Rulebook' is the document's title, not a section"
    ]


def test_text_under_the_documents_title_is_kept_as_section_zero():
    document = rulebook.parse_document("# Rulebook\n\nVersion 2.\n\n## 1. Introduction\n")
    assert numbers(document) == ["0", "1"]
    assert document.sections[0].title == "Rulebook" and document.sections[0].body == "Version 2."


def test_a_heading_that_starts_with_a_count_is_a_title_among_unnumbered_headings():
    document = rulebook.parse_document("# Setup\n\n# 2 PLAYER GAME\n\n# Winning\n")
    assert [(s.number, s.title) for s in document.sections] == [
        ("1", "Setup"),
        ("2", "2 PLAYER GAME"),
        ("3", "Winning"),
    ]
    assert [s.by_position for s in document.sections] == [True, True, True]


def test_numbering_by_position_keeps_each_heading_whole_as_its_title():
    text = "# 4. Setup\n\n## 4.1 Decks\n\n# 9. Play\n"
    assert numbers(rulebook.parse_document(text)) == ["4", "4.1", "9"]
    document = rulebook.parse_document(text, numbering="position")
    assert [(s.number, s.title) for s in document.sections] == [
        ("1", "4. Setup"),
        ("1.1", "4.1 Decks"),
        ("2", "9. Play"),
    ]


def test_an_unknown_numbering_is_refused():
    with pytest.raises(ValueError, match="Unknown numbering 'roman'"):
        rulebook.parse_document("# A\n", numbering="roman")


# --- cross-references ------------------------------------------------------------------------

LINKS = {n: f"/r/{n}" for n in ("3", "404", "903.6", "903.7", "903.11", "907.6", "5.4")}


@pytest.mark.parametrize(
    "text, linked",
    [
        ("See rules 903.6–903.11 for details.", ["903.6", "903.11"]),
        ("See rules 903.6-903.11.", ["903.6", "903.11"]),
        ("rules 903.6 through 903.11", ["903.6", "903.11"]),
        ("The stack (404) holds spells.", ["404"]),
        ("As a rule says (907.6.), it ends.", ["907.6"]),
        ("A draw (5.4) happens.", ["5.4"]),
        ("Deal damage (3) to it.", []),  # a small number in brackets is not a rule
        ("In 2019 (see 903.6) it changed.", ["903.6"]),
    ],
)
def test_cross_references_link_ranges_bracketed_numbers_and_trailing_dots(text, linked):
    html = rulebook.render_markdown(text, LINKS)
    assert re.findall(r'class="rule-ref" href="/r/([^"]+)"', html) == linked


# --- the real rulebooks ----------------------------------------------------------------------


def rule_lines(text: str) -> list[str]:
    """Numbers of the lines that read as rules: a number of two or more parts, then a
    capitalised sentence (headings' marks and indentation ignored)."""
    found = []
    for line in text.splitlines():
        match = re.match(r"^\s*#*\s*(\d+(?:\.\d+)+[a-z]?)\.?\s+[A-Z]", line)
        if match:
            found.append(rulebook.normalise_number(match[1]))
    return found


def test_a_comprehensive_rules_conversion_imports_unedited_with_every_rule_in_place():
    text = rulebook_text("disney-lorcana-comprehensive-rules.md")
    document = rulebook.parse_document(text)
    assert document.style == "numbered"
    by_number = {s.number: s for s in document.sections}
    written = rule_lines(text)
    assert len(written) > 500
    # The contents page lists chapters and sections first: every numbered line is a section.
    assert set(written) <= set(by_number)
    # Its two misprinted numbers (a repeated 6.7.1, and 7.7 for 7.7.7) stay text, with warnings.
    repeated = [w for w in document.warnings if "appears again" in w.message]
    assert [w.line for w in repeated] == [917, 1018]
    assert "If a player leaves the game while abilities" in by_number["7.7.6"].body
    # No text lost: every sentence of a rule is in some section (images dropped, warned).
    bodies = "\n".join(f"{s.title}\n{s.body}" for s in document.sections)
    assert "Marketing cards can't be chosen for effects." in bodies
    assert sum("image embedded" in w.message for w in document.warnings) == 8
    assert "base64" not in bodies
    glossary = next(s for s in document.sections if s.title == "GLOSSARY")
    terms = [s.title for s in document.sections if s.parent_number == glossary.number]
    assert {"ability", "bag", "version"} <= set(terms)


def test_a_community_markdown_rulebook_numbers_its_headings_by_position():
    document = rulebook.parse_document(rulebook_text("duelyst-tcg-rulebook.md"))
    assert document.style == "markdown"
    assert len(document.sections) == 61 and all(s.by_position for s in document.sections)
    rendered = "".join(rulebook.render_markdown(s.body) for s in document.sections)
    assert "<pre><code>" in rendered  # the fenced diagrams stay code


def test_own_numbers_that_start_again_fall_back_to_position_with_a_warning():
    text = "# Part A\n\n## 1. Setup\n\n## 2. Play\n\n# Part B\n\n## 1. Combat\n"
    document = rulebook.parse_document(text)
    assert [(s.number, s.title) for s in document.sections] == [
        ("1", "Part A"),
        ("1.1", "1. Setup"),
        ("1.2", "2. Play"),
        ("2", "Part B"),
        ("2.1", "1. Combat"),
    ]
    assert [str(w) for w in document.warnings] == [
        "line 3: section 1 appears twice (first on line 1): headings numbered by position instead"
    ]
    with pytest.raises(rulebook.RulesParseError, match="line 3: section 1 appears twice"):
        rulebook.parse_document(text, numbering="document")


# --- shape and scale -------------------------------------------------------------------------


def test_the_rulebook_package_needs_no_django_models():
    import subprocess
    import sys

    code = (
        "import sys, cards.rulebook as r; r.parse_document('1.1. A rule.\\n1.2. Another.\\n');"
        "bad = [m for m in sys.modules if m.startswith(('cards.models', 'django.db'))];"
        "assert not bad, bad"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def generated(chapters: int = 10, sections: int = 10, rules: int = 20, subrules: int = 4) -> str:
    """A comprehensive-rules text of chapters x sections x rules x (1 + subrules) rules."""
    lines = ["Generated Rules", ""]
    for c in range(1, chapters + 1):
        lines += [f"{c}. Chapter {c}", ""]
        for s in range(c * 100, c * 100 + sections):
            lines += [f"{s}. Section {s}", ""]
            for r in range(1, rules + 1):
                lines += [f"{s}.{r}. Rule {r} of section {s} applies (see {s}.1).", ""]
                for letter in "abcdefgh"[:subrules]:
                    lines += [f"{s}.{r}{letter} A detail of rule {s}.{r}.", ""]
    return "\n".join(lines)


def test_a_generated_ten_thousand_rule_document_keeps_every_rule():
    document = rulebook.parse_document(generated())
    numbers = [s.number for s in document.sections]
    assert len(numbers) == 1 + 10 + 100 + 100 * 20 * 5 == 10111
    assert numbers[-1] == "1009.20d" and document.chapters
    assert len(set(numbers)) == len(numbers)
