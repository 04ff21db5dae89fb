"""Bulk import and export of cards and leaders (cards.importers)."""

import io
import json
import re

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from cards import importers, services
from cards.importers import ImportFileError, export_game, import_records, read_file
from cards.models import Card, Game, Keyword, Leader
from cards.text import MAX_DEPTH

CSV_HEADER = "type,slug,name,rarity,cost,colours,keywords,condition,text,makes_attack\n"


def csv_file(*rows: str, header: str = CSV_HEADER, name: str = "cards.csv") -> io.BytesIO:
    upload = io.BytesIO((header + "".join(row + "\n" for row in rows)).encode("utf-8"))
    upload.name = name
    return upload


def json_file(document: dict, name: str = "cards.json") -> io.BytesIO:
    upload = io.BytesIO(json.dumps(document).encode("utf-8"))
    upload.name = name
    return upload


def run(game, source, dry_run=False, fmt=None):
    data = read_file(source, fmt=fmt)
    return import_records(
        game=game, cards=data.cards, leaders=data.leaders, errors=data.errors, dry_run=dry_run
    )


def snapshot(game):
    """Everything an import could change, to prove that it changed nothing."""
    return (
        list(
            Card.objects.filter(game=game)
            .order_by("pk")
            .values_list("pk", "slug", "name", "cost", "text", "rarity__slug", "updated")
        ),
        list(
            Leader.objects.filter(game=game)
            .order_by("pk")
            .values_list("pk", "slug", "name", "text", "updated")
        ),
        sorted(Card.keywords.through.objects.values_list("card_id", "keyword_id")),
        sorted(Leader.colours.through.objects.values_list("leader_id", "colour_id")),
        Keyword.objects.count(),
    )


GOOD_JSON = {
    "game": "card-of-gods",
    "leaders": [
        {
            "name": "Brumgar",
            "colours": ["red", "black"],
            "keywords": ["Brumgar's Horde"],
            "text": "Warlord of the horde.",
        },
        {
            "slug": "richard",
            "name": "Richard",
            "colours": ["yellow", "red"],
            "keywords": ["Engeln", "Knight"],
        },
    ],
    "cards": [
        {
            "name": "Sapling Wall",
            "rarity": "common",
            "cost": {"life": 1, "creation": 1},
            "keywords": ["Keld", "Wall"],
            "text": "A wall of living wood.",
            "makes_attack": False,
        },
        {"name": "Healing", "rarity": "rare", "cost": {"life": 3}, "text": "Heal everything."},
    ],
}


# --- good files -----------------------------------------------------------------------------


def test_good_json_file_creates_new_and_updates_existing_records_by_slug(game):
    cards_before = Card.objects.filter(game=game).count()
    healing_pk = Card.objects.get(game=game, slug="healing").pk

    report = run(game, json_file(GOOD_JSON))

    assert report.errors == []
    assert (report.created, report.updated, report.unchanged) == (2, 2, 0)
    assert report.written
    assert Card.objects.filter(game=game).count() == cards_before + 1
    wall = Card.objects.get(game=game, slug="sapling-wall")
    assert wall.cost == {"creation": 1, "life": 1}  # normalised to the game's domain order
    assert {c.slug for c in wall.colours.all()} == {"yellow", "green"}
    assert sorted(k.name for k in wall.keywords.all()) == ["Keld", "Wall"]
    healing = Card.objects.get(game=game, slug="healing")
    assert healing.pk == healing_pk  # updated in place
    assert (healing.rarity.slug, healing.cost) == ("rare", {"life": 3})
    assert healing.text == "Heal everything."
    richard = Leader.objects.get(game=game, slug="richard")
    assert {c.slug for c in richard.colours.all()} == {"yellow", "red"}
    brumgar = Leader.objects.get(game=game, slug="brumgar")
    assert [k.name for k in brumgar.factions] == ["Brumgar's Horde"]


