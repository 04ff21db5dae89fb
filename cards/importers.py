"""Bulk import and export of a game's cards and leaders, as JSON or CSV.

Every record goes through the API's serializers (`CardSerializer`, `LeaderSerializer`), so the
API, the admin and imports share one validation path. Records are upserted by slug (made from
the name when absent): an existing card or leader is updated in place, a new one is created,
and one that already matches the record is left untouched. Fields that a record leaves out keep
their current value on update.

An import is all or nothing, in two phases: every row is checked first (shape, the game's
vocabulary, duplicates in the file and clashes with the database), reading a fixed number of
queries and writing nothing; every bad row is reported as `RowError(row, field, message,
kind)`. Only a file without any is written: in bulk, in one transaction, bumping
`Game.rules_version` once. A dry run is the first phase alone, so it finds the same problems.

JSON
----
The API write shape, one file per game::

    {"game": "card-of-gods",
     "leaders": [{"slug": "richard", "name": "Richard", "colours": ["yellow"],
                  "keywords": ["Engeln", "Knight"], "text": "", "image": ""}],
     "cards": [{"slug": "healing", "name": "Healing", "type": "god-card",
                "rarity": "uncommon", "cost": {"life": 2}, "keywords": [], "condition": "",
                "text": "...", "flavour": "", "effect_source": "", "makes_attack": false,
                "image": ""}]}

Cards may also carry `stats` ({"atk": 600}), `loyalty` ({"faction": "Loyalists", "points": 2})
and, in a game whose colours are not derived from the cost, `colours`; leaders may carry
`loyalty` ({"Loyalists": 3}). `slug` is optional. `"game"` may also be a full game definition
(as in cards/sample/*.json), of which only the slug is used here. The read-only fields of API
responses (`url`, `factions`, `total_cost`, a card's `colours` where the cost decides them) are
ignored; any other unknown field is a row error. Rows are numbered from 1 within `leaders` and
within `cards`.

CSV
---
UTF-8 (a byte-order mark is fine), a header row, then one card or leader per row. Columns, in
the order the export writes them (only `type` and `name` are required; a column left out of the
file leaves that field unchanged on update, an empty cell sets it empty):

=============  =====================================================================
type           `card` or `leader`
game           optional: the game's slug; every non-empty cell must name the same game
slug           optional: made from the name when empty
name           the card's or leader's name
card_type      card: card type slug, e.g. `resonator` (optional in a game with one type)
rarity         card: rarity slug, e.g. `common`
cost           card: `domain:amount` pairs separated by spaces, e.g. `life:2 death:1` or
               `fire:1 generic:2`; empty for a card that costs nothing
colours        colour slugs separated by `|`, e.g. `black|yellow`: a leader's matching
               colours; a card's colours only where the game does not derive them from the cost
stats          card: `stat:value` pairs separated by spaces, e.g. `atk:600 def:400`
keywords       keyword names separated by `|`, e.g. `Keld|Plant`
loyalty        `Faction:points`: a card's requirement (`Loyalists:2`), or a leader's points
               per faction separated by `|` (`Loyalists:3|Knalgans:1`)
condition      card: condition for playing
text           effect text (card) or rules text (leader)
flavour        card: flavour text
effect_source  card: effect source icon
makes_attack   card: `true` or `false` (empty is false)
image          a card's picture: its URL; a leader's art: a URL or a path relative to the file
=============  =====================================================================

Card-only cells must be empty on leader rows. Rows are numbered by the line of the file on
which they start (the header is line 1), so a row number points at the line to fix.

Art
---
A printing's or a leader's `image` that is new (or whose art is not stored yet) is read while
the rows are checked: an http(s) URL (ART_FETCH_TIMEOUT, at most ART_MAX_BYTES), or a path
relative to the file (within its folder; only for a file read from disk, as `manage.py
import_cards` does). It is checked and stored as renditions (cards.art), and the `image` keeps
the source. A source that cannot be read, or is no picture, is that row's error. A dry run reads
and checks the art but stores none; an import rolled back deletes the files of the art it
stored.
"""

import csv
import io
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import FieldError, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Prefetch
from django.utils.text import slugify
from rest_framework import serializers

from . import art, fowsim, services, signals
from .api import CardSerializer, LeaderSerializer
from .models import Art, Card, CardSet, Format, Game, Leader, Printing, printings_of_sets
from .text import MAX_DEPTH, problem

FORMATS = ("json", "csv")
NUMBER_DIGITS = 18  # a number of a CSV cell longer than this is no cost, stat or loyalty
# What a bad game definition raises while it is saved (services.save_game).
DEFINITION_ERRORS = (ValueError, KeyError, TypeError, ValidationError, FieldError, IntegrityError)
CARD, LEADER, SET = "card", "leader", "set"
KINDS = ("", SET, LEADER, CARD)  # the order a report lists bad rows in

CARD_FIELDS = (
    "slug",
    "name",
    "type",
    "rarity",
    "cost",
    "colours",
    "stats",
    "keywords",
    "loyalty",
    "condition",
    "text",
    "flavour",
    "effect_source",
    "makes_attack",
    "image",
    "types",
    "faces",
    "printings",
)
LEADER_FIELDS = (
    "slug",
    "name",
    "colours",
    "keywords",
    "loyalty",
    "text",
    "image",
    "faces",
    "printings",
)
# Read-only fields of the API's responses: accepted in JSON records and ignored.
READ_ONLY_FIELDS = {
    CARD: {"url", "factions", "total_cost"},
    LEADER: {"url", "factions"},
    SET: {"url", "card_count"},
}
SET_FIELDS = services.SET_FIELDS
# CSV columns; `type` says card or leader, so a card's type is the column `card_type`.
CSV_COLUMNS = (
    "type",
    "game",
    "slug",
    "name",
    "card_type",
    "rarity",
    "cost",
    "colours",
    "stats",
    "keywords",
    "loyalty",
    "condition",
    "text",
    "flavour",
    "effect_source",
    "makes_attack",
    "image",
)
CSV_REQUIRED = ("type", "name")
LIST_SEPARATOR = "|"
COST_PAIR = re.compile(r"^(?P<domain>[^:\s]+):(?P<amount>\S+)$")


