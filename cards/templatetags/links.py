"""Absolute addresses for what other sites read of a page (og:image).

    {% load links %}
    {% url 'deck-preview' deck.share_id deck.version as preview %}
    <meta property="og:image" content="{% absolute preview %}">
    {% shown_art card as art %}{% if art %}{{ art.url }} {{ art.width }}×{{ art.height }}{% endif %}

The origin is the request's, as og:url's (cards.context_processors.site_origin): relative when
the host is not one of ALLOWED_HOSTS, never an error. An address with a scheme (media on
another host) stays as it is (with the page's scheme when it has none).
"""

from urllib.parse import urlsplit

from django import template

from cards.art import shown
from cards.context_processors import site_origin

register = template.Library()


def absolute_url(request, url) -> str:
    url = str(url)
    parts = urlsplit(url)
    if request is None or parts.scheme:
        return url
    if parts.netloc:  # //media.example.com/…: the page's scheme
        return f"{request.scheme}:{url}"
    return site_origin(request) + url


@register.simple_tag(takes_context=True)
def absolute(context, url) -> str:
    return absolute_url(context.get("request"), url)


@register.simple_tag(takes_context=True)
def shown_art(context, owner) -> dict | None:
    """The largest rendition of the art a card's or leader's page shows (cards.art.shown), in
    its fallback format (JPEG or PNG, which every reader takes): its absolute `url`, `width`
    and `height`; None when it has no art."""
    art = shown(owner)
    if art is None or not art.renditions:
        return None
    return {
        "url": absolute_url(context.get("request"), art.largest_url()),
        "width": art.largest["width"],
        "height": art.largest["height"],
    }