def test_good_csv_file_creates_and_updates_and_handles_a_bom(game):
    rows = [
        'leader,,Brumgar,,,red|black,Brumgar\'s Horde,,"Warlord, of the horde.",',
        "card,,Sapling Wall,common,life:1 creation:1,,Keld|Wall,,A wall of living wood.,false",
        'card,despair,Despair,common,death:3,,,,"Strike twice.\nThen rest.",true',
    ]
    upload = csv_file(*rows)
    upload = io.BytesIO(b"\xef\xbb\xbf" + upload.getvalue())
    upload.name = "cards.csv"

    report = run(game, upload)

    assert report.errors == []
    assert (report.created, report.updated) == (2, 1)
    despair = Card.objects.get(game=game, slug="despair")
    assert (despair.cost, despair.makes_attack) == ({"death": 3}, True)
    assert despair.text == "Strike twice.\nThen rest."
    assert Leader.objects.get(game=game, slug="brumgar").text == "Warlord, of the horde."
    assert sorted(k.name for k in Card.objects.get(slug="sapling-wall").keywords.all()) == [
        "Keld",
        "Wall",
    ]


def test_importing_the_same_file_twice_changes_nothing_the_second_time(game):
    run(game, json_file(GOOD_JSON))
    before = snapshot(game)

    report = run(game, json_file(GOOD_JSON))

    assert (report.created, report.updated, report.unchanged) == (0, 0, 4)
    assert snapshot(game) == before


def test_plain_dicts_can_be_imported_directly(game):
    report = import_records(
        game=game, cards=[{"name": "Ember", "rarity": "common", "cost": {"destruction": 1}}]
    )
    assert (report.created, report.errors) == (1, [])
    assert Card.objects.get(game=game, slug="ember").total_cost == 1


# --- bad files write nothing ----------------------------------------------------------------


def test_a_json_file_with_one_bad_row_writes_nothing_and_names_the_row(game):
    document = json.loads(json.dumps(GOOD_JSON))
    document["cards"].append({"name": "Bad Cost", "rarity": "common", "cost": {"air": 1}})
    before = snapshot(game)

    report = run(game, json_file(document))

    assert not report.written
    assert [(e.kind, e.row, e.field) for e in report.errors] == [("card", 3, "cost")]
    assert "Unknown domain 'air'" in report.errors[0].message
    assert str(report.errors[0]).startswith("card row 3 (Bad Cost), cost: Unknown domain 'air'")
    assert snapshot(game) == before
    assert not Card.objects.filter(slug="sapling-wall").exists()


def test_a_csv_file_with_one_bad_row_writes_nothing_and_reports_its_line(game):
    before = snapshot(game)
    upload = csv_file(
        "card,,Sapling Wall,common,life:1,,,,,",
        'card,,Long Card,common,life:1,,,,"two\nlines",',
        "card,,Bad Rarity,mythic,life:1,,,,,",
    )

    report = run(game, upload)

    # Header is line 1; "Long Card" spans lines 3-4, so the bad row starts on line 5.
    assert [(e.row, e.field) for e in report.errors] == [(5, "rarity")]
    assert "mythic" in report.errors[0].message
    assert report.created == 2  # counted, then rolled back
    assert snapshot(game) == before


def test_dry_run_writes_nothing_but_reports_counts(game):
    before = snapshot(game)

    report = run(game, json_file(GOOD_JSON), dry_run=True)

    assert report.errors == []
    assert (report.created, report.updated) == (2, 2)
    assert not report.written
    assert "Dry run" in report.summary()
    assert snapshot(game) == before


