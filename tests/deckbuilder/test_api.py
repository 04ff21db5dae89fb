"""Decks API: validation, the permission matrix, create/list/update with ETags, text export and
import, token auth, and a constant number of queries per deck."""

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cards import catalogue, vocabulary
from cards import services as card_services
from cards.models import Card, Game, Leader
from deckbuilder import services
from deckbuilder.models import Deck, DeckCard, Visibility
from tests.conftest import api_client
from tests.factories import GOTTFRIED_TEN

VALIDATE = "/api/games/card-of-gods/validate/"
DECKS = "/api/decks/"
pytestmark = pytest.mark.django_db

# Gottfried (black, yellow, red; Kriegmark) may use all of these: a legal ten.


def rows(counts):
    return [{"card": slug, "count": n} for slug, n in counts.items()]


def post_json(client, url, body):
    """POST any JSON value (list, string, null...), not only objects."""
    return client.post(url, data=json.dumps(body), content_type="application/json")


def make_deck(owner, *, visibility=Visibility.PRIVATE, counts=None, leader="gottfried", name=None):
    game = Game.objects.get(slug="card-of-gods")
    counts = GOTTFRIED_TEN if counts is None else counts
    cards = {c.slug: c for c in Card.objects.filter(game=game, slug__in=counts)}
    return services.deck_create(
        owner=owner,
        game=game,
        name=name or f"{owner.username}'s {visibility} deck",
        leader=Leader.objects.get(game=game, slug=leader) if leader else None,
        visibility=visibility,
        contents={(cards[slug], "main"): n for slug, n in counts.items()},
    )


def snapshot(deck):
    """Everything a refused write must leave as it was."""
    deck = Deck.objects.filter(pk=deck.pk).values().first()
    deck.pop("copies")  # a copy made by another player counts on the original, by design
    entries = sorted(DeckCard.objects.filter(deck_id=deck["id"]).values_list("card__slug", "count"))
    return deck, entries


def counts_of(deck_json):
    return {row["card"]: row["count"] for row in deck_json["cards"]}


# --- validate ----------------------------------------------------------------------------------


@pytest.fixture
def kellantra_extras(game):
    """The world gives Kellantra only 8 usable copies: two more green commons."""
    common = game.rarities.get(slug="common")
    for name in ("Sprout", "Bloom"):
        card_services.save_card(
            game=game, fields={"name": name, "rarity": common, "cost": {"life": 1}}, keywords=[]
        )


