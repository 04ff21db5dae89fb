"""The import_cards, export_cards and load_sample_data management commands."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from cards.models import Card, Game, Keyword, Leader
from cards.text import MAX_DEPTH

CARD = {"name": "Ember", "rarity": "common", "cost": {"destruction": 1}}


def call(*args, **kwargs) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err, **kwargs)
    return out.getvalue(), err.getvalue()


def write_json(tmp_path, document, name="cards.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


# --- import_cards ---------------------------------------------------------------------------


def test_import_cards_imports_a_json_file_into_the_game_it_names(game, tmp_path):
    path = write_json(tmp_path, {"game": "card-of-gods", "cards": [CARD]})
    out, _ = call("import_cards", str(path))
    assert "1 created" in out
    assert Card.objects.get(game=game, slug="ember").total_cost == 1


def test_import_cards_needs_game_for_a_csv_file_without_a_game_column(game, tmp_path):
    path = tmp_path / "cards.csv"
    path.write_text("type,name,rarity,cost\ncard,Ember,common,destruction:1\n", encoding="utf-8")
    with pytest.raises(CommandError, match="Name the game"):
        call("import_cards", str(path))
    out, _ = call("import_cards", str(path), "--game", "card-of-gods")
    assert "1 created" in out
    assert Card.objects.filter(game=game, slug="ember").exists()


def test_import_cards_with_format_option_reads_a_file_without_extension(game, tmp_path):
    path = tmp_path / "cards.txt"
    path.write_text("type,game,name,rarity\ncard,card-of-gods,Ember,common\n", encoding="utf-8")
    call("import_cards", str(path), "--format", "csv")
    assert Card.objects.filter(game=game, slug="ember").exists()


def test_import_cards_reports_each_bad_row_and_writes_nothing(game, tmp_path):
    path = write_json(
        tmp_path,
        {
            "game": "card-of-gods",
            "cards": [
                CARD,
                {"name": "Gust", "rarity": "common", "cost": {"air": 1}},
                {"name": "", "rarity": "common"},
            ],
        },
    )
    err = io.StringIO()
    with pytest.raises(CommandError, match="2 bad row"):
        call_command("import_cards", str(path), stdout=io.StringIO(), stderr=err)
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("card row 2 (Gust), cost: Unknown domain 'air'")
    assert lines[1].startswith("card row 3, name: ")
    assert not Card.objects.filter(slug="ember").exists()


def test_import_cards_dry_run_writes_nothing(game, tmp_path):
    path = write_json(tmp_path, {"game": "card-of-gods", "cards": [CARD]})
    out, _ = call("import_cards", str(path), "--dry-run")
    assert "Dry run" in out and "1 created" in out
    assert not Card.objects.filter(slug="ember").exists()


def test_import_cards_fails_on_a_missing_or_unreadable_file(game, tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        call("import_cards", str(tmp_path / "missing.json"))
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(CommandError, match="Not valid JSON"):
        call("import_cards", str(path))


@pytest.mark.parametrize("options", [["--dry-run"], []], ids=["dry-run", "import"])
@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param("[" * 100_000, f"nested deeper than {MAX_DEPTH} levels", id="deep"),
        pytest.param(
            '{"game": "card-of-gods", "cards": [{"name": "Ember", "rarity": "common", "cost": '
            '{"destruction": ' + "9" * 5000 + "}}]}",
            "A number in the file has more than 4300 digits",
            id="long",
        ),
    ],
)
def test_import_cards_reports_json_too_deep_or_with_a_huge_number_as_a_bad_file(
    game, tmp_path, content, message, options
):
    path = tmp_path / "cards.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        call("import_cards", *options, str(path))
    assert not Card.objects.filter(slug="ember").exists()


def test_import_cards_refuses_a_game_that_disagrees_with_the_file(game, tmp_path):
    path = write_json(tmp_path, {"game": "card-of-gods", "cards": [CARD]})
    with pytest.raises(CommandError, match="not 'other-game'"):
        call("import_cards", str(path), "--game", "other-game")


# --- export_cards ---------------------------------------------------------------------------


def test_export_cards_writes_json_to_stdout_by_default(game):
    out, _ = call("export_cards", "card-of-gods")
    document = json.loads(out)
    assert document["game"]["slug"] == "card-of-gods"
    assert [f["slug"] for f in document["game"]["formats"]] == ["standard"]
    assert {c["slug"] for c in document["cards"]} >= {"healing", "blood-pact"}
    assert {x["slug"] for x in document["leaders"]} >= {"richard", "gottfried", "kellantra"}


def test_export_cards_writes_csv_to_a_file_and_import_reads_it_back(game, tmp_path):
    path = tmp_path / "export.csv"
    call("export_cards", "card-of-gods", "--output", str(path))
    text = path.read_text(encoding="utf-8")
    assert text.startswith("type,game,slug,name,")
    Card.objects.filter(game=game, slug="healing").update(text="changed")

    out, _ = call("import_cards", str(path))

    assert "1 updated" in out
    assert Card.objects.get(game=game, slug="healing").text == "Heal all lost wounds of the target."


def test_export_cards_fails_for_an_unknown_game(db):
    with pytest.raises(CommandError, match="Unknown game"):
        call("export_cards", "nope")


# --- load_sample_data -----------------------------------------------------------------------


def counts():
    return (
        Game.objects.count(),
        Card.objects.count(),
        Leader.objects.count(),
        Keyword.objects.count(),
    )


def test_load_sample_data_is_idempotent_and_loads_the_seven_factions(db):
    out, _ = call("load_sample_data")
    assert out.startswith("Loaded ")
    first = counts()
    updated = list(Card.objects.order_by("pk").values_list("pk", "updated"))

    out, _ = call("load_sample_data")

    assert counts() == first
    assert list(Card.objects.order_by("pk").values_list("pk", "updated")) == updated
    assert "0 created, 0 updated" in out
    game = Game.objects.get(slug="card-of-gods")
    assert sorted(k.name for k in game.keywords.filter(is_faction=True)) == sorted(
        [
            "Engeln",
            "Castilla",
            "Abyss",
            "Keld",
            "Priory of Hope",
            "Brumgar's Horde",
            "Kriegmark",
        ]
    )


@pytest.mark.parametrize("name", ["tiny.json", "rules/card-of-gods.rulings.json"])
def test_load_sample_data_reports_a_sample_file_nested_too_deep(db, tmp_path, monkeypatch, name):
    from cards.management.commands import load_sample_data

    (tmp_path / "rules").mkdir()
    sample = {"game": {"slug": "card-of-gods", "name": "Card of Gods"}, "cards": []}
    write_json(tmp_path, sample, name="tiny.json")
    (tmp_path / name).write_text("[" * 100_000, encoding="utf-8")
    monkeypatch.setattr(load_sample_data, "SAMPLE_DIR", tmp_path)
    monkeypatch.setattr(load_sample_data, "RULES_DIR", tmp_path / "rules")

    with pytest.raises(CommandError, match=f"nested deeper than {MAX_DEPTH} levels"):
        call("load_sample_data")


def test_load_sample_data_fails_loudly_on_a_bad_record_and_writes_nothing(
    db, tmp_path, monkeypatch
):
    from cards.management.commands import load_sample_data

    sample = {
        "game": {"slug": "tiny", "name": "Tiny", "rarities": [{"slug": "c", "name": "C"}]},
        "cards": [{"name": "Fine", "rarity": "c"}, {"name": "Bad", "rarity": "zz"}],
    }
    write_json(tmp_path, sample, name="tiny.json")
    monkeypatch.setattr(load_sample_data, "SAMPLE_DIR", tmp_path)

    with pytest.raises(CommandError, match=r"card row 2 \(Bad\), rarity"):
        call("load_sample_data")
    assert not Game.objects.filter(slug="tiny").exists()
