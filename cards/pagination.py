"""Pages of lists that may hold tens of thousands of rows, counted without reading them all.

`CappedPaginator` counts at most `cap` + 1 rows (COUNT over a LIMIT). Up to `cap` it is Django's
Paginator. Above, it knows only that there are more than `cap` (`capped`): the count shows as
"1,000+", pages have numbers but no last one ("Page 3 of many"), and each page reads one row
more than it shows to know whether a next one exists. A page past the end gives the first page.

Rows that cost to test (`costly_to_count`: a word search) are not counted when the planner
expects more than `ESTIMATE_MARGIN` times the cap: reaching the cap would test ~8,000 rows,
~10 ms at 50,000 cards. On PostgreSQL the database function `capped_count` (migration 0014)
asks the planner and counts only if needed, in the one statement the count always took. Should
the estimate be that far off, the list shows "1,000+" where it could have said how many; it
pages the same. A word search counted to `FEW` matches or fewer reads its page through the
search index and sorts it (`sorted_apart`).

Other querysets read a page and its count in one statement (`counted_page`): the capped count
is a subquery of the page's query, which the database runs once. A page past the end, or an
empty list, takes the two statements.
"""

from django.core.exceptions import EmptyResultSet
from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.db import connection
from django.db.models import F
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.utils.functional import cached_property

COUNT_CAP = 1000
ESTIMATE_MARGIN = 2
FEW = 500  # matches of a word search sorted apart (sorted_apart)


def _up_to(rows, cap: int):
    """The ids of up to `cap` + 1 rows, unordered: what a capped count counts."""
    return rows.order_by().values("pk")[: cap + 1]


def capped_count(rows, cap: int) -> int:
    """How many rows the queryset gives, up to `cap` + 1; see above for costly rows."""
    if not (getattr(rows, "costly_to_count", False) and connection.vendor == "postgresql"):
        return _up_to(rows, cap).count()
    rows = rows.order_by().values("pk")
    sql, params = rows.query.sql_with_params()
    query = connection.ops.compose_sql(sql, params)  # its values quoted as literals
    with connection.cursor() as cursor:
        cursor.execute("SELECT capped_count(%s, %s, %s)", [query, cap, ESTIMATE_MARGIN * cap])
        return cursor.fetchone()[0]


def sorted_apart(rows):
    """`rows` (a word search found to have few matches) ordered by expressions no index
    serves, so that PostgreSQL reads the matches from the search index and sorts them. Ordered
    by plain columns, it walks that column's index instead, testing each row until the page is
    full: for 366 matches in 50,000 cards, ~3,000 rows, 7–10 ms, against 1–2 ms. The order is
    the same: COALESCE(x, x) is x."""
    if connection.vendor != "postgresql":
        return rows
    query = rows.query
    ordering = query.order_by or (rows.model._meta.ordering if query.default_ordering else ())
    terms = []
    for term in ordering:
        if isinstance(term, str) and term.lstrip("-") != "?":
            column = Coalesce(F(term.lstrip("-")), F(term.lstrip("-")))
            term = column.desc() if term.startswith("-") else column.asc()
        terms.append(term)
    return rows.order_by(*terms)


class OpenPage(Page):
    """A page of a capped paginator: whether a next page exists is what it read, not a count."""

    def __init__(self, object_list, number, paginator, *, more: bool):
        super().__init__(object_list, number, paginator)
        self.more = more

    def has_next(self) -> bool:
        return self.more

    def end_index(self) -> int:
        return self.start_index() + len(self.object_list) - 1


class CappedPaginator(Paginator):
    def __init__(self, object_list, per_page, *, cap: int | None = None, **kwargs):
        super().__init__(object_list, per_page, **kwargs)
        self.cap = COUNT_CAP if cap is None else cap

    @cached_property
    def count(self) -> int:
        """The number of rows, or `cap` + 1 when there are more than `cap` (a list: its
        length, which costs nothing)."""
        rows = self.object_list
        if not hasattr(rows, "values"):
            return len(rows)
        return capped_count(rows, self.cap)

    @property
    def capped(self) -> bool:
        """More rows than the count went up to: the pages have no known end."""
        return hasattr(self.object_list, "values") and self.count > self.cap

    @property
    def count_label(self) -> str:
        """The count as pages show it: "24", or "1,000+" above the cap."""
        return f"{self.cap:,}+" if self.capped else str(self.count)

    def counted_page(self, number) -> Page | None:
        """Page `number` (None: the first) and the count in one statement, when the rows are a
        queryset whose count does not decide their order (not a costly word search); None when
        it cannot tell (a page past the end, an empty list, not a page number): `page` then
        counts first."""
        rows = self.object_list
        if "count" in self.__dict__ or not hasattr(rows, "annotate"):
            return None
        if getattr(rows, "costly_to_count", False):
            return None
        if number in (None, ""):
            number = 1
        elif isinstance(number, str) and number.isdigit():
            number = int(number)
        if not isinstance(number, int) or not 1 <= number <= self.cap // self.per_page + 1:
            return None  # not a page number, or past the rows a count reaches: counted apart
        try:
            counted, params = _up_to(rows, self.cap).query.sql_with_params()
        except EmptyResultSet:  # a queryset that can match nothing: no statement needed
            return None
        total = RawSQL(f"SELECT COUNT(*) FROM ({counted}) AS counted", params)  # noqa: S611
        bottom = (number - 1) * self.per_page
        found = list(rows.annotate(capped_total=total)[bottom : bottom + self.per_page + 1])
        if not found:
            return None
        self.count = found[0].capped_total
        if self.capped:
            return OpenPage(found[: self.per_page], number, self, more=len(found) > self.per_page)
        return Page(found[: self.per_page], number, self)

    def validate_number(self, number) -> int:
        if not self.capped:
            return super().validate_number(number)
        try:
            if isinstance(number, float) and not number.is_integer():
                raise ValueError
            number = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger("That page number is not an integer") from None
        if number < 1:
            raise EmptyPage("That page number is less than 1")
        return number

    def page(self, number) -> Page:
        found = self.counted_page(number)
        if found is not None:
            return found
        if not self.capped:
            if getattr(self.object_list, "costly_to_count", False) and self.count <= FEW:
                self.object_list = sorted_apart(self.object_list)
            return super().page(number)
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        rows = list(self.object_list[bottom : bottom + self.per_page + 1])
        if not rows and number > 1:
            raise EmptyPage("That page contains no results")
        return OpenPage(rows[: self.per_page], number, self, more=len(rows) > self.per_page)

    def get_page(self, number) -> Page:
        found = self.counted_page(number)
        if found is not None:
            return found
        if not self.capped:
            return super().get_page(number)
        try:
            return self.page(number)
        except (PageNotAnInteger, EmptyPage):
            return self.page(1)


def paginate(request, items, per_page: int, *, cap: int | None = None) -> Page:
    """The page `?page=` asks for, with `elided_range`: the page numbers to link (none when the
    count is capped: the template links the previous and next pages only)."""
    paginator = CappedPaginator(items, per_page, cap=cap)
    page = paginator.get_page(request.GET.get("page"))
    page.elided_range = (
        []
        if paginator.capped
        else list(paginator.get_elided_page_range(page.number, on_each_side=2))
    )
    return page
