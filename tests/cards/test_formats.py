"""Formats as their own data (issue 7, point 1): several per game with one default, checked
against the engine's schema and the game's card types wherever they are saved (services, game
definitions, the admin), exported and imported with the game definition, and seen at once by
the engine's cache."""

import copy
import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from rest_framework.test import APIClient

from cards import catalogue, importers, services
from cards.models import Format, Game
from tests.cards.test_format_versions_admin import save_version, version_form

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("plain_static_files")]


def game_of(slug: str) -> Game:
    return Game.objects.get(slug=slug)


def formats_state(game: Game):
    """Everything about a game's formats that a refused save must leave as it was."""
    game.refresh_from_db()
    return (
        [f.as_data() for f in Format.objects.filter(game=game)],
        game.rules_version,
    )


# --- several formats, one default -----------------------------------------------------------


def test_a_game_has_several_formats_in_order_and_one_default():
    fow = game_of("force-of-will")
    assert [(f.slug, f.is_default) for f in fow.formats.all()] == [
        ("casual", True),
        ("constructed", False),
        ("wanderer-sample", False),
    ]
    assert fow.default_format().slug == "casual"
    assert fow.default_format().slugs == ["main", "stones", "side"]


def plain(fmt: Format) -> dict:
    """The format's data without `versions`: its top-level sections, rules and ban list are
    then one version from the beginning (where versions are given, they decide)."""
    return {k: v for k, v in copy.deepcopy(fmt.as_data()).items() if k != "versions"}


def test_the_database_refuses_a_second_default_format():
    fow = game_of("force-of-will")
    with pytest.raises(IntegrityError), transaction.atomic():
        Format.objects.create(game=fow, slug="draft", name="Draft", is_default=True)
    Format.objects.create(game=fow, slug="draft", name="Draft", is_default=False)
    assert fow.formats.filter(is_default=True).count() == 1


def test_save_format_adds_a_format_beside_the_default():
    game = game_of("card-of-gods")
    data = {**game.default_format().as_data(), "slug": "highlander", "name": "Highlander"}
    del data["versions"]  # else they decide: the top-level rules are not read
    data["default"] = False
    data["rules"] = [*data["rules"][:2], {"rule": "copy_limit", "by": "name", "default": 1}]

    fmt = services.save_format(game=game, data=data)

    assert {f.slug for f in game.formats.all()} == {"standard", "highlander"}
    assert game.default_format().slug == "standard"
    rules = {k: data[k] for k in ("sections", "rules", "notes")}
    assert fmt.as_data() == {
        **data,
        "versions": [{"from": None, "name": "Highlander", **rules, "banlist": data["banlist"]}],
    }


def test_making_a_format_the_default_takes_that_from_the_other():
    fow = game_of("force-of-will")
    constructed = fow.formats.get(slug="constructed").as_data()

    services.save_format(game=fow, data={**constructed, "default": True})

    assert [(f.slug, f.is_default) for f in fow.formats.all()] == [
        ("casual", False),
        ("constructed", True),
        ("wanderer-sample", False),
    ]
    assert fow.default_format().slug == "constructed"


# --- checked against the engine's schema and the game's card types --------------------------

# (game, change to its default format's data, words the refusal must give)
BAD_FORMATS = [
    ("card-of-gods", {"rules": [{"rule": "no_such_rule"}]}, "'rule' must be one of"),
    ("card-of-gods", {"rules": [{"rule": "deck_size", "exactly": "ten"}]}, "'exactly'"),
    ("card-of-gods", {"rules": [{"rule": "deck_size", "min": 12, "max": 10}]}, "more than max"),
    ("card-of-gods", {"rules": [{"rule": "deck_size", "size": 10}]}, "unknown parameter 'size'"),
    ("force-of-will", {"rules": [{"rule": "deck_size", "deck": "sideboard"}]}, "'deck'"),
    ("card-of-gods", {"rules": [{"rule": "colour_identity", "mode": "all"}]}, "'mode'"),
    ("card-of-gods", {"sections": []}, '"sections" must be a non-empty list'),
    ("card-of-gods", {"banlist": {"healing": -1}}, '"banlist"'),
    (
        "force-of-will",
        {"rules": [{"rule": "section_types", "deck": "main", "types": ["god-card"]}]},
        "'types'",
    ),
    (
        "of-gods-and-men",
        {"rules": [{"rule": "requires_type", "type": "dragon"}]},
        "'type'",
    ),
    ("of-gods-and-men", {"rules": [{"rule": "requires_type", "min": 1}]}, "'type' is required"),
]


