"""The API's card rows (`cards: [{"card", "count", "section"}]`): well-formed rows are taken in
plain Python (deckbuilder.api.CardCountList), anything else by DRF's serializer per row; either
way the answer is exactly DRF's."""

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from deckbuilder.api import CardCountList, CardCountSerializer


def fast(data):
    return CardCountSerializer(many=True, max_length=200, data=data)


def drf(data):  # the same field without the plain-Python path
    return serializers.ListSerializer(child=CardCountSerializer(), max_length=200, data=data)


def answers(make, data):
    with warnings.catch_warnings():  # DRF's list-shaped row errors: RemovedInDRF320Warning
        warnings.simplefilter("ignore")
        serializer = make(data)
        valid = serializer.is_valid()
    return valid, serializer.validated_data if valid else serializer.errors


def test_the_rows_field_takes_plain_rows():
    assert isinstance(fast([]), CardCountList)


GOOD = {"card": "healing", "count": 3}
BAD_ROWS = [  # each beside a good row, so that it alone decides
    {"card": "healing", "count": "3"},
    {"card": "healing", "count": True},
    {"card": "healing", "count": 2.0, "note": 1},
    {"card": "healing", "count": 0},
    {"card": "healing", "count": 100},
    {"card": "despair"},
    ["not", "a", "row"],
    {"card": " healing ", "count": 1},
    {"card": "healing\n", "count": 1},
    {"card": "x" * 121, "count": 1},
    {"card": "", "count": 1},
    {"card": "é", "count": 1},
    {"card": None, "count": 1},
    {"card": 12, "count": 1},
    {"count": 1},
    {"card": "healing", "count": 1, "section": None},
    {"card": "healing", "count": 1, "section": "y" * 41},
    {"card": "healing", "count": 1, "section": "main side"},
    {"card": "healing", "count": 1, "section": 3},
]
ODD = [
    [GOOD, {"card": "x" * 120, "count": 99, "section": "y" * 40, "note": "ignored"}],
    *([GOOD, bad] for bad in BAD_ROWS),
    [GOOD] * 201,
    [],
    "all of them",
    None,
    GOOD,
]


@pytest.mark.parametrize("data", ODD, ids=range(len(ODD)))
def test_odd_rows_get_the_same_answer_as_drf_gives(data):
    assert answers(fast, data) == answers(drf, data)


SLUGS = st.sampled_from(["healing", "a-b_9", "", " x", "é", "x" * 120, "x" * 121, "y" * 41])
ODD_VALUES = st.one_of(st.booleans(), st.none(), st.floats(), st.text(max_size=3), SLUGS)
ROW = st.fixed_dictionaries(
    {"card": SLUGS, "count": st.integers(min_value=0, max_value=100)},
    optional={"section": SLUGS, "note": ODD_VALUES},
)
ROWS = st.lists(
    st.one_of(ROW, ROW.map(lambda row: {**row, "count": row["count"] * 1.0}), ODD_VALUES),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(ROWS)
def test_any_rows_get_the_same_answer_as_drf_gives(data):
    assert answers(fast, data) == answers(drf, data)
