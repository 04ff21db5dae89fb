"""Reading pages in tests: the HTML, the text a visitor reads, meta tags and element ids."""

import re
from html import unescape
from html.parser import HTMLParser

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


class _Element(HTMLParser):
    """Finds the element with one id and keeps its outer HTML (void elements handled)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}

    def __init__(self, wanted: str):
        super().__init__(convert_charrefs=False)
        self.wanted, self.depth, self.parts = wanted, 0, []

    def handle_starttag(self, tag, attrs):
        if self.depth or dict(attrs).get("id") == self.wanted:
            self.parts.append(self.get_starttag_text())
            if tag not in self.VOID:
                self.depth += 1
            elif not self.depth:
                self.depth = -1  # a lone void element: done

    def handle_startendtag(self, tag, attrs):
        if self.depth > 0 or dict(attrs).get("id") == self.wanted:
            self.parts.append(self.get_starttag_text())
            self.depth = self.depth or -1

    def handle_endtag(self, tag):
        if self.depth > 0:
            self.parts.append(f"</{tag}>")
            self.depth -= 1
            if not self.depth:
                self.depth = -1

    def handle_data(self, data):
        if self.depth > 0:
            self.parts.append(data)

    def handle_entityref(self, name):
        self.handle_data(f"&{name};")

    def handle_charref(self, name):
        self.handle_data(f"&#{name};")


def element(response, element_id: str) -> str:
    """The outer HTML of the element with `element_id` ("" when the page has none)."""
    parser = _Element(element_id)
    parser.feed(html_of(response))
    return "".join(parser.parts)


def text_in(response, element_id: str, sep: str = " ") -> str:
    """What a visitor reads inside one element: tags become `sep`, whitespace collapses."""
    text = unescape(re.sub(r"<[^>]*>", sep, element(response, element_id)))
    return re.sub(r"\s+", " ", text).strip()
