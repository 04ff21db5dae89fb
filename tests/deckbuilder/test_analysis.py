"""Deck analysis without a database: the cost curve and the sample hand's draw."""

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from deckbuilder import analysis


def entry(cost: int, count: int):
    return SimpleNamespace(card=SimpleNamespace(total_cost=cost), count=count)


def test_cost_curve_counts_copies_per_total_cost_and_gathers_seven_and_up():
    curve = analysis.cost_curve([entry(0, 2), entry(2, 3), entry(7, 1), entry(9, 1)])
    assert [(row["item"], row["value"]) for row in curve] == [
        ("0", 2),
        ("1", 0),
        ("2", 3),
        ("3", 0),
        ("4", 0),
        ("5", 0),
        ("6", 0),
        ("7+", 2),
    ]
    assert curve[2]["pct"] == 100 and curve[0]["pct"] == 67


def test_cost_curve_ends_at_the_highest_cost_held():
    curve = analysis.cost_curve([entry(1, 2), entry(3, 1)])
    assert [row["item"] for row in curve] == ["0", "1", "2", "3"]


def test_cost_curve_of_an_empty_deck_has_no_rows():
    assert analysis.cost_curve([]) == []


PILE = [("a", 3), ("b", 2), ("c", 1), ("d", 4)]


def test_the_same_seed_draws_the_same_hand():
    first, left = analysis.sample_hand(PILE, size=5, seed=42)
    again, _ = analysis.sample_hand(PILE, size=5, seed=42)
    assert first == again and len(first) == 5 and left == 10


def test_another_seed_draws_another_hand_sometimes():
    hands = {tuple(analysis.sample_hand(PILE, size=5, seed=s)[0]) for s in range(1, 30)}
    assert len(hands) > 10


@given(seed=st.integers(1, 2**31 - 1), size=st.integers(1, 12), extra=st.integers(0, 12))
def test_drawing_more_keeps_the_hand_and_never_draws_more_copies_than_the_deck_has(
    seed, size, extra
):
    hand, _ = analysis.sample_hand(PILE, size=size, seed=seed)
    more, _ = analysis.sample_hand(PILE, size=size, seed=seed, extra=extra)
    assert more[: len(hand)] == hand
    assert len(more) == min(size + extra, 10)
    for card, count in PILE:
        assert more.count(card) <= count


def test_a_hand_from_an_empty_pile_is_empty():
    assert analysis.sample_hand([], size=5, seed=1) == ([], 0)
