"""The builder's rows shorten card texts without Django's Truncator where it can: the same
text as `truncatechars` gives, whatever the text."""

from django.utils.text import Truncator
from hypothesis import example, given
from hypothesis import strategies as st

from deckbuilder.templatetags.decks import truncated


@given(st.text(max_size=400), st.integers(min_value=1, max_value=300))
@example("x" * 141, 140)
@example("x" * 140, 140)
@example("e\u0301" * 150, 140)
@example("ASCII text, then é" * 20, 140)
def test_truncated_text_is_what_truncatechars_gives(text, length):
    assert truncated(text, length) == Truncator(text).chars(length)
