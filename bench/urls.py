"""The site's URLs plus bench-only endpoints, served with DJANGO_SETTINGS_MODULE=bench.settings.

- `/bench/trivial/`: the baseline of bench/validate_rps.py, a plain Django JsonResponse through
  the same middleware as every page, with no database access.
- `/bench/trivial-drf/`: the same answer from a DRF APIView with the API's default renderers,
  parsers and authenticators (DRF's fixed cost; the like-for-like baseline of validate).
- `/bench/settings/`: the settings a worker really runs with (DEBUG, TESTING,
  RULES_CACHE_SECONDS), so that the benchmark can check them under gunicorn.
"""

from django.conf import settings
from django.http import JsonResponse
from django.urls import path
from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.views import APIView

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


urlpatterns = [
    path("bench/trivial/", trivial, name="bench-trivial"),
    path("bench/trivial-drf/", TrivialDRF.as_view(), name="bench-trivial-drf"),
    path("bench/settings/", bench_settings, name="bench-settings"),
    *site_urlpatterns,
]
