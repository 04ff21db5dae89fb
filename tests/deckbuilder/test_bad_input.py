"""No input gives a 500, and every API error is JSON `{"code", "detail"}`: nested JSON, NUL
characters, `%` in filters, large bodies, server errors and a database that is down."""

import json

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.db import OperationalError, connection
from django.http import Http404
from django.test import Client
from django.utils.module_loading import import_string
from rest_framework import serializers

from cards.text import MAX_DEPTH
from deckbuilder import api_errors
from deckbuilder.api_errors import exception_handler
from deckbuilder.models import Deck
from tests.conftest import api_client
from tests.deckbuilder.test_api import make_deck
from tests.html import meta

pytestmark = pytest.mark.django_db

VALIDATE = "/api/games/card-of-gods/validate/"
CARDS = "/api/games/card-of-gods/cards/"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def no_raise(client):
    """The client answers as the server would, instead of raising the view's exception."""
    client.raise_request_exception = False
    return client


def error(response, status: int, code: str | None = None) -> dict:
    """The JSON error of `response`, which must have `status` (and `code`, if given)."""
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json", response.content[:300]
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    if code is not None:
        assert body["code"] == code, body
    return body


def page(response, status: int) -> str:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("text/html")
    return response.content.decode()


# --- JSON bodies ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, user",
    [(VALIDATE, None), ("/api/decks/", "alice"), (CARDS, "staff"), ("/api/auth/token/", None)],
)
def test_json_nested_a_thousand_levels_is_a_400_everywhere(url, user, django_user_model):
    client = api_client(user and django_user_model.objects.get(username=user))
    response = no_raise(client).post(url, nested(1000), content_type="application/json")
    assert "nested deeper" in error(response, 400, "parse_error")["detail"]


def test_json_is_refused_past_the_depth_limit_and_taken_below_it(api):
    post = api.post
    assert post(VALIDATE, nested(MAX_DEPTH + 1), content_type="application/json").status_code == 400
    # As deep as allowed: parsed, then refused by the serializer as the wrong shape.
    response = post(VALIDATE, nested(MAX_DEPTH), content_type="application/json")
    assert response.status_code == 400 and "code" not in response.json()


@pytest.mark.parametrize("bad, words", [("\x00", "NUL"), ("\ud800", "surrogate")])
def test_json_strings_with_nul_or_lone_surrogates_are_refused(api, bad, words):
    for body in ({"leader": f"richard{bad}", "cards": []}, {f"lead{bad}er": None, "cards": []}):
        raw = json.dumps(body)  # escaped: \u0000, \ud800
        response = api.post(VALIDATE, raw, content_type="application/json")
        assert words in error(response, 400, "parse_error")["detail"]


@pytest.mark.parametrize(
    "content_type, body",
    [("application/x-www-form-urlencoded", "leader=richard"), ("multipart/form-data", "x")],
)
def test_api_bodies_are_json_only(api, content_type, body):
    response = api.post(VALIDATE, body, content_type=content_type)
    error(response, 415, "unsupported_media_type")


# --- NUL and % in the address and in forms -------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/api/decks/public/?card=%00",
        "/api/decks/public/?game=x%00y",
        "/api/games/%00/",
        "/api/games/card-of-gods/cards/?q=%00",
        "/api/decks/public/?%00=1",
    ],
)
def test_a_nul_in_an_api_address_is_a_json_400(api, url):
    assert "NUL" in error(api.get(url), 400, "invalid_characters")["detail"]


@pytest.mark.parametrize("url", ["/decks/%00/", "/decks/?card=%00", "/games/%00/"])
def test_a_nul_in_a_page_address_is_the_400_page(client, url):
    assert "NUL characters" in page(client.get(url), 400)


def test_a_nul_in_a_form_field_is_the_400_page(client, alice):
    client.force_login(alice)
    response = client.post("/decks/import/", {"game": "card-of-gods\x00", "text": "1 Healing"})
    assert "NUL characters" in page(response, 400)


@pytest.mark.parametrize("name", ["keyword", "faction", "leader"])
@pytest.mark.parametrize("value", ["%", "%s", "50%", "%(x)s"])
def test_a_percent_in_a_card_filter_is_a_field_error_not_a_500(api, client, name, value):
    response = no_raise(api).get(CARDS, {name: value})
    assert response.status_code == 400, response.content[:300]
    assert value in response.json()[name][0]
    response = no_raise(client).get("/games/card-of-gods/cards/", {name: value})
    assert value in page(response, 400)


LISTS = {  # a list, API and page, with every query parameter it reads
    "/api/games/force-of-will/cards/": "q colour type rarity faction keyword leader in_format "
    "cost_min cost_max atk_min atk_max sort page page_size",
    "/games/force-of-will/cards/": "q colour type rarity faction keyword leader in_format "
    "cost_min cost_max atk_min atk_max sort page",
    "/api/decks/public/": "game in_format leader card page page_size",
    "/decks/": "game in_format leader card page",
    "/api/games/force-of-will/rules/search/": "q page",
    "/games/force-of-will/rules/search/": "q",
}


