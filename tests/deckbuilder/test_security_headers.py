"""The Content-Security-Policy: our own origin only, no inline code. And the pages it guards need
nothing more: no inline script, event handler, style attribute or <style> block, so a page
that adds one fails here (the browser tests then prove the pages work under the policy)."""

from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from cards.models import Card, Colour, Leader
from deckbuilder import services
from deckbuilder.models import Visibility

pytestmark = pytest.mark.django_db

POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:", "https:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}


def policy_of(response) -> dict[str, list[str]]:
    parts = (part.split() for part in response["Content-Security-Policy"].split(";"))
    return {name: values for name, *values in parts}


@pytest.mark.parametrize("url", ["/", "/games/card-of-gods/cards/", "/api/games/", "/healthz"])
def test_every_response_carries_the_policy(client, url):
    response = client.get(url)
    assert policy_of(response) == POLICY
    header = response["Content-Security-Policy"]
    assert "'unsafe-inline'" not in header and "'unsafe-eval'" not in header


class InlineCode(HTMLParser):
    """What the policy refuses in a page, or loads from another origin."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in_code_script = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            value = (value or "").strip()
            if name.startswith("on") or name.startswith("hx-on") or name == "style":
                self.found.append(f"<{tag} {name}=…>")
            elif value.lower().startswith(("javascript:", "js:")):
                self.found.append(f"<{tag} {name}={value[:40]}>")
        attrs = dict(attrs)
        if tag == "style":
            self.found.append("<style> block")
        elif tag == "script":
            kind = (attrs.get("type") or "text/javascript").lower()
            self._in_code_script = "javascript" in kind or kind == "module"
        url = attrs.get("src") if tag in ("script", "img") else None
        if tag == "link" and attrs.get("rel") in ("stylesheet", "icon"):
            url = attrs.get("href")
        if url and not url.startswith("data:") and urlsplit(url).netloc not in ("", "testserver"):
            self.found.append(f"<{tag}> from another origin: {url}")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_code_script = False

    def handle_data(self, data):
        if self._in_code_script and data.strip():  # JSON data scripts are not code: allowed
            self.found.append(f"inline script: {data.strip()[:60]}")


@pytest.fixture
def deck(alice, game):
    """A deck of alice's with cards (not legal yet, so unlisted), for its stats bars."""
    cards = {slug: Card.objects.get(game=game, slug=slug) for slug in ("plant-a-seed", "healing")}
    return services.deck_create(
        owner=alice,
        game=game,
        leader=Leader.objects.get(game=game, slug="kellantra"),
        name="Seeds",
        visibility=Visibility.UNLISTED,
        contents={(cards["plant-a-seed"], "main"): 3, (cards["healing"], "main"): 2},
    )


# page: (user signed in or None, its URL from the deck)
PAGES = {
    "home": (None, lambda deck: reverse("home")),
    "game": (None, lambda deck: reverse("game-detail", args=["card-of-gods"])),
    "cards": (None, lambda deck: reverse("card-list", args=["card-of-gods"])),
    "card": (None, lambda deck: reverse("card-detail", args=["card-of-gods", "blood-pact"])),
    "leaders": (None, lambda deck: reverse("leader-list", args=["card-of-gods"])),
    "leader": (None, lambda deck: reverse("leader-detail", args=["card-of-gods", "kellantra"])),
    "rules": (None, lambda deck: reverse("rule-index", args=["card-of-gods"])),
    "rules section": (None, lambda deck: reverse("rule-section", args=["card-of-gods", "1"])),
    "deck list": (None, lambda deck: reverse("deck-list")),
    "deck": (None, lambda deck: reverse("deck-detail", args=[deck.share_id])),
    "builder": ("alice", lambda deck: reverse("deck-edit", args=[deck.share_id])),
    "login": (None, lambda deck: reverse("login")),
    "api docs": (None, lambda deck: reverse("api-docs")),
    "browsable api": (None, lambda deck: "/api/games/card-of-gods/cards/?format=api"),
    "admin index": ("staff", lambda deck: reverse("admin:index")),
    "admin cards": ("staff", lambda deck: reverse("admin:cards_card_changelist")),
    "admin card import": ("staff", lambda deck: reverse("admin:cards_card_import")),
}
# Not ours: DRF's template floats its Filters button by a style attribute, which the browser
# ignores under the policy; static/css/browsable-api.css floats it instead.
PACKAGED = {"browsable api": ["<button style=…>"]}


@pytest.mark.usefixtures("plain_static_files", "sample_rules")
@pytest.mark.parametrize("page", PAGES)
def test_page_has_no_inline_code_and_loads_only_our_own_files(client, deck, page):
    username, url = PAGES[page]
    if username:
        client.force_login(User.objects.get(username=username))
    response = client.get(url(deck))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    parser = InlineCode()
    parser.feed(response.content.decode())
    assert parser.found == PACKAGED.get(page, []), f"{page} ({url(deck)}) has what the CSP refuses"


def test_the_inline_check_sees_what_the_policy_refuses():
    parser = InlineCode()
    parser.feed(
        '<script>alert(1)</script><script type="application/json">{"a": 1}</script>'
        '<p onclick="x()" style="color:red"><a href="javascript:x()">x</a></p><style>p{}</style>'
        '<script src="https://cdn.example.org/x.js"></script><script src="/static/x.js"></script>'
    )
    assert len(parser.found) == 6, parser.found


def test_api_docs_load_their_init_script_from_a_file(client):
    page = client.get(reverse("api-docs")).content.decode()
    assert f'<script src="{reverse("api-docs")}?script=">' in page
    script = client.get(reverse("api-docs"), {"script": ""})
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle(" in script.content


def test_colours_come_from_a_stylesheet_as_classes(client, game):
    green = Colour.objects.get(game=game, slug="green")
    response = client.get(reverse("colours-css"))
    assert response["Content-Type"].startswith("text/css")
    assert f".colour-{green.pk} {{ --c: {green.css}; }}" in response.content.decode()
    assert (
        f"colour-{green.pk}"
        in client.get(reverse("leader-list", args=[game.slug])).content.decode()
    )


def test_a_colour_value_cannot_write_other_css_rules(client, game):
    green = Colour.objects.get(game=game, slug="green")
    green.css = "red;}*{margin:9em"  # fits the field (20 characters)
    green.save()
    css = client.get(reverse("colours-css")).content.decode()
    assert f".colour-{green.pk} " not in css and "margin" not in css