def test_dry_run_reports_every_bad_row(game):
    document = {
        "cards": [
            {"name": "A", "rarity": "common", "cost": {"air": 1}},
            {"name": "B", "rarity": "common"},
            {"name": "C", "rarity": "legendary"},
        ]
    }
    report = run(game, json_file(document), dry_run=True)
    assert [(e.row, e.field) for e in report.errors] == [(1, "cost"), (3, "rarity")]


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        ({"name": "X", "rarity": "common", "cost": {"air": 1}}, "cost", "Unknown domain 'air'"),
        ({"name": "X", "rarity": "common", "cost": {"life": "two"}}, "cost", "whole number"),
        ({"name": "X", "rarity": "common", "cost": {"life": 1.5}}, "cost", "whole number"),
        ({"name": "X", "rarity": "common", "cost": {"life": 0}}, "cost", "whole number"),
        ({"name": "X", "rarity": "mythic"}, "rarity", "mythic"),
        ({"name": "", "rarity": "common"}, "name", "blank"),
        ({"rarity": "common"}, "name", "required"),
        ({"slug": "new-healing", "name": "HEALING", "rarity": "common"}, "name", "already exists"),
        ({"name": "X", "rarity": "common", "colour": "red"}, "colour", "Unknown field"),
    ],
    ids=[
        "unknown-domain",
        "non-integer-cost",
        "fractional-cost",
        "zero-cost",
        "unknown-rarity",
        "empty-name",
        "missing-name",
        "duplicate-name",
        "unknown-field",
    ],
)
def test_bad_card_records_are_reported_with_field_and_reason(game, record, field, message):
    report = import_records(game=game, cards=[record])
    assert [(e.row, e.field) for e in report.errors] == [(1, field)]
    assert message in report.errors[0].message
    assert not Card.objects.filter(game=game, name="X").exists()


def test_unknown_leader_colour_is_reported(game):
    report = import_records(game=game, leaders=[{"name": "Nobody", "colours": ["purple"]}])
    assert [(e.kind, e.row, e.field) for e in report.errors] == [("leader", 1, "colours")]
    assert "purple" in report.errors[0].message
    assert not Leader.objects.filter(slug="nobody").exists()


def test_the_same_slug_twice_in_one_file_is_a_row_error(game):
    report = import_records(
        game=game,
        cards=[
            {"name": "Ember", "rarity": "common"},
            {"name": "Ember", "rarity": "rare"},
            {"slug": "other", "name": "ember", "rarity": "rare"},
        ],
    )
    assert [(e.row, e.field) for e in report.errors] == [(2, "slug"), (3, "name")]
    assert "Duplicate of row 1" in report.errors[0].message
    assert not Card.objects.filter(slug="ember").exists()


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ("card,,X,common,life2,,,,,", "cost", "key:number pairs"),
        ("card,,X,common,air:1,,,,,", "cost", "Unknown domain 'air'"),
        ("card,,X,common,life:two,,,,,", "cost", "whole number"),
        (f"card,,X,common,life:{'9' * 5000},,,,,", "cost", "whole number"),
        ("card,,X,common,,,,,,maybe", "makes_attack", "valid boolean"),
        ("leader,,X,rare,,green,,,,", "rarity", "Leaders have no such field"),
        ("leader,,X,,,purple,,,,", "colours", "purple"),
        ("spell,,X,common,,,,,,", "type", "card or leader"),
    ],
)
def test_bad_csv_cells_are_reported_on_their_line(game, row, field, message):
    report = run(game, csv_file("card,,Fine,common,,,,,,", row))
    assert [(e.row, e.field) for e in report.errors] == [(3, field)]
    assert message in report.errors[0].message
    assert not Card.objects.filter(slug="fine").exists()


def test_a_clash_with_the_database_is_a_row_error_not_a_crash(game, monkeypatch):
    from django.db import IntegrityError

    def clash(**kwargs):
        raise IntegrityError("UNIQUE constraint failed")

    # As a concurrent write after the check would: the bulk write fails, then the row alone.
    monkeypatch.setattr(services, "save_cards", clash)
    report = import_records(game=game, cards=[{"name": "Ember", "rarity": "common"}])
    assert [(e.row, e.field) for e in report.errors] == [(1, "record")]
    assert "UNIQUE" in report.errors[0].message


