"""The fowsim (Force of Will community database) converter, cards.fowsim. Pure: no database.
Small inline files pin each mapping rule; the real Grimm/Alice slice, its ban list and an example
deck live beside the project in ../shared/data/force-of-will (without them those tests skip)."""

import json
import re
from pathlib import Path

import pytest

from cards import fowsim
from deckbuilder.services import _LINE as DECK_LINE

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "force-of-will"
SAMPLE = Path(__file__).resolve().parents[2] / "cards" / "sample" / "force-of-will.json"


def real(name: str):
    path = DATA / name
    if not path.is_file():
        pytest.skip(
            "../shared/data/force-of-will is absent: the real Force of Will slice is not in this"
            " checkout"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def record(number: str, name: str, **fields) -> dict:
    """A fowsim card record: a common light resonator unless told otherwise."""
    return {
        "id": number,
        "name": name,
        "type": ["Resonator"],
        "race": [],
        "cost": "{W}",
        "colour": ["W"],
        "ATK": 500,
        "DEF": 500,
        "abilities": [],
        "divinity": "",
        "flavour": "",
        "artists": [],
        "rarity": "C",
        **fields,
    }


def ruler(number: str, name: str, **fields) -> dict:
    fields = {"type": ["Ruler"], "cost": None, "ATK": "", "DEF": "", "rarity": "R", **fields}
    return record(number, name, **fields)


def j_ruler(number: str, name: str, **fields) -> dict:
    fields = {"type": ["J-Ruler"], "cost": None, "ATK": 1000, "DEF": 1000, **fields}
    return record(number, name, **fields)


def fow(*sets) -> dict:
    """A fowsim file of one cluster: each set is (code, [records]) or a list of records (CMF)."""
    sets = [s if isinstance(s, tuple) else ("CMF", s) for s in sets] or [("CMF", [])]
    return {
        "fow": {
            "clusters": [
                {
                    "name": "Grimm",
                    "sets": [
                        {"code": code, "name": f"Set {code}", "cards": cards}
                        for code, cards in sets
                    ],
                }
            ]
        }
    }


def one(*records, **options) -> tuple[dict, list]:
    """The only card of a file holding `records`, and the problems."""
    conversion = fowsim.convert(fow(list(records)), **options)
    (card,) = conversion.data["cards"]
    return card, conversion.problems


def kinds(problems) -> list[str]:
    return [p.kind for p in problems]


# --- the file and its sets -----------------------------------------------------------------------


def test_the_exchange_file_names_the_game_and_every_set_with_its_cluster():
    data = {
        "fow": {
            "clusters": [
                {
                    "name": "Grimm",
                    "sets": [{"code": "CMF", "name": " Crimson  Moon ", "cards": []}],
                },
                {"name": "Alice", "sets": [{"code": "SKL", "name": "Seven Kings", "cards": []}]},
            ]
        }
    }
    result = fowsim.convert(data)
    assert result.data == {
        "game": "force-of-will",
        "sets": [
            {"code": "CMF", "name": "Crimson Moon", "group": "Grimm"},  # no release date: unknown
            {"code": "SKL", "name": "Seven Kings", "group": "Alice"},
        ],
        "leaders": [],
        "cards": [],
    }
    assert result.problems == []
    assert fowsim.convert(json.dumps(data), game="fow").data["game"] == "fow"


@pytest.mark.parametrize(
    "data",
    [{"cards": []}, {"fow": {"sets": []}}, {"fow": []}, {"fow": {"clusters": 1}}, [], '{"g": 1}'],
)
def test_a_file_that_is_not_a_fowsim_card_file_is_refused_saying_what_was_expected(data):
    with pytest.raises(fowsim.FowsimError, match=r'expected \{"fow": \{"clusters"') as raised:
        fowsim.convert(data)
    assert isinstance(raised.value, ValueError)


def test_text_that_is_not_json_is_refused():
    with pytest.raises(fowsim.FowsimError, match="not JSON"):
        fowsim.convert("not json")


def test_records_that_cannot_be_read_are_reported_and_the_others_kept():
    result = fowsim.convert(
        fow(
            [
                record("CMF-001", "Kept"),
                record("", "No Number"),
                record("CMF-002", "   "),
                "not a record",
                record("CMF-001", "Same Number Again"),
            ]
        )
    )
    assert [c["name"] for c in result.data["cards"]] == ["Kept"]
    assert kinds(result.problems) == ["record"] * 4
    assert result.problems[-1].id == "CMF-001" and "twice" in result.problems[-1].message


# --- one card per name ---------------------------------------------------------------------------


def test_every_printing_of_a_name_is_one_card_with_all_its_printings():
    first = record(
        "CMF-019",
        "Rapunzel, the Long-Haired Princess",
        cost="{W}{2}",
        rarity="R",
        flavour="Let down your hair.",
        artists=["A. Painter", "B. Inker"],
        race=["Fairy Tale"],
        ATK=600,
        DEF=600,
        abilities=["[Enter]: Draw a card.", "[Flying]"],
    )
    again = {
        **first,
        "id": "VIN001-012",
        "name": "  Rapunzel,  the Long-Haired Princess ",
        "rarity": "SR",
        "flavour": "",
        "artists": [],
    }
    result = fowsim.convert(fow(("CMF", [first]), ("VIN001", [again])))
    assert result.data["cards"] == [
        {
            "name": "Rapunzel, the Long-Haired Princess",
            "types": ["resonator"],
            "cost": {"light": 1, "generic": 2},
            "colours": [],
            "keywords": ["Fairy Tale"],
            "stats": {"atk": 600, "def": 600},
            "text": "[Enter]: Draw a card.\n[Flying]",
            "flavour": "Let down your hair.",
            "faces": [],
            "printings": [
                {
                    "set": "CMF",
                    "number": "CMF-019",
                    "rarity": "R",
                    "flavour": "Let down your hair.",
                    "artist": "A. Painter, B. Inker",
                },
                {"set": "VIN001", "number": "VIN001-012", "rarity": "SR"},
            ],
        }
    ]
    assert result.problems == []


def test_a_reprint_that_reads_differently_is_reported_and_the_first_printing_kept():
    result = fowsim.convert(
        fow(
            [
                record("CMF-016", "Silver Stake", abilities=["Old wording."]),
                record("VIN001-013", "silver stake", abilities=["New wording."], cost="{W}{1}"),
            ]
        )
    )
    (card,) = result.data["cards"]
    assert card["text"] == "Old wording." and card["cost"] == {"light": 1}
    assert [p["number"] for p in card["printings"]] == ["CMF-016", "VIN001-013"]
    (problem,) = result.problems
    assert problem[:3] == ("VIN001-013", "silver stake", "reprint")
    assert "CMF-016" in problem.message and "cost, text" in problem.message


# --- faces ---------------------------------------------------------------------------------------


def test_a_ruler_is_a_leader_and_its_j_ruler_side_a_face():
    result = fowsim.convert(
        fow(
            [
                ruler(
                    "CMF-005",
                    "Grimm, the Fairy Tale Prince",
                    race=["Human"],
                    abilities=["[Activate] Pay {1}: Search."],
                ),
                j_ruler(
                    "CMF-005J",
                    "Grimm, the Avenging Fairy Tale King",
                    race=["Human"],
                    abilities=["[Flying]"],
                    rarity="R",
                ),
            ]
        )
    )
    assert result.data["cards"] == []
    assert result.data["leaders"] == [
        {
            "name": "Grimm, the Fairy Tale Prince",
            "colours": ["light"],
            "keywords": ["Human"],
            "text": "[Activate] Pay {1}: Search.",
            "faces": [
                {
                    "name": "Grimm, the Avenging Fairy Tale King",
                    "types": ["j-ruler"],
                    "cost": {},
                    "colours": ["light"],
                    "keywords": ["Human"],
                    "stats": {"atk": 1000, "def": 1000},
                    "text": "[Flying]",
                    "printings": [{"set": "CMF", "number": "CMF-005J", "rarity": "R"}],
                }
            ],
            "printings": [{"set": "CMF", "number": "CMF-005", "rarity": "R"}],
        }
    ]
    assert result.problems == []
    assert result.names() == {
        "CMF-005": "Grimm, the Fairy Tale Prince",
        "CMF-005J": "Grimm, the Fairy Tale Prince",  # a deck names the leader, not its face
    }


def test_what_a_leader_cannot_hold_is_reported():
    result = fowsim.convert(fow([ruler("X-001", "Odd Ruler", type=["Ruler", "Resonator"], ATK=5)]))
    (leader,) = result.data["leaders"]
    assert leader["name"] == "Odd Ruler" and "stats" not in leader
    (problem,) = result.problems
    assert problem.kind == "leader" and "type resonator" in problem.message
    assert "'atk': 5" in problem.message


def test_a_reprinted_ruler_is_one_leader_with_one_face_holding_both_printings():
    result = fowsim.convert(
        fow(
            ("VS01", [ruler("VS01-003", "Faria"), j_ruler("VS01-003J", "Faria, God Sword")]),
            ("SKL", [j_ruler("SKL-007J", "Faria, God Sword"), ruler("SKL-007", "Faria")]),
        )
    )
    (leader,) = result.data["leaders"]
    assert [p["number"] for p in leader["printings"]] == ["VS01-003", "SKL-007"]
    (face,) = leader["faces"]
    assert [p["number"] for p in face["printings"]] == ["VS01-003J", "SKL-007J"]


def test_a_j_ruler_whose_ruler_is_not_in_the_file_is_a_card_of_its_own():
    card, problems = one(j_ruler("TSW-109J", "Lonely J-ruler"))
    assert card["types"] == ["j-ruler"] and card["faces"] == []
    assert card["printings"] == [{"set": "CMF", "number": "TSW-109J", "rarity": "C"}]
    assert problems == []


def test_a_face_without_its_front_joins_a_face_of_the_same_name():
    result = fowsim.convert(
        fow(
            ("VS01", [ruler("VS01-003", "Faria"), j_ruler("VS01-003J", "Faria, God Sword")]),
            ("PR", [j_ruler("PR-001J", "Faria, God Sword")]),
        )
    )
    assert result.data["cards"] == []
    (face,) = result.data["leaders"][0]["faces"]
    assert [p["number"] for p in face["printings"]] == ["VS01-003J", "PR-001J"]


def test_a_caret_side_is_a_face_of_its_card():
    result = fowsim.convert(
        fow(
            [
                record("BFA-076", "Alice of Light", cost="{W}{2}"),
                record(
                    "BFA-076^",
                    "Alice of Shadow",
                    type=["Resonator (Shift)"],
                    cost="{B}{2}",
                    colour=["B"],
                    rarity="SR",
                ),
            ]
        )
    )
    (card,) = result.data["cards"]
    (face,) = card["faces"]
    assert card["name"] == "Alice of Light"
    assert face["name"] == "Alice of Shadow" and face["types"] == ["resonator"]
    assert face["cost"] == {"darkness": 1, "generic": 2} and face["keywords"] == ["Shift"]
    assert face["printings"] == [{"set": "CMF", "number": "BFA-076^", "rarity": "SR"}]


@pytest.mark.parametrize(
    "number, front",
    [
        ("TSW-109J", "TSW-109"),
        ("CMF-005J", "CMF-005"),
        ("RDE-060J^", "RDE-060"),
        ("BFA-076^", "BFA-076"),
        ("SKL-001*", "SKL-001"),
        ("CMF-005", "CMF-005"),
        (" VIN001-012 ", "VIN001-012"),
        ("H6 Prerelease PartyJ", "H6 Prerelease PartyJ"),  # no number before the J
    ],
)
def test_face_front(number, front):
    assert fowsim.face_front(number) == front


def test_a_colossal_side_is_one_more_face_of_its_ruler():
    result = fowsim.convert(
        fow(
            [
                ruler("RDE-060", "Lapis"),
                j_ruler("RDE-060J", "Lapis, J"),
                j_ruler("RDE-060J^", "Lapis, Colossal"),
            ]
        )
    )
    faces = result.data["leaders"][0]["faces"]
    assert [(f["name"], f["printings"][0]["number"]) for f in faces] == [
        ("Lapis, J", "RDE-060J"),
        ("Lapis, Colossal", "RDE-060J^"),
    ]


# --- types ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "type_, types, keywords",
    [
        (["Spell:Chant-Instant"], ["chant"], ["Instant"]),
        (["Spell:Chant-Standby"], ["chant"], ["Standby"]),
        (["Spell:Chant"], ["chant"], []),
        (["Addition:Field"], ["addition"], ["Field"]),
        (["Addition: J/Resonator"], ["addition"], ["J/Resonator"]),  # what it is added to
        (["Resonator (Stranger)"], ["resonator"], ["Stranger"]),
        (["Regalia (Shift)"], ["regalia"], ["Shift"]),
        (["Master Rune"], ["master-rune"], []),
        (["Chant/Rune"], ["chant", "rune"], []),
        (["Chant + Rune"], ["chant", "rune"], []),
        ("Chant / Rune", ["chant", "rune"], []),  # an older export: one string
        (["Resonator", "Chant"], ["resonator", "chant"], []),
        (["Magic Stone", "Basic Magic Stone"], ["magic-stone"], ["Basic"]),
        (
            ["Special Magic Stone", "Magic Stone", "Fire Magic Stone", "Water Magic Stone"],
            ["magic-stone"],
            ["Special", "Fire Magic Stone", "Water Magic Stone"],
        ),
        (["Special Magic Stone/True Magic Stone"], ["magic-stone"], ["Special", "True"]),
        (["Basic J-Ruler"], ["j-ruler"], ["Basic"]),
        (["RESONATOR"], ["resonator"], []),
    ],
)
def test_fowsim_types_become_the_games_types_and_keywords(type_, types, keywords):
    card, problems = one(record("CMF-001", "A Card", type=type_))
    assert (card["types"], card["keywords"]) == (types, keywords)
    assert problems == []