@pytest.mark.parametrize(("slug", "change", "reason"), BAD_FORMATS)
def test_save_format_refuses_a_bad_format_with_the_reason_and_writes_nothing(slug, change, reason):
    game = game_of(slug)
    before = formats_state(game)
    data = {**plain(game.default_format()), **change}

    with pytest.raises(ValidationError) as error:
        services.save_format(game=game, data=data)

    assert reason in " ".join(error.value.messages)
    assert formats_state(game) == before


@pytest.mark.parametrize(("slug", "change", "reason"), BAD_FORMATS)
def test_save_game_refuses_a_definition_with_a_bad_format_and_writes_nothing(slug, change, reason):
    game = game_of(slug)
    before = formats_state(game)
    definition = services.export_game_definition(game)
    definition["name"] = "Renamed"
    definition["formats"][0]["versions"][0].update(change)

    with pytest.raises(ValueError, match=r"Bad format") as error:
        services.save_game(definition=definition)

    assert reason in str(error.value)
    assert formats_state(game) == before
    assert game_of(slug).name != "Renamed"


def test_a_format_may_only_name_card_types_of_its_own_game():
    """The same rule is fine in the game that has the type and refused in one that has not."""
    rule = {"rule": "requires_type", "type": "pantheon"}
    ogam, irdya = game_of("of-gods-and-men"), game_of("irdya")
    services.save_format(game=ogam, data={**plain(ogam.default_format()), "rules": [rule]})
    with pytest.raises(ValidationError, match="bad value for 'type'"):
        services.save_format(game=irdya, data={**plain(irdya.default_format()), "rules": [rule]})


# --- the admin ------------------------------------------------------------------------------


def format_form(fmt: Format, **changes) -> dict:
    """The format's admin form as a browser posts it: its own fields (its sections and rules
    are its versions', on their own pages) and the count of its read-only versions list."""
    data = {
        "game": fmt.game_id,
        "name": fmt.name,
        "slug": fmt.slug,
        "is_default": "on" if fmt.is_default else "",
        "position": fmt.position,
        "hand_size": fmt.hand_size,
        "versions-TOTAL_FORMS": 0,
        "versions-INITIAL_FORMS": 0,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v != ""}


def test_admin_version_page_refuses_a_bad_rule_with_the_reason_and_saves_nothing(staff_client):
    version = game_of("force-of-will").formats.get(slug="constructed").current
    before = formats_state(version.format.game)
    bad = [*version.rules, {"rule": "section_types", "deck": "side", "types": ["god-card"]}]

    response = staff_client.post(
        reverse("admin:cards_formatversion_change", args=[version.pk]),
        version_form(version, rules=json.dumps(bad)),
    )

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    number = len(bad)  # the rule added last
    assert f"Rule {number} (section_types): bad value for 'types'" in " ".join(errors["rules"])
    assert "bad value for &#x27;types&#x27;" in response.content.decode()
    assert formats_state(version.format.game) == before


def test_admin_version_page_saves_a_good_change_and_bumps_the_rules_version(staff_client):
    fmt = game_of("force-of-will").formats.get(slug="constructed")
    version, rules_version = fmt.current, fmt.game.rules_version
    rules = [r for r in version.rules if r["rule"] != "leader_required"]
    url = reverse("admin:cards_formatversion_change", args=[version.pk])

    preview, response = save_version(
        staff_client, url, version_form(version, rules=json.dumps(rules))
    )

    assert "This version makes no deck illegal" in preview.content.decode()
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Format.objects.get(pk=fmt.pk).rules == rules
    assert game_of("force-of-will").rules_version > rules_version


def test_admin_add_format_page_refuses_a_second_default(staff_client):
    fow = game_of("force-of-will")
    before = formats_state(fow)
    new = Format(game=fow, slug="draft", name="Draft", is_default=True, position=2)

    response = staff_client.post(reverse("admin:cards_format_add"), format_form(new))

    assert response.status_code == 200
    assert "make that one not the default first" in response.content.decode()
    assert formats_state(fow) == before


def test_admin_format_change_page_refuses_a_second_default(staff_client):
    fmt = game_of("force-of-will").formats.get(slug="constructed")
    before = formats_state(fmt.game)

    response = staff_client.post(
        reverse("admin:cards_format_change", args=[fmt.pk]), format_form(fmt, is_default="on")
    )

    assert response.status_code == 200
    assert "make that one not the default first" in response.content.decode()
    assert formats_state(fmt.game) == before


# --- export and import with the game definition --------------------------------------------