# --- whole-file problems --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        (b"{not json", "x.json", "Not valid JSON"),
        (b"[]", "x.json", "must be an object"),
        (b'{"cards": {}}', "x.json", "must be a list"),
        (b"name,rarity\nX,common\n", "x.csv", "missing column(s) type"),
        (b"type,name,colour\n", "x.csv", "unknown column(s) colour"),
        (b"", "x.csv", "empty"),
        (b"\xff\xfe", "x.csv", "not UTF-8"),
        (b"type,name\n", "x.txt", "format"),
        (b"type,game,name\ncard,a,X\ncard,b,Y\n", "x.csv", "mixes games"),
    ],
)
def test_unreadable_files_raise_a_file_error(content, name, message):
    upload = io.BytesIO(content)
    upload.name = name
    with pytest.raises(ImportFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_file(upload)


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def card_with(cost: str) -> str:
    """A file of one card whose cost is the JSON text `cost`."""
    card = '{"name": "X", "rarity": "common", "cost": ' + cost + "}"
    return '{"game": "card-of-gods", "cards": [' + card + "]}"


TOO_DEEP = f"The file is nested deeper than {MAX_DEPTH} levels."
TOO_LONG = "A number in the file has more than 4300 digits."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("[" * 100_000, TOO_DEEP, id="100000-open-brackets"),  # RecursionError
        pytest.param(nested(100_000), TOO_DEEP, id="100000-levels"),  # RecursionError
        pytest.param(card_with(nested(MAX_DEPTH)), TOO_DEEP, id="deep-value"),  # read, too deep
        pytest.param(card_with('{"life": ' + "9" * 5000 + "}"), TOO_LONG, id="5000-digits"),
        pytest.param("-" + "1" * 4301, TOO_LONG, id="4301-digits"),  # int()'s ValueError
    ],
)
def test_json_too_deep_or_with_a_number_int_refuses_is_a_file_error(text, message):
    with pytest.raises(ImportFileError) as raised:
        importers.load_json(text)
    assert str(raised.value) == message
    upload = io.BytesIO(text.encode())
    upload.name = "cards.json"
    with pytest.raises(ImportFileError, match=re.escape(message)):
        read_file(upload)  # as the admin and import_cards read a file


def test_json_is_read_up_to_the_depth_limit_and_bad_strings_are_left_to_the_rows():
    assert importers.load_json(nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))
    assert importers.load_json("1" * 4300) == int("1" * 4300)
    # NUL and lone surrogates are not file errors: the rows report them, naming row and field.
    data = read_file(json_file({"cards": [{"name": "X\x00\ud800", "rarity": "common"}]}))
    assert data.cards[0].data["name"] == "X\x00\ud800"


def test_game_comes_from_the_file_or_the_caller_and_must_agree(game):
    assert importers.resolve_game(file_game="card-of-gods", requested=None) == game
    assert importers.resolve_game(file_game=None, requested="card-of-gods") == game
    with pytest.raises(ImportFileError, match="not 'other'"):
        importers.resolve_game(file_game="card-of-gods", requested="other")
    with pytest.raises(ImportFileError, match="Name the game"):
        importers.resolve_game(file_game=None, requested=None)
    with pytest.raises(ImportFileError, match="Unknown game"):
        importers.resolve_game(file_game="nope", requested=None)


def test_read_file_takes_a_path_and_the_sample_game_definition(tmp_path):
    path = tmp_path / "sample.json"
    path.write_text(
        json.dumps(
            {
                "game": {"slug": "card-of-gods", "name": "Card of Gods"},
                "cards": [{"name": "X", "rarity": "common"}],
            }
        )
    )
    data = read_file(path)
    assert (data.fmt, data.game, len(data.cards)) == ("json", "card-of-gods", 1)


# --- export and round trips -----------------------------------------------------------------


def test_json_export_has_the_api_write_shape(game):
    document = json.loads(export_game(game=game, fmt="json"))
    assert document["game"]["slug"] == "card-of-gods"
    assert document["game"] == services.export_game_definition(game)
    fiery = next(c for c in document["cards"] if c["slug"] == "fiery-earth")
    assert fiery == {
        "slug": "fiery-earth",
        "name": "Fiery Earth",
        "type": "god-card",
        "rarity": "uncommon",
        "cost": {"creation": 1, "destruction": 1},
        "stats": {},
        "keywords": [],
        "loyalty": None,
        "condition": "",
        "text": "The ground burns until the end of activation.",
        "flavour": "",
        "effect_source": "",
        "makes_attack": False,
        "image": "",
    }
    gottfried = next(x for x in document["leaders"] if x["slug"] == "gottfried")
    assert sorted(gottfried["colours"]) == ["black", "red", "yellow"]
    assert gottfried["keywords"] == ["Kriegmark"]


