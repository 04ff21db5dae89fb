"""Importing real card pools: the Force of Will community database (`--source fowsim`), its
ban list and a deck given by printing numbers; partial imports and what a bad file gets."""

import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from cards import fowsim, importers
from cards.models import Card, CardSet, Face, Format, Game, Leader, Printing
from deckbuilder import services as decks

SLICE = Path(__file__).resolve().parents[3] / "shared" / "data" / "force-of-will"
CARDS = SLICE / "fowsim-cards-grimm-alice.json"
BANLIST = SLICE / "fowsim-wanderer-banlist.json"
DECK = SLICE / "grimm-example-deck.fdk"

pytestmark = pytest.mark.django_db


def real_slice():
    if not CARDS.exists():
        pytest.skip(
            "../shared/data/force-of-will is absent: the real Force of Will slice is not in"
            " this checkout"
        )
    return json.loads(CARDS.read_text(encoding="utf-8"))


def command(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_cards", *map(str, args), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def fow(db):
    return Game.objects.get(slug="force-of-will")


@pytest.fixture
def imported(fow):
    """The real slice imported through the command, as an admin would."""
    document = real_slice()
    out, _ = command(CARDS, "--source", "fowsim")
    return document, out


def every_printing(document) -> list[dict]:
    return [
        card
        for cluster in document["fow"]["clusters"]
        for card_set in cluster["sets"]
        for card in card_set["cards"]
    ]


# --- the real slice --------------------------------------------------------------------------


def test_every_name_printing_and_face_of_the_real_slice_is_imported(fow, imported):
    document, out = imported
    assert "created" in out
    records = every_printing(document)
    assert len(records) == 1065
    fronts = {r["id"] for r in records if fowsim.face_front(r["id"]) == r["id"]}
    backs = {r["id"] for r in records} - fronts
    numbers = set(Printing.objects.filter(game=fow).values_list("number", flat=True))
    assert fronts <= numbers  # every front is a printing ...
    for back in backs:  # ... and every back a face of a printed card or leader
        front = fowsim.face_front(back)
        assert front in numbers, back
        owner = Printing.objects.get(game=fow, number=front).owner
        assert owner.faces.exists(), back
    names = {" ".join(r["name"].split()) for r in records if r["id"] in fronts}
    stored = set(Card.objects.filter(game=fow).values_list("name", flat=True))
    stored |= set(Leader.objects.filter(game=fow).values_list("name", flat=True))
    assert names <= stored
    assert CardSet.objects.filter(game=fow, group__in=["Grimm", "Alice"]).count() == 11
    assert Face.objects.filter(game=fow, card__isnull=False).count() == 6


def test_reprints_are_one_card_and_rulers_are_leaders_with_their_j_ruler(fow, imported):
    wolf = Printing.objects.get(game=fow, number="VIN001-054").card  # a reprint of CMF-071
    assert Printing.objects.get(game=fow, number="CMF-071").card == wolf
    alice = Leader.objects.get(game=fow, printings__number="TTW-001")
    j_ruler = alice.faces.get()
    assert j_ruler.types == ["j-ruler"] and j_ruler.stats.get("atk")
    grimm = Leader.objects.get(game=fow, printings__number="CMF-005")
    assert grimm.name == "Grimm, the Fairy Tale Prince"


def test_printings_without_rarity_stay_without_and_new_rarities_are_added(fow, imported):
    _, out = imported
    assert "rarity AR (Ascended Ruler) is new: added" in out
    assert fow.rarities.filter(code="AR").exists()
    assert Printing.objects.filter(game=fow, rarity__isnull=True, set__group="Alice").exists()


def test_importing_the_real_slice_again_changes_nothing(fow, imported):
    version = Game.objects.get(pk=fow.pk).rules_version
    out, _ = command(CARDS, "--source", "fowsim")
    assert "0 created, 0 updated" in out
    assert Game.objects.get(pk=fow.pk).rules_version == version


def test_the_wanderer_ban_list_becomes_a_format_with_its_bans_and_pairs(fow):
    real_slice()
    out, _ = command(BANLIST, "--source", "fowsim")
    assert "format wanderer saved (30 cards banned, 24 pairs)" in out
    wanderer = Format.objects.get(game=fow, slug="wanderer")
    rules = {rule["rule"]: rule for rule in wanderer.rules}
    assert rules["banlist"]["cards"]["TSW-109"] == 0  # TSW-109J names its front
    assert ["TAT-090", "GRV-085"] in rules["combination_ban"]["groups"]
    constructed = Format.objects.get(game=fow, slug="constructed")
    assert wanderer.sections == constructed.sections
    command(BANLIST, "--source", "fowsim")  # again: the same format, updated
    assert Format.objects.filter(game=fow, slug="wanderer").count() == 1


def test_the_example_deck_imports_by_printing_numbers_and_wanderer_bans_gretel(
    fow, imported, alice
):
    command(BANLIST, "--source", "fowsim")
    wanderer = Format.objects.get(game=fow, slug="wanderer")
    deck = decks.deck_import(owner=alice, game=fow, text=DECK.read_text(), format=wanderer)
    assert deck.leader.name == "Grimm, the Fairy Tale Prince"
    counts = {e.section: 0 for e in deck.entries.all()}
    for entry in deck.entries.all():
        counts[entry.section] += entry.count
    assert (counts["main"], counts["stones"]) == (40, 10)
    gretel = deck.entries.get(card__printings__number="CMF-069")
    assert gretel.printing == "CMF-069"  # the printing named is kept
    banned = [p for p in deck.problems if p["code"] == "banned"]
    assert [p["card"] for p in banned] == [gretel.card.slug]
    assert "CMF-069" in decks.deck_export_text(deck)


def test_a_face_number_names_its_card_in_deck_text(fow, imported):
    parsed = decks.parse_deck_text(game=fow, fmt=fow.default_format(), text="CMF-005J\n4 CMF-058\n")
    assert parsed.leader.name == "Grimm, the Fairy Tale Prince"


def test_the_admin_imports_the_real_slice_and_the_ban_list(staff_client, fow):
    real_slice()
    url = reverse("admin:cards_card_import")
    upload = SimpleUploadedFile("cards.json", CARDS.read_bytes())
    response = staff_client.post(url, {"file": upload, "source": "fowsim"})
    assert response.status_code == 302
    assert Printing.objects.filter(game=fow, set__group="Grimm").count() > 400
    upload = SimpleUploadedFile("banlist.json", BANLIST.read_bytes())
    response = staff_client.post(url, {"file": upload, "source": "fowsim"})
    assert response.status_code == 302
    assert Format.objects.filter(game=fow, slug="wanderer").exists()


# --- partial imports and bad files (no real data needed) ---------------------------------------


def small_fowsim(*cards) -> dict:
    return {"fow": {"clusters": [{"name": "Test", "sets": [
        {"code": "TST", "name": "Test set", "cards": list(cards)}
    ]}]}}  # fmt: skip


def fowsim_card(number: str, name: str, kind="Resonator", **fields) -> dict:
    return {"id": number, "name": name, "type": [kind], "race": [], "cost": "{R}",
            "colour": ["R"], "ATK": 100, "DEF": 100, "abilities": [], "divinity": "",
            "flavour": "", "artists": [], "rarity": "C", **fields}  # fmt: skip


def test_a_partial_import_writes_the_good_rows_and_names_the_bad_one(fow, tmp_path):
    path = tmp_path / "cards.json"
    good = fowsim_card("TST-001", "Good Card")
    unmappable = fowsim_card("TST-002", "Odd Card", kind="Warden")  # no type of the game
    path.write_text(json.dumps(small_fowsim(good, unmappable)))
    with pytest.raises(CommandError, match="nothing was written"):
        command(path, "--source", "fowsim")
    assert not Card.objects.filter(game=fow, name="Good Card").exists()
    with pytest.raises(CommandError, match="Some rows of .* were refused") as failed:
        command(path, "--source", "fowsim", "--partial")
    assert Card.objects.filter(game=fow, name="Good Card").exists()
    assert not Card.objects.filter(game=fow, name="Odd Card").exists()
    assert failed.value.returncode == 1  # the exit status of manage.py


def test_a_partial_import_reports_each_refused_row_with_its_name(fow):
    document = {
        "game": "force-of-will",
        "sets": [{"code": "TST", "name": "Test set"}],
        "cards": [
            {"name": "Kept", "type": "resonator", "printings": [{"set": "TST", "number": "T-1"}]},
            {
                "name": "Refused",
                "type": "resonator",
                "printings": [{"set": "NOPE", "number": "T-2"}],
            },
        ],
    }
    data = importers.read_json(json.dumps(document))
    report = importers.import_records(game=fow, partial=True, **data.records())
    assert (report.created, report.written) == (1, True)
    assert [str(e) for e in report.errors] == [
        "card row 2 (Refused), printings[1].set: No set 'NOPE' in Force of Will: give it in"
        " the file's sets, or add it first."
    ]
    assert "1 row(s) refused" in report.summary()
    assert Card.objects.filter(game=fow, name="Kept").exists()
    assert not Card.objects.filter(game=fow, name="Refused").exists()


def test_a_file_that_is_not_what_it_claims_is_named_and_writes_nothing(fow, tmp_path):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps({"game": "force-of-will", "cards": []}))
    with pytest.raises(CommandError, match="Not a fowsim file"):
        command(path, "--source", "fowsim")
    path.write_text(json.dumps(small_fowsim()))
    with pytest.raises(CommandError, match="Unknown top-level key"):
        command(path)  # a fowsim file read as the exchange file
    path.write_bytes(b"\xff\xfe not text")
    with pytest.raises(CommandError, match="UTF-8"):
        command(path, "--source", "fowsim")


def test_the_admin_shows_the_refused_rows_of_a_partial_import_on_the_page(staff_client, fow):
    document = small_fowsim(
        fowsim_card("TST-001", "Good Card"), fowsim_card("TST-002", "Odd", kind="Warden")
    )
    upload = SimpleUploadedFile("cards.json", json.dumps(document).encode())
    response = staff_client.post(
        reverse("admin:cards_card_import"), {"file": upload, "source": "fowsim", "partial": "on"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Imported, but some rows were refused" in html and "Odd" in html
    assert Card.objects.filter(game=fow, name="Good Card").exists()


def test_the_wanderer_format_page_lists_its_bans_and_pairs_by_name(client, fow, imported):
    command(BANLIST, "--source", "fowsim")
    html = client.get(reverse("format-detail", args=["force-of-will", "wanderer"])).content.decode()
    gretel = Printing.objects.get(game=fow, number="CMF-069").card
    assert gretel.get_absolute_url() in html and "Banned together" in html
    assert "<code>GRV-085</code>" in html  # a card of no set of this pool stays as written
    assert "Extra deck" in html and "needs a Ruler with Grimoire" in html
