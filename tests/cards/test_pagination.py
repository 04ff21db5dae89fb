"""Counts that do not scan: cards.pagination's CappedPaginator, and the pages that use it."""

import re

import pytest
from django.db import connection
from django.test import RequestFactory
from django.urls import reverse

from cards import pagination, services, vocabulary
from cards.models import Card
from cards.pagination import CappedPaginator, paginate
from tests.html import text_of

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"


def bulk(game, count, prefix="Bulk"):
    rarity = game.rarities.get(slug="common")
    services.save_cards(
        game=game,
        writes=[
            services.CardWrite({"name": f"{prefix} {i:03d}", "rarity": rarity, "cost": {}}, [])
            for i in range(count)
        ],
    )


def test_up_to_the_cap_the_count_and_pages_are_exact(game):
    cards = Card.objects.filter(game=game).order_by("name")  # 9 cards
    paginator = CappedPaginator(cards, 4, cap=9)
    assert (paginator.count, paginator.capped, paginator.count_label) == (9, False, "9")
    assert paginator.num_pages == 3
    assert paginator.get_page(99).number == 3  # out of range: the last page, as Django's


def test_above_the_cap_the_count_stops_at_cap_plus_one_and_says_so(game, django_assert_num_queries):
    cards = Card.objects.filter(game=game).order_by("name")
    paginator = CappedPaginator(cards, 4, cap=5)
    with django_assert_num_queries(1):
        assert paginator.count == 6  # COUNT over LIMIT 6: no more rows read
    assert paginator.capped and paginator.count_label == "5+"


def test_pages_above_the_cap_know_their_next_page_from_one_extra_row(
    game, django_assert_num_queries
):
    names = list(Card.objects.filter(game=game).order_by("name").values_list("name", flat=True))
    paginator = CappedPaginator(Card.objects.filter(game=game).order_by("name"), 4, cap=5)
    assert paginator.capped
    with django_assert_num_queries(1):  # the page, one row more than it shows
        first = paginator.get_page(1)
        assert [c.name for c in first] == names[:4]
    assert first.has_next() and not first.has_previous()
    assert (first.start_index(), first.end_index()) == (1, 4)
    last = paginator.get_page(3)
    assert [c.name for c in last] == names[8:]
    assert not last.has_next() and last.has_previous()
    assert (last.start_index(), last.end_index()) == (9, 9)
    assert last.previous_page_number() == 2
    for beyond in (4, 500, "x", 0, -1):  # no last page to fall back to: the first
        assert paginator.get_page(beyond).number == 1


@pytest.mark.parametrize(("per_page", "cap"), [(4, 9), (4, 20), (4, 5), (2, 3), (20, 1000)])
def test_a_page_read_with_its_count_is_the_page_counted_apart(
    game, per_page, cap, django_assert_num_queries
):
    """Every page of a queryset, read in one statement with its capped count, is the page
    and count the two statements give (the count and the page, Django's way)."""
    cards = Card.objects.filter(game=game).order_by("name")  # 9 cards
    separate = CappedPaginator(cards, per_page, cap=cap)
    assert separate.count  # counted first: its pages are read apart
    for number in range(1, separate.num_pages + 1):
        with django_assert_num_queries(1):
            page = CappedPaginator(cards, per_page, cap=cap).get_page(number)
            list(page)
        expected = separate.get_page(number)
        shown = ([c.pk for c in page], page.paginator.count, page.has_next(), page.end_index())
        assert shown == (
            [c.pk for c in expected],
            separate.count,
            expected.has_next(),
            expected.end_index(),
        )
    assert CappedPaginator(cards, per_page, cap=cap).get_page(None).number == 1


def test_a_page_past_the_end_or_of_nothing_is_counted_apart(game, django_assert_num_queries):
    cards = Card.objects.filter(game=game).order_by("name")  # 9 cards: 3 pages of 4
    for past in (4, 7):  # nothing there (or past the rows a count reaches): the count, the last
        with django_assert_num_queries(2 if past == 7 else 3):
            page = CappedPaginator(cards, 4, cap=20).get_page(past)
            assert (page.number, len(list(page))) == (3, 1)
    with django_assert_num_queries(2):
        page = CappedPaginator(cards.none() | cards.filter(name="?"), 4, cap=20).get_page(1)
        assert (list(page), page.paginator.count) == ([], 0)
    separate = CappedPaginator(cards, 4, cap=20)
    assert separate.count  # counted first: Django's answers
    for not_a_page in ("x", 0, -1, 2.5):
        page = CappedPaginator(cards, 4, cap=20).get_page(not_a_page)
        assert page.number == separate.get_page(not_a_page).number


def searched(game, text="bulk"):
    return Card.objects.filter(game=game).search(text).order_by("name")


def on_postgresql() -> bool:
    return connection.vendor == "postgresql"


@pytest.mark.parametrize(("margin", "postgresql_count"), [(0, 10), (10**9, 7)])
def test_a_search_is_counted_only_when_the_planner_does_not_expect_far_more_than_the_cap(
    game, monkeypatch, django_assert_num_queries, margin, postgresql_count
):
    """Margin 0: any estimate is far enough above the cap to trust, so 7 matches show as "9+"
    (PostgreSQL; SQLite always counts). A huge margin: counted, 7."""
    bulk(game, 7)
    monkeypatch.setattr(pagination, "ESTIMATE_MARGIN", margin)
    with django_assert_num_queries(1) as captured:  # the planner and the count: one statement
        count = CappedPaginator(searched(game), 4, cap=9).count
    assert count == (postgresql_count if on_postgresql() else 7)
    assert ("capped_count(" in captured.captured_queries[0]["sql"]) == on_postgresql()