class ImportFileError(ValueError):
    """The file as a whole cannot be read (not UTF-8, not JSON, missing columns, no game)."""


class RowError(NamedTuple):
    row: int
    field: str
    message: str
    kind: str = ""  # card, leader, set, or empty for a row that is neither
    name: str = ""  # the record's name (or code), when it has one

    def __str__(self):
        where = f"{self.kind} row" if self.kind else "row"
        named = f" ({self.name})" if self.name else ""
        return f"{where} {self.row}{named}, {self.field}: {self.message}"


@dataclass
class Record:
    """One card or leader of a file: its API write shape and any problem found reading it."""

    kind: str
    row: int
    data: dict
    errors: list[RowError] = field(default_factory=list)
    duplicate: bool = False  # repeats an earlier record of the file: not validated further
    csv: bool = False  # read from a CSV cell rather than a JSON record

    def error(self, field_name: str, message: str) -> None:
        self.errors.append(RowError(self.row, field_name, message, self.kind, self.name))

    @property
    def name(self) -> str:
        name = self.data.get("name") or self.data.get("code") or ""
        return name.strip()[:120] if isinstance(name, str) else ""


@dataclass
class ImportData:
    fmt: str
    game: str | None = None  # the game slug the file names, if it names one
    definition: dict | None = None  # the game's vocabulary and formats, if the file has them
    leaders: list[Record] = field(default_factory=list)
    cards: list[Record] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)  # rows that are neither card nor leader
    sets: list[Record] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what a source's conversion reported
    base: Path | None = None  # the folder of a file read from disk: art paths are read there

    def records(self) -> dict:
        """What import_records takes of the file."""
        return {
            "sets": self.sets,
            "leaders": self.leaders,
            "cards": self.cards,
            "errors": self.errors,
            "definition": self.definition,
            "base": self.base,
        }


@dataclass
class ImportReport:
    dry_run: bool = False
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[RowError] = field(default_factory=list)
    # Keywords the records name that the game does not have yet: the import creates them.
    new_keywords: list[str] = field(default_factory=list)
    sets_written: int = 0  # sets created or changed
    partial: bool = False  # the good rows are written, the bad ones reported
    # What a source's conversion could not map exactly (cards.fowsim), imported as read.
    warnings: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return not self.dry_run and (self.partial or not self.errors)

    @property
    def new_keywords_text(self) -> str:
        """ "2 new keywords: Ritul, Shiled", "" when there is none."""
        n = len(self.new_keywords)
        if not n:
            return ""
        return f"{n} new keyword{'' if n == 1 else 's'}: {', '.join(self.new_keywords)}"

    def summary(self) -> str:
        counts = f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"
        if self.errors and not (self.partial and not self.dry_run):
            return f"{len(self.errors)} bad row(s); nothing was written."
        if self.errors:
            refused = len({(e.kind, e.row) for e in self.errors})
            counts += f"; {refused} row(s) refused ({len(self.errors)} problem(s) listed)"
        if self.dry_run:
            new = self.new_keywords_text
            check = f" It would create {new} — check their spelling." if new else ""
            return f"Dry run, nothing was written: would be {counts}.{check}"
        created = f" Created {self.new_keywords_text}." if self.new_keywords else ""
        sets = f" {self.sets_written} set(s) created or changed." if self.sets_written else ""
        return f"Imported: {counts}.{sets}{created}"


# --- reading files --------------------------------------------------------------------------


