"""Errors: JSON `{"code", "detail"}` for the API, the site's pages elsewhere.

DRF's exception handler (EXCEPTION_HANDLER) covers errors inside API views; Django's error
views (handler400/403/404/500 in deckbuilder.urls) cover everything else: unknown URLs,
uncaught exceptions, refusals of deckbuilder.middleware. A database that does not answer is a
503 with Retry-After, never a 500.
"""

import sys
from collections import Counter

from django.db import InterfaceError, OperationalError
from django.db.models import ProtectedError, RestrictedError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.views import defaults
from rest_framework.exceptions import APIException
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.views import exception_handler as drf_exception_handler

API_PREFIX = "/api/"
RETRY_AFTER_SECONDS = 30  # when to try again after a 503


def is_api(request) -> bool:
    return request.path_info.startswith(API_PREFIX)


class InUse(APIException):
    status_code = 409
    default_code = "in_use"


def exception_handler(exc, context):
    """DRF's handler, plus a machine-readable `code` beside every top-level `detail`; a bare
    list of messages (a ValidationError raised outside a serializer) becomes one such error.
    Field errors (`{"field": ["message"]}`) stay as DRF gives them. Deleting what other rows
    protect (a card in decks) is a 409."""
    if isinstance(exc, (ProtectedError, RestrictedError)):
        users = exc.protected_objects if isinstance(exc, ProtectedError) else exc.restricted_objects
        counts = Counter(str(obj._meta.verbose_name_plural) for obj in users)
        listed = ", ".join(f"{kind}: {n}" for kind, n in sorted(counts.items()))
        exc = InUse(f"In use ({listed}): it cannot be deleted.")
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not an API exception: Django's handler500 below answers
    data = response.data
    if isinstance(data, list):
        code = getattr(data[0], "code", None) if data else None
        response.data = {
            "code": code or "invalid",
            "detail": " ".join(str(m) for m in data) or "Invalid input.",
        }
    elif isinstance(data, dict) and "detail" in data:
        data.setdefault("code", getattr(data["detail"], "code", None) or "error")
    # Errors are JSON whatever a success would be (the text export); only the browsable API,
    # which people read, shows them as its HTML page.
    request = context.get("request")
    if request is not None and not isinstance(
        getattr(request, "accepted_renderer", None), (JSONRenderer, BrowsableAPIRenderer)
    ):
        request.accepted_renderer, request.accepted_media_type = JSONRenderer(), "application/json"
    return response


def api_error(status: int, code: str, detail: str, headers=None) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail}, status=status, headers=headers)


def error_page(request, status: int, title: str, detail: str) -> HttpResponse:
    """An error the request caused, as the site's page (templates/400.html)."""
    return render(request, "400.html", {"title": title, "detail": detail}, status=status)


def refuse(request, status: int, code: str, title: str, detail: str) -> HttpResponse:
    """A refusal: JSON under /api/, the site's error page elsewhere."""
    if is_api(request):
        return api_error(status, code, detail)
    return error_page(request, status, title, detail)


# --- Django's error views (handler400 and friends) ---------------------------------------------


def bad_request(request, exception):
    if is_api(request):
        return api_error(400, "bad_request", "The request could not be understood.")
    return defaults.bad_request(request, exception)


def permission_denied(request, exception):
    if is_api(request):
        detail = str(exception) or "You do not have permission to perform this action."
        return api_error(403, "permission_denied", detail)
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception):
    if is_api(request):
        return api_error(404, "not_found", "Not found.")
    return defaults.page_not_found(request, exception)


def server_error(request):
    """500, or 503 with Retry-After when the database does not answer. Rendered without the
    request or the database: whatever broke may break again."""
    retry = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        if is_api(request):
            detail = "The database is not answering: try again in a moment."
            return api_error(503, "database_unavailable", detail, headers=retry)
        body = loader.get_template("503.html").render()
        return HttpResponse(body, status=503, headers=retry)
    if is_api(request):
        return api_error(500, "server_error", "A server error occurred. It has been logged.")
    return defaults.server_error(request)
