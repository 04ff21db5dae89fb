from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


@never_cache
@require_safe
def healthz(request):
    """200 when the site and its database answer, 503 otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any database failure means "not healthy", never a 500
        return JsonResponse(
            {"status": "error", "database": str(exc.__class__.__name__)}, status=503
        )
    return JsonResponse({"status": "ok", "database": "ok"})


def _todo(request, **kwargs):  # replaced by the deck pages
    return JsonResponse({"todo": True})


deck_list = my_decks = deck_new = deck_detail = deck_edit = deck_copy = deck_export = _todo
