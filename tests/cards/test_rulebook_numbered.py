"""Comprehensive rules as published (cards.rulebook.numbered): one short synthetic document per
way real documents broke the importer. Pure: no database."""

import pytest

from cards import rulebook

# A comprehensive-rules text in the shape publishers release: title and introduction, a
# contents page, chapters of hundreds, wrapped lines that start with numbers, lists inside
# rules, page furniture, a glossary with numbered senses, credits.
COMPREHENSIVE = """\
Card Game Comprehensive Rules

These rules take effect on 1 March.

Introduction

This document is for players who know the basic rules and want the details.

Contents

1. Game Concepts
100. General
101. The Golden Rules
2. Parts of a Card
200. General
Glossary
Credits

1. Game Concepts

100. General

100.1. These rules apply to any game with two or more players, including team games and
games with three players.

100.2. To play, each player needs a deck of their own. A deck follows the rules of its
format, as described in rule
100. and the rules after it.

100.2a A constructed deck has at least forty cards. Some formats change this; see rules
903.2m and apply that rule.

100.2b Players may use a sideboard:
1. A card from the sideboard replaces one from the deck.
2. The deck keeps its size.

101. The Golden Rules

101.1. If a card contradicts these rules, the card wins. When a rule and an effect disagree
about whether something may happen, the effect that forbids it wins, unless rule
1014.3 does not apply.

101.2. If you need to pay
{2} to do something, you pay it from your pool.

   101.3. An indented rule is still a rule. Keep a <Shinobi> EX Area in mind.

101.3a A rule may refer to others (rules 101.1–101.3, and (101.2.)).
101.3a-1 A hyphenated sub-rule belongs to 101.3a.
101.4. Some effects are printed with arrows:
>>> (Effect) stays as written.
4
Card Game Comprehensive Rules
\f101.5. After a page break the rules go on.
5
Card Game Comprehensive Rules
2. Parts of a Card

200. General

200.1. A card has a name and a cost.

Glossary

Active Player
The player whose turn it is. See rule 101.1.

Activate
1. To put an ability into play and pay its costs.
2. To turn a card sideways.

Credits

Written by the rules team.
"""


@pytest.fixture(scope="module")
def document():
    return rulebook.parse_document(COMPREHENSIVE)


def sections(document):
    return {s.number: s for s in document.sections}


def html(section):
    return rulebook.render_markdown(section.body)


def test_a_comprehensive_text_is_read_as_numbered_rules_in_chapters(document):
    assert document.style == "numbered" and document.chapters
    expected = "0 1 100 100.1 100.2 100.2a 100.2b 101 101.1 101.2 101.3 101.3a 101.3a-1 101.4"
    expected += " 101.5 2 200 200.1 3 3.1 3.2 4"
    assert [s.number for s in document.sections] == expected.split()


def test_chapter_lines_hold_the_rules_of_their_hundreds(document):
    by_number = sections(document)
    assert by_number["1"].title == "Game Concepts" and by_number["2"].title == "Parts of a Card"
    assert by_number["100"].parent_number == "1" and by_number["200"].parent_number == "2"
    assert by_number["100"].depth == 2 and by_number["100.2a"].depth == 4
    keys = [s.sort_key for s in document.sections]
    assert keys == sorted(keys)  # chapter 2 sorts after rule 101.5, not before rule 100


def test_the_contents_page_is_skipped_with_a_warning(document):
    assert sum(s.title == "General" for s in document.sections) == 2  # not listed twice
    assert any("table of contents (5 entries" in w.message for w in document.warnings)
    assert "Contents" not in sections(document)["0"].body


def test_the_text_before_the_first_rule_is_kept_as_section_zero(document):
    intro = sections(document)["0"]
    assert intro.title == "Card Game Comprehensive Rules"
    assert "These rules take effect on 1 March." in intro.body
    assert "want the details." in intro.body


def test_wrapped_lines_that_start_with_a_number_stay_in_their_rule(document):
    by_number = sections(document)
    assert "see rules 903.2m and apply that rule." in by_number["100.2a"].body
    assert "unless rule 1014.3 does not apply." in by_number["101.1"].body
    assert "as described in rule 100. and the rules after it." in by_number["100.2"].body
    assert "903.2m" not in by_number and "1014.3" not in by_number


def test_a_numbered_list_inside_a_rule_is_a_list_not_rules(document):
    rule = sections(document)["100.2b"]
    assert "<ol>" in html(rule) and "<li>A card from the sideboard replaces" in html(rule)
    assert rule.title == ""


def test_page_numbers_and_running_headers_are_dropped(document):
    by_number = sections(document)
    assert by_number["101.4"].body.endswith("stays as written.")
    assert "Card Game" not in by_number["101.5"].body
    assert by_number["101.5"].body == "After a page break the rules go on."
    messages = [w.message for w in document.warnings]
    assert "2 page-number lines dropped (the first here)" in messages
    assert any("running header or footer 'Card Game Comprehensive Rules'" in m for m in messages)