def read_file(source, fmt: str | None = None) -> ImportData:
    """Read a JSON or CSV file (a path or a text or binary file object) into records.

    The format is `fmt` if given, else the file name's extension.
    """
    if isinstance(source, str | Path):
        path = Path(source)
        name, raw = path.name, path.read_bytes()
    else:
        name, raw = getattr(source, "name", "") or "", source.read()
    fmt = (fmt or Path(str(name)).suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise ImportFileError(
            "Give the format (json or csv) or a file name ending in .json or .csv."
        )
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ImportFileError("The file is not UTF-8 text.") from None
    else:
        text = raw.removeprefix("\ufeff")
    data = read_json(text) if fmt == "json" else read_csv(text)
    if isinstance(source, str | Path):
        data.base = Path(source).resolve().parent
    return data


SOURCES = ("exchange", "fowsim")


def read_fowsim(source, *, game: Game) -> ImportData:
    """A file of the Force of Will community database (cards.fowsim) as the records of an
    exchange file for `game`. What the conversion could not map exactly is in `warnings`,
    record by record (the records are imported as read); rarities the game lacks are added to
    it through `definition` (with the fowsim names of their codes)."""
    raw = Path(source).read_bytes() if isinstance(source, str | Path) else source.read()
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise ImportFileError("The file is not UTF-8 text.") from None
    try:
        conversion = fowsim.convert(load_json(text), game=game.slug, types=_type_names(game))
    except fowsim.FowsimError as e:
        raise ImportFileError(f"Not a fowsim file: {e}") from None
    document = conversion.data
    for record in (*document["leaders"], *document["cards"]):
        for face in record.get("faces", []):  # a face's number is its front's (face_front)
            face.pop("printings", None)
    data = read_json(json.dumps(document))
    data.warnings = [f"{p.id} ({p.name}), {p.kind}: {p.message}" for p in conversion.problems]
    data.definition = _with_rarities(game, document)
    known = {r.slug for r in game.rarities.all()}
    for rarity in (data.definition or {}).get("rarities", []):
        if rarity["slug"] not in known:
            data.warnings.append(f"rarity {rarity['code']} ({rarity['name']}) is new: added")
    return data


def is_fowsim_banlist(document) -> bool:
    """Whether a fowsim document is a ban list ([{"format_name", "cards", ...}])."""
    return isinstance(document, list) and all(
        isinstance(item, dict) and "format_name" in item for item in document
    )


def import_fowsim_banlist(*, game: Game, document, base: str = "constructed") -> list[Format]:
    """Each format of a fowsim ban list as a format of `game`: the sections and rules of its
    format `base` (else its default one), then the list's bans by printing number and its
    combination bans. Matched by slug: an import again updates it."""
    if not is_fowsim_banlist(document):
        raise ImportFileError('Not a fowsim ban list: [{"format_name", "cards", ...}].')
    model = game.formats.filter(slug=base).first() or game.default_format()
    if model is None:
        raise ImportFileError(f"{game.name} has no format to base the ban list on.")
    saved = []
    with transaction.atomic():
        for name, rules in fowsim.banlist_rules(document).items():
            data = {
                "slug": slugify(name),
                "name": name,
                "default": False,
                "hand_size": model.hand_size,
                "sections": model.sections,
                "rules": [*model.rules, *rules],
                "banlist": model.banlist,
                "notes": f"{model.name}, with the {name} ban list: the cards it bans (by printing"
                " number) and the pairs it bans together.",
            }
            try:
                saved.append(services.save_format(game=game, data=data))
            except ValidationError as e:
                raise ImportFileError(f"The {name} ban list does not fit: {e}") from None
    return saved


def _type_names(game: Game) -> dict[str, str]:
    """The game's card types, and its leaders' (a ruler is a leader, not a card type)."""
    leader = {fowsim.LEADER_TYPE: game.leader_label} if game.leader_label else {}
    return leader | dict(game.card_types.values_list("slug", "name"))


def _with_rarities(game: Game, document: dict) -> dict | None:
    """A definition of `game` adding the rarities its printings name that it lacks (by code or
    slug, any case), or None when it has them all."""
    rarities = list(game.rarities.values("slug", "name", "symbol", "code"))
    known = {r["slug"].lower() for r in rarities} | {r["code"].lower() for r in rarities}
    used = {
        p["rarity"]
        for record in (*document["leaders"], *document["cards"])
        for p in record.get("printings", [])
        if p.get("rarity")
    }
    new = sorted(code for code in used if code.lower() not in known)
    if not new:
        return None
    rarities += [
        {"slug": slugify(fowsim.RARITIES.get(code, code)) or slugify(code), "code": code,
         "name": fowsim.RARITIES.get(code, code), "symbol": ""}
        for code in new
    ]  # fmt: skip
    return {"slug": game.slug, "rarities": rarities}


def load_json(text: str):
    """The JSON document of `text`, or ImportFileError saying what is wrong: not JSON, nested
    deeper than the API takes (MAX_DEPTH: Python's parser raises RecursionError near
    1,000 levels, and code reading a deep document may too), or a number too long for int()
    (ValueError past sys.get_int_max_str_digits()). For every JSON file that is imported."""
    too_deep = f"The file is nested deeper than {MAX_DEPTH} levels."
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise ImportFileError(f"Not valid JSON: {e}") from None
    except RecursionError:
        raise ImportFileError(too_deep) from None
    except ValueError:  # the only other ValueError of json.loads: int()'s digit limit
        limit = sys.get_int_max_str_digits()
        raise ImportFileError(f"A number in the file has more than {limit} digits.") from None
    if problem(document, strings=False) is not None:
        raise ImportFileError(too_deep)
    return document


def read_json(text: str) -> ImportData:
    document = load_json(text)
    if not isinstance(document, dict):
        raise ImportFileError(
            'The file must be an object: {"game": ..., "leaders": [...], "cards": [...]}.'
        )
    unknown = set(document) - {"game", "sets", "leaders", "cards"}
    if unknown:
        raise ImportFileError(f"Unknown top-level key(s): {', '.join(sorted(unknown))}.")
    game, definition = document.get("game"), None
    if isinstance(game, dict):  # a full game definition, as in cards/sample/*.json
        game, definition = game.get("slug"), game
    if game is not None and not isinstance(game, str):
        raise ImportFileError('"game" must be the game\'s slug or its definition.')
    data = ImportData(fmt="json", game=game or None, definition=definition)
    for kind, key in ((SET, "sets"), (LEADER, "leaders"), (CARD, "cards")):
        items = document.get(key, [])
        if not isinstance(items, list):
            raise ImportFileError(f'"{key}" must be a list.')
        records = getattr(data, key)
        records.extend(_json_record(kind, row, item) for row, item in enumerate(items, 1))
    return data


def _json_record(kind: str, row: int, item) -> Record:
    if not isinstance(item, dict):
        record = Record(kind, row, {})
        record.error("record", "Must be an object.")
        return record
    allowed = {CARD: CARD_FIELDS, LEADER: LEADER_FIELDS, SET: SET_FIELDS}[kind]
    record = Record(kind, row, {k: v for k, v in item.items() if k in allowed})
    for key in sorted(set(item) - set(allowed) - READ_ONLY_FIELDS.get(kind, set())):
        record.error(key, f"Unknown field for a {kind}.")
    return record


def read_csv(text: str) -> ImportData:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise ImportFileError("The file is empty: expected a header row.") from None
    except csv.Error as e:
        raise ImportFileError(f"Not valid CSV: {e}") from None
    unknown = [h for h in header if h not in CSV_COLUMNS]
    missing = [h for h in CSV_REQUIRED if h not in header]
    if unknown or missing or len(set(header)) != len(header):
        problems = []
        if unknown:
            problems.append(f"unknown column(s) {', '.join(unknown)}")
        if missing:
            problems.append(f"missing column(s) {', '.join(missing)}")
        if len(set(header)) != len(header):
            problems.append("a column appears twice")
        raise ImportFileError(
            f"Bad header: {'; '.join(problems)}. Columns: {', '.join(CSV_COLUMNS)}."
        )
    data = ImportData(fmt="csv")
    games = set()
    while True:
        line = reader.line_num + 1
        try:
            values = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            raise ImportFileError(f"Not valid CSV at line {line}: {e}") from None
        if not any(v.strip() for v in values):
            continue
        if len(values) > len(header):
            data.errors.append(RowError(line, "row", "More cells than columns."))
            continue
        values += [""] * (len(header) - len(values))
        cells = {h: v.strip() for h, v in zip(header, values, strict=True)}
        if cells.get("game"):
            games.add(cells["game"])
        kind = cells["type"].lower()
        if kind == CARD:
            data.cards.append(_csv_card(line, cells))
        elif kind == LEADER:
            data.leaders.append(_csv_leader(line, cells))
        else:
            data.errors.append(RowError(line, "type", "Must be card or leader."))
    if len(games) > 1:
        names = ", ".join(sorted(games))
        raise ImportFileError(f"The file mixes games ({names}): one game per file.")
    data.game = games.pop() if games else None
    return data


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(LIST_SEPARATOR) if part.strip()]


