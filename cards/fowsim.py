"""Force of Will's community database ("fowsim") to the site's card exchange file. Pure: the
standard library only, no Django.

`convert(data)` reads a fowsim card file::

    {"fow": {"clusters": [{"name": "Grimm", "sets": [{"code": "CMF", "name": "...", "cards": [
        {"id": "CMF-019", "name": "...", "type": ["Resonator"], "race": ["Fairy Tale"],
         "cost": "{W}{2}", "colour": ["W"], "ATK": 600, "DEF": 600, "abilities": ["..."],
         "divinity": "", "flavour": "...", "artists": [], "rarity": "R"}]}]}]}}

and gives the exchange file (`Conversion.data`)::

    {"game": "force-of-will",
     "sets": [{"code", "name", "group"}],          # group: the cluster; no release dates
     "leaders": [{"name", "colours", "keywords", "text", "faces", "printings"}],
     "cards": [{"name", "types", "cost", "colours", "keywords", "stats", "text", "flavour",
                "faces", "printings"}]}

with every problem met on the way (`Conversion.problems`). How records are read:

* A card is its name: every printing of a name (whitespace trimmed and collapsed, compared
  case-insensitively) is one card holding all of them in `printings`, in file order. The card's
  fields come from its first printing; a later printing that reads differently (types, cost,
  colours, keywords, stats or text: often a reworded reprint) is reported ("reprint"), the first
  printing's fields kept.
* A printing is `{"set", "number", "rarity", "flavour", "artist"}`; `rarity` is the file's code
  (`C`, `SR`, `JAR`...: RARITIES), left out when the file has none; `flavour` and `artist` (the
  artists joined with ", ") are left out when empty. The card's `flavour` is its first
  printing's.
* A number ending in `J`, `^`, `J^` or `*` (fowsim's other sides) is a *face* of the number
  without it when that number is in the file (`face_front`). A face has `name`, `types`, `cost`,
  `colours`, `keywords`, `stats`, `text` and its own `printings`; a reprinted face is one face.
  A face whose front is not in the file joins a face of the same name if there is one, else it
  is a card of its own (a J-ruler without its ruler side).
* A record of type Ruler is a leader, its J-ruler sides its faces. A leader has no types, cost
  or stats: a ruler with any (none in the real files) is reported ("leader"). Its `colours` are
  all its attributes.
* `types` are slugs of the game's card types (`types=`, default TYPES), found by comparing
  slugified words: `Resonator` is `resonator`; `Spell:Chant-Instant` is `chant` with keyword
  `Instant` (`Spell:` is the old supertype, dropped); `Addition:Field` is `addition` with keyword
  `Field` (what the addition is added to, as printed: `Resonator`, `J/Resonator`...);
  `Resonator (Stranger)` is `resonator` with keyword `Stranger`; words before a type name are
  keywords (`Basic Magic Stone`: `magic-stone`, `Basic`), except an attribute (`Fire Magic
  Stone` stays the keyword `Fire Magic Stone`: "treat this card as a fire magic stone");
  `Chant/Rune`, `Chant + Rune` and a list of types keep every type. A type word that names no
  type of the game is reported ("type") and left out; a record left without any type keeps
  `types: []`.
* `cost` maps symbols to counts: `{W}{R}{U}{G}{B}` are light, fire, water, wind, darkness;
  numbers add to `generic`; `{X}` is `x`, moon `{M}` is `moon`, time `{T}` is `time` (these
  three give no colour). A cost of `0` or none is `{}`. Another symbol is reported ("cost").
* `colours` are the attributes of the file's `colour` list (W light, R fire, U water, G wind, B
  darkness; V is void: no attribute) that the cost does NOT already imply; the importer unions
  the cost's colours with them. A leader has no cost: its `colours` are all of them. Another
  code is reported ("colour").
* `keywords`: the races, the keywords from the types, the deck-building keywords that open an
  ability (`[Divinity] 10` gives `Divinity`: DECK_KEYWORDS) and `Divinity` when the `divinity`
  field is set; each once, in that order.
* `stats`: `ATK`/`DEF` as `atk`/`def` when numbers; empty ones are left out, others reported.
* `text`: the abilities, one a line.

A record that cannot be read at all (not an object, no id or name, an id seen before) is
reported and skipped; every other record is in the result, whatever else was reported.

Also: `banlist_rules(data)` reads a fowsim ban list into rule instances per format, and
`deck_text(fdk, names)` writes a fowsim deck (`.fdk`) as the deck text the site imports.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = [
    "ATTRIBUTES",
    "DECK_KEYWORDS",
    "RARITIES",
    "SECTIONS",
    "SYMBOLS",
    "TYPES",
    "Conversion",
    "FowsimError",
    "Problem",
    "banlist_rules",
    "convert",
    "deck_text",
    "face_front",
]

GAME = "force-of-will"

# The card types the site's Force of Will game declares: slug -> name.
TYPES: dict[str, str] = {
    "resonator": "Resonator",
    "chant": "Chant",
    "addition": "Addition",
    "regalia": "Regalia",
    "magic-stone": "Magic stone",
    "rune": "Rune",
    "master-rune": "Master rune",
    "ruler": "Ruler",
    "j-ruler": "J-ruler",
}
LEADER_TYPE = "ruler"

# fowsim's attribute codes (its `colour` list and the cost's coloured symbols) -> colour slug.
# V is void: a colourless card, so no colour (not a problem).
ATTRIBUTES: dict[str, str | None] = {
    "W": "light",
    "R": "fire",
    "U": "water",
    "G": "wind",
    "B": "darkness",
    "V": None,
}
# Cost symbols that are not attributes -> cost key; they give no colour. fowsim writes moon will
# as {M} and time will as {T} (its WILL_MOON_CODE / WILL_TIME_CODE).
SYMBOLS: dict[str, str] = {"X": "x", "M": "moon", "T": "time"}
GENERIC = "generic"
COST_ORDER = [c for c in ATTRIBUTES.values() if c] + list(SYMBOLS.values()) + [GENERIC]

# Keywords printed at the start of an ability that say something about deck building, and that
# other cards and formats refer to ("a card with [Stranger]", "[Divinity] 10"): they are card
# keywords. The other bracketed words that open abilities ([Continuous], [Enter], [Activate],
# [Flying], [Awakening]...) say how that ability works: they stay in the text only.
DECK_KEYWORDS = (
    "Divinity",
    "Grimoire",
    "Stranger",
    "Tales",
    "Villains",
    "Will of Hope",
    "Will of Despair",
)

# fowsim's rarity codes (its RARITY_CHOICE_VALUES). A printing keeps the file's code; one not
# listed here is kept too, and reported.
RARITIES: dict[str, str] = {
    "C": "Common",
    "U": "Uncommon",
    "R": "Rare",
    "SR": "Super Rare",
    "XR": "Extension Rare",
    "T": "Token",
    "MR": "Marvel Rare",
    "RR": "Ruler",
    "JR": "J-Ruler",
    "JR*": "Colossal J-Ruler",
    "N": "Normal",
    "SEC": "Secret Rare",
    "AR": "Ascended Ruler",
    "JAR": "Ascended J-ruler",
    "SRR": "Sub-Ruler",
}

# A .fdk deck's lists -> the section names of the site's Force of Will formats (their headers in
# deck text).
SECTIONS: dict[str, str] = {"main": "Main deck", "stones": "Magic stone deck", "side": "Side deck"}

# The end of a face's number: fowsim's other sides, longest first; a digit must come before.
_FACE = re.compile(r"^(?P<front>.*\d)(?P<side>J\^|\^|J|\*)$")
_SYMBOL = re.compile(r"\{([^{}]*)\}")
_OPENING = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")
_PARENS = re.compile(r"^(?P<base>[^()]+?)\s*\((?P<inner>[^()]+)\)$")
_OLD_SUPERTYPES = {"spell"}  # `Spell:Chant`: the part before the colon is no type of today
_RECORD_FIELDS = ("types", "cost", "colours", "keywords", "stats", "text")


class FowsimError(ValueError):
    """The input is not a fowsim file of the kind asked for."""


class Problem(NamedTuple):
    """Something in a record that could not be mapped: the record's id and name, what kind of
    problem (`type`, `cost`, `colour`, `stats`, `rarity`, `leader`, `reprint`, `record`, `set`)
    and why."""

    id: str
    name: str
    kind: str
    message: str


@dataclass
class Conversion:
    data: dict
    problems: list[Problem] = field(default_factory=list)

    def names(self) -> dict[str, str]:
        """{printing number: the name of the card or leader holding it}; a face's number gives
        its card's (or leader's) name: what a deck list names."""
        names = {}
        for owner in [*self.data["leaders"], *self.data["cards"]]:
            for printing in owner["printings"]:
                names[printing["number"]] = owner["name"]
            for face in owner["faces"]:
                for printing in face["printings"]:
                    names[printing["number"]] = owner["name"]
        return names


def face_front(number: str) -> str:
    """The printing number a face's number names: `TSW-109J` -> `TSW-109`, `RDE-060J^` ->
    `RDE-060`, `BFA-076^` -> `BFA-076`; any other number is returned as it is."""
    match = _FACE.match(number.strip())
    return match["front"] if match else number.strip()


def slugify(value: str) -> str:
    """Django's slugify, without Django: ASCII, lower case, hyphens between words."""
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value.lower())
    return re.sub(r"[-\s]+", "-", value).strip("-_")