def test_csv_export_writes_documented_columns(game):
    text = export_game(game=game, fmt="csv")
    lines = text.splitlines()
    assert lines[0] == ",".join(importers.CSV_COLUMNS)
    assert any(
        line.startswith(
            "card,card-of-gods,fiery-earth,Fiery Earth,god-card,uncommon,creation:1 destruction:1,,"
        )
        for line in lines
    )
    assert any(
        line.startswith("leader,card-of-gods,kellantra,Kellantra,,,,green,,Druid|Keld,")
        for line in lines
    )


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_then_import_round_trips(game, fmt):
    healing = Card.objects.get(game=game, slug="healing")
    healing.text = 'Heal "all" wounds,\nthen rest.'
    healing.flavour = "Ünïcödé ☀"
    healing.save()
    exported = export_game(game=game, fmt=fmt)

    # Wipe what the export describes, then import it back.
    Card.objects.filter(game=game).update(text="changed", cost={})
    Leader.objects.get(game=game, slug="gottfried").colours.clear()
    upload = io.BytesIO(exported.encode("utf-8"))
    upload.name = f"export.{fmt}"
    data = read_file(upload)
    assert data.game == "card-of-gods"
    report = run(game, io.BytesIO(exported.encode("utf-8")), fmt=fmt)

    assert report.errors == []
    assert report.created == 0
    assert export_game(game=game, fmt=fmt) == exported
    # And a second import of the same export finds everything unchanged.
    again = run(game, io.BytesIO(exported.encode("utf-8")), fmt=fmt)
    assert (again.created, again.updated) == (0, 0)


# --- the other games: card types, stats, given colours, loyalty; the game definition --------

FULL_HEADER = ",".join(importers.CSV_COLUMNS) + "\n"


def full_row(**cells) -> str:
    """A CSV row of every column, empty but for `cells`."""
    import csv

    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow([cells.get(c, "") for c in importers.CSV_COLUMNS])
    return out.getvalue()


def game_of(slug):
    from cards.models import Game

    return Game.objects.get(slug=slug)


def test_csv_reads_card_type_stats_and_a_generic_cost(db):
    fow = game_of("force-of-will")
    upload = csv_file(
        full_row(
            type="card",
            name="Probe",
            card_type="resonator",
            rarity="common",
            cost="fire:1 generic:2",
            stats="atk:600 def:400",
        ),
        header=FULL_HEADER,
    )

    report = run(fow, upload)

    assert report.errors == [] and report.created == 1
    probe = Card.objects.get(game=fow, slug="probe")
    assert (probe.type.slug, probe.stats, probe.cost) == (
        "resonator",
        {"atk": 600, "def": 400},
        {"fire": 1, "generic": 2},
    )
    assert [c.slug for c in probe.colours.all()] == ["fire"]


def test_csv_reads_given_colours_where_the_game_does_not_derive_them(db):
    berserk = game_of("berserk-heroes")
    upload = csv_file(
        full_row(
            type="card",
            name="Probe",
            card_type="creature",
            rarity="common",
            cost="generic:2",
            colours="forests|swamps",
            stats="strike:1 life:2",
        ),
        header=FULL_HEADER,
    )

    report = run(berserk, upload)

    assert report.errors == []
    probe = Card.objects.get(game=berserk, slug="probe")
    assert sorted(c.slug for c in probe.colours.all()) == ["forests", "swamps"]


def test_csv_reads_card_and_hero_loyalty(db):
    irdya = game_of("irdya")
    upload = csv_file(
        full_row(type="leader", name="Probe Hero", keywords="Human", loyalty="Rebels:2|Drakes:1"),
        full_row(type="card", name="Probe", card_type="spell", rarity="common", loyalty="Undead:3"),
        header=FULL_HEADER,
    )

    report = run(irdya, upload)

    assert report.errors == [] and report.created == 2
    assert Leader.objects.get(game=irdya, slug="probe-hero").loyalty == {"Rebels": 2, "Drakes": 1}
    assert Card.objects.get(game=irdya, slug="probe").loyalty == {"faction": "Undead", "points": 3}


