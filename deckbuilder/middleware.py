"""Requests refused before any view or the database sees them; answers kept private."""

from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http.request import RawPostDataException, UnreadablePostError
from django.utils.cache import patch_cache_control

from .api_errors import is_api, refuse

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def _content_length(request) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0  # as Django reads it: no body


def _has_nul(request) -> bool:
    """A NUL character in the path, the query or a form field: PostgreSQL can neither store
    nor compare one (a 500), and no name, slug or text of this site holds one."""
    if "\x00" in request.path_info:
        return True
    if b"\x00" in unquote_to_bytes(request.META.get("QUERY_STRING", "")):
        return True
    # Forms are the pages' (the API reads JSON only, and refuses forms unread: 415).
    if request.method == "POST" and request.content_type in FORMS and not is_api(request):
        try:
            fields = request.POST.lists()
        except (RawPostDataException, UnreadablePostError):
            return False  # the view will find out
        return any("\x00" in key or any("\x00" in v for v in values) for key, values in fields)
    return False


class RequestGuardMiddleware:
    """413 for a body over DATA_UPLOAD_MAX_MEMORY_SIZE, by its Content-Length: DRF reads JSON
    from the stream, past Django's own check of that limit. (A multipart body is left to
    Django, which counts its fields but not its files: admin uploads may be larger.)
    400 for a NUL character in the path, query or form fields.
    JSON `{"code", "detail"}` under /api/, the site's error page elsewhere."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            if limit is not None and request.content_type != "multipart/form-data":
                if _content_length(request) > limit:
                    raise RequestDataTooBig
            if _has_nul(request):
                detail = "NUL characters (%00) are not allowed in the address or in form fields."
                return refuse(request, 400, "invalid_characters", "Bad request", detail)
        except RequestDataTooBig:  # ours, or Django's for a multipart body's fields
            detail = f"The request body is larger than {limit:,} bytes."
            return refuse(request, 413, "request_too_large", "Request too large", detail)
        return self.get_response(request)


class PrivateAnswerMiddleware:
    """`Cache-Control: private` on every answer to a signed-in reader (a session or an API
    token): it may hold what only they may see (My decks, a private deck, its export), so no
    shared cache or proxy may keep it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "HTTP_AUTHORIZATION" in request.META or request.user.is_authenticated:
            patch_cache_control(response, private=True)
        return response