def _listed(raw: Mapping, key: str) -> list:
    """A field that fowsim gives as a list, or as one string."""
    value = raw.get(key) or []
    return [value] if isinstance(value, str) else value


def _clean(value) -> str:
    """A one-line string: whitespace trimmed, inner runs collapsed to one space."""
    return " ".join(str(value).split()) if value is not None else ""


def _unique(items) -> list:
    seen, out = set(), []
    for item in items:
        key = item.casefold() if isinstance(item, str) else item
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


# --- one record -------------------------------------------------------------------------------


class _TypeReader:
    """Reads fowsim type words into (type slugs, keywords) for one game's card types."""

    def __init__(self, types: Mapping[str, str]):
        self.slugs = {}
        for slug, name in types.items():
            self.slugs[slugify(slug)] = slug
            self.slugs[slugify(name)] = slug
        self.attributes = {"light", "fire", "water", "wind", "darkness", "void"}

    def read(self, word: str) -> tuple[list[str], list[str]] | None:
        """The types and keywords `word` gives, or None when it names no type of the game."""
        word = _clean(word)
        if not word:
            return None
        if (slug := self.slugs.get(slugify(word))) is not None:
            return [slug], []
        if match := _PARENS.match(word):  # Resonator (Stranger)
            base = self.read(match["base"])
            if base is None:
                return None
            return base[0], [*base[1], _clean(match["inner"])]
        if ":" in word:  # Addition:Field, Spell:Chant-Instant
            head, rest = (_clean(part) for part in word.split(":", 1))
            if (slug := self.slugs.get(slugify(head))) is not None:
                return [slug], [rest] if rest else []
            if slugify(head) in _OLD_SUPERTYPES:
                return self.read(rest)
            return None
        for separator in ("+", "/"):  # Chant/Rune, Chant + Rune
            if separator in word:
                parts = [self.read(part) for part in word.split(separator)]
                if all(parts):
                    return _unique(t for p in parts for t in p[0]), [k for p in parts for k in p[1]]
                return None
        if "-" in word:  # Chant-Instant
            head, rest = word.split("-", 1)
            if (slug := self.slugs.get(slugify(head))) is not None:
                return [slug], [_clean(rest)] if rest.strip() else []
        words = word.split()
        for i in range(1, len(words)):  # Basic Magic Stone, Fire Magic Stone
            if (slug := self.slugs.get(slugify(" ".join(words[i:])))) is not None:
                prefix = " ".join(words[:i])
                return [slug], [word if prefix.casefold() in self.attributes else prefix]
        return None


