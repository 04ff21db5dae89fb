"""Lists nested under a list item by 2 or 3 spaces (CommonMark's indentation, and that of
rulebooks converted from PDF) render as nested lists; Python-Markdown alone wants 4, and shows
the nested items as a paragraph with literal "- " in it. Nothing else becomes a list."""

import re

import pytest

from cards import rulebook
from cards.rulebook.render import nest_lists


def _html(text: str) -> str:
    return rulebook.render_markdown(text)


def _squeezed(html: str) -> str:
    """The HTML without the line breaks and indentation between tags."""
    return re.sub(r">\s+<", "><", html).strip()


RULE_5_4 = """1. Copies are counted by card name.
2. A deck may hold at most:
   - three copies of a common card;
   - two copies of an uncommon card;
   - one copy of a rare card.
"""


def test_a_bullet_list_three_spaces_under_a_numbered_item_is_nested_in_that_item():
    html = _squeezed(_html(RULE_5_4))
    assert html == (
        "<ol><li>Copies are counted by card name.</li>"
        "<li>A deck may hold at most:<ul>"
        "<li>three copies of a common card;</li>"
        "<li>two copies of an uncommon card;</li>"
        "<li>one copy of a rare card.</li>"
        "</ul></li></ol>"
    )
    assert "- three" not in html


def test_bullets_two_spaces_under_a_bullet_nest_at_every_level():
    html = _squeezed(_html("- a\n  - b\n    - c\n- d\n"))
    assert html == "<ul><li>a<ul><li>b<ul><li>c</li></ul></li></ul></li><li>d</li></ul>"


def test_a_numbered_list_three_spaces_under_a_numbered_item_is_nested_not_renumbered():
    text = "1. The turn player may:\n   1. call a stone;\n   2. attack.\n2. The opponent answers.\n"
    html = _squeezed(_html(text))
    assert html == (
        "<ol><li>The turn player may:<ol><li>call a stone;</li><li>attack.</li></ol></li>"
        "<li>The opponent answers.</li></ol>"
    )


def test_a_bullet_under_a_two_digit_item_nests_at_three_spaces_too():
    html = _squeezed(_html("10. Ten\n   - under ten\n"))
    assert html == '<ol start="10"><li>Ten<ul><li>under ten</li></ul></li></ol>'


def test_a_table_under_a_numbered_item_stays_in_it_and_the_numbering_goes_on():
    text = "1. The Domains:\n\n   | Domain | Colour |\n   | --- | --- |\n   | Life | green |\n\n"
    text += "2. Next rule.\n3. Last rule.\n"
    html = _squeezed(_html(text))
    assert html.count("<ol") == 1 and 'start="' not in html
    assert re.search(r"<li><p>The Domains:</p><table>.*</table></li>", html)


def test_a_second_paragraph_indented_to_the_item_text_stays_in_the_item():
    html = _squeezed(_html("- first\n\n  second paragraph\n\n- next\n"))
    assert html == ("<ul><li><p>first</p><p>second paragraph</p></li><li><p>next</p></li></ul>")


def test_lists_indented_by_four_spaces_render_as_before():
    text = "- a\n    - b\n        - c\n"
    assert nest_lists(text) == text
    assert "<li>b<ul>" in _squeezed(_html(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # indented code after a paragraph: code, not a list
        ("Intro\n\n    - code line\n    - more code\n", "<pre><code>- code line\n- more code"),
        # "- " lines inside a paragraph, not after a list item: the paragraph's text
        ("A paragraph:\n  - not a list\n", "<p>A paragraph:\n  - not a list</p>"),
        # fenced code keeps its indentation
        ("```\n- a\n  - b\n```\n", "<pre><code>- a\n  - b\n</code></pre>"),
        # a thematic break written with stars is not an item
        ("* * *\n\n  text\n", "<hr>\n<p>text</p>"),
        # code indented 4 past an item's text stays code inside the item
        ("1. x\n\n       code in item\n", "<li>x<pre><code>code in item"),
    ],
    ids=["indented-code", "paragraph", "fenced-code", "thematic-break", "code-in-item"],
)
def test_what_is_not_a_nested_list_does_not_become_one(text, expected):
    html = _html(text)
    assert expected in html
    assert html.count("<li>") == (1 if "code in item" in text else 0)


def test_text_without_list_items_is_given_to_markdown_unchanged():
    text = "Some text\n   indented by three\n\n    code\n"
    assert nest_lists(text) is text