def _csv_card(line: int, cells: dict) -> Record:
    record = Record(CARD, line, {})
    for name in CARD_FIELDS:
        column = "card_type" if name == "type" else name
        if column not in cells:
            continue
        value = cells[column]
        if name in ("slug", "type", "colours", "loyalty") and not value:
            continue  # left empty: made from the name / the game's one type / none
        try:
            if name in ("keywords", "colours"):
                value = _split(value)
            elif name == "makes_attack":
                value = value.lower() or "false"
            elif name in ("cost", "stats"):
                value = parse_pairs(value, what=name)
            elif name == "loyalty":
                value = _loyalty(value)
                [(faction, points)] = value.items() if len(value) == 1 else [(None, None)]
                if faction is None:
                    raise ValueError("Give one faction and its points, e.g. Loyalists:2.")
                value = {"faction": faction, "points": points}
        except ValueError as e:
            record.error(name, str(e))
            continue
        record.data[name] = value
    record.csv = True
    return record


def _csv_leader(line: int, cells: dict) -> Record:
    record = Record(LEADER, line, {})
    for name in LEADER_FIELDS:
        if name in cells and (cells[name] or name != "slug"):
            value = cells[name]
            if name in ("colours", "keywords"):
                value = _split(value)
            elif name == "loyalty":
                try:
                    value = _loyalty(value)
                except ValueError as e:
                    record.error(name, str(e))
                    continue
            record.data[name] = value
    for name in set(CARD_FIELDS) - set(LEADER_FIELDS):
        column = "card_type" if name == "type" else name
        if cells.get(column):
            record.error(name, "Leaders have no such field: leave this cell empty.")
    return record


def _loyalty(value: str) -> dict:
    """`"Loyalists:3|Knalgans:1"` -> `{"Loyalists": 3, "Knalgans": 1}` (names may have spaces)."""
    loyalty = {}
    for part in _split(value):
        name, _, points = part.rpartition(":")
        if not name.strip() or not re.fullmatch(r"\d+", points.strip()):
            raise ValueError(f"Write loyalty as Faction:points, e.g. Loyalists:3 (got {part!r}).")
        if len(points.strip()) > NUMBER_DIGITS:
            raise ValueError(f"Loyalty points of {name.strip()!r} are too large.")
        loyalty[name.strip()] = int(points)
    return loyalty


def parse_pairs(value: str, *, what: str = "cost") -> dict:
    """`"life:2 death:1"` -> `{"life": 2, "death": 1}`; amounts that are not whole numbers
    are kept as text, for the card validation to report."""
    pairs = {}
    for pair in value.replace(",", " ").split():
        match = COST_PAIR.match(pair)
        if not match:
            example = "life:2 death:1" if what == "cost" else "atk:600 def:400"
            raise ValueError(
                f"Write the {what} as key:number pairs, e.g. {example} (got {pair!r})."
            )
        key, amount = match["domain"].lower(), match["amount"]
        if key in pairs:
            raise ValueError(f"{key!r} appears twice.")
        # Longer numbers stay text too (int() refuses thousands of digits): too large anyway.
        whole = re.fullmatch(rf"-?\d{{1,{NUMBER_DIGITS}}}", amount)
        pairs[key] = int(amount) if whole else amount
    return pairs


def format_pairs(pairs: dict) -> str:
    return " ".join(f"{key}:{amount}" for key, amount in (pairs or {}).items())