class _Reader:
    def __init__(self, types: Mapping[str, str]):
        self.types = _TypeReader(types)
        self.problems: list[Problem] = []

    def problem(self, record: Mapping, kind: str, message: str) -> None:
        self.problems.append(
            Problem(_clean(record.get("id")), _clean(record.get("name")), kind, message)
        )

    def record(self, raw: Mapping) -> dict:
        """A card record's fields as the exchange file gives them (`types`, `cost`, `colours`
        beside the cost, `keywords`, `stats`, `text`), reporting what it cannot map."""
        types, type_keywords = self.read_types(raw)
        cost, cost_colours = self.read_cost(raw)
        colours = [c for c in self.read_colours(raw) if c not in cost_colours]
        abilities = self.read_abilities(raw)
        keywords = [*self.read_races(raw), *type_keywords]
        for ability in abilities:
            if (match := _OPENING.match(ability)) is not None:
                keywords += [k for k in DECK_KEYWORDS if k.casefold() == match[1].casefold()]
        if _clean(raw.get("divinity")):
            keywords.append("Divinity")
        return {
            "types": types,
            "cost": cost,
            "colours": colours,
            "keywords": _unique(keywords),
            "stats": self.read_stats(raw),
            "text": "\n".join(abilities),
            "cost_colours": cost_colours,
        }

    def read_types(self, raw: Mapping) -> tuple[list[str], list[str]]:
        value = raw.get("type")
        if isinstance(value, str):  # older exports: one string, types separated by " / "
            words = [w for w in value.split(" / ") if w.strip()]
        elif isinstance(value, list):
            words = value
        else:
            words = []
        types, keywords = [], []
        for word in words:
            read = self.types.read(word) if isinstance(word, str) else None
            if read is None:
                known = ", ".join(dict.fromkeys(self.types.slugs.values()))
                message = f"type {word!r} names no card type of the game ({known}): left out"
                self.problem(raw, "type", message)
                continue
            types += read[0]
            keywords += read[1]
        if not types:
            self.problem(raw, "type", f"no card type could be read from {value!r}")
        return _unique(types), keywords

    def read_cost(self, raw: Mapping) -> tuple[dict[str, int], list[str]]:
        value = raw.get("cost")
        if value is None or isinstance(value, bool):
            return {}, []
        if isinstance(value, int):
            return ({GENERIC: value} if value > 0 else {}), []
        if not isinstance(value, str):
            self.problem(raw, "cost", f"cost {value!r} is not a string such as '{{W}}{{1}}'")
            return {}, []
        rest = _SYMBOL.sub("", value).strip()
        if rest and rest != "0":
            self.problem(raw, "cost", f"cost {value!r}: {rest!r} is outside any {{symbol}}")
        cost: dict[str, int] = {}
        for symbol in _SYMBOL.findall(value):
            code = symbol.strip().upper()
            if code.isdigit():
                key, amount = GENERIC, int(code)
            elif ATTRIBUTES.get(code):
                key, amount = ATTRIBUTES[code], 1
            elif code in SYMBOLS:
                key, amount = SYMBOLS[code], 1
            else:
                self.problem(raw, "cost", f"cost {value!r}: unknown symbol {{{symbol}}} left out")
                continue
            if amount:
                cost[key] = cost.get(key, 0) + amount
        colours = [c for c in cost if c in ATTRIBUTES.values()]
        return {k: cost[k] for k in COST_ORDER if k in cost}, colours

    def read_colours(self, raw: Mapping) -> list[str]:
        value = _listed(raw, "colour")
        colours = []
        for code in value:
            key = code.strip().upper() if isinstance(code, str) else code
            if key not in ATTRIBUTES:
                self.problem(raw, "colour", f"attribute {code!r} is none of W R U G B V")
            elif ATTRIBUTES[key]:
                colours.append(ATTRIBUTES[key])
        return _unique(colours)

    def read_races(self, raw: Mapping) -> list[str]:
        value = _listed(raw, "race")
        return [_clean(r) for r in value if isinstance(r, str) and _clean(r)]

    def read_abilities(self, raw: Mapping) -> list[str]:
        value = _listed(raw, "abilities")
        abilities = []
        for ability in value:
            if isinstance(ability, str):
                if ability.strip():
                    abilities.append(ability.strip())
            else:
                self.problem(raw, "record", f"ability {ability!r} is not text: left out")
        return abilities

    def read_stats(self, raw: Mapping) -> dict[str, int]:
        stats = {}
        for key, slug in (("ATK", "atk"), ("DEF", "def")):
            value = raw.get(key)
            if value is None or value == "":
                continue
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value.strip())
            if isinstance(value, int) and not isinstance(value, bool):
                stats[slug] = value
            else:
                self.problem(raw, "stats", f"{key} {value!r} is not a number: left out")
        return stats

    def printing(self, raw: Mapping, set_code: str) -> dict:
        printing = {"set": set_code, "number": _clean(raw["id"])}
        rarity = _clean(raw.get("rarity"))
        if rarity:
            printing["rarity"] = rarity
            if rarity not in RARITIES:
                self.problem(raw, "rarity", f"rarity {rarity!r} is no fowsim rarity code: kept")
        if flavour := str(raw.get("flavour") or "").strip():
            printing["flavour"] = flavour
        artists = raw.get("artists") or []
        artists = [artists] if isinstance(artists, str) else artists
        if artist := ", ".join(_clean(a) for a in artists if _clean(a)):
            printing["artist"] = artist
        return printing


