from django.utils.functional import SimpleLazyObject

from .vocabulary import navigation_games


def navigation(request):
    """The games for the header navigation of every page (read only if a page shows it): no
    query when the page read the games' version with its game or deck (cards.vocabulary)."""
    return {
        "nav_games": SimpleLazyObject(
            lambda: navigation_games(getattr(request, "games_version", None))
        )
    }
