from django.utils.functional import SimpleLazyObject

from .models import Game


def navigation(request):
    """The games for the header navigation of every page (queried only if a page shows it)."""
    return {"nav_games": SimpleLazyObject(lambda: list(Game.objects.only("slug", "name")))}