# --- the file ---------------------------------------------------------------------------------


def _load(data):
    if isinstance(data, bytes | str):
        try:
            return json.loads(data)
        except ValueError as e:
            raise FowsimError(f"not JSON: {e}") from None
    return data


def _records(data, reader: _Reader) -> tuple[list[dict], list[tuple[str, dict]]]:
    """The sets (exchange shape) and every readable card record with its set's code."""
    fow = data.get("fow") if isinstance(data, Mapping) else None
    clusters = fow.get("clusters") if isinstance(fow, Mapping) else None
    if not isinstance(clusters, list):
        raise FowsimError(
            'not a fowsim card file: expected {"fow": {"clusters": [{"name": ..., "sets": '
            '[{"code": ..., "name": ..., "cards": [...]}]}]}}'
        )
    sets, records, codes, ids = [], [], set(), set()
    for cluster in clusters:
        if not isinstance(cluster, Mapping) or not isinstance(cluster.get("sets"), list):
            reader.problems.append(Problem("", "", "set", "a cluster without a list of sets"))
            continue
        group = _clean(cluster.get("name"))
        for fow_set in cluster["sets"]:
            if not isinstance(fow_set, Mapping) or not _clean(fow_set.get("code")):
                name = _clean(fow_set.get("name")) if isinstance(fow_set, Mapping) else ""
                message = f"set {name!r} of {group!r} has no code: its cards are left out"
                reader.problems.append(Problem("", "", "set", message))
                continue
            code = _clean(fow_set["code"])
            if code.casefold() in codes:
                message = f"set {code} is listed twice: its cards join the first"
                reader.problems.append(Problem("", "", "set", message))
            else:
                codes.add(code.casefold())
                sets.append({"code": code, "name": _clean(fow_set.get("name")), "group": group})
            cards = fow_set.get("cards") or []
            for raw in cards if isinstance(cards, list) else [cards]:
                if not isinstance(raw, Mapping):
                    message = f"a card of {code} is not an object: left out"
                    reader.problems.append(Problem("", "", "record", message))
                    continue
                number, name = _clean(raw.get("id")), _clean(raw.get("name"))
                if not number or not name:
                    reader.problem(raw, "record", "no id or no name: left out")
                elif number in ids:
                    reader.problem(raw, "record", f"id {number} is in the file twice: left out")
                else:
                    ids.add(number)
                    records.append((code, raw))
    return sets, records