# --- importing ------------------------------------------------------------------------------


def resolve_game(*, file_game: str | None, requested: str | None) -> Game:
    """The game to import into: the one the file names and/or the one asked for."""
    if file_game and requested and file_game != requested:
        raise ImportFileError(f"The file is for game {file_game!r}, not {requested!r}.")
    slug = file_game or requested
    if not slug:
        raise ImportFileError("Name the game: the file does not say which game it is for.")
    game = Game.objects.filter(slug=slug).first()
    if game is None:
        raise ImportFileError(f"Unknown game {slug!r}.")
    return game


def import_records(
    *,
    game: Game,
    cards: Iterable[Record | dict] = (),
    leaders: Iterable[Record | dict] = (),
    dry_run: bool = False,
    errors: Iterable[RowError] = (),
    definition: dict | None = None,
    sets: Iterable[Record | dict] = (),
    partial: bool = False,
    base: Path | None = None,
) -> ImportReport:
    """Validate and upsert records (plain dicts of the API write shape, or read Records),
    after the game's `definition` (vocabulary and formats, services.save_game) if given.
    The art the records name is read (paths from the folder `base`) and stored (`_take_art`).

    Two phases. First every record is checked and counted (`_check`: reads a fixed number of
    queries, writes nothing). Then, only when no record is bad (nor any of `errors`, found while
    reading the file) and this is no dry run, all of them are written in bulk (`_write`), and
    `Game.rules_version` is bumped once. A definition is saved first, in the same transaction,
    so that rows are checked against the vocabulary they come with; a bad row rolls it back too.
    """
    report = ImportReport(dry_run=dry_run, errors=list(errors), partial=partial)
    sets = [_as_record(SET, row, item) for row, item in enumerate(sets, 1)]
    leaders = [_as_record(LEADER, row, item) for row, item in enumerate(leaders, 1)]
    cards = [_as_record(CARD, row, item) for row, item in enumerate(cards, 1)]
    for records in (leaders, cards):
        _check_duplicates(records)
    _check_numbers([*leaders, *cards])
    stored: set[str] = set()  # the digests of the art stored, for `art.discard` on rollback
    try:
        with transaction.atomic(), signals.one_bump():
            if definition is not None:
                try:
                    game = services.save_game(definition={**definition, "slug": game.slug})
                except DEFINITION_ERRORS as e:
                    report.errors.append(RowError(0, "game", f"Bad game definition: {e}"))
            # The sets first, in the same transaction: the printings of the rows name them.
            _save_sets(game, sets, report)
            checked = _check(game, leaders, cards, report)
            writing = not dry_run and (partial or not report.errors)
            _take_art(checked, report, base=base, stored=stored if writing else None)
            if partial:
                checked = _without_bad_rows(checked, report)
            if (partial or not report.errors) and not dry_run:
                _write(game, checked, report)
            report.errors.sort(key=lambda e: (KINDS.index(e.kind) if e.kind in KINDS else 0, e.row))
            rolled_back = (report.errors and not partial) or dry_run
            if rolled_back:
                transaction.set_rollback(True)  # the definition, or a write refused midway
    except BaseException:
        art.discard(stored)
        raise
    if rolled_back:
        art.discard(stored)
    return report


def _take_art(checked: "Checked", report: ImportReport, *, base: Path | None, stored) -> None:
    """The art of the rows to write: each printing's or leader's `image` that is new to it, or
    whose art is not stored yet, is read and checked (cards.art), a problem being that row's
    error; and when `stored` (a set: no dry run, nothing refused yet) is given, stored, its
    write then setting the art, and its digest added to `stored`. A source several rows name
    is read once."""
    read: dict[str, Art | ValidationError | None] = {}
    for record, write in checked:
        owner = write.card if record.kind == CARD else write.leader
        wanted = []  # (field, dict of the write whose "image" names art and gets its "art")
        if record.kind == LEADER and write.fields.get("image"):
            if owner is None or owner.image != write.fields["image"] or owner.art_id is None:
                wanted.append(("image", write.fields))
        if write.printings:
            held = {p.number.lower(): p for p in owner.printing_list} if owner else {}
            for position, values in enumerate(write.printings, 1):
                had = held.get(values["number"].lower())
                if values.get("image") and (
                    had is None or had.image != values["image"] or had.art_id is None
                ):
                    wanted.append((f"printings[{position}].image", values))
        for name, values in wanted:
            source = values["image"]
            if source not in read:
                read[source] = _read_art(source, base, store=stored is not None)
            found = read[source]
            if isinstance(found, ValidationError):
                message = " ".join(found.messages)
                report.errors.append(RowError(record.row, name, message, record.kind, record.name))
            elif found is not None:
                values["art"] = found
                stored.add(found.digest)


def _read_art(source: str, base: Path | None, *, store: bool) -> "Art | ValidationError | None":
    """The art `source` names, stored (None when only checked), or why it cannot be."""
    try:  # the serializers have refused a source that is neither (art.validate_source)
        if source.startswith(("http://", "https://")):
            data = art.fetch(source)
        else:
            data = _read_beside(source, base)
        picture = art.check(data, name=source)
        return art.store(picture) if store else None
    except ValidationError as e:
        return e