def test_a_type_of_no_game_type_is_reported_and_the_card_kept():
    result = fowsim.convert(
        fow([record("NDR-001", "Warden Card", type=["Warden"]), record("NDR-002", "Other")])
    )
    warden, other = result.data["cards"]
    assert warden["name"] == "Warden Card" and warden["types"] == []
    assert other["types"] == ["resonator"]
    assert [(p.id, p.name, p.kind) for p in result.problems] == [
        ("NDR-001", "Warden Card", "type"),
        ("NDR-001", "Warden Card", "type"),
    ]
    assert "'Warden'" in result.problems[0].message
    assert "no card type" in result.problems[1].message


def test_a_type_beside_mapped_ones_is_reported_and_the_others_kept():
    card, problems = one(record("X-001", "Two Kinds", type=["Resonator", "Sub-Ruler"]))
    assert card["types"] == ["resonator"]
    assert [(p.kind, "'Sub-Ruler'" in p.message) for p in problems] == [("type", True)]


def test_the_games_types_can_be_given():
    types = {**fowsim.TYPES, "warden": "Warden"}
    card, problems = one(record("NDR-001", "Warden Card", type=["Warden"]), types=types)
    assert card["types"] == ["warden"] and problems == []


# --- cost and colours ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cost, mapped",
    [
        ("{W}{R}{U}{G}{B}", {"light": 1, "fire": 1, "water": 1, "wind": 1, "darkness": 1}),
        ("{R}{R}{1}", {"fire": 2, "generic": 1}),
        ("{10}", {"generic": 10}),
        ("{2}{1}", {"generic": 3}),
        ("{X}{R}", {"fire": 1, "x": 1}),
        ("{X}{X}", {"x": 2}),
        ("{M}{1}", {"moon": 1, "generic": 1}),
        ("{T}", {"time": 1}),
        ("0", {}),
        ("{0}", {}),
        (None, {}),
        ("", {}),
    ],
)
def test_cost_symbols(cost, mapped):
    card, problems = one(record("CMF-001", "A Card", cost=cost, colour=[]))
    assert card["cost"] == mapped and problems == []