def convert(data, *, game: str = GAME, types: Mapping[str, str] | None = None) -> Conversion:
    """The exchange file for a fowsim card file (parsed JSON, or its text), and the problems
    met. `types`: the game's card types, slug -> name (default TYPES). Raises FowsimError when
    `data` is not a fowsim card file."""
    reader = _Reader(TYPES if types is None else types)
    sets, records = _records(_load(data), reader)
    numbers = {_clean(raw["id"]) for _, raw in records}

    leaders: dict[str, dict] = {}
    cards: dict[str, dict] = {}
    owner_of: dict[str, dict] = {}  # a front's number -> the card or leader holding it
    firsts: dict[int, tuple[str, dict]] = {}  # id(entry) -> (first number, its fields)
    faces, orphans = [], []

    def merge(entry: dict, raw: Mapping, fields: dict, printing: dict) -> None:
        first = firsts.get(id(entry))
        if first is None:
            firsts[id(entry)] = (printing["number"], fields)
        else:
            differ = [f for f in _RECORD_FIELDS if fields.get(f) != first[1].get(f)]
            if differ:
                message = (
                    f"reads differently from {first[0]} ({', '.join(differ)}): "
                    f"{first[0]}'s are kept"
                )
                reader.problem(raw, "reprint", message)
        entry["printings"].append(printing)

    for code, raw in records:
        number, name = _clean(raw["id"]), _clean(raw["name"])
        front = face_front(number)
        if front != number and front in numbers:
            faces.append((code, raw, front))
            continue
        fields = reader.record(raw)
        printing = reader.printing(raw, code)
        if LEADER_TYPE in fields["types"] and front == number:
            dropped = [f"type {t}" for t in fields["types"] if t != LEADER_TYPE] + [
                f"{what} {fields[what]}" for what in ("cost", "stats") if fields[what]
            ]
            if dropped:
                message = f"a leader has no types, cost or stats: {', '.join(dropped)} left out"
                reader.problem(raw, "leader", message)
            entry = leaders.get(name.casefold())
            if entry is None:
                colours = _unique([*fields["cost_colours"], *fields["colours"]])
                entry = leaders[name.casefold()] = {
                    "name": name,
                    "colours": colours,
                    "keywords": fields["keywords"],
                    "text": fields["text"],
                    "faces": [],
                    "printings": [],
                }
        else:
            if front != number:
                orphans.append((code, raw, fields, printing))
                continue
            entry = cards.get(name.casefold())
            if entry is None:
                entry = cards[name.casefold()] = _card(name, fields, printing)
        merge(entry, raw, fields, printing)
        owner_of[number] = entry

    def add_face(owner: dict, raw: Mapping, fields: dict, printing: dict) -> None:
        name = _clean(raw["name"])
        face = next((f for f in owner["faces"] if f["name"].casefold() == name.casefold()), None)
        if face is None:
            face = {"name": name, **_public(fields), "printings": []}
            owner["faces"].append(face)
        merge(face, raw, fields, printing)

    for code, raw, front in faces:
        fields = reader.record(raw)
        add_face(owner_of[front], raw, fields, reader.printing(raw, code))
    for _code, raw, fields, printing in orphans:  # a face without its front in the file
        name = _clean(raw["name"]).casefold()
        owner = next(
            (
                o
                for o in [*leaders.values(), *cards.values()]
                if any(f["name"].casefold() == name for f in o["faces"])
            ),
            None,
        )
        if owner is not None:
            add_face(owner, raw, fields, printing)
        else:
            entry = cards.get(name)
            if entry is None:
                entry = cards[name] = _card(_clean(raw["name"]), fields, printing)
            merge(entry, raw, fields, printing)

    result = {
        "game": game,
        "sets": sets,
        "leaders": list(leaders.values()),
        "cards": list(cards.values()),
    }
    return Conversion(result, reader.problems)