def test_validate_answers_anyone_with_a_report_of_every_problem(api):
    body = {"leader": "kellantra", "cards": rows({"despair": 2, "plant-a-seed": 4})}
    response = api.post(VALIDATE, body, format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["legal"] is False
    assert report["card_count"] == 6
    assert [(p["code"], p["card"]) for p in report["problems"]] == [
        ("deck_size", None),
        ("copy_limit", "plant-a-seed"),
        ("colour_mismatch", "despair"),
    ]
    for problem in report["problems"]:
        assert {"code", "message", "card"} <= problem.keys()
        assert isinstance(problem["message"], str) and problem["message"]


def test_validate_a_legal_kellantra_deck(api, kellantra_extras):
    cards = {"plant-a-seed": 3, "healing": 2, "quiet-prayer": 3, "sprout": 1, "bloom": 1}
    response = api.post(VALIDATE, {"leader": "kellantra", "cards": rows(cards)}, format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "legal": True,
        "card_count": 10,
        "format": "standard",
        "version": {"from": "2026-06-01", "name": "June 2026 ban list"},
        "sections": {"main": 10},
        "problems": [],
    }


def test_validate_a_legal_gottfried_deck(api):
    body = {"leader": "gottfried", "cards": rows(GOTTFRIED_TEN)}
    assert api.post(VALIDATE, body, format="json").json()["legal"] is True


def test_validate_without_a_leader_reports_leader_required(api):
    response = api.post(VALIDATE, {"leader": None, "cards": rows(GOTTFRIED_TEN)}, format="json")
    assert response.status_code == 200
    assert [p["code"] for p in response.json()["problems"]] == ["leader_required"]


def test_validate_writes_nothing(api):
    before = Deck.objects.count()
    api.post(VALIDATE, {"leader": "gottfried", "cards": rows(GOTTFRIED_TEN)}, format="json")
    assert Deck.objects.count() == before


@pytest.fixture
def other_game():
    """A second, tiny game with a leader and a card of its own."""
    game = card_services.save_game(
        definition={
            "slug": "other-game",
            "name": "Other Game",
            "colours": [{"slug": "blue", "name": "Blue", "symbol": "~", "domain": "water"}],
            "rarities": [{"slug": "common", "name": "Common"}],
            "card_types": [{"slug": "thing", "name": "Thing"}],
            "formats": [
                {
                    "slug": "standard",
                    "name": "Standard",
                    "sections": [{"slug": "main", "name": "Deck"}],
                    "rules": [{"rule": "deck_size", "exactly": 1}],
                }
            ],
        }
    )
    card_services.save_leader(game=game, fields={"name": "Stranger"}, colours=[], keywords=[])
    card_services.save_card(
        game=game,
        fields={"name": "Alien Card", "rarity": game.rarities.get()},
        keywords=[],
    )
    return game


def test_other_games_leader_and_card_are_valid_in_their_own_game(api, other_game):
    body = {"leader": "stranger", "cards": [{"card": "alien-card", "count": 1}]}
    response = api.post("/api/games/other-game/validate/", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["legal"] is True


def test_validate_refuses_a_leader_of_another_game(api, other_game):
    body = {"leader": "stranger", "cards": rows(GOTTFRIED_TEN)}
    response = api.post(VALIDATE, body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["leader"]


def test_validate_refuses_a_card_of_another_game(api, other_game):
    body = {"leader": "gottfried", "cards": [{"card": "alien-card", "count": 1}]}
    response = api.post(VALIDATE, body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["cards"]


GOOD = {"card": "despair", "count": 2}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ([], "non_field_errors"),
        ([{"leader": "gottfried", "cards": []}], "non_field_errors"),
        ("gottfried", "non_field_errors"),
        (None, "non_field_errors"),
        (42, "non_field_errors"),
        ({"leader": "gottfried"}, "cards"),
        ({"cards": [GOOD]}, "leader"),
        ({"leader": "gottfried", "cards": "despair"}, "cards"),
        ({"leader": "gottfried", "cards": GOOD}, "cards"),
        ({"leader": "gottfried", "cards": None}, "cards"),
        ({"leader": "nobody", "cards": [GOOD]}, "leader"),
        ({"leader": ["gottfried"], "cards": [GOOD]}, "leader"),
        ({"leader": "gottfried", "cards": [{"card": "nope", "count": 1}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": None, "count": 1}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"count": 1}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair"}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": 0}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": -1}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": 100}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": "3"}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": 2.5}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": 2.0}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": True}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": None}]}, "cards"),
        ({"leader": "gottfried", "cards": [{"card": "despair", "count": [2]}]}, "cards"),
        ({"leader": "gottfried", "cards": [GOOD, {"card": "despair", "count": 1}]}, "cards"),
        ({"leader": "gottfried", "cards": ["despair"]}, "cards"),
        ({"leader": "gottfried", "cards": [["despair", 2]]}, "cards"),
        ({"leader": "gottfried", "cards": [None]}, "cards"),
        ({"leader": "gottfried", "cards": [2]}, "cards"),
    ],
    ids=repr,
)
def test_validate_bad_input_is_a_400_with_field_errors(api, body, field):
    response = post_json(api, VALIDATE, body)
    assert response.status_code == 400, response.content
    errors = response.json()
    assert field in errors, errors
    assert errors[field]


def test_validate_names_every_bad_card(api):
    body = {
        "leader": "gottfried",
        "cards": [{"card": "nope", "count": 1}, GOOD, {"card": "despair", "count": 1}],
    }
    errors = api.post(VALIDATE, body, format="json").json()["cards"]
    text = json.dumps(errors)
    assert "nope" in text and "twice" in text


