"""The API's card rows (`cards: [{"card", "count", "section"}]`): well-formed rows are taken in
plain Python (deckbuilder.api.CardCountList), anything else by DRF's serializer per row; either
way the answer is exactly DRF's."""

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from cards import catalogue
from deckbuilder.api import CardCountList, CardCountSerializer, ValidateSerializer


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


# --- whole validate bodies ----------------------------------------------------------------


class DRFValidate(ValidateSerializer):
    """ValidateSerializer without its plain-Python path: every body through DRF's fields."""

    to_internal_value = serializers.Serializer.to_internal_value
    run_validators = serializers.Serializer.run_validators

    def get_fields(self):
        fields = super().get_fields()
        fields["cards"] = serializers.ListSerializer(child=CardCountSerializer(), max_length=200)
        return fields


def verdicts(make, data, rules):
    return answers(lambda d: make(data=d, context={"catalogue": rules}), data)


LEADERS = st.sampled_from(["kellantra", "gottfried", "nobody", "", " kellantra", "é", None, 3])
BODIES = st.fixed_dictionaries(
    {"cards": st.one_of(ROWS, st.lists(ROW, max_size=3), ODD_VALUES)},
    optional={
        "leader": LEADERS,
        "format": st.sampled_from(["standard", "nope", "", None, "x" * 41]),
        "name": ODD_VALUES,
    },
)


@pytest.mark.django_db
@settings(  # the game is read only: one for every input
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(BODIES, ODD_VALUES))
def test_any_validate_body_gets_the_same_answer_as_drf_gives(game, data):
    rules = catalogue.game_rules("card-of-gods")
    assert verdicts(ValidateSerializer, data, rules) == verdicts(DRFValidate, data, rules)


@pytest.mark.django_db
def test_a_well_formed_body_is_taken_without_drfs_fields(game):
    rules = catalogue.game_rules("card-of-gods")
    body = {"leader": "kellantra", "format": "standard", "cards": [GOOD]}
    serializer = ValidateSerializer(data=body, context={"catalogue": rules})
    assert serializer.is_valid(), serializer.errors
    assert "_fields" not in serializer.__dict__  # DRF builds them on first use (cached_property)