@pytest.mark.parametrize(
    ("game", "cells", "field", "message"),
    [
        ("force-of-will", {"card_type": "god-card"}, "type", "god-card"),
        ("force-of-will", {}, "type", "required"),
        ("force-of-will", {"card_type": "chant", "stats": "atk600"}, "stats", "key:number pairs"),
        ("force-of-will", {"card_type": "chant", "stats": "strike:1"}, "stats", "'strike'"),
        ("force-of-will", {"card_type": "chant", "stats": "atk:-1"}, "stats", "whole number"),
        ("force-of-will", {"card_type": "chant", "cost": "air:1"}, "cost", "'air'"),
        ("irdya", {"card_type": "spell", "loyalty": "Undead:4"}, "loyalty.points", "3"),
        ("irdya", {"card_type": "spell", "loyalty": "Human:1"}, "loyalty.faction", "Human"),
        ("irdya", {"card_type": "spell", "loyalty": "Undead"}, "loyalty", "Faction:points"),
        ("irdya", {"card_type": "spell", "loyalty": f"Undead:{'9' * 5000}"}, "loyalty", "large"),
        ("irdya", {"card_type": "spell", "loyalty": "Undead:1|Drakes:1"}, "loyalty", "one"),
    ],
)
def test_bad_cells_of_the_new_columns_are_reported_on_their_line(db, game, cells, field, message):
    target = game_of(game)
    before = Card.objects.filter(game=target).count()
    fine_type = "chant" if game == "force-of-will" else "spell"
    upload = csv_file(
        full_row(type="card", name="Fine", card_type=fine_type, rarity="common"),
        full_row(type="card", name="Probe", rarity="common", **cells),
        header=FULL_HEADER,
    )

    report = run(target, upload)

    assert [(e.row, e.field) for e in report.errors] == [(3, field)]
    assert message in report.errors[0].message
    assert Card.objects.filter(game=target).count() == before


@pytest.mark.parametrize("slug", ["force-of-will", "berserk-heroes", "irdya"])
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_every_games_export_imports_back_unchanged(db, slug, fmt):
    target = game_of(slug)
    exported = export_game(game=target, fmt=fmt)

    report = run(target, io.BytesIO(exported.encode("utf-8")), fmt=fmt)

    assert report.errors == []
    assert (report.created, report.updated) == (0, 0)
    assert report.unchanged == target.cards.count() + target.leaders.count()
    assert export_game(game=target, fmt=fmt) == exported


def test_a_json_import_saves_the_game_definition_it_carries(game):
    document = json.loads(export_game(game=game, fmt="json"))
    document["game"]["cost_label"] = "Faith"
    document["game"]["stats"] = [{"slug": "power", "name": "Power"}]
    document["cards"][0]["stats"] = {"power": 2}

    data = read_file(io.BytesIO(json.dumps(document).encode("utf-8")), fmt="json")
    assert data.definition == document["game"]
    report = import_records(
        game=game, cards=data.cards, leaders=data.leaders, definition=data.definition
    )

    assert report.errors == []
    game.refresh_from_db()
    assert game.cost_label == "Faith"
    assert [s.slug for s in game.stats.all()] == ["power"]
    assert Card.objects.get(game=game, slug=document["cards"][0]["slug"]).stats == {"power": 2}


# --- two phases: every row checked first, then one bulk write -------------------------------


def many_cards(count: int) -> list[dict]:
    """`count` new cards of 0 to 3 domains, with known and three new keywords."""
    domains = ["creation", "destruction", "life", "death"]
    return [
        {
            "name": f"Bulk Card {i}",
            "rarity": "common",
            "cost": {domain: 1 for domain in domains[: i % 4]},
            "keywords": ["Keld", f"Bulkword {i % 3}"],
            "text": f"Card number {i}.",
        }
        for i in range(count)
    ]


def rules_version(game) -> int:
    return Game.objects.values_list("rules_version", flat=True).get(pk=game.pk)