@pytest.mark.parametrize("url, names", LISTS.items())
@pytest.mark.parametrize("value", ["%", "%(x)s%s", "%_\\", "\x00", "a\x00b"])
def test_percent_and_nul_in_any_query_parameter_is_a_400_or_a_result(client, url, names, value):
    client = no_raise(client)
    for name in names.split():
        response = client.get(url, {name: value})
        assert response.status_code in (200, 400, 404), (name, response.content[:300])


def test_a_stat_bound_too_large_for_the_database_is_a_field_error(api):
    response = no_raise(api).get("/api/games/force-of-will/cards/", {"atk_min": 10**30})
    assert response.status_code == 400 and "atk_min" in response.json()


# --- writes the database refuses -----------------------------------------------------------------


@pytest.mark.parametrize("what", ["leaders/gottfried", "cards/despair"])
def test_deleting_a_card_or_leader_in_decks_is_a_409(staff_api, alice, what):
    make_deck(alice)
    response = staff_api.delete(f"/api/games/card-of-gods/{what}/")
    assert "cannot be deleted" in error(response, 409, "in_use")["detail"]
    assert staff_api.get(f"/api/games/card-of-gods/{what}/").status_code == 200


# --- sizes ---------------------------------------------------------------------------------------


def test_a_body_over_the_upload_limit_is_a_json_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"leader": None, "cards": [], "padding": "x" * 1000})
    response = api.post(VALIDATE, body, content_type="application/json")
    assert "1,000 bytes" in error(response, 413, "request_too_large")["detail"]
    # Up to the limit, the body is read as usual.
    body = json.dumps({"leader": None, "cards": [], "padding": "x" * 900})
    assert api.post(VALIDATE, body, content_type="application/json").status_code == 200