def test_a_rule_after_a_form_feed_is_a_rule(document):
    assert sections(document)["101.5"].line == 54


def test_indented_rules_are_rules(document):
    assert sections(document)["101.3"].body.startswith("An indented rule is still a rule.")


def test_hyphenated_sub_rules_are_sections_under_their_rule(document):
    assert sections(document)["101.3a-1"].parent_number == "101.3a"
    assert "hyphenated" not in sections(document)["101.3a"].body


def test_a_wrapped_first_line_is_not_taken_for_a_title(document):
    rule = sections(document)["101.2"]
    assert rule.title == ""
    assert rule.body == "If you need to pay {2} to do something, you pay it from your pool."


def test_plain_text_is_escaped_so_it_renders_as_written(document):
    assert "a &lt;Shinobi&gt; EX Area" in html(sections(document)["101.3"])
    rendered = html(sections(document)["101.4"])
    assert "&gt;&gt;&gt; (Effect) stays as written." in rendered
    assert "<blockquote>" not in rendered


def test_the_glossary_is_a_section_with_a_subsection_per_term(document):
    by_number = sections(document)
    assert by_number["3"].title == "Glossary" and by_number["4"].title == "Credits"
    assert [by_number["3.1"].title, by_number["3.2"].title] == ["Active Player", "Activate"]
    senses = html(by_number["3.2"])
    assert "<ol>" in senses and "<li>To turn a card sideways.</li>" in senses
    assert by_number["4"].body == "Written by the rules team."


def test_numbers_that_do_not_follow_the_numbering_are_text_with_a_warning():
    document = rulebook.parse_document(
        "1.1. First rule.\n1.2. Second rule.\n1.2. Repeated by mistake, it stays text.\n"
        "1.3. Third rule.\n"
    )
    assert [s.number for s in document.sections] == ["1", "1.1", "1.2", "1.3"]
    assert sections(document)["1.2"].body.endswith("Repeated by mistake, it stays text.")
    assert [str(w) for w in document.warnings] == ["line 3: 1.2 appears again: read as text of 1.2"]


# --- PDF-to-text dumps ----------------------------------------------------------------------

PDF_DUMP = (
    "Sample Game Rules 2.1\n"
    "1. Setup\n"
    "100. Starting the Game\n"
    "100.1. Each player shuffles their deck and draws seven cards. A player who does not\n"
    "like their hand may shuffle it back and draw six instead, once per game.\n"
    "100.2. The first player is chosen at random. That player skips the draw of their\n"
    "first turn, as the rules of chapter\n"
    "2 explain.\n"
    "12\n"
    "\fSample Game Rules 2.1\n"
    "100.3. Players then reveal their leaders at the same time.\n"
    "2. Turns\n"
    "200. Turn Structure\n"
    "200.1. A turn has a start, a main phase and an end.\n"
    "13\n"
    "\fSample Game Rules 2.1\n"
)


def test_a_pdf_dump_joins_wrapped_lines_and_drops_its_page_furniture():
    document = rulebook.parse_document(PDF_DUMP)
    by_number = sections(document)
    assert [s.number for s in document.sections] == "0 1 100 100.1 100.2 100.3 2 200 200.1".split()
    assert by_number["100.1"].body == (
        "Each player shuffles their deck and draws seven cards. A player who does not like "
        "their hand may shuffle it back and draw six instead, once per game."
    )
    assert by_number["100.2"].body.endswith("as the rules of chapter 2 explain.")
    assert by_number["100.3"].body == "Players then reveal their leaders at the same time."
    assert by_number["0"].title == "Sample Game Rules 2.1"


# --- line numbers ---------------------------------------------------------------------------


def test_line_numbers_count_lines_as_an_editor_does_with_lone_carriage_returns():
    # Lines end in CRLF; one line holds a stray CR (as PDF dumps have): still one line.
    text = "1.1. First rule.\r\n1.2. Second\rpart of it.\r\n1.3. Third \u202e rule.\r\n"
    with pytest.raises(rulebook.RulesParseError) as error:
        rulebook.parse_document(text)
    assert error.value.line == 3


def test_a_file_with_carriage_returns_only_counts_them_as_lines():
    text = "1.1. First rule.\r1.2. Second rule.\r1.3. Third \u202e rule.\r"
    with pytest.raises(rulebook.RulesParseError) as error:
        rulebook.parse_document(text)
    assert error.value.line == 3


def test_sections_and_warnings_name_the_editors_line():
    text = "Intro\r\n\r\n1.1. First rule.\r\n1.2. A\rwrapped line.\r\n1.3. Third rule.\r\n"
    document = rulebook.parse_document(text)
    assert {s.number: s.line for s in document.sections}["1.3"] == 5
    assert document.warnings[0].line == 1  # the text before the first rule


