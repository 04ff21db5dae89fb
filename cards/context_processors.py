from django.core.exceptions import DisallowedHost
from django.utils.functional import SimpleLazyObject

from .vocabulary import navigation_games


def navigation(request):
    """The games for the header navigation of every page (read only if a page shows it): no
    query when the page read the games' version with its game or deck (cards.vocabulary)."""
    games = SimpleLazyObject(lambda: navigation_games(getattr(request, "games_version", None)))
    return {
        "nav_games": games,
        # The games whose navigation links to their sets.
        "games_with_sets": SimpleLazyObject(lambda: {g.slug for g in games if g.has_sets}),
    }


def site_origin(request) -> str:
    """`scheme://host` of the request, or "" (addresses stay relative) when the Host header is
    not one of ALLOWED_HOSTS: the 400 page answers exactly those requests, with the site's
    layout, and asking for the host again there would raise DisallowedHost inside the error
    page (a 500 instead of the 400)."""
    try:
        return f"{request.scheme}://{request.get_host()}"
    except DisallowedHost:
        return ""


def page_urls(request):
    """The page's absolute address for og:url: `page_url` with its query, `canonical_url`
    without. Templates take them from here, never from request.build_absolute_uri or
    request.get_host, so that no page, error pages included, can raise DisallowedHost."""

    def page_url():
        try:
            return request.build_absolute_uri()
        except DisallowedHost:
            return request.get_full_path()

    return {
        "page_url": SimpleLazyObject(page_url),
        "canonical_url": SimpleLazyObject(lambda: site_origin(request) + request.path),
    }