def test_validate_unknown_game_is_404(api):
    body = {"leader": "gottfried", "cards": [GOOD]}
    assert api.post("/api/games/nope/validate/", body, format="json").status_code == 404


def test_validate_malformed_json_is_400(api):
    response = api.post(VALIDATE, data="{", content_type="application/json")
    assert response.status_code == 400


# --- permission matrix ---------------------------------------------------------------------------

READ, UPDATE, DELETE, COPY, EXPORT = "read", "update", "delete", "copy", "export"
CALLERS = ["anonymous", "owner", "bob", "staff"]
VISIBILITIES = [Visibility.PRIVATE, Visibility.UNLISTED, Visibility.PUBLIC]


def expected_status(action, caller, visibility):
    private = visibility == Visibility.PRIVATE
    if caller == "owner":
        return {READ: 200, EXPORT: 200, UPDATE: 200, DELETE: 204, COPY: 201}[action]
    if action in (READ, EXPORT):
        return 404 if private else 200
    if action == COPY:
        if caller == "anonymous":
            return 401  # copy needs a signed-in caller before anything else
        return 404 if private else 201
    # update, delete
    if private:
        return 404
    return 401 if caller == "anonymous" else 403


MATRIX = [
    (action, caller, visibility)
    for action in (READ, EXPORT, UPDATE, DELETE, COPY)
    for caller in CALLERS
    for visibility in VISIBILITIES
]


def perform(client, action, deck):
    url = f"{DECKS}{deck.share_id}/"
    if action == READ:
        return client.get(url)
    if action == EXPORT:
        return client.get(url + "export/", {"format": "text"})
    if action == UPDATE:
        return client.patch(url, {"name": "Taken over"}, format="json")
    if action == DELETE:
        return client.delete(url)
    return client.post(url + "copy/")


@pytest.mark.parametrize(
    ("action", "caller", "visibility"), MATRIX, ids=["-".join(map(str, m)) for m in MATRIX]
)
def test_permission_matrix(alice, bob, staff, action, caller, visibility):
    deck = make_deck(alice, visibility=visibility)
    user = {"anonymous": None, "owner": alice, "bob": bob, "staff": staff}[caller]
    before, decks_before = snapshot(deck), Deck.objects.count()

    response = perform(api_client(user), action, deck)

    expected = expected_status(action, caller, visibility)
    assert response.status_code == expected, response.content
    if expected >= 400 or action in (READ, EXPORT):  # nothing changed
        assert snapshot(deck) == before
        assert Deck.objects.count() == decks_before
    elif action == UPDATE:
        assert Deck.objects.get(pk=deck.pk).name == "Taken over"
    elif action == DELETE:
        assert not Deck.objects.filter(pk=deck.pk).exists()
    elif action == COPY:
        copied = Deck.objects.get(share_id=response.json()["id"])
        assert copied.owner == user and copied.visibility == Visibility.PRIVATE
        assert snapshot(deck) == before
    if action == READ and expected == 200:
        assert response.json()["id"] == deck.share_id
    if action == EXPORT and expected == 200:
        assert response.content.decode().splitlines()[1] == "Gottfried"  # after the header


def test_anonymous_refusals_say_how_to_authenticate(alice, api):
    deck = make_deck(alice, visibility=Visibility.PUBLIC)
    response = api.patch(f"{DECKS}{deck.share_id}/", {"name": "x"}, format="json")
    assert response.status_code == 401
    assert response.headers.get("WWW-Authenticate", "").startswith("Token")


def test_a_private_deck_of_someone_else_looks_like_no_deck(alice, bob):
    deck = make_deck(alice)
    bobs = api_client(bob)
    missing = bobs.get(f"{DECKS}nosuchdeck123456/")
    hidden = bobs.get(f"{DECKS}{deck.share_id}/")
    assert missing.status_code == hidden.status_code == 404
    assert missing.json() == hidden.json()


# --- create ------------------------------------------------------------------------------------


def new_deck_body(**overrides):
    body = {
        "game": "card-of-gods",
        "leader": "gottfried",
        "name": "Fire and shadow",
        "description": "Ten cards of Gottfried.",
        "cards": rows(GOTTFRIED_TEN),
    }
    return body | overrides