def test_an_unknown_cost_symbol_is_reported_and_the_rest_kept():
    card, problems = one(record("CMF-001", "A Card", cost="{W}{Q}"))
    assert card["cost"] == {"light": 1}
    assert [p.kind for p in problems] == ["cost"] and "{Q}" in problems[0].message


def test_colours_beside_the_cost_are_the_ones_it_does_not_imply():
    card, problems = one(record("CMF-001", "A Card", cost="{R}{1}", colour=["R", "U"]))
    assert card["cost"] == {"fire": 1, "generic": 1} and card["colours"] == ["water"]
    assert problems == []
    # Moon, time and X are no colours; a stone with no cost keeps its attributes here.
    card, _ = one(record("CMF-002", "Moon Card", cost="{M}{X}", colour=["W"]))
    assert card["colours"] == ["light"]


def test_void_is_no_colour_and_an_unknown_attribute_is_reported():
    card, problems = one(record("CMF-001", "Void Stone", cost=None, colour=["V"]))
    assert card["colours"] == [] and problems == []
    card, problems = one(record("CMF-002", "Odd", cost=None, colour=["W", "Z"]))
    assert card["colours"] == ["light"]
    assert [(p.id, p.kind) for p in problems] == [("CMF-002", "colour")]


# --- keywords, stats, rarity ---------------------------------------------------------------------