@pytest.mark.parametrize("slug", ["card-of-gods", "force-of-will", "of-gods-and-men", "irdya"])
def test_game_definition_export_then_import_keeps_the_formats(slug):
    game = game_of(slug)
    exported = json.loads(json.dumps(services.export_game_definition(game)))
    assert [f["slug"] for f in exported["formats"]] == [f.slug for f in game.formats.all()]
    # Change every format, then import the export back.
    for fmt in game.formats.all():
        version = fmt.current
        version.rules, version.notes, version.banlist = [], "changed", {"x": 0}
        version.save()

    services.save_game(definition=exported)

    assert [f.as_data() for f in game.formats.all()] == exported["formats"]
    assert services.export_game_definition(game) == exported


def test_json_export_of_the_cards_carries_the_formats_and_importing_it_restores_them():
    fow = game_of("force-of-will")
    exported = importers.export_game(game=fow, fmt="json")
    before = [f.as_data() for f in fow.formats.all()]
    constructed = fow.formats.get(slug="constructed").current
    constructed.rules = constructed.rules[:1]
    constructed.save()

    data = importers.read_file(io.BytesIO(exported.encode()), fmt="json")
    report = importers.import_records(
        game=fow, cards=data.cards, leaders=data.leaders, definition=data.definition
    )

    assert report.errors == []
    assert [f.as_data() for f in fow.formats.all()] == before


def test_importing_a_file_whose_definition_adds_a_format_saves_it():
    game = game_of("card-of-gods")
    document = json.loads(importers.export_game(game=game, fmt="json"))
    casual = {**document["game"]["formats"][0], "slug": "casual", "name": "Casual"}
    del casual["versions"]
    casual.update(default=False, rules=[{"rule": "deck_size", "min": 5}])
    document["game"]["formats"].append(casual)

    data = importers.read_file(io.BytesIO(json.dumps(document).encode()), fmt="json")
    report = importers.import_records(
        game=game, cards=data.cards, leaders=data.leaders, definition=data.definition
    )

    assert report.errors == []
    assert game.formats.get(slug="casual").rules == [{"rule": "deck_size", "min": 5}]
    assert game.default_format().slug == "standard"


def test_importing_a_file_with_a_bad_format_reports_it_and_writes_nothing():
    game = game_of("card-of-gods")
    before = formats_state(game)
    document = json.loads(importers.export_game(game=game, fmt="json"))
    document["game"]["formats"][0]["versions"][0]["rules"] = [{"rule": "deck_size", "exactly": -1}]
    document["cards"][0]["text"] = "Changed by the bad import."

    data = importers.read_file(io.BytesIO(json.dumps(document).encode()), fmt="json")
    report = importers.import_records(
        game=game, cards=data.cards, leaders=data.leaders, definition=data.definition
    )

    assert [(e.row, e.field) for e in report.errors] == [(0, "game")]
    assert "deck_size" in report.errors[0].message
    assert formats_state(game) == before
    assert not game.cards.filter(text="Changed by the bad import.").exists()


# --- the engine's cache sees a saved format at once -----------------------------------------


def test_saving_a_format_bumps_the_rules_version_and_the_catalogue_sees_the_change():
    game = game_of("card-of-gods")
    before = catalogue.game_rules("card-of-gods")
    assert {"rule": "deck_size", "exactly": 10, "section": "5.3"} in before.format().rules
    data = copy.deepcopy(game.default_format().as_data())
    today = data["versions"][-1]  # the one in force
    today["rules"][1] = {"rule": "deck_size", "exactly": 12, "section": "5.3"}

    services.save_format(game=game, data=data)

    game.refresh_from_db()
    after = catalogue.game_rules("card-of-gods")
    assert after.version == game.rules_version > before.version
    assert after.format().rules == today["rules"]
    assert after.format("standard") == game.default_format().engine()


def test_a_new_format_is_seen_by_the_catalogue_and_the_api():
    game = game_of("irdya")
    data = {**plain(game.default_format()), "slug": "open", "name": "Open", "default": False}
    data["rules"] = [r for r in data["rules"] if r["rule"] != "loyalty_gate"]

    services.save_format(game=game, data=data)

    rules = catalogue.game_rules("irdya")
    assert set(rules.formats) == {"standard", "open"}
    assert rules.default_format == "standard"
    assert rules.format("open") == game.formats.get(slug="open").engine()
    response = APIClient().get("/api/games/irdya/formats/open/")
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("slug", "name", "default", "sections", "rules", "banlist")} == {
        k: data[k] for k in ("slug", "name", "default", "sections", "rules", "banlist")
    }