def test_create_answers_201_with_the_deck_shape(alice):
    response = api_client(alice).post(DECKS, new_deck_body(), format="json")
    assert response.status_code == 201, response.content
    deck = response.json()
    assert {
        "id",
        "name",
        "description",
        "game",
        "format",
        "leader",
        "visibility",
        "cards",
        "card_count",
        "legal",
        "problems",
        "owner",
        "url",
        "created",
        "updated",
    } <= deck.keys()
    assert re.fullmatch(r"[-_A-Za-z0-9]{16,}", deck["id"])
    assert deck["url"] == f"http://testserver/decks/{deck['id']}/"
    assert deck["owner"] == "alice"
    assert (deck["game"], deck["leader"], deck["visibility"]) == (
        "card-of-gods",
        "gottfried",
        "private",
    )
    assert (deck["name"], deck["description"]) == ("Fire and shadow", "Ten cards of Gottfried.")
    assert counts_of(deck) == GOTTFRIED_TEN
    assert deck["format"] == "standard"  # the game's default format
    assert {row["section"] for row in deck["cards"]} == {"main"}
    assert (deck["legal"], deck["card_count"], deck["problems"]) == (True, 10, [])
    stored = Deck.objects.get(share_id=deck["id"])
    assert stored.owner.username == "alice"
    assert response.headers["ETag"] == stored.etag


def test_share_ids_differ_between_decks(alice):
    client = api_client(alice)
    ids = {client.post(DECKS, new_deck_body(), format="json").json()["id"] for _ in range(5)}
    assert len(ids) == 5


def test_an_illegal_draft_is_saved_with_its_problems(alice):
    body = new_deck_body(leader="kellantra", cards=rows({"despair": 2}))
    response = api_client(alice).post(DECKS, body, format="json")
    assert response.status_code == 201, response.content
    deck = response.json()
    assert deck["legal"] is False and deck["card_count"] == 2
    assert [(p["code"], p["card"]) for p in deck["problems"]] == [
        ("deck_size", None),
        ("colour_mismatch", "despair"),
    ]
    assert Deck.objects.filter(share_id=deck["id"]).legal_now(False).exists()


def test_a_draft_may_have_no_leader_and_no_cards(alice):
    body = {"game": "card-of-gods", "name": "Empty"}
    response = api_client(alice).post(DECKS, body, format="json")
    assert response.status_code == 201, response.content
    assert [p["code"] for p in response.json()["problems"]] == ["leader_required", "deck_size"]


def test_create_public_requires_a_legal_deck_and_writes_nothing(alice):
    before = (Deck.objects.count(), DeckCard.objects.count())
    body = new_deck_body(visibility="public", cards=rows({"despair": 4}))
    response = api_client(alice).post(DECKS, body, format="json")
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == "deck_not_legal"
    assert [(p["code"], p["card"]) for p in error["problems"]] == [
        ("deck_size", None),
        ("copy_limit", "despair"),
    ]
    assert (Deck.objects.count(), DeckCard.objects.count()) == before