def test_deck_building_keywords_opening_an_ability_are_keywords_without_their_numbers():
    card, problems = one(
        record(
            "SNV-001",
            "A God",
            race=["Deity"],
            abilities=[
                "[Divinity] 10",
                "[Continuous]: Something.",
                "[Enter]: Draw.",
                "[Flying]",
                "[Stranger]",
                "[Will of Hope] {W}: Something.",
                "Gains [Grimoire] until end of turn.",  # not at the start: text only
            ],
        )
    )
    assert card["keywords"] == ["Deity", "Divinity", "Stranger", "Will of Hope"]
    assert card["text"].startswith("[Divinity] 10\n[Continuous]")
    assert problems == []


def test_the_divinity_field_gives_the_divinity_keyword_once():
    card, _ = one(record("X-001", "A God", divinity="∞", abilities=["[Divinity] ∞"]))
    assert card["keywords"] == ["Divinity"]


def test_stats_are_numbers_and_others_are_reported():
    card, problems = one(record("X-001", "A Card", ATK="600", DEF=""))
    assert card["stats"] == {"atk": 600} and problems == []
    card, problems = one(record("X-002", "B Card", ATK="X", DEF=None))
    assert card["stats"] == {}
    assert [p.kind for p in problems] == ["stats"]


def test_an_empty_rarity_stays_empty_and_an_unknown_one_is_kept_and_reported():
    card, problems = one(record("TAT-094", "No Rarity", rarity=""))
    assert card["printings"] == [{"set": "CMF", "number": "TAT-094"}]
    assert "rarity" not in card and problems == []
    card, problems = one(record("X-001", "Odd Rarity", rarity="ZZ"))
    assert card["printings"][0]["rarity"] == "ZZ"
    assert [p.kind for p in problems] == ["rarity"]