def test_one_bad_row_among_many_writes_nothing_and_names_that_row(game):
    rows = many_cards(60)
    rows[41]["rarity"] = "mythic"
    before, version = snapshot(game), rules_version(game)

    report = import_records(game=game, cards=rows)

    assert [(e.row, e.field) for e in report.errors] == [(42, "rarity")]
    assert report.summary() == "1 bad row(s); nothing was written."
    assert snapshot(game) == before  # no card, no keyword
    assert rules_version(game) == version


def test_a_good_import_bumps_the_rules_version_exactly_once(game):
    version = rules_version(game)
    leaders = [
        {"slug": "richard", "name": "Richard", "colours": ["red"], "keywords": ["Bulkword 0"]},
        {"name": "Bulk Leader", "colours": ["black"], "keywords": ["Castilla"]},
    ]
    healing = {"slug": "healing", "name": "Healing", "rarity": "rare", "keywords": ["Prayer"]}

    report = import_records(game=game, cards=[*many_cards(30), healing], leaders=leaders)

    assert (report.errors, report.created, report.updated) == ([], 31, 2)
    assert rules_version(game) == version + 1  # not once a row, relation or keyword


def test_an_import_with_a_game_definition_bumps_once_too(game):
    document = json.loads(export_game(game=game, fmt="json"))
    document["game"]["cost_label"] = "Faith"
    document["cards"] += many_cards(5)
    version = rules_version(game)

    data = read_file(json_file(document))
    report = import_records(
        game=game, cards=data.cards, leaders=data.leaders, definition=data.definition
    )

    assert (report.errors, report.created) == ([], 5)
    assert rules_version(game) == version + 1


def test_reimporting_the_same_file_writes_nothing_and_bumps_nothing(game):
    """Nothing changed, so the caches keyed on the rules version stay good."""
    rows = many_cards(12)
    import_records(game=game, cards=rows)
    before, version = snapshot(game), rules_version(game)

    report = import_records(game=game, cards=rows)

    assert (report.created, report.updated, report.unchanged) == (0, 0, 12)
    assert snapshot(game) == before
    assert rules_version(game) == version


@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry-run"])
def test_the_number_of_queries_does_not_grow_with_the_rows(game, monkeypatch, dry_run):
    """Creating 10 or 100 cards, then updating them, takes as many queries."""
    if connection.vendor == "sqlite":
        # Django 5.2 puts at most 999 parameters in a statement (SQLite's limit before 3.32,
        # 32,766 since), i.e. 45 cards an INSERT: batches, not queries a row. Lifted here so that
        # each bulk write is one statement, as on PostgreSQL.
        monkeypatch.setattr(connection.features, "max_query_params", 32766)
    leaders = [{"slug": "richard", "name": "Richard", "colours": ["red"], "keywords": ["Knight"]}]
    healing = {"slug": "healing", "name": "Healing", "rarity": "rare", "text": "Changed."}
    counts = []
    for count in (10, 100):
        rows = [*many_cards(count), healing]
        changed = [{**row, "text": "Changed again.", "keywords": ["Abyss"]} for row in rows]
        with transaction.atomic():  # rolled back: both start from the same pool
            with CaptureQueriesContext(connection) as queries:
                created = import_records(game=game, cards=rows, leaders=leaders, dry_run=dry_run)
                updated = import_records(game=game, cards=changed, dry_run=dry_run)
            assert (created.errors, created.created, created.updated) == ([], count, 2)
            assert (updated.errors, updated.updated) == ([], 1 if dry_run else count + 1)
            counts.append(len(queries))
            transaction.set_rollback(True)
    assert counts[0] == counts[1] <= 90, (
        counts
    )  # two imports of cards and leaders, each kind read with its relations


def test_colour_count_follows_the_colours_of_a_bulk_import(game):
    import_records(game=game, cards=many_cards(8))
    cards = Card.objects.filter(game=game, name__startswith="Bulk Card").prefetch_related("colours")
    assert {len(c.cost) for c in cards} == {0, 1, 2, 3}
    for card in cards:
        assert card.colour_count == len(card.colours.all()) == len(card.cost)

    import_records(game=game, cards=[{"slug": "bulk-card-3", "name": "Bulk Card 3", "cost": {}}])
    assert Card.objects.get(game=game, slug="bulk-card-3").colour_count == 0


