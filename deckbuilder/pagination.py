"""The API's pages: `{"count", "next", "previous", "results"}`, and `count_exact`.

Counts stop at cards.pagination.COUNT_CAP (1,000): above it, `count` is that cap and
`count_exact` is false, and `next` goes on to the end. A list of tens of thousands of cards is
then never counted row by row (docs/performance.md)."""

from rest_framework import pagination
from rest_framework.response import Response

from cards.pagination import CappedPaginator


class PageNumberPagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 100
    django_paginator_class = CappedPaginator

    def get_paginated_response(self, data):
        paginator = self.page.paginator
        return Response(
            {
                "count": paginator.cap if paginator.capped else paginator.count,
                "count_exact": not paginator.capped,
                "next": self.get_next_link(),
                "previous": self.get_previous_link(),
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema):
        schema = super().get_paginated_response_schema(schema)
        schema["properties"]["count"]["description"] = (
            "The number of results, at most 1,000: above, count_exact is false (follow next)."
        )
        schema["properties"]["count_exact"] = {"type": "boolean"}
        return schema