def _read_beside(source: str, base: Path | None) -> bytes:
    """The file at `source`, a path relative to the folder `base` of the imported file (and
    within it), at most ART_MAX_BYTES + 1 bytes."""
    if base is None:
        raise ValidationError(
            "A path is read beside a file imported from disk (manage.py import_cards); "
            "give a URL here."
        )
    base = base.resolve()
    path = (base / source).resolve()
    if not path.is_relative_to(base):
        raise ValidationError("Give a path within the folder of the file.")
    try:
        with path.open("rb") as file:
            return file.read(settings.ART_MAX_BYTES + 1)
    except OSError as e:
        raise ValidationError(f"Cannot read {source} beside the file: {e.strerror or e}.") from None


def _without_bad_rows(checked: "Checked", report: ImportReport) -> "Checked":
    """The rows to write of a partial import: those no problem names (a row may be found bad
    after it was counted, by a check across rows)."""
    bad = {(e.kind, e.row) for e in report.errors}
    kept = []
    for record, write in checked:
        if (record.kind, record.row) not in bad:
            kept.append((record, write))
        elif (write.card if record.kind == CARD else write.leader) is None:
            report.created -= 1
        else:
            report.updated -= 1
    return kept


def _save_sets(game: Game, records: list[Record], report: ImportReport) -> None:
    """Check the file's sets and write them (a set is matched by its code, any case)."""
    if not records:
        return
    stored = {s.code.lower(): s for s in CardSet.objects.filter(game=game)}
    seen, good = {}, []
    for record in records:
        errors_before = len(report.errors)
        report.errors.extend(record.errors)
        data = record.data
        code, name = data.get("code"), data.get("name")
        for key, value in (("code", code), ("name", name)):
            if not isinstance(value, str) or not value.strip() or "\n" in value:
                report.errors.append(
                    RowError(record.row, key, "Required: one line of text.", SET, record.name)
                )
        group = data.get("group", "")
        if not isinstance(group, str) or "\n" in group:
            report.errors.append(
                RowError(record.row, "group", "One line of text.", SET, record.name)
            )
        released = data.get("released")
        if released not in (None, ""):
            try:
                released = date.fromisoformat(str(released))
            except ValueError:
                message = f"Not a date as YYYY-MM-DD: {released!r}."
                report.errors.append(RowError(record.row, "released", message, SET, record.name))
        if isinstance(code, str) and code.strip():
            if code.strip().lower() in seen:
                message = f"Duplicate of set row {seen[code.strip().lower()]}."
                report.errors.append(RowError(record.row, "code", message, SET, record.name))
            seen.setdefault(code.strip().lower(), record.row)
        for key, most in (("code", 20), ("name", 120), ("group", 80)):
            if isinstance(data.get(key), str) and len(data[key]) > most:
                message = f"At most {most} characters."
                report.errors.append(RowError(record.row, key, message, SET, record.name))
        if len(report.errors) > errors_before:
            continue
        values = {"code": code.strip(), "name": name.strip(), "group": group.strip()}
        values["released"] = released or None
        current = stored.get(values["code"].lower())
        if current is None or any(getattr(current, k) != v for k, v in values.items()):
            good.append(values)
            report.sets_written += 1
    if good:  # also beside bad rows: the rows naming these sets are checked against them
        services.save_sets(game=game, sets=good)


def _check_numbers(records: list[Record]) -> None:
    """A printing number given by two rows of the file (or twice in one): the later is bad."""
    seen: dict[str, str] = {}
    for record in records:
        printings = record.data.get("printings")
        if record.duplicate or not isinstance(printings, list):
            continue
        for printing in printings:
            number = printing.get("number") if isinstance(printing, dict) else None
            if not isinstance(number, str):
                continue
            where = f"{record.kind} row {record.row}"
            earlier = seen.setdefault(number.strip().lower(), where)
            if earlier != where:
                record.error("printings", f"{number!r} is also a printing of {earlier}.")


def _as_record(kind: str, row: int, item: Record | dict) -> Record:
    if isinstance(item, Record):  # a copy: importing twice must not pile up errors
        return Record(item.kind, item.row, item.data, list(item.errors), item.duplicate, item.csv)
    return _json_record(kind, row, item)


def _slug_of(record: Record) -> str:
    return str(record.data.get("slug") or slugify(str(record.data.get("name") or "")))


def _check_duplicates(records: list[Record]) -> None:
    seen_slugs, seen_names = {}, {}
    for record in records:
        slug = _slug_of(record)
        name = str(record.data.get("name") or "").strip().lower()
        if slug and slug in seen_slugs:
            record.error("slug", f"Duplicate of row {seen_slugs[slug]} ({slug!r}).")
            record.duplicate = True
        elif name and name in seen_names:
            record.error("name", f"Duplicate of row {seen_names[name]}.")
            record.duplicate = True
        seen_slugs.setdefault(slug, record.row)
        seen_names.setdefault(name, record.row)


Checked = list[tuple[Record, services.CardWrite | services.LeaderWrite]]
# What the serializers and _check_new_keywords read of the game (prefetched: no query a row).
IMPORT_VOCABULARY = ("colours", "rarities", "card_types", "stats", "keywords", "sets")


