"""The API against its own OpenAPI schema: schemathesis feeds every operation generated input
(valid and invalid, as anonymous, alice, bob, staff or a bad token) through the WSGI app on the
test database, and fails on any server error and any response the schema does not describe:
its status, content type, body or headers.

Path parameters and bodies are sometimes real (a game, a card of it, alice's deck...), so
operations answer more than 404s and 400s. Each example runs in a savepoint rolled back after
it: every example sees the same world.
"""

import hypothesis
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from django.test import override_settings
from hypothesis import HealthCheck
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.python.wsgi import HOST
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from cards.models import Card, CardSet, Format, Game, Leader, Printing, RuleSection
from deckbuilder.models import Visibility
from deckbuilder.wsgi import application
from tests.deckbuilder.test_api import GOTTFRIED_TEN, make_deck, rows

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
# Who sends a request: anonymous, or a token; the bad one belongs to nobody.
TOKENS = {"alice": "a" * 40, "bob": "b" * 40, "staff": "c" * 40, "bad-token": "0" * 40}
USERS = [None, *TOKENS]

pytestmark = pytest.mark.django_db


# Loaded once, at collection, from the app itself (no database needed: only the URL conf).
with override_settings(ALLOWED_HOSTS=[HOST]):
    schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# Generated input only (fuzzing), a bounded number per operation: the coverage and examples
# phases make their cases at collection, before there is anything real to name in a path or a
# user to draw (`given` below); the coverage phase's thousands mostly met 404.
schema.config.phases.update(phases=["fuzzing"])

REAL: dict[str, list[dict]] = {}  # per operation kind, path parameters of things that exist
REAL_BODY = {"game": "card-of-gods", "leader": "gottfried", "cards": rows(GOTTFRIED_TEN)}


def kind(path: str) -> str:
    for name in ("cards", "leaders", "formats", "rules", "decks", "sets", "printings"):
        if f"/{name}/{{" in path:
            return name
    return "game"


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    """Generated path parameters, or now and then real ones (answers beyond 404)."""
    real = REAL.get(kind(context.operation.path))  # filled by `world`, for the test only
    if not path_parameters or not real:
        return st.just(path_parameters)
    return st.one_of(st.just(path_parameters), st.sampled_from(real))


@schema.hook
def flatmap_body(context, body):
    """A generated body, or the same with a real game, leader and cards, in the game's default
    format: a deck that saves (keys an operation does not take are ignored)."""
    if not isinstance(body, dict):
        return st.just(body)
    real = {**{k: v for k, v in body.items() if k != "format"}, **REAL_BODY}
    return st.sampled_from([body, real])


@pytest.fixture
def world(alice, bob):
    """Decks of alice and bob, public to private, and what exists to name in paths."""
    decks = [
        make_deck(alice, visibility=Visibility.PUBLIC),
        make_deck(alice, counts={"healing": 2}),
        make_deck(bob, visibility=Visibility.UNLISTED),
        make_deck(bob),
    ]

    def of_game(model, field="slug", name="slug"):
        return [{"game": g, name: s} for g, s in model.objects.values_list("game__slug", field)]

    REAL.update(
        game=[{"game": slug} for slug in Game.objects.values_list("slug", flat=True)],
        cards=of_game(Card),
        leaders=of_game(Leader),
        formats=of_game(Format),
        rules=of_game(RuleSection, "number", "number")[:50],
        sets=of_game(CardSet, "code", "code"),
        printings=of_game(Printing, "number", "number")[:50],
        decks=[{"id": deck.share_id} for deck in decks],
    )
    yield
    REAL.clear()


@pytest.fixture
def in_process(settings):
    """Requests as the test client makes them: for the host schemathesis sends, on the test's
    connection (Django would close it between requests, in the middle of the test)."""
    settings.ALLOWED_HOSTS = [HOST]
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def tokens(alice, bob, staff):
    for user in (alice, bob, staff):
        Token.objects.create(user=user, key=TOKENS[user.username])


@schema.parametrize()
@schema.given(user=st.sampled_from(USERS))
@hypothesis.settings(
    max_examples=30, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
)
def test_every_operation_answers_as_its_schema_says(case, user, tokens, world, in_process):
    headers = {"Authorization": f"Token {TOKENS[user]}"} if user else {}
    with transaction.atomic():
        case.call_and_validate(headers=headers, checks=CHECKS)
        transaction.set_rollback(True)


# --- what the schema says ------------------------------------------------------------------------


@pytest.fixture
def operations(api) -> dict[str, dict]:
    """{"GET /api/games/": operation} of the served schema."""
    paths = api.get("/api/schema/", {"format": "json"}).json()["paths"]
    return {f"{m.upper()} {p}": op for p, ops in paths.items() for m, op in ops.items()}


def test_the_public_decks_are_a_page_of_decks_whose_leader_may_be_null(api, operations):
    public = operations["GET /api/decks/public/"]
    assert public["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PaginatedDeckList"
    }
    assert {"page", "page_size"} <= {p["name"] for p in public["parameters"]}
    deck = api.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]["Deck"]
    assert deck["properties"]["leader"]["nullable"] is True


def test_every_operation_describes_the_errors_it_can_answer(operations):
    for label, op in operations.items():
        method = label.split()[0]
        codes = set(op["responses"])
        expected = {"400", "503"}
        if label != "POST /api/auth/token/":  # reads credentials from the body only
            expected |= {"401"} | ({"403"} if method != "GET" else set())
        if "requestBody" in op:
            expected |= {"413", "415"}
        if "{" in label or any(p["name"] == "page" for p in op.get("parameters", [])):
            expected.add("404")
        assert expected <= codes, (label, expected - codes)
        for code in (c for c in codes if c > "400"):  # one description of each, shared
            assert op["responses"][code]["$ref"].startswith("#/components/responses/"), label
    for method in ("PUT", "PATCH", "DELETE"):
        assert "412" in operations[f"{method} /api/decks/{{id}}/"]["responses"]
    for what in ("cards/{slug}", "leaders/{slug}"):
        assert "409" in operations[f"DELETE /api/games/{{game}}/{what}/"]["responses"]
    assert "429" in operations["POST /api/auth/token/"]["responses"]
