"""Tables in rules documents (reStructuredText grid and simple tables, Markdown pipe tables,
tables in plain text and numbered rules) render as sanitised HTML tables."""

import html as html_lib
import re

from cards import rulebook
from cards.rulebook.base import tables_to_markdown


def _section(text: str, number: str = "1", **options):
    document = rulebook.parse_document(text, **options)
    return next(s for s in document.sections if s.number == number)


def _html(text: str, number: str = "1", **options) -> str:
    return rulebook.render_markdown(_section(text, number, **options).body)


def _cells(html: str, tag: str) -> list[str]:
    """The text of every `tag` cell, unescaped, in order (attributes such as align ignored)."""
    return [
        html_lib.unescape(re.sub(r"<[^>]+>", "", c)).strip()
        for c in re.findall(rf"<{tag}\b[^>]*>(.*?)</{tag}>", html, re.S)
    ]


RST_GRID = """Fees
====

What a move costs:

+---------+------------------+
| Move    | Fee              |
+=========+==================+
| Sprint  | Two tokens, paid |
|         | up front.        |
+---------+------------------+
| Rest    | None             |
+---------+------------------+

Then play goes on.
"""


def test_rst_grid_table_renders_as_a_table_with_header_cells():
    document = rulebook.parse_document(RST_GRID)
    assert document.style == "rst"
    html = rulebook.render_markdown(document.sections[0].body)
    assert html.count("<table>") == 1
    assert _cells(html, "th") == ["Move", "Fee"]
    assert _cells(html, "td") == ["Sprint", "Two tokens, paid up front.", "Rest", "None"]
    assert "<p>What a move costs:</p>" in html and "<p>Then play goes on.</p>" in html
    assert "+----" not in html


def test_rst_grid_table_without_header_line_uses_its_first_row_as_header():
    text = "Fees\n====\n\n  +-----+------+\n  | Hop | One  |\n  +-----+------+\n"
    text += "  | Jog | Two  |\n  +-----+------+\n"
    html = _html(text)
    assert _cells(html, "th") == ["Hop", "One"]
    assert _cells(html, "td") == ["Jog", "Two"]


def test_rst_grid_table_cell_spanning_columns_keeps_its_text():
    text = "Fees\n====\n\n+-----+------+\n| A   | B    |\n+=====+======+\n"
    text += "| spans both |\n+-----+------+\n"
    html = _html(text)
    assert "<table>" in html and "spans both" in _cells(html, "td")


def test_rst_simple_table_renders_as_a_table_with_header_cells():
    text = """Fees
====

=======  ==============
Move     Fee
=======  ==============
Sprint   Two tokens
         paid up front
Rest     None
=======  ==============

Then play goes on.
"""
    html = _html(text)
    assert _cells(html, "th") == ["Move", "Fee"]
    assert _cells(html, "td") == ["Sprint", "Two tokens paid up front", "Rest", "None"]
    assert "<p>Then play goes on.</p>" in html


def test_rst_simple_table_without_header_rule_uses_its_first_row_as_header():
    text = "Fees\n====\n\n=====  =====\nHop    One\nJog    Two\n=====  =====\n"
    html = _html(text)
    assert _cells(html, "th") == ["Hop", "One"]
    assert _cells(html, "td") == ["Jog", "Two"]


def test_rst_title_underline_is_not_read_as_a_simple_table():
    document = rulebook.parse_document("Fees\n====\n\nText.\n\nMoves\n=====\n\nMore text.\n")
    assert [s.title for s in document.sections] == ["Fees", "Moves"]
    assert "<table>" not in rulebook.render_markdown(document.sections[0].body)


def test_markdown_pipe_table_right_after_a_paragraph_line_renders_as_a_table():
    text = "# Fees\nEach move costs:\n| Move | Fee |\n|---|---|\n| Hop | 1 |\nThen play goes on.\n"
    html = _html(text)
    assert "<p>Each move costs:</p>" in html
    assert _cells(html, "th") == ["Move", "Fee"]
    assert _cells(html, "td") == ["Hop", "1"]  # the line after the table is not a row
    assert "<p>Then play goes on.</p>" in html


def test_markdown_table_with_alignment_keeps_the_alignment():
    text = "# Fees\n\nMove | Fee | Note\n:--- | ---: | :---:\nHop | 1 | short\n"
    html = _html(text)
    assert '<th align="left">Move</th>' in html
    assert '<td align="right">1</td>' in html
    assert '<td align="center">short</td>' in html


def test_markdown_indented_table_and_extra_cells_are_kept():
    text = "# Fees\n\n    | Move | Fee |\n    |---|---|\n    | Hop | 1 | extra |\n"
    html = _html(text)
    assert "<pre>" not in html
    assert _cells(html, "td") == ["Hop", "1", "extra"]