def _check(game: Game, leaders: list[Record], cards: list[Record], report: ImportReport) -> Checked:
    """Phase 1: validate and count every record, every problem into the report; return the
    records to write, each with its write. Names are checked against the file and the database
    as it is, so a row cannot take a name that another row gives up.

    A fixed number of queries, however many rows: the game with its vocabulary and keywords,
    then per kind every slug and name of the game and the records the file updates."""
    game = Game.objects.prefetch_related(*IMPORT_VOCABULARY).get(pk=game.pk)
    numbers = _numbers(game, [*leaders, *cards])
    checked = []
    for records, model, serializer_class in (
        (leaders, Leader, LeaderSerializer),
        (cards, Card, CardSerializer),
    ):
        if not records:
            continue
        taken, existing = _existing(game, model, records)
        # One serializer a kind, its instance set to each row's record in turn (as DRF's
        # ListSerializer does): building a ModelSerializer's fields costs more than a row.
        # It needs no request as long as nothing reads `.data` (which builds URLs).
        context = {"game": game, "request": None, "taken": taken, "numbers": numbers}
        serializer = serializer_class(context=context)
        for record in records:
            write = _check_one(record, existing.get(_slug_of(record)), serializer, report)
            if write is not None:
                checked.append((record, write))
    _check_new_keywords(game, checked, report)
    return checked


def _numbers(game: Game, records: list[Record]) -> dict:
    """{lower-case number: (model name, pk)} of the game's printings, as the serializers'
    `_check_numbers` reads it, less those that a record of the file gives up (it lists its
    printings without them): another record may take them."""
    if not any("printings" in record.data for record in records):
        return {}  # nothing to check
    listed = {
        (record.kind, _slug_of(record)): {
            str(p.get("number", "")).lower()
            for p in record.data["printings"]
            if isinstance(p, dict)
        }
        for record in records
        if isinstance(record.data.get("printings"), list)
    }
    rows = Printing.objects.filter(game=game).values_list(
        "number", "card_id", "leader_id", "card__slug", "leader__slug"
    )
    numbers = {}
    for number, card, leader, card_slug, leader_slug in rows:
        kind, pk, slug = (CARD, card, card_slug) if card else (LEADER, leader, leader_slug)
        given_up = number.lower() not in listed.get((kind, slug), {number.lower()})
        if not given_up:
            numbers[number.lower()] = (kind, pk)
    return numbers


def _existing(game: Game, model, records: list[Record]) -> tuple[dict, dict]:
    """The `taken` index of the serializers ({("slug", slug) or ("name", lower-case name): pk}
    of all the game's records of this model) and {slug: record} of those the file names, with
    what the serializers and _is_unchanged read of them."""
    taken = {}
    for pk, slug, name in model.objects.filter(game=game).values_list("pk", "slug", "name"):
        taken[("slug", slug)] = pk
        taken.setdefault(("name", name.lower()), pk)
    keys = {("slug", _slug_of(record)) for record in records}
    if model is Card:
        queryset = Card.objects.select_related("type", "rarity", "loyalty_faction")
        queryset = queryset.prefetch_related("keywords", "colours", "faces", "more_types")
        if any("printings" in record.data for record in records):  # what _is_unchanged reads
            queryset = queryset.prefetch_related("printings")
    else:
        queryset = Leader.objects.for_rules()
    instances = queryset.filter(pk__in=[taken[key] for key in keys if key in taken])
    return taken, {instance.slug: instance for instance in instances}


def _check_one(record: Record, instance, serializer, report: ImportReport):
    """What to write of the record; None if it is bad (its errors are in the report) or
    unchanged."""
    if record.duplicate:
        report.errors.extend(record.errors)
        return None
    serializer.instance, serializer.initial_data = instance, record.data
    try:
        data, problems = serializer.run_validation(record.data), {}
    except serializers.ValidationError as e:
        data, problems = None, e.detail
    errors = record.errors + [
        RowError(record.row, name, message, record.kind, record.name)
        for name, message in _flatten(problems)
    ]
    if errors:
        report.errors.extend(errors)
        return None
    if instance is not None and _is_unchanged(instance, data, serializer.game):
        report.unchanged += 1
        return None
    if instance is None:
        report.created += 1
    else:
        report.updated += 1
    return serializer.to_write(data)


def _check_new_keywords(game: Game, checked: Checked, report: ImportReport) -> None:
    """A keyword new to the game gets the slug of its name: a second keyword with that slug
    (`Knight!` beside `Knight`) would be refused by the database while writing. The others go
    to `report.new_keywords` (the import creates them: a misspelt keyword shows there)."""
    slugs = {keyword.slug: keyword.name for keyword in game.keyword_list}
    names = {keyword.name.lower() for keyword in game.keyword_list}
    for record, write in checked:
        for name in (n.strip() for n in write.keywords):
            if not name or name.lower() in names:
                continue
            slug = slugify(name)
            if slug in slugs:
                message = f"New keyword {name!r} would have the slug of {slugs[slug]!r}."
                report.errors.append(RowError(record.row, "keywords", message, record.kind))
            else:
                slugs[slug] = name
                names.add(name.lower())
                report.new_keywords.append(name)


def _write(game: Game, checked: Checked, report: ImportReport) -> None:
    """Phase 2: the leaders, then the cards, each in one bulk write."""
    try:
        with transaction.atomic():
            for kind in (LEADER, CARD):
                _save(game, kind, [write for record, write in checked if record.kind == kind])
    except IntegrityError as e:
        # Phase 1 checked every constraint, so only a concurrent write gets here: write the
        # rows one by one to name those the database refuses (the caller rolls all back).
        for record, write in checked:
            try:
                with transaction.atomic():
                    _save(game, record.kind, [write])
            except IntegrityError as row_error:
                message = f"Not saved: {row_error}"
                report.errors.append(RowError(record.row, "record", message, record.kind))
        if not report.errors:
            report.errors.append(RowError(0, "record", f"Not saved: {e}"))


def _save(game: Game, kind: str, writes: list) -> None:
    save = services.save_cards if kind == CARD else services.save_leaders
    save(game=game, writes=writes)