def test_create_public_legal_deck(alice):
    response = api_client(alice).post(DECKS, new_deck_body(visibility="public"), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["visibility"] == "public"


def test_patch_to_public_requires_a_legal_deck_and_writes_nothing(alice):
    deck = make_deck(alice, counts={"despair": 2})
    before = snapshot(deck)
    body = {"visibility": "public", "name": "Renamed"}
    response = api_client(alice).patch(f"{DECKS}{deck.share_id}/", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "deck_not_legal"
    assert [p["code"] for p in response.json()["problems"]] == ["deck_size"]
    assert snapshot(deck) == before


def test_patch_to_public_with_cards_that_make_it_legal(alice):
    deck = make_deck(alice, counts={"despair": 2})
    body = {"visibility": "public", "cards": rows(GOTTFRIED_TEN)}
    response = api_client(alice).patch(f"{DECKS}{deck.share_id}/", body, format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["visibility"], response.json()["legal"]) == ("public", True)


def test_anonymous_cannot_create(api):
    before = Deck.objects.count()
    assert api.post(DECKS, new_deck_body(), format="json").status_code == 401
    assert Deck.objects.count() == before


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"game": "nope"}, "game"),
        ({"game": None}, "game"),
        ({"name": ""}, "name"),
        ({"name": None}, "name"),
        ({"visibility": "secret"}, "visibility"),
        ({"leader": "nobody"}, "leader"),
        ({"cards": [{"card": "despair", "count": 0}]}, "cards"),
        ({"cards": [{"card": "despair", "count": "3"}]}, "cards"),
    ],
    ids=repr,
)
def test_create_bad_input_is_400_and_writes_nothing(alice, overrides, field):
    before = Deck.objects.count()
    response = api_client(alice).post(DECKS, new_deck_body(**overrides), format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert Deck.objects.count() == before


@pytest.mark.parametrize("body", [[], "deck", None], ids=repr)
def test_create_with_a_body_that_is_not_an_object_is_400(alice, body):
    response = post_json(api_client(alice), DECKS, body)
    assert response.status_code == 400, response.content


def test_create_refuses_a_card_of_another_game(alice, other_game):
    body = new_deck_body(cards=[{"card": "alien-card", "count": 1}])
    response = api_client(alice).post(DECKS, body, format="json")
    assert response.status_code == 400 and "cards" in response.json()


def test_patch_cannot_move_a_deck_to_another_game(alice, other_game):
    deck = make_deck(alice)
    before = snapshot(deck)
    body = {"game": "other-game"}
    response = api_client(alice).patch(f"{DECKS}{deck.share_id}/", body, format="json")
    assert response.status_code == 400 and "game" in response.json()
    assert snapshot(deck) == before


# --- lists -------------------------------------------------------------------------------------


def test_my_decks_lists_only_mine(alice, bob):
    mine = {make_deck(alice, visibility=v).share_id for v in VISIBILITIES}
    make_deck(bob, visibility=Visibility.PUBLIC)
    make_deck(bob)
    body = api_client(alice).get(DECKS).json()
    assert {"count", "next", "previous", "results"} <= body.keys()
    assert {d["id"] for d in body["results"]} == mine
    assert {d["owner"] for d in body["results"]} == {"alice"}


def test_my_decks_needs_a_signed_in_caller(api):
    assert api.get(DECKS).status_code == 401


def test_public_list_shows_only_public_decks_to_anyone(api, alice, bob):
    public = {make_deck(alice, visibility=Visibility.PUBLIC), make_deck(bob, visibility="public")}
    make_deck(alice, visibility=Visibility.UNLISTED)
    make_deck(alice)
    response = api.get(DECKS + "public/")
    assert response.status_code == 200
    assert {d["id"] for d in response.json()["results"]} == {d.share_id for d in public}


@pytest.fixture
def public_decks(alice, bob, kellantra_extras):
    kellantra_ten = {"plant-a-seed": 3, "healing": 2, "quiet-prayer": 3, "sprout": 1, "bloom": 1}
    return {
        "gottfried": make_deck(alice, visibility=Visibility.PUBLIC),
        "kellantra": make_deck(
            bob, visibility=Visibility.PUBLIC, leader="kellantra", counts=kellantra_ten
        ),
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, ("gottfried", "kellantra")),
        ({"game": "card-of-gods"}, ("gottfried", "kellantra")),
        ({"game": "other-game"}, ()),
        ({"leader": "kellantra"}, ("kellantra",)),
        ({"leader": "gottfried"}, ("gottfried",)),
        ({"leader": "richard"}, ()),
        ({"card": "quiet-prayer"}, ("kellantra",)),
        ({"card": "despair"}, ("gottfried",)),
        ({"card": "hymn-of-engeln"}, ()),
        ({"leader": "gottfried", "card": "plant-a-seed"}, ()),
    ],
    ids=repr,
)
def test_public_list_filters(api, public_decks, params, expected):
    results = api.get(DECKS + "public/", params).json()["results"]
    by_id = {deck.share_id: name for name, deck in public_decks.items()}
    assert {by_id[d["id"]] for d in results} == set(expected)