def test_lists_without_a_word_search_are_counted_without_asking_the_planner(
    game, monkeypatch, django_assert_num_queries
):
    monkeypatch.setattr(pagination, "ESTIMATE_MARGIN", 0)
    listed = Card.objects.filter(game=game).for_listing(vocabulary.of(game)).filter(colour_count=1)
    with django_assert_num_queries(1) as captured:
        assert CappedPaginator(listed.order_by("name"), 4, cap=2).count == 3
    assert "capped_count(" not in captured.captured_queries[0]["sql"]


@pytest.mark.parametrize("sort", [(), ("-total_cost", "name"), ("-rarity__position", "name")])
def test_few_search_matches_are_sorted_apart_from_the_indexes_in_the_same_order(
    game, monkeypatch, sort, django_assert_num_queries
):
    """A word search with few matches orders its page by expressions no index serves, so
    PostgreSQL reads the matches and sorts them instead of walking an index; the order is the
    one asked. Above `FEW`, or without a word search, the plain order."""
    bulk(game, 12)
    rows = searched(game).order_by(*sort) if sort else searched(game)
    expected = [c.name for c in rows]
    # On PostgreSQL a word search is counted first (its count decides its order); elsewhere,
    # and without a word search, the page and its count are one statement.
    statements = 2 if on_postgresql() else 1
    for few, sorted_apart in ((12, on_postgresql()), (11, False)):
        monkeypatch.setattr(pagination, "FEW", few)
        with django_assert_num_queries(statements) as captured:
            page = CappedPaginator(rows.all(), 5, cap=20).get_page(2)
            assert [c.name for c in page] == expected[5:10]
        assert ("COALESCE" in captured.captured_queries[-1]["sql"]) == sorted_apart
    plain = Card.objects.filter(game=game, name__startswith="Bulk").order_by(*sort or ["name"])
    with django_assert_num_queries(1) as captured:
        assert len(list(CappedPaginator(plain, 5, cap=20).get_page(2))) == 5
    assert "COALESCE" not in captured.captured_queries[0]["sql"]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("SELECT 1 FROM generate_series(1, 100000)", 6),  # expected far above 10: not read
        ("SELECT 1 FROM generate_series(1, 7)", 6),  # expected under: counted, capped
        ("SELECT 1 FROM generate_series(1, 3)", 3),
        # none match, but the planner expects a third of 100,000: trusted, not read
        ("SELECT 1 FROM generate_series(1, 100000) WHERE random() < 0", 6),
    ],
)
def test_the_database_function_trusts_the_planner_above_its_threshold(query, found):
    if not on_postgresql():
        pytest.skip("capped_count is a PostgreSQL function (migration 0014)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT capped_count(%s, 5, 10)", [query])
        assert cursor.fetchone()[0] == found


def test_a_list_is_counted_by_its_length_and_never_capped():
    paginator = CappedPaginator(list(range(50)), 10, cap=5)
    assert (paginator.count, paginator.capped, paginator.num_pages) == (50, False, 5)


def test_paginate_links_page_numbers_only_for_an_exact_count(game):
    request = RequestFactory().get("/", {"page": "2"})
    exact = paginate(request, Card.objects.filter(game=game).order_by("name"), 4, cap=100)
    assert exact.elided_range == [1, 2, 3]
    capped = paginate(request, Card.objects.filter(game=game).order_by("name"), 4, cap=5)
    assert capped.number == 2 and capped.elided_range == []


def test_card_browser_above_the_cap_shows_the_cap_and_previous_next_links(
    client, game, monkeypatch
):
    monkeypatch.setattr(pagination, "COUNT_CAP", 20)
    bulk(game, 40)  # 49 cards, 24 a page: pages 1, 2 and 3
    url = reverse("card-list", kwargs={"game": GAME})
    first = client.get(url)
    text = text_of(first)
    assert "20+ cards, 1–24 shown" in text
    assert "Page 1 of many" in text
    html = first.content.decode()
    assert re.search(r'href="\?page=2" rel="next"', html)
    assert 'rel="prev"' not in html and "« First" not in text
    last = client.get(url + "?page=3")
    html, text = last.content.decode(), text_of(last)
    assert "20+ cards, 49–49 shown" in text and "Page 3 of many" in text
    assert re.search(r'href="\?page=2" rel="prev"', html) and 'rel="next"' not in html
    assert re.search(r'href="\?page=1">« First', html)
    assert len(last.context["cards"]) == 1
    assert client.get(url + "?page=9").context["page"].number == 1


def test_card_browser_below_the_cap_keeps_the_exact_count_and_numbered_pages(client, game):
    bulk(game, 40)
    text = text_of(client.get(reverse("card-list", kwargs={"game": GAME})))
    assert "49 cards, 1–24 shown" in text
    assert "of many" not in text


def test_leader_page_above_the_cap_says_how_many_at_least(client, game, monkeypatch):
    monkeypatch.setattr(pagination, "COUNT_CAP", 10)
    bulk(game, 30)  # colourless: every leader may use them
    response = client.get(reverse("leader-detail", kwargs={"game": GAME, "slug": "kellantra"}))
    text = text_of(response)
    assert "10+ god cards Kellantra may use" in text
    assert "Page 1 of many" in text