# --- ban lists -----------------------------------------------------------------------------------


def test_a_ban_list_becomes_rule_instances_per_format():
    rules = fowsim.banlist_rules(
        [
            {
                "format_name": "Wanderer",
                "cards": ["TSW-109", "TSW-109J", "CMF-069"],
                "combination_bans": [["TAT-090", "GRV-085"], ["EDL-074J", "ROL-018"]],
            },
            {"format_name": "Empty", "cards": [], "combination_bans": []},
        ]
    )
    assert rules == {
        "Wanderer": [
            {"rule": "banlist", "cards": {"TSW-109": 0, "CMF-069": 0}},
            {"rule": "combination_ban", "groups": [["TAT-090", "GRV-085"], ["EDL-074", "ROL-018"]]},
        ],
        "Empty": [],
    }


@pytest.mark.parametrize("data", [{"fow": {}}, [{"cards": []}], "[1]", 3])
def test_a_file_that_is_no_ban_list_is_refused(data):
    with pytest.raises(fowsim.FowsimError, match="format_name"):
        fowsim.banlist_rules(data)


# --- decks ---------------------------------------------------------------------------------------


def sections_of_the_site() -> set[str]:
    """The section names of the sample Force of Will game's formats (deck text headers)."""
    game = json.loads(SAMPLE.read_text(encoding="utf-8"))["game"]
    versions = [v for f in game["formats"] for v in f.get("versions", [f])]
    return {s["name"] for v in versions for s in v["sections"]}