def _public(fields: dict) -> dict:
    return {k: fields[k] for k in _RECORD_FIELDS}


def _card(name: str, fields: dict, printing: dict) -> dict:
    return {
        "name": name,
        **_public(fields),
        "flavour": printing.get("flavour", ""),
        "faces": [],
        "printings": [],
    }


# --- ban lists --------------------------------------------------------------------------------


def banlist_rules(data) -> dict[str, list[dict]]:
    """A fowsim ban list (`[{"format_name", "cards": [number...], "combination_bans":
    [[number, number]...]}]`) as rule instances per format name::

        {"Wanderer": [{"rule": "banlist", "cards": {"CMF-069": 0, ...}},
                      {"rule": "combination_ban", "groups": [["TAT-090", "GRV-085"], ...]}]}

    Numbers are printing numbers; a face's number stands for its front (`TSW-109J` bans
    `TSW-109`), each number once, in the file's order. A rule with nothing in it is left out."""
    data = _load(data)
    if isinstance(data, Mapping):
        data = [data]
    if not isinstance(data, list) or not all(
        isinstance(f, Mapping) and isinstance(f.get("format_name"), str) for f in data
    ):
        raise FowsimError(
            'not a fowsim ban list: expected [{"format_name": ..., "cards": [...], '
            '"combination_bans": [[...], ...]}]'
        )
    rules: dict[str, list[dict]] = {}
    for fmt in data:
        banned = {face_front(str(n)): 0 for n in fmt.get("cards") or []}
        groups = []
        for group in fmt.get("combination_bans") or []:
            numbers = list(dict.fromkeys(face_front(str(n)) for n in group))
            if len(numbers) > 1 and numbers not in groups:
                groups.append(numbers)
        found = rules.setdefault(_clean(fmt["format_name"]), [])
        if banned:
            found.append({"rule": "banlist", "cards": banned})
        if groups:
            found.append({"rule": "combination_ban", "groups": groups})
    return rules