def test_a_form_over_the_upload_limit_is_the_413_page(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client.post("/accounts/login/", {"username": "x" * 2000, "password": "y"})
    assert "Request too large" in page(response, 413)


# --- errors outside DRF --------------------------------------------------------------------------


def test_an_unknown_api_address_is_a_json_404_and_a_page_404_elsewhere(api, client):
    error(api.get("/api/no-such-thing/"), 404, "not_found")
    error(api.get("/api/games/card-of-gods/cards/no/such/"), 404, "not_found")
    assert "Page not found" in page(client.get("/no-such-page/"), 404)


def test_errors_of_the_text_export_are_json(api):
    error(api.get("/api/decks/no-such-deck-0000/export/"), 404, "not_found")
    error(api.get("/api/decks/no-such-deck-0000/export/?format=text"), 404, "not_found")


def test_a_server_error_is_json_under_the_api_and_the_500_page_elsewhere(monkeypatch, client):
    def broken(*args, **kwargs):
        raise ZeroDivisionError

    monkeypatch.setattr("deckbuilder.api.verdict", broken)
    monkeypatch.setattr("cards.views.render", broken)
    body = {"leader": None, "cards": []}
    response = no_raise(api_client()).post(VALIDATE, body, format="json")
    error(response, 500, "server_error")
    assert "Something went wrong" in page(no_raise(client).get("/"), 500)


# --- a Host header not in ALLOWED_HOSTS ----------------------------------------------------------

EVIL_HOST = "evil.example"


@pytest.mark.parametrize("raise_request_exception", [True, False])
@pytest.mark.parametrize("url", ["/", "/no-such-page/", "/decks/?q=1"])
def test_a_host_not_allowed_is_the_400_page_not_a_500(raise_request_exception, url):
    """The 400 page (which has the site's layout and its og:url) must not ask for the host
    again: that raised DisallowedHost inside the error page, and the answer was a 500."""
    client = Client(raise_request_exception=raise_request_exception)
    response = client.get(url, HTTP_HOST=EVIL_HOST)
    html = page(response, 400)
    assert "<title>Bad request · Deckbuilder</title>" in html
    assert meta(response, "property", "og:url") == url  # relative: the host is not ours
    assert EVIL_HOST not in html


def test_a_host_not_allowed_with_a_nul_or_a_large_body_is_refused_not_a_500(settings):
    """deckbuilder.middleware refuses these before CommonMiddleware checks the host: its error
    page is the first to render for such a request."""
    client = Client(raise_request_exception=False)
    assert "NUL characters" in page(client.get("/decks/%00/", HTTP_HOST=EVIL_HOST), 400)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client.post("/accounts/login/", {"username": "x" * 2000}, HTTP_HOST=EVIL_HOST)
    assert "Request too large" in page(response, 413)


def test_every_error_page_renders_for_a_host_not_allowed(rf):
    """Each error view, the CSRF failure page included, renders without raising again for a
    request whose host is not allowed: whichever refusal comes first, it is what answers."""
    request = rf.get("/somewhere/?x=1", HTTP_HOST=EVIL_HOST)
    csrf_failure = import_string(django_settings.CSRF_FAILURE_VIEW)
    responses = [
        (400, api_errors.bad_request(request, SuspiciousOperation("no"))),
        (403, api_errors.permission_denied(request, PermissionDenied())),
        (404, api_errors.page_not_found(request, Http404())),
        (500, api_errors.server_error(request)),
        (403, csrf_failure(request, reason="CSRF cookie not set.")),
        (413, api_errors.error_page(request, 413, "Request too large", "Too large.")),
    ]
    for status, response in responses:
        assert EVIL_HOST not in page(response, status)
    # The site's layout, with an address of the page that stays relative; 500.html and Django's
    # CSRF page render without the request, and have no og:url.
    here = "/somewhere/?x=1"
    og_urls = [meta(response, "property", "og:url") for _, response in responses]
    assert og_urls == [here, here, here, None, None, here]


@pytest.mark.parametrize(
    "url, status, title, description",
    [
        (
            "/no-such-page/",
            404,
            "Page not found",
            "This page does not exist on Deckbuilder: a game, card, leader or deck renamed or "
            "removed, or a private deck.",
        ),
        ("/", 500, "Server error", "Something went wrong on Deckbuilder."),
    ],
)
def test_the_404_and_500_pages_keep_their_titles_and_meta(
    monkeypatch, url, status, title, description
):
    monkeypatch.setattr("cards.views.render", lambda *args, **kwargs: 1 / 0)
    response = Client(raise_request_exception=False).get(url)
    html = page(response, status)
    assert f"<title>{title} · Deckbuilder</title>" in html
    assert meta(response, "name", "description") == description
    assert meta(response, "property", "og:title") == title
    assert meta(response, "property", "og:description") == description
    assert meta(response, "property", "og:site_name") == "Deckbuilder"
    assert meta(response, "name", "robots") == "noindex"
    if status == 404:  # 500.html renders without the request: it has no og:url
        assert meta(response, "property", "og:url") == f"http://testserver{url}"


# --- deck text -----------------------------------------------------------------------------------

# Counts int() refuses (more than 4,300 digits: ValueError) and what the line error says of each.
HUGE_COUNTS = [
    pytest.param("9" * 5000, "a number of 5,000 digits", id="5000-digits"),
    pytest.param("1" * 4301, "a number of 4,301 digits", id="4301-digits"),
]


@pytest.mark.parametrize("count, got", HUGE_COUNTS)
def test_a_deck_text_count_of_thousands_of_digits_is_a_line_error_in_the_api_and_writes_nothing(
    alice, count, got
):
    before = Deck.objects.count()
    body = {"game": "card-of-gods", "text": f"Gottfried\n1 Healing\n{count} Despair\n"}
    response = no_raise(api_client(alice)).post("/api/decks/import/", body, format="json")
    assert response.status_code == 400, response.content[:300]
    assert response.json() == {"text": [f"line 3: count must be from 1 to 99, got {got}"]}
    assert Deck.objects.count() == before


@pytest.mark.parametrize("count, got", HUGE_COUNTS)
def test_a_deck_text_count_of_thousands_of_digits_is_a_line_error_on_the_import_page(
    client, alice, count, got
):
    before = Deck.objects.count()
    client.force_login(alice)
    text = f"Gottfried\n1 Healing\n{count} Despair\n"
    response = no_raise(client).post("/decks/import/", {"game": "card-of-gods", "text": text})
    assert f"line 3: count must be from 1 to 99, got {got}" in page(response, 400)
    assert Deck.objects.count() == before


def test_leading_zeros_of_a_deck_text_count_are_not_digits_too_many(alice):
    body = {"game": "card-of-gods", "text": f"Gottfried\n{'0' * 5000}2 Healing\n"}
    response = no_raise(api_client(alice)).post("/api/decks/import/", body, format="json")
    assert response.status_code == 201, response.content[:300]
    assert [(row["card"], row["count"]) for row in response.json()["cards"]] == [("healing", 2)]


# --- the database is down ------------------------------------------------------------------------


@pytest.fixture
def database_down(db, monkeypatch):
    """Every query fails as when the database server is gone (a connection is never made)."""

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    with monkeypatch.context() as patch:
        patch.setattr(connection, "ensure_connection", refuse)
        yield


@pytest.mark.parametrize(
    "url", ["/api/games/", "/api/decks/public/", "/api/decks/abcdefghijklmnop/"]
)
def test_with_the_database_down_the_api_answers_503_json_with_retry_after(database_down, url):
    response = Client(raise_request_exception=False).get(url)
    error(response, 503, "database_unavailable")
    assert int(response["Retry-After"]) > 0


def test_with_the_database_down_pages_answer_the_503_page_and_healthz_503(database_down):
    client = Client(raise_request_exception=False)
    response = client.get("/")
    assert "Briefly unavailable" in page(response, 503)
    assert int(response["Retry-After"]) > 0
    assert client.get("/healthz").status_code == 503


def test_a_bare_validation_error_becomes_one_error_with_a_code():
    response = exception_handler(serializers.ValidationError("Not this."), {})
    assert response.data == {"code": "invalid", "detail": "Not this."}