def test_a_deck_becomes_the_deck_text_the_site_reads():
    names = {"CMF-005": "Grimm", "CMF-058": "Gretel", "TAT-039": "Glinda", "TAT-092": "Stone"}
    fdk = {
        "name": "Grimm",
        "ruler": "CMF-005J",  # a face's number names its leader
        "main": ["CMF-058", "TAT-039", "CMF-058", "XXX-001"],
        "stones": ["TAT-092", "TAT-092"],
        "side": [],
    }
    text = fowsim.deck_text(json.dumps(fdk), names)
    assert text == (
        "Grimm\nMain deck:\n2 Gretel\n1 Glinda\n1 XXX-001\nMagic stone deck:\n2 Stone\n"
    )
    lines = text.splitlines()
    for line in lines[1:]:
        assert DECK_LINE.match(line) or line[:-1] in sections_of_the_site()


def test_a_deck_without_a_ruler_starts_with_its_first_card():
    text = fowsim.deck_text({"main": ["A-001"], "side": ["A-001"]}, {"A-001": "Card A"})
    assert text == "1 Card A\nSide deck:\n1 Card A\n"
    assert DECK_LINE.match(text.splitlines()[0])


def test_a_file_that_is_no_deck_is_refused():
    with pytest.raises(fowsim.FowsimError, match="deck"):
        fowsim.deck_text({"name": "x"}, {})


# --- the real slice ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slice_():
    data = real("fowsim-cards-grimm-alice.json")
    return data, fowsim.convert(data)


def raw_records(data) -> list[dict]:
    return [c for cl in data["fow"]["clusters"] for s in cl["sets"] for c in s["cards"]]


def all_printings(result) -> list[str]:
    owners = [*result["leaders"], *result["cards"]]
    faces = [f for o in owners for f in o["faces"]]
    return [p["number"] for o in [*owners, *faces] for p in o["printings"]]


def test_the_real_slice_has_every_set_and_every_printing_exactly_once(slice_):
    data, conversion = slice_
    result = conversion.data
    assert len(result["sets"]) == 11
    assert {s["group"] for s in result["sets"]} == {"Grimm", "Alice"}
    numbers = all_printings(result)
    assert len(numbers) == len(set(numbers)) == 1065
    assert set(numbers) == {r["id"] for r in raw_records(data)}
    assert (len(result["cards"]), len(result["leaders"])) == (850, 52)
    assert sum(len(o["faces"]) for o in [*result["cards"], *result["leaders"]]) == 62