# --- decks ------------------------------------------------------------------------------------


def deck_text(fdk, names: Mapping[str, str] | Conversion | None = None) -> str:
    """A fowsim deck (`.fdk`: `{"name", "ruler": number, "main": [number...], "stones": [...],
    "side": [...]}`, parsed or as text) as the deck text the site imports
    (deckbuilder.services.parse_deck_text): the ruler's name (or number) on the first line,
    then one `N Card Name` (or `N NUMBER`) a line, each section under a header naming it
    (`Magic stone deck:`), cards in the order they first appear, empty sections left out.
    Without a ruler there is no leader
    line and no `Main deck:` header, so that the first line is a card.

    `names` maps printing numbers to card and leader names (`Conversion.names()`, or the
    Conversion itself). A number it does not hold is written as it is, which the site's import
    reads as a printing number (and names the line if it is none); without `names`, every line
    gives its number."""
    if isinstance(names, Conversion):
        names = names.names()
    names = names or {}
    folded = {k.casefold(): v for k, v in names.items()}

    def name_of(number) -> str:
        number = _clean(number)
        for key in (number, face_front(number)):
            if key in names:
                return names[key]
            if key.casefold() in folded:
                return folded[key.casefold()]
        return number

    deck = _load(fdk)
    if not isinstance(deck, Mapping) or not any(isinstance(deck.get(s), list) for s in SECTIONS):
        raise FowsimError(
            'not a fowsim deck: expected {"ruler": number, "main": [...], "stones": [...], '
            '"side": [...]}'
        )
    lines = []
    ruler = _clean(deck.get("ruler"))
    if ruler:
        lines.append(name_of(ruler))
    others = [k for k, v in deck.items() if isinstance(v, list) and k not in SECTIONS]
    for section in [*SECTIONS, *others]:
        counts: dict[str, int] = {}
        for number in deck.get(section) or []:
            name = name_of(number)
            counts[name] = counts.get(name, 0) + 1
        if not counts:
            continue
        if ruler or section != "main":
            lines.append(f"{SECTIONS.get(section, section)}:")
        lines += [f"{count} {name}" for name, count in counts.items()]
    return "\n".join(lines) + "\n"