# --- Markdown conversions of comprehensive rules --------------------------------------------

CONVERTED = """\
# SAMPLE RULES

## CONTENTS

### 1. BASICS

1.1. General

### 2. PLAY

2.1. Turns

## GLOSSARY

### 1. BASICS

#### 1.1. General

1.1.1. The game is played by two players. Each needs a deck.<BR>
1.1.2. A **bold** word stays bold.

Example: A player with no cards left loses.

#### 2. PLAY

### 2.1. Turns

2.1.1. Players take turns.
![diagram](data:image/png;base64,AAAA)

# GLOSSARY

deck
The cards a player plays with.

## hand
The cards a player holds.
""".replace("<BR>", "  ")  # a hard line break, as converters write them


def test_a_markdown_conversion_numbers_rules_by_their_numbers_not_heading_levels():
    document = rulebook.parse_document(CONVERTED)
    assert document.style == "numbered" and not document.chapters
    by_number = sections(document)
    expected = "0 1 1.1 1.1.1 1.1.2 2 2.1 2.1.1 3 3.1 3.2"
    assert [s.number for s in document.sections] == expected.split()
    assert by_number["1.1"].title == "General" and by_number["2.1"].title == "Turns"
    assert "<strong>bold</strong>" in html(by_number["1.1.2"])  # Markdown kept, not escaped
    assert "Example: A player with no cards left loses." in by_number["1.1.2"].body
    assert "data:" not in by_number["2.1.1"].body
    assert any("image embedded in the text" in w.message for w in document.warnings)
    assert [by_number["3.1"].title, by_number["3.2"].title] == ["deck", "hand"]


# --- indentation as layout ------------------------------------------------------------------

INDENTED = """\
Card Game Comprehensive Rules

   These rules take effect on 1 March.

Contents

1. Game Concepts
   100. General
   101. Players

Glossary

1. Game Concepts

100. General

   100.1. These rules apply to any game of two or more players.

      100.1a A two-player game begins with two players.

   100.2. Each player needs a deck.
            Example: A player with no deck cannot play.

      100.2a A deck has forty cards or more.

101. Players

   101.1. A player is one of the people in the game.

Glossary

Abandon
To turn a scheme face down.
"""


def test_indented_rules_and_examples_are_read_as_layout():
    document = rulebook.parse_document(INDENTED)
    by_number = sections(document)
    expected = "0 1 100 100.1 100.1a 100.2 100.2a 101 101.1 2 2.1"
    assert [s.number for s in document.sections] == expected.split()
    assert by_number["100.2"].body == (
        "Each player needs a deck.\n\nExample: A player with no deck cannot play."
    )
    assert by_number["2.1"].title == "Abandon"


# --- contents pages as PDF dumps print them (Force of Will CR 12.7) --------------------------

PAGED_CONTENTS = """\
Force of Will Comprehensive Rules ver. 12.7
Last update: 2023/06/01
Contents
100
200
1400
Overview ......................................... 3
Card Information ................................ 9
Old Rules and Wordings ..... 102
1400. Old Rules and Wordings ..... 102
Glossary . . . . . . . . 110
100. Overview
100.1. These are the comprehensive rules of the game.
100.2. A rule that starts right after its number's dot is still that rule.
200. Card Information
200.1. A card has a name.
901.4.All players reveal their hands at the same time.
1400. Old Rules and Wordings
1400.1. Older printings keep their meaning.
Glossary
Ruler
The card a player starts the game with.
"""


def test_a_contents_page_of_bare_numbers_and_dotted_titles_with_pages_is_not_read_as_rules():
    document = rulebook.parse_document(PAGED_CONTENTS)
    numbers = [s.number for s in document.sections]
    assert numbers[:6] == "0 100 100.1 100.2 200 200.1".split()
    assert {"901.4", "1400", "1400.1"} <= set(numbers)
    assert numbers.index("901.4") < numbers.index("1400") < numbers.index("1400.1")
    assert not any("does not follow" in w.message for w in document.warnings)
    assert any(
        "table of contents (5 entries with page numbers" in w.message for w in document.warnings
    )
    front = sections(document)["0"]
    assert "....." not in front.body and ". . ." not in front.body
    assert "Contents" not in front.body
    assert sections(document)["1400"].title == "Old Rules and Wordings"


def test_a_rule_whose_text_follows_its_number_without_a_space_is_that_rule():
    document = rulebook.parse_document(PAGED_CONTENTS)
    assert sections(document)["901.4"].body == "All players reveal their hands at the same time."


def test_the_glossary_a_paged_contents_lists_is_back_matter():
    document = rulebook.parse_document(PAGED_CONTENTS)
    glossary = next(s for s in document.sections if s.title == "Glossary")
    assert [s.title for s in document.sections if s.parent_number == glossary.number] == ["Ruler"]