def _flatten(errors, prefix: str = ""):
    """DRF errors -> (field, message) pairs; nested list items become `keywords[2]`."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            if isinstance(key, int):
                name = f"{prefix}[{key + 1}]"
            elif key == "non_field_errors":
                name = prefix
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            yield from _flatten(value, name)
    elif isinstance(errors, list):
        for item in errors:
            yield from _flatten(item, prefix)
    else:
        yield prefix or "record", str(errors)


FACE_DEFAULTS = {"types": [], "cost": {}, "colours": [], "keywords": [], "stats": {}, "text": ""}


def _is_unchanged(instance, data: dict, game: Game) -> bool:
    for name, value in data.items():
        if name == "keywords":
            current = {k.name.lower() for k in instance.keyword_list}
            if current != {n.strip().lower() for n in value if n.strip()}:
                return False
        elif name == "colours":
            wanted = {c.pk for c in value}
            if isinstance(instance, Card) and game.colours_from_cost:  # given beside the cost
                cost = data.get("cost", instance.cost) or {}
                wanted |= {c.pk for d, c in game.domains().items() if d in cost}
            if {c.pk for c in instance.colour_list} != wanted:
                return False
        elif name == "types":
            if [t.pk for t in instance.type_list] != [t.pk for t in dict.fromkeys(value)]:
                return False
        elif name == "faces":
            given = [{**FACE_DEFAULTS, **face} for face in value]
            if [face.as_record() for face in instance.face_list] != given:
                return False
        elif name == "loyalty" and isinstance(instance, Card):
            current = (instance.loyalty_faction_id, instance.loyalty_points)
            if current != ((value["faction"].pk, value["points"]) if value else (None, None)):
                return False
        elif name == "loyalty":
            current = {row.faction_id: row.points for row in instance.loyalty_list}
            if current != {faction.pk: points for faction, points in value.items()}:
                return False
        elif name == "printings":
            if [_printing_key(p) for p in instance.printing_list] != [_given_key(p) for p in value]:
                return False
        elif name == "image" and isinstance(instance, Leader) and value and not instance.art_id:
            return False  # its art is still to be read (_take_art)
        elif getattr(instance, name) != value:
            return False
    return True


def _printing_key(printing) -> tuple:
    """What a stored printing holds, to compare it with a validated one (`_given_key`); one
    whose `image` names art not stored yet differs (_take_art reads it)."""
    fields = (printing.number, printing.image, printing.artist, printing.flavour)
    art_read = printing.art_id is not None or not printing.image
    return (printing.set_id, printing.rarity_id, *fields, art_read)


def _given_key(values: dict) -> tuple:
    rarity = values.get("rarity")
    fields = tuple(values.get(name, "") for name in ("number", "image", "artist", "flavour"))
    return (values["set"].pk, rarity.pk if rarity else None, *fields, True)


# --- exporting ------------------------------------------------------------------------------


def export_game(*, game: Game, fmt: str) -> str:
    """The game's sets, leaders and cards as a JSON or CSV file that `read_file` reads back
    (CSV has no sets or printings)."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown format {fmt!r}: use json or csv.")
    printings = Prefetch("printings", printings_of_sets())
    leaders = [
        _leader_record(leader)
        for leader in Leader.objects.filter(game=game).for_rules().order_by("name")
    ]
    cards = [
        card.as_record(with_colours=not game.colours_from_cost)
        for card in (
            Card.objects.filter(game=game)
            .select_related("rarity", "type", "loyalty_faction")
            .prefetch_related("keywords", "colours", "faces", "more_types", printings)
            .order_by("name")
        )
    ]
    if fmt == "json":
        definition = services.export_game_definition(game)
        document = {"game": definition}
        sets = [_set_record(s) for s in CardSet.objects.filter(game=game)]
        if sets:
            document["sets"] = sets
        document |= {"leaders": leaders, "cards": cards}
        for record in (*leaders, *cards):  # a file of a plain game reads as before
            for key in ("printings", "faces"):
                if not record[key]:
                    del record[key]
            if record.get("types") == [record.get("type")]:
                del record["types"]
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for kind, records in ((LEADER, leaders), (CARD, cards)):
        for record in records:
            row = {**record, "type": kind, "game": game.slug}
            row["keywords"] = LIST_SEPARATOR.join(record["keywords"])
            row["colours"] = LIST_SEPARATOR.join(record.get("colours", []))
            loyalty = record.get("loyalty")
            if kind == CARD:
                row["card_type"] = record["type"]
                row["cost"] = format_pairs(record["cost"])
                row["stats"] = format_pairs(record["stats"])
                row["makes_attack"] = "true" if record["makes_attack"] else "false"
                loyalty = {loyalty["faction"]: loyalty["points"]} if loyalty else {}
            row["loyalty"] = LIST_SEPARATOR.join(f"{k}:{v}" for k, v in (loyalty or {}).items())
            writer.writerow(row)
    return out.getvalue()


def _set_record(card_set: CardSet) -> dict:
    record = {"code": card_set.code, "name": card_set.name, "group": card_set.group}
    record["released"] = card_set.released.isoformat() if card_set.released else None
    return record


def _leader_record(leader: Leader) -> dict:
    return {
        "slug": leader.slug,
        "name": leader.name,
        "colours": [c.slug for c in leader.colour_list],
        "keywords": [k.name for k in leader.keyword_list],
        "loyalty": leader.loyalty,
        "text": leader.text,
        "image": leader.image,
        "faces": [face.as_record() for face in leader.face_list],
        "printings": [p.as_record() for p in leader.printing_list],
    }