def test_the_real_slice_has_unique_names(slice_):
    _, conversion = slice_
    for kind in ("cards", "leaders"):
        names = [c["name"].casefold() for c in conversion.data[kind]]
        assert len(names) == len(set(names)), kind
        assert all(n == " ".join(n.split()) for n in names)


def test_every_real_ruler_is_a_leader_with_its_j_ruler_face(slice_):
    data, conversion = slice_
    records = {r["id"]: r for r in raw_records(data)}
    leader_of = {p["number"]: leader for leader in conversion.data["leaders"]
                 for p in leader["printings"]}  # fmt: skip
    rulers = [n for n, r in records.items() if r["type"] == ["Ruler"]]
    assert len(rulers) == 60 and set(rulers) == set(leader_of)
    for number, r in records.items():
        if r["type"] == ["J-Ruler"]:
            leader = leader_of[fowsim.face_front(number)]
            (face,) = [f for f in leader["faces"] if f["name"] == r["name"]]
            assert face["types"] == ["j-ruler"]
            assert number in [p["number"] for p in face["printings"]]
    # The slice holds no J-ruler side for these two rulers (Yggdrasil has none at all).
    without = [leader["name"] for leader in conversion.data["leaders"] if not leader["faces"]]
    assert without == ["Grimm, the Fairy Tale Prince", "Yggdrasil, the World Tree"]


def test_the_real_slice_reports_only_reworded_reprints(slice_):
    _, conversion = slice_
    assert len(conversion.problems) == 31
    assert {p.kind for p in conversion.problems} == {"reprint"}
    assert all(re.search(r"\(text\)", p.message) for p in conversion.problems)


def test_the_real_slice_maps_every_type_and_cost(slice_):
    _, conversion = slice_
    cards = conversion.data["cards"]
    assert {t for c in cards for t in c["types"]} == {
        "resonator",
        "chant",
        "addition",
        "regalia",
        "magic-stone",
    }
    keys = {k for c in cards for k in c["cost"]}
    assert keys == {"light", "fire", "water", "wind", "darkness", "generic"}
    basics = [c for c in cards if "Basic" in c["keywords"]]
    assert basics and all(c["types"] == ["magic-stone"] for c in basics)


def test_the_real_wanderer_ban_list():
    rules = fowsim.banlist_rules(real("fowsim-wanderer-banlist.json"))
    (banlist, combination) = rules["Wanderer"]
    assert banlist["rule"] == "banlist" and set(banlist["cards"].values()) == {0}
    assert len(banlist["cards"]) == 30  # 31 numbers: TSW-109J is TSW-109
    assert "TSW-109" in banlist["cards"] and "TSW-109J" not in banlist["cards"]
    assert combination["rule"] == "combination_ban" and len(combination["groups"]) == 24
    assert ["AO3-046", "PofA-111"] in combination["groups"]
    assert all(len(g) == 2 for g in combination["groups"])


def test_the_real_deck_text_has_its_ruler_40_main_cards_and_10_stones(slice_):
    _, conversion = slice_
    text = fowsim.deck_text(real("grimm-example-deck.fdk"), conversion)
    lines = text.splitlines()
    assert lines[0] == "Grimm, the Fairy Tale Prince"
    sections, counts, section = sections_of_the_site(), {}, None
    for line in lines[1:]:
        if line.endswith(":"):
            section = line[:-1]
            assert section in sections
            continue
        match = DECK_LINE.match(line)
        assert match, line
        assert not re.fullmatch(r"[A-Z0-9]+-\d+\S*", match["name"]), "a number, not a name"
        counts[section] = counts.get(section, 0) + int(match["count"])
    assert counts == {"Main deck": 40, "Magic stone deck": 10}
    assert "4 Magic Stone of Deep Wood" in lines
