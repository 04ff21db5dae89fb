"""Reading pages in tests: the HTML, the text a visitor reads, meta tags and element ids."""

import re
from html import unescape

from django.utils.html import strip_tags


def html_of(response) -> str:
    return response.content.decode()


def text_of(response) -> str:
    """The page as a visitor reads it: tags removed, entities decoded, whitespace collapsed."""
    return re.sub(r"\s+", " ", unescape(strip_tags(html_of(response))))


def meta(response, attr, name):
    match = re.search(rf'<meta {attr}="{re.escape(name)}" content="([^"]*)"', html_of(response))
    return match and match.group(1)


def ids_in(response) -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', html_of(response)))