def test_colour_count_of_given_colours_after_a_bulk_import(db):
    berserk = game_of("berserk-heroes")
    probe = {"name": "Probe", "type": "creature", "rarity": "common", "colours": ["forests"]}
    report = import_records(game=berserk, cards=[probe, {**probe, "name": "Probe Two"}])
    assert report.errors == []
    assert Card.objects.get(game=berserk, slug="probe").colour_count == 1

    report = import_records(
        game=berserk,
        cards=[
            {"slug": "probe", "name": "Probe", "colours": ["forests", "swamps"]},
            {"slug": "probe-two", "name": "Probe Two", "text": "Colours kept."},
        ],
    )

    assert report.updated == 2
    counts = dict(Card.objects.filter(game=berserk).values_list("slug", "colour_count"))
    assert (counts["probe"], counts["probe-two"]) == (2, 1)


def test_new_keywords_whose_slugs_clash_are_row_errors(game):
    before = snapshot(game)
    report = import_records(
        game=game,
        cards=[
            {"name": "One", "rarity": "common", "keywords": ["Sky Walker"]},
            {"name": "Two", "rarity": "common", "keywords": ["Sky-Walker"]},
            {"name": "Three", "rarity": "common", "keywords": ["Keld!"]},
        ],
    )
    assert [(e.row, e.field) for e in report.errors] == [(2, "keywords"), (3, "keywords")]
    assert "'Sky Walker'" in report.errors[0].message
    assert snapshot(game) == before


def test_an_import_that_changes_a_card_judges_the_decks_with_it_again(game, alice):
    from deckbuilder.models import Deck
    from deckbuilder.services import deck_create

    punishment = Card.objects.get(game=game, slug="punishment")  # creation: Gottfried's yellow
    deck = deck_create(
        owner=alice,
        game=game,
        name="One card",
        leader=Leader.objects.get(game=game, slug="gottfried"),
        contents={(punishment, "main"): 1},
    )
    assert "colour_mismatch" not in {p["code"] for p in deck.problems}

    report = import_records(
        game=game, cards=[{"slug": "punishment", "name": "Punishment", "cost": {"life": 2}}]
    )

    assert report.updated == 1
    problems = Deck.objects.get(pk=deck.pk).problems
    assert ("colour_mismatch", "punishment") in {(p["code"], p.get("card")) for p in problems}


# --- keywords an import creates -------------------------------------------------------------


def test_dry_run_names_the_keywords_it_would_create_and_asks_to_check_their_spelling(game):
    before = snapshot(game)
    cards = [
        {"name": "One", "rarity": "common", "keywords": ["Plant", "Ritul"]},  # Plant exists
        {"name": "Two", "rarity": "common", "keywords": ["keld", "Shiled", "ritul"]},
    ]

    report = import_records(game=game, cards=cards, dry_run=True)

    assert report.errors == []
    assert report.new_keywords == ["Ritul", "Shiled"]  # once each, as first spelled
    assert report.summary() == (
        "Dry run, nothing was written: would be 2 created, 0 updated, 0 unchanged. "
        "It would create 2 new keywords: Ritul, Shiled — check their spelling."
    )
    assert snapshot(game) == before


def test_an_import_that_creates_keywords_says_which_in_its_summary(game):
    cards = [{"name": "One", "rarity": "common", "keywords": ["Ritul"]}]

    report = import_records(game=game, cards=cards)

    assert report.new_keywords == ["Ritul"]
    assert (
        report.summary()
        == "Imported: 1 created, 0 updated, 0 unchanged. Created 1 new keyword: Ritul."
    )
    assert Keyword.objects.filter(game=game, name="Ritul").exists()


def test_an_import_with_only_known_keywords_reports_no_new_keyword(game):
    cards = [{"name": "One", "rarity": "common", "keywords": ["PLANT", "Keld"]}]

    report = import_records(game=game, cards=cards, dry_run=True)

    assert report.new_keywords == []
    assert "keyword" not in report.summary()
