"""The site's URLs plus bench-only endpoints, served with DJANGO_SETTINGS_MODULE=bench.settings.

- `/bench/trivial/`: the baseline of bench/validate_rps.py, a plain Django JsonResponse through
  the same middleware as every page, with no database access.
- `/bench/trivial-drf/`: the same answer from a DRF APIView with the API's default renderers,
  parsers and authenticators (DRF's fixed cost; the like-for-like baseline of validate).
- `/bench/settings/`: the settings a worker really runs with (DEBUG, TESTING,
  RULES_CACHE_SECONDS), so that the benchmark can check them under gunicorn.
- `/bench/proto/plain-rows/<game>/validate/`: a prototype of the product's validate (same view,
  same DRF stack and serializer) where the card rows are checked by plain Python when every
  row is already well-formed (a dict whose `card` is a slug of at most 120 characters and
  whose `count` is a JSON integer from 1 to MAX_COPIES, at most 200 rows): the common case.
  Any other `cards` value goes through DRF's per-row validation, as now, so every error
  answer is unchanged. Product-side, this would be `Meta.list_serializer_class` on
  deckbuilder.api.CardCountSerializer. Bench-only: it shows what the change would gain.
"""

import re

from django.conf import settings
from django.http import Http404, JsonResponse
from django.urls import path
from rest_framework import permissions, serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.response import Response
from rest_framework.views import APIView

from cards import catalogue
from deckbuilder import api, services
from deckbuilder.urls import urlpatterns as site_urlpatterns


def trivial(request):
    return JsonResponse({"ok": True})


class TrivialDRF(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request):
        return Response({"ok": True})


def bench_settings(request):
    return JsonResponse(
        {
            "DEBUG": settings.DEBUG,
            "TESTING": settings.TESTING,
            "RULES_CACHE_SECONDS": settings.RULES_CACHE_SECONDS,
        }
    )


# --- prototype: plain-Python card rows ------------------------------------------------------------

_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,120}")  # SlugField(max_length=120) and nothing to strip


class PlainCardCountList(serializers.ListSerializer):
    """CardCountSerializer(many=True), with well-formed rows checked without the child."""

    def to_internal_value(self, data):
        if (
            type(data) is list
            and (self.allow_empty or data)
            and (self.max_length is None or len(data) <= self.max_length)
            and (self.min_length is None or len(data) >= self.min_length)
        ):
            rows = []
            for row in data:
                if type(row) is not dict:
                    break
                card, count = row.get("card"), row.get("count")
                if "section" in row or type(card) is not str or not _SLUG.fullmatch(card):
                    break
                if type(count) is not int or not 1 <= count <= services.MAX_COPIES:
                    break
                rows.append({"card": card, "count": count})
            else:
                return rows
        return super().to_internal_value(data)  # DRF's per-row checks and error messages


class PlainCardCountSerializer(api.CardCountSerializer):
    class Meta:
        list_serializer_class = PlainCardCountList


class PlainRowsValidateSerializer(api.ValidateSerializer):
    cards = PlainCardCountSerializer(many=True, max_length=200)


@api_view(["POST"])
@permission_classes([permissions.AllowAny])
def validate_plain_rows(request, game):
    """deckbuilder.api.validate, line for line, with PlainRowsValidateSerializer."""
    rules = catalogue.game_rules(game)
    if rules is None:
        raise Http404
    serializer = PlainRowsValidateSerializer(data=request.data, context={"catalogue": rules})
    serializer.is_valid(raise_exception=True)
    return Response(api.verdict(serializer.validated_data, rules, request))


urlpatterns = [
    path("bench/trivial/", trivial, name="bench-trivial"),
    path("bench/trivial-drf/", TrivialDRF.as_view(), name="bench-trivial-drf"),
    path("bench/settings/", bench_settings, name="bench-settings"),
    path(
        "bench/proto/plain-rows/<slug:game>/validate/",
        validate_plain_rows,
        name="bench-validate-plain-rows",
    ),
    *site_urlpatterns,
]