# --- ETag / If-Match ---------------------------------------------------------------------------


def test_every_deck_response_carries_its_etag(alice):
    client = api_client(alice)
    deck = make_deck(alice)
    url = f"{DECKS}{deck.share_id}/"
    first = client.get(url)
    assert first.headers["ETag"] == Deck.objects.get(pk=deck.pk).etag
    patched = client.patch(url, {"name": "New name"}, format="json")
    assert patched.headers["ETag"] != first.headers["ETag"]
    assert patched.headers["ETag"] == client.get(url).headers["ETag"]
    copied = client.post(url + "copy/")
    assert copied.headers["ETag"] == Deck.objects.get(share_id=copied.json()["id"]).etag


@pytest.mark.parametrize("method", ["patch", "put", "delete"])
def test_a_stale_if_match_is_412_and_writes_nothing(alice, method):
    client = api_client(alice)
    deck = make_deck(alice)
    url = f"{DECKS}{deck.share_id}/"
    stale = client.get(url).headers["ETag"]
    client.patch(url, {"name": "Changed elsewhere"}, format="json")
    before = snapshot(deck)

    body = {"name": "Mine", "cards": rows({"despair": 1})}
    kwargs = {"format": "json", "HTTP_IF_MATCH": stale}
    response = getattr(client, method)(url, None if method == "delete" else body, **kwargs)

    assert response.status_code == 412, response.content
    assert snapshot(deck) == before


@pytest.mark.parametrize("method", ["patch", "put"])
def test_the_current_if_match_writes_and_gives_a_new_etag(alice, method):
    client = api_client(alice)
    deck = make_deck(alice)
    url = f"{DECKS}{deck.share_id}/"
    current = client.get(url).headers["ETag"]
    body = {"name": "Mine", "leader": "gottfried", "cards": rows({"despair": 1})}
    response = getattr(client, method)(url, body, format="json", HTTP_IF_MATCH=current)
    assert response.status_code == 200, response.content
    assert response.headers["ETag"] != current
    assert response.json()["name"] == "Mine"
    assert counts_of(response.json()) == {"despair": 1}
    assert response.json()["card_count"] == 1 and response.json()["legal"] is False


def test_delete_with_the_current_if_match(alice):
    client = api_client(alice)
    deck = make_deck(alice)
    url = f"{DECKS}{deck.share_id}/"
    current = client.get(url).headers["ETag"]
    assert client.delete(url, HTTP_IF_MATCH=current).status_code == 204
    assert not Deck.objects.filter(pk=deck.pk).exists()


def test_put_replaces_and_needs_a_name(alice):
    client = api_client(alice)
    deck = make_deck(alice)
    before = snapshot(deck)
    url = f"{DECKS}{deck.share_id}/"
    response = client.put(url, {"cards": rows({"despair": 1})}, format="json")
    assert response.status_code == 400 and "name" in response.json()
    assert snapshot(deck) == before


# --- text export / import ----------------------------------------------------------------------


