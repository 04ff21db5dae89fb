"""Sets and printings: a card is its name, each time it is printed a Printing (issue 23)."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cards import importers, legality, services
from cards.importers import export_game, import_records
from cards.models import Card, CardSet, Game, Leader, Printing

FOW = "force-of-will"

pytestmark = pytest.mark.django_db


@pytest.fixture
def fow(db):
    return Game.objects.get(slug=FOW)


def printings_of(card: Card) -> list[tuple]:
    return list(card.printings.order_by("position").values_list("set__code", "number", "position"))


def grimm_file(**changes) -> dict:
    """Two sets, a card printed in both (a reprint), a ruler with a printing."""
    document = {
        "game": FOW,
        "sets": [
            {"code": "CMF", "name": "Crimson Moon's Fairy Tale", "group": "Grimm",
             "released": "2015-03-13"},
            {"code": "VIN001", "name": "Vingolf Engage Knights", "group": "Grimm"},
        ],
        "leaders": [
            {"name": "Grimm, the Fairy Tale Prince", "colours": ["light"],
             "printings": [{"set": "CMF", "number": "CMF-005", "rarity": "R"}]},
        ],
        "cards": [
            {"name": "Rapunzel, the Long-Haired Princess", "type": "resonator",
             "cost": {"light": 1, "generic": 2}, "rarity": "rare",
             "printings": [
                 {"set": "CMF", "number": "CMF-019", "rarity": "R", "artist": "Someone",
                  "flavour": "Her hair, a ladder."},
                 {"set": "vin001", "number": "VIN001-012", "rarity": "super-rare"},
                 {"set": "CMF", "number": "CMF-P01"},
             ]},
        ],
    }  # fmt: skip
    document.update(changes)
    return document


def run(game, document, **kwargs):
    data = importers.read_json(json.dumps(document))
    return import_records(game=game, **data.records(), **kwargs)


def test_a_reprint_is_a_printing_of_the_same_card(fow):
    report = run(fow, grimm_file())
    assert report.errors == [] and report.created == 2
    card = Card.objects.get(game=fow, name="Rapunzel, the Long-Haired Princess")
    assert printings_of(card) == [
        ("CMF", "CMF-019", 0),
        ("VIN001", "VIN001-012", 1),
        ("CMF", "CMF-P01", 2),
    ]
    first = card.printings.get(number="CMF-019")
    assert (first.rarity.slug, first.artist, first.flavour) == (
        "rare",
        "Someone",
        "Her hair, a ladder.",
    )
    assert card.printings.get(number="VIN001-012").rarity.slug == "super-rare"  # by slug
    assert card.printings.get(number="CMF-P01").rarity is None  # a promo: no rarity
    leader = Leader.objects.get(game=fow, name="Grimm, the Fairy Tale Prince")
    assert list(leader.printings.values_list("number", flat=True)) == ["CMF-005"]
    cmf = CardSet.objects.get(game=fow, code="CMF")
    assert (cmf.group, str(cmf.released)) == ("Grimm", "2015-03-13")


def test_importing_an_unchanged_file_again_writes_nothing(fow):
    run(fow, grimm_file())
    before = list(Printing.objects.filter(game=fow).order_by("pk").values())
    version = Game.objects.get(pk=fow.pk).rules_version
    again = run(fow, grimm_file())
    assert (again.errors, again.created, again.updated, again.sets_written) == ([], 0, 0, 0)
    assert list(Printing.objects.filter(game=fow).order_by("pk").values()) == before
    assert Game.objects.get(pk=fow.pk).rules_version == version


def test_a_changed_printing_keeps_its_row_and_a_dropped_one_goes(fow):
    run(fow, grimm_file())
    kept = Printing.objects.get(game=fow, number="CMF-019").pk
    document = grimm_file()
    document["cards"][0]["printings"] = [{"set": "CMF", "number": "cmf-019", "artist": "Other"}]
    assert run(fow, document).updated == 1
    card = Card.objects.get(game=fow, name="Rapunzel, the Long-Haired Princess")
    assert list(card.printings.values_list("pk", "number", "artist")) == [
        (kept, "cmf-019", "Other")
    ]


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"set": "XYZ"}, "printings[1].set", "No set 'XYZ' in Force of Will"),
        ({"rarity": "ultra"}, "printings[1].rarity", "Unknown rarity 'ultra'"),
        ({"number": "CMF,019"}, "printings[1].number", "without commas"),
        ({"number": ""}, "printings[1].number", "may not be blank"),
    ],
)
def test_a_bad_printing_is_named_and_nothing_is_written(fow, change, field, message):
    document = grimm_file()
    printing = document["cards"][0]["printings"][0]
    printing.update(change)
    report = run(fow, document)
    assert [(e.kind, e.row, e.field) for e in report.errors] == [("card", 1, field)]
    assert message in report.errors[0].message
    assert not CardSet.objects.filter(game=fow, code="CMF").exists()  # the sets rolled back too
    assert not Card.objects.filter(game=fow, name__startswith="Rapunzel").exists()


def test_a_number_given_twice_in_a_file_is_refused(fow):
    document = grimm_file()
    document["cards"].append(
        {"name": "Another", "type": "resonator", "rarity": "common",
         "printings": [{"set": "CMF", "number": "CMF-019"}]}
    )  # fmt: skip
    report = run(fow, document)
    assert [(e.row, e.field) for e in report.errors] == [(2, "printings")]
    assert "also a printing of card row 1" in report.errors[0].message


def test_a_number_of_another_card_is_refused_unless_the_file_moves_it(fow):
    run(fow, grimm_file())
    other = {"name": "Another", "type": "resonator", "rarity": "common",
             "printings": [{"set": "CMF", "number": "CMF-P01"}]}  # fmt: skip
    report = run(fow, grimm_file(cards=[other]))
    assert [(e.row, e.field) for e in report.errors] == [(1, "printings")]
    assert "a printing of another card" in report.errors[0].message
    moved = grimm_file()
    moved["cards"][0]["printings"].pop()  # Rapunzel gives CMF-P01 up ...
    moved["cards"].append(other)  # ... and Another takes it
    assert run(fow, moved).errors == []
    assert Printing.objects.get(game=fow, number="CMF-P01").card.name == "Another"


@pytest.mark.parametrize(
    ("card_set", "field"),
    [
        ({"name": "No code"}, "code"),
        ({"code": "X1"}, "name"),
        ({"code": "X1", "name": "Bad date", "released": "13/03/2015"}, "released"),
        ({"code": "CMF", "name": "Twice"}, "code"),
    ],
)
def test_a_bad_set_is_named_and_nothing_is_written(fow, card_set, field):
    document = grimm_file()
    document["sets"].append(card_set)
    report = run(fow, document)
    assert [(e.kind, e.row, e.field) for e in report.errors] == [("set", 3, field)]
    assert not CardSet.objects.filter(game=fow, code="CMF").exists()


def test_a_dry_run_writes_no_set(fow):
    report = run(fow, grimm_file(), dry_run=True)
    assert report.errors == [] and report.created == 2
    assert not CardSet.objects.filter(game=fow, code="CMF").exists()


def test_the_export_re_imports_unchanged(fow):
    exported = json.loads(export_game(game=fow, fmt="json"))
    assert [s["code"] for s in exported["sets"]] == ["BEL", "TID", "PR"]
    acolyte = next(c for c in exported["cards"] if c["name"] == "Lantern Acolyte")
    assert [p["number"] for p in acolyte["printings"]] == ["BEL-001", "PR-001"]
    report = run(fow, {**exported, "game": FOW})
    assert (report.errors, report.created, report.updated, report.sets_written) == ([], 0, 0, 0)


def test_a_game_without_sets_exports_as_before(game):
    exported = json.loads(export_game(game=game, fmt="json"))
    assert "sets" not in exported
    assert all("printings" not in record for record in exported["cards"] + exported["leaders"])


# --- the API ----------------------------------------------------------------------------------


def test_sets_are_listed_in_release_order_with_their_card_counts(api):
    response = api.get(f"/api/games/{FOW}/sets/")
    assert response.status_code == 200
    assert [(s["code"], s["group"], s["released"], s["card_count"]) for s in response.json()] == [
        ("BEL", "Bell cluster", "2024-02-02", 35),
        ("TID", "Bell cluster", "2024-06-07", 31),
        ("PR", "", None, 2),
    ]


def test_a_set_lists_its_printings_paginated_by_number(api):
    response = api.get(f"/api/games/{FOW}/sets/tid/", {"page_size": 5})
    body = response.json()
    assert (body["code"], body["card_count"], body["printings"]["count"]) == ("TID", 31, 31)
    rows = body["printings"]["results"]
    assert [p["number"] for p in rows] == [f"TID-00{n}" for n in range(1, 6)]
    assert set(rows[0]) >= {"set", "number", "rarity", "image", "artist", "card"}
    assert rows[0]["card"]["url"].endswith(f"/games/{FOW}/cards/{rows[0]['card']['slug']}/")
    assert api.get(f"/api/games/{FOW}/sets/nope/").status_code == 404


def test_a_printing_by_number_gives_its_card_whole(api):
    body = api.get(f"/api/games/{FOW}/printings/pr-001/").json()
    assert (body["number"], body["set"], body["rarity"]) == ("PR-001", "PR", None)
    assert body["card"]["name"] == "Lantern Acolyte"
    assert [p["number"] for p in body["card"]["printings"]] == ["BEL-001", "PR-001"]
    leader = api.get(f"/api/games/{FOW}/printings/BEL-100/").json()
    assert leader["leader"]["slug"] == "seraphine-of-the-dawn-bell"
    assert api.get(f"/api/games/{FOW}/printings/XX-1/").status_code == 404


@pytest.mark.parametrize(
    ("params", "count"),
    [({"set": "pr"}, 2), ({"set": ["PR", "tid"]}, 30), ({"group": "Bell cluster"}, 52)],
)
def test_cards_filter_by_set_and_group(api, params, count):
    response = api.get(f"/api/games/{FOW}/cards/", params)
    assert response.status_code == 200 and response.json()["count"] == count


def test_an_unknown_set_filter_answers_400_naming_it(api):
    response = api.get(f"/api/games/{FOW}/cards/", {"set": "XYZ"})
    assert response.status_code == 400 and "set" in response.json()


def test_cards_and_leaders_carry_their_printings(api):
    card = api.get(f"/api/games/{FOW}/cards/cinder-hound/").json()
    assert [p["number"] for p in card["printings"]] == ["BEL-005", "PR-002"]
    leaders = api.get(f"/api/games/{FOW}/leaders/").json()["results"]
    assert all(len(leader["printings"]) == 1 for leader in leaders)
    other = api.get("/api/games/card-of-gods/cards/healing/").json()
    assert other["printings"] == []


def test_staff_gives_a_card_printings_and_another_card_cannot_take_them(staff_api):
    path = f"/api/games/{FOW}/cards/gale-sprite/"
    printings = [{"set": "TID", "number": "TID-900", "rarity": "U"}]
    response = staff_api.patch(path, {"printings": printings}, format="json")
    assert response.status_code == 200, response.json()
    assert [(p["number"], p["rarity"]) for p in response.json()["printings"]] == [
        ("TID-900", "uncommon")
    ]
    taken = staff_api.patch(
        f"/api/games/{FOW}/cards/undertow/", {"printings": printings}, format="json"
    )
    assert taken.status_code == 400
    assert "a printing of another card" in taken.json()["printings"][0]


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_card_list_takes_four_queries_whatever_the_page_size(api, django_assert_num_queries):
    path = f"/api/games/{FOW}/cards/"
    api.get(path)  # reads the game's vocabulary
    for size in (2, 30):
        # the game, the page with its count, the page's printings and other types (the game
        # has cards of several types: Hymn of Hollow Night is a chant and a rune)
        with django_assert_num_queries(4):
            response = api.get(path, {"page_size": size})
        assert all(card["printings"] for card in response.json()["results"])


# --- the pages ---------------------------------------------------------------------------------


def test_the_sets_page_lists_each_group_and_set(client):
    response = client.get(reverse("set-list", kwargs={"game": FOW}))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Bell cluster" in html and "Other sets" in html
    assert reverse("set-detail", kwargs={"game": FOW, "code": "TID"}) in html
    assert "<title>Sets of Force of Will" in html


def test_a_set_page_lists_its_printings_and_redirects_another_case(client):
    url = reverse("set-detail", kwargs={"game": FOW, "code": "PR"})
    html = client.get(url).content.decode()
    assert "PR-001" in html and "Lantern Acolyte" in html and "Promo art" in html
    lower = client.get(reverse("set-detail", kwargs={"game": FOW, "code": "pr"}))
    assert (lower.status_code, lower["Location"]) == (301, url)
    assert client.get(reverse("set-detail", kwargs={"game": FOW, "code": "XX"})).status_code == 404


def test_a_card_page_lists_its_printings_with_their_sets(client):
    html = client.get(reverse("card-detail", kwargs={"game": FOW, "slug": "cinder-hound"}))
    text = html.content.decode()
    assert "Printings" in text and "BEL-005" in text and "PR-002" in text
    assert reverse("set-detail", kwargs={"game": FOW, "code": "PR"}) in text


def test_the_game_navigation_links_to_sets_only_where_there_are_some(client):
    sets = reverse("set-list", kwargs={"game": FOW})
    assert sets in client.get(reverse("card-list", kwargs={"game": FOW})).content.decode()
    other = client.get(reverse("card-list", kwargs={"game": "card-of-gods"})).content.decode()
    assert reverse("set-list", kwargs={"game": "card-of-gods"}) not in other


def test_the_card_browser_filters_by_set(client):
    response = client.get(reverse("card-list", kwargs={"game": FOW}), {"set": "pr"})
    assert response.status_code == 200
    names = {card.name for card in response.context["cards"]}
    assert names == {"Lantern Acolyte", "Cinder Hound"}


# --- the engine reads printings ------------------------------------------------------------------


def test_a_pool_rule_filters_cards_as_the_engine_judges_them(fow):
    pool = {"rule": "pool", "sets": ["PR"]}
    fmt = legality.Format.from_data({"sections": fow.default_format().sections, "rules": [pool]})
    leader = Leader.objects.for_rules().get(game=fow, slug="seraphine-of-the-dawn-bell")
    usable = set(Card.objects.usable_by(leader, fmt).values_list("slug", flat=True))
    cards = Card.objects.filter(game=fow).for_listing()
    judged = {c.slug for c in cards if not legality.card_problems(fmt, leader.info(), c.info())}
    assert usable == judged == {"lantern-acolyte", "cinder-hound"}


def test_a_ban_by_printing_number_bans_the_card_whichever_printing(api, fow):
    casual = fow.formats.get(slug="casual").as_data()
    del casual["versions"]  # the top-level rules and ban list are its one version
    services.save_format(game=fow, data={**casual, "slug": "banned", "banlist": {"PR-001": 0}})
    body = {
        "leader": "seraphine-of-the-dawn-bell",
        "format": "banned",
        "cards": [{"card": "lantern-acolyte", "count": 1}, {"card": "gale-sprite", "count": 1}],
    }
    problems = api.post(f"/api/games/{FOW}/validate/", body, format="json").json()["problems"]
    assert [(p["code"], p["card"]) for p in problems if p["code"] == "banned"] == [
        ("banned", "lantern-acolyte")
    ]


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_a_set_page_takes_as_many_queries_for_two_printings_as_for_twenty_eight(
    client, django_assert_num_queries
):
    for code in ("PR", "BEL"):
        url = reverse("set-detail", kwargs={"game": FOW, "code": code})
        client.get(url)  # reads the game's vocabulary
        with django_assert_num_queries(2):  # the game, the page of printings with its count
            assert client.get(url).status_code == 200


def test_staff_adds_a_printing_to_a_leader_in_the_admin(staff_client, fow):
    leader = Leader.objects.get(game=fow, slug="nerissa-tidecaller")
    tid = CardSet.objects.get(game=fow, code="TID")
    data = {
        "game": fow.pk,
        "name": leader.name,
        "slug": leader.slug,
        "colours": [c.pk for c in leader.colours.all()],
        "keywords": [k.pk for k in leader.keywords.all()],
        "text": leader.text,
        "image": "",
        "loyalties-TOTAL_FORMS": 0,
        "loyalties-INITIAL_FORMS": 0,
        "printings-TOTAL_FORMS": 2,
        "printings-INITIAL_FORMS": 1,
    }
    for i, printing in enumerate(leader.printings.all()):
        data |= {f"printings-{i}-id": printing.pk, f"printings-{i}-leader": leader.pk}
        data |= {f"printings-{i}-set": printing.set_id, f"printings-{i}-number": printing.number}
        data |= {f"printings-{i}-position": 0}
    data |= {"printings-1-leader": leader.pk, "printings-1-set": tid.pk}
    data |= {"printings-1-number": "TID-950", "printings-1-position": 1}
    url = reverse("admin:cards_leader_change", args=[leader.pk])
    response = staff_client.post(url, data)
    assert response.status_code == 302, response.context["errors"]
    added = Printing.objects.get(number="TID-950")
    assert (added.game_id, added.leader_id, added.card_id) == (fow.pk, leader.pk, None)
    data["printings-1-number"] = "bel-001"  # a card's number, in another case
    response = staff_client.post(url, data)
    assert response.status_code == 200
    assert "already exists" in str(response.context["inline_admin_formsets"][1].formset.errors)
    data["printings-0-number"], data["printings-1-number"] = "TID-951", "tid-951"  # twice
    response = staff_client.post(url, data)
    assert response.status_code == 200
    assert "given twice" in str(
        response.context["inline_admin_formsets"][1].formset.non_form_errors()
    )


def test_the_admin_import_page_takes_sets_and_printings(staff_client, fow):
    upload = SimpleUploadedFile("grimm.json", json.dumps(grimm_file()).encode())
    response = staff_client.post(reverse("admin:cards_card_import"), {"file": upload})
    assert response.status_code == 302
    assert Printing.objects.get(game=fow, number="VIN001-012").set.code == "VIN001"


# --- faces: their names find their card or leader ------------------------------------------------


def test_a_j_ruler_name_finds_its_ruler_in_the_leader_filter(api, fow):
    seraphine = Leader.objects.get(game=fow, slug="seraphine-of-the-dawn-bell")
    face = seraphine.faces.get()
    by_face = api.get(f"/api/games/{FOW}/cards/", {"leader": face.name.upper(), "page_size": 100})
    by_name = api.get(f"/api/games/{FOW}/cards/", {"leader": seraphine.slug, "page_size": 100})
    assert by_face.status_code == 200
    assert by_face.json()["results"] == by_name.json()["results"]


def test_search_and_suggestions_find_a_card_by_its_other_face(api, client, fow):
    chant = fow.card_types.get(slug="chant")
    write = services.CardWrite(
        {"name": "Two-Faced Chant", "type": chant}, [], faces=[{"name": "Mirror Side Zzyx"}]
    )
    [card] = services.save_cards(game=fow, writes=[write])
    found = api.get(f"/api/games/{FOW}/cards/", {"q": "zzyx"}).json()["results"]
    assert [c["slug"] for c in found] == [card.slug]
    assert found[0]["faces"][0]["name"] == "Mirror Side Zzyx"
    suggested = client.get(reverse("suggest", args=[FOW, "cards"]), {"q": "mirror side"})
    assert "Mirror Side Zzyx" in suggested.content.decode()