def test_markdown_table_indented_in_a_list_item_stays_in_the_item():
    text = "# Fees\n\n1. Each move costs:\n\n    | Move | Fee |\n    |---|---|\n    | Hop | 1 |\n"
    text += "\n2. Then play goes on.\n"
    html = _html(text)
    assert re.search(r"<li>\s*<p>Each move costs:</p>\s*<table>", html)
    assert _cells(html, "td") == ["Hop", "1"] and html.count("<ol") == 1


def test_markdown_table_in_fenced_code_stays_code():
    text = "# Fees\n\n```\n| Move | Fee |\n|---|---|\n```\n"
    html = _html(text)
    assert "<table>" not in html and "<pre><code>| Move | Fee |" in html


def test_grid_table_inside_a_markdown_document_renders_as_a_table():
    text = "# Fees\n\nSee below.\n+------+------+\n| Move | Fee  |\n+======+======+\n"
    text += "| Hop  | 1    |\n+------+------+\n\n## Moves\n\nText.\n"
    document = rulebook.parse_document(text)
    assert document.style == "markdown"
    html = rulebook.render_markdown(document.sections[0].body)
    assert _cells(html, "th") == ["Move", "Fee"]
    assert _cells(html, "td") == ["Hop", "1"]


def test_pipe_table_in_plain_text_is_a_table_not_an_escaped_paragraph():
    text = """Fees of the game
Every move costs some tokens, as the table below says for each one.
| Move | Fee |
|---|---|
| Hop | *1* <b> |
| Rest | 0 |
Then play goes on.
"""
    html = _html(text, fmt="plain")
    assert _cells(html, "th") == ["Move", "Fee"]
    assert _cells(html, "td") == ["Hop", "*1* <b>", "Rest", "0"]  # plain text, escaped
    assert "<b>" not in html and "\\|" not in html
    assert "<p>Then play goes on.</p>" in html


def test_grid_table_in_plain_text_is_a_table():
    text = "Fees of the game\nEvery move costs some tokens, as the table below says for each.\n"
    text += "+------+-----+\n| Move | Fee |\n+======+=====+\n| Hop  | 1   |\n+------+-----+\n"
    html = _html(text, fmt="plain")
    assert _cells(html, "th") == ["Move", "Fee"]
    assert _cells(html, "td") == ["Hop", "1"]


def test_pipe_table_in_numbered_rules_lands_in_the_rule_body():
    text = (
        "1. Basics\n1.1. Costs are:\n| Cost | Effect |\n|---|---|\n| 1 | Draw |\n1.2. Next rule.\n"
    )
    document = rulebook.parse_document(text)
    assert document.style == "numbered"
    assert [s.number for s in document.sections] == ["1", "1.1", "1.2"]
    rule = document.sections[1]
    html = rulebook.render_markdown(rule.body)
    assert "<p>Costs are:</p>" in html
    assert _cells(html, "th") == ["Cost", "Effect"]
    assert _cells(html, "td") == ["1", "Draw"]
    assert document.sections[2].body == "Next rule."


def test_two_pipe_tables_without_a_blank_line_between_stay_two_tables():
    text = "# Fees\n| a | b |\n|---|---|\n| 1 | 2 |\n| c | d |\n|---|---|\n| 3 | 4 |\n"
    html = _html(text)
    assert html.count("<table>") == 2 and _cells(html, "th") == ["a", "b", "c", "d"]


def test_pipe_in_cell_text_is_escaped_and_shown():
    lines = ["+-------+-------+", "| a | b | `x|y` |", "+-------+-------+"]
    assert tables_to_markdown(lines) == ["", "| a \\| b | `x|y` |", "|---|---|", ""]
    html = _html("Fees\n====\n\n" + "\n".join(lines) + "\n")
    assert _cells(html, "th") == ["a | b", "x|y"]
    plain = "1. Basics\n1.1. Costs are:\n| Cost | Effect |\n|---|---|\n| 1 | A \\| B |\n"
    plain += "1.2. Next rule.\n"
    body = _section(plain, "1.1").body
    assert "| 1 | A \\| B |" in body
    assert _cells(rulebook.render_markdown(body), "td") == ["1", "A | B"]


def test_script_and_event_handlers_in_table_cells_are_sanitised():
    text = (
        "# Fees\n\n| Move | Fee |\n|---|---|\n"
        '| <script>alert(1)</script>Hop | <span onclick="steal()">1</span> |\n'
    )
    html = _html(text)
    assert "<table>" in html
    assert "<script" not in html and "alert" not in html
    assert "onclick" not in html and "steal" not in html
    assert _cells(html, "td") == ["Hop", "1"]
    grid = "Fees\n====\n\n+-----------------+\n| Cell            |\n+=================+\n"
    grid += '| <img src=x onerror="steal()"> |\n+-----------------+\n'
    html = _html(grid)
    assert "<table>" in html and "onerror" not in html and "steal" not in html