def test_export_is_plain_text_header_leader_then_counts(alice, api):
    deck = make_deck(alice, visibility=Visibility.UNLISTED)
    response = api.get(f"{DECKS}{deck.share_id}/export/", {"format": "text"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert lines[:2] == [
        "# Card of Gods — Standard (game: card-of-gods; format: standard)",
        "Gottfried",
    ]
    names = {c.name: c.slug for c in Card.objects.filter(slug__in=GOTTFRIED_TEN)}
    parsed = {}
    for line in lines[2:]:
        count, name = re.fullmatch(r"(\d+) (.+)", line).groups()
        parsed[names[name]] = int(count)
    assert parsed == GOTTFRIED_TEN


def test_export_then_import_round_trips(alice, bob):
    deck = make_deck(alice, visibility=Visibility.PUBLIC)
    text = api_client(bob).get(f"{DECKS}{deck.share_id}/export/?format=text").content.decode()
    body = {"game": "card-of-gods", "text": text, "name": "Imported"}
    response = api_client(bob).post(DECKS + "import/", body, format="json")
    assert response.status_code == 201, response.content
    imported = response.json()
    assert imported["owner"] == "bob" and imported["name"] == "Imported"
    assert imported["leader"] == "gottfried" and imported["visibility"] == "private"
    assert counts_of(imported) == GOTTFRIED_TEN
    assert imported["legal"] is True
    assert imported["id"] != deck.share_id


def test_import_without_a_name_names_the_deck_after_its_leader(alice):
    text = "Kellantra\n2 Healing\n"
    body = {"game": "card-of-gods", "text": text}
    response = api_client(alice).post(DECKS + "import/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "Kellantra deck"
    assert counts_of(response.json()) == {"healing": 2}


def test_import_names_each_bad_line_and_writes_nothing(alice):
    text = "\n".join(
        [
            "Gottfried",  # 1
            "3 Despair",  # 2 fine
            "three Lightning",  # 3 no count
            "2 No Such Card",  # 4 unknown card
            "0 Healing",  # 5 count out of range
            "1 Despair",  # 6 listed twice
            "1 Punishment",  # 7 fine
        ]
    )
    before = Deck.objects.count()
    body = {"game": "card-of-gods", "text": text}
    response = api_client(alice).post(DECKS + "import/", body, format="json")
    assert response.status_code == 400
    errors = response.json()["text"]
    assert len(errors) == 4
    for number in (3, 4, 5, 6):
        assert any(e.startswith(f"line {number}:") for e in errors), errors
    assert not any(e.startswith(("line 1:", "line 2:", "line 7:")) for e in errors)
    assert Deck.objects.count() == before


def test_import_with_an_unknown_leader_names_line_one(alice):
    body = {"game": "card-of-gods", "text": "Nobody\n1 Despair\n"}
    response = api_client(alice).post(DECKS + "import/", body, format="json")
    assert response.status_code == 400
    assert [e.split(":")[0] for e in response.json()["text"]] == ["line 1"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "nope", "text": "Gottfried\n"}, "game"),
        ({"text": "Gottfried\n"}, "game"),
        ({"game": "card-of-gods"}, "text"),
        ({"game": "card-of-gods", "text": "   \n# only a comment\n"}, "text"),
    ],
    ids=repr,
)
def test_import_bad_body_is_400(alice, body, field):
    response = api_client(alice).post(DECKS + "import/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()


def test_import_needs_a_signed_in_caller(api):
    body = {"game": "card-of-gods", "text": "Gottfried\n1 Despair\n"}
    assert api.post(DECKS + "import/", body, format="json").status_code == 401


# --- token auth --------------------------------------------------------------------------------


def test_a_token_can_create_a_deck(api):
    token = api.post(
        "/api/auth/token/", {"username": "alice", "password": "alice-password"}, format="json"
    )
    assert token.status_code == 200, token.content
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    response = api.post(DECKS, new_deck_body(), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["owner"] == "alice"
    assert api.get(DECKS).json()["count"] >= 1


def test_a_bad_token_is_401(api):
    api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert api.post(DECKS, new_deck_body(), format="json").status_code == 401


# --- queries -----------------------------------------------------------------------------------


def test_reading_a_deck_takes_a_constant_number_of_queries(alice, api):
    small = make_deck(alice, visibility=Visibility.UNLISTED, counts={"despair": 1})
    every_card = {
        slug: 1
        for slug in Card.objects.filter(game__slug="card-of-gods").values_list("slug", flat=True)
    }
    big = make_deck(alice, visibility=Visibility.UNLISTED, counts=every_card)
    assert len(every_card) >= 9

    # the per-process caches are warm in steady state
    catalogue.game_rules("card-of-gods")
    vocabulary.of(Game.objects.get(slug="card-of-gods"))
    counted = []
    for deck in (small, big):
        with CaptureQueriesContext(connection) as queries:
            response = api.get(f"{DECKS}{deck.share_id}/")
        assert response.status_code == 200
        assert len(response.json()["cards"]) == deck.entries.count()
        counted.append(len(queries))
    assert counted[0] == counted[1], counted
    assert counted[1] <= 6, counted
