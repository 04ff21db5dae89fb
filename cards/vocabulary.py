"""What pages read of a game besides its cards, cached: its vocabulary, and the site's games.

A page reads its game's row (one query, which gives `Game.rules_version`) and takes the rest from
here: `of(game)` returns the game's `Vocabulary` — colours, rarities, card types, stats, formats,
keywords (factions marked), leaders with their colours, keywords and loyalty, glossary terms and
the rules sections the formats cite — and attaches it to the game, so that `game.colour_list`,
`game.default_format()`, `Format.engine()`, `Glossary.for_game(game)` and the filters read it
without a query. `Card.objects.for_listing(game)` dresses cards from it.

Where it is kept: a vocabulary is keyed on `(game.pk, game.rules_version)`, and every change to
what it holds bumps `rules_version` (cards.signals), so a key is never stale: a change is seen
by the next request. Each process keeps the last version it built of each game (a speed-up); on
a miss it asks the shared cache (Django's cache framework: Redis in production, the database
table otherwise), and on a miss there it reads the database and fills the shared cache.

The games of the site's navigation are cached the same way under `games_version()`, which
changes whenever a game is added, renamed or removed (or any game's rules_version moves): pages
read it in the same query as their game or deck (`game_or_404`, `remember_games_version`).

Only what was read outside a transaction of our own is stored: a transaction may bump a
version and roll back, and its number is then given to the next real change. Reading a cache is
always right: a version found there was committed with (at least) that data.

Everything here is shared by the requests of a process: read it, never change it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.shortcuts import get_object_or_404

from . import pagecache
from .glossary import Glossary, Term, read_terms
from .models import (
    Card,
    CardSet,
    CardType,
    Colour,
    Face,
    Format,
    FormatVersion,
    Game,
    GlossaryTerm,
    Keyword,
    Leader,
    Loyalty,
    Printing,
    Rarity,
    RuleSection,
    Stat,
    games_version,
    hold,
    section_href,
)

# Old versions leave the shared cache after a day (a new version has a new key).
SHARED_SECONDS = 24 * 60 * 60

_local: dict[str, tuple[object, object]] = {}  # name: (version, value), this process's


def clear() -> None:
    """Forget what this process holds (tests: a rolled-back test may reuse a version)."""
    _local.clear()


def _in_own_transaction() -> bool:
    """Whether the database connection is inside a transaction of ours, whose reads may yet be
    rolled back (a test's own transaction does not count: tests run pages inside one)."""
    blocks = transaction.get_connection().atomic_blocks
    return any(not getattr(block, "_from_testcase", False) for block in blocks)


def shared_key(name: str, version) -> str:
    """The shared cache's key of `version` of `name`, in this release (what it holds may take
    another shape in the next: its entries are then not read)."""
    return f"page-cache:{pagecache.release()}:{name}:{version}"


def cached(name: str, version, load, build=lambda value: value):
    """`build(load())` for `version` of `name`: from this process, else from the shared cache
    (`load()`'s value is what the shared cache holds, picklable), else loaded and stored."""
    hit = _local.get(name)
    if hit is not None and hit[0] == version:
        return hit[1]
    key = shared_key(name, version)
    stored = cache.get(key)
    if stored is None:
        stored = load()
        if _in_own_transaction():
            return build(stored)  # maybe not committed: keep it for this call only
        cache.set(key, stored, SHARED_SECONDS)
    value = build(stored)
    _local[name] = (version, value)
    return value


def _ids(text: str | None) -> list[int]:
    return [int(pk) for pk in text.split(",")] if text else []


# --- the vocabulary of a game -------------------------------------------------------------

TERMS = ("colours", "rarities", "card_types", "stats", "formats", "keywords", "sets")


class Vocabulary:
    """One game's words at one rules_version, built from what `_load` read (the shared cache's
    value). Each object points at `self.game` (a copy of the game's row of that version) and
    leaders carry their colours, keywords and loyalties: nothing here runs a query."""

    def __init__(self, rows: dict):
        self.game = game = rows["game"]
        self.version = game.rules_version
        self.colours: list[Colour] = rows["colours"]
        self.rarities: list[Rarity] = rows["rarities"]
        self.card_types: list[CardType] = rows["card_types"]
        self.stats: list[Stat] = rows["stats"]
        self.formats: list[Format] = rows["formats"]
        self.keywords: list[Keyword] = rows["keywords"]  # by name
        self.sets: list[CardSet] = rows["sets"]  # by release date, then code
        # Whether any card of the game has other faces, or more than one type: lists of cards
        # then prefetch them (a game without holds none, and asks nothing).
        self.card_faces: bool = rows["card_faces"]
        self.more_types: bool = rows["more_types"]
        self.leaders: list[Leader] = rows["leaders"]  # by name
        self.rule_urls: dict[str, str] = rows["rule_urls"]
        for obj in (*self.colours, *self.rarities, *self.card_types, *self.stats):
            obj.game = game
        for obj in (*self.formats, *self.keywords, *self.leaders, *self.sets):
            obj.game = game
        self._attach(game)
        self.colour_by_pk = {c.pk: c for c in self.colours}
        self.rarity_by_pk = {r.pk: r for r in self.rarities}
        self.type_by_pk = {t.pk: t for t in self.card_types}
        self.keyword_by_pk = {k.pk: k for k in self.keywords}
        self.leader_by_pk = {leader.pk: leader for leader in self.leaders}
        self.format_by_pk = {fmt.pk: fmt for fmt in self.formats}
        self.leader_by_slug = {leader.slug: leader for leader in self.leaders}
        self.set_by_pk = {s.pk: s for s in self.sets}
        self.set_by_code = {s.code.lower(): s for s in self.sets}
        self._colour_order = {c.pk: i for i, c in enumerate(self.colours)}
        self._keyword_order = {k.pk: i for i, k in enumerate(self.keywords)}
        colours, keywords, loyalties = {}, {}, {}
        self._leader_colours: dict[int, list | None] = {}
        for leader_id, colour_id in rows["leader_colours"]:
            colours.setdefault(leader_id, []).append(colour_id)
        for leader_id, keyword_id in rows["leader_keywords"]:
            keywords.setdefault(leader_id, []).append(keyword_id)
        for loyalty in rows["loyalties"]:  # by points, then faction name
            if loyalty.faction_id in self.keyword_by_pk:
                loyalty.faction = self.keyword_by_pk[loyalty.faction_id]
            loyalties.setdefault(loyalty.leader_id, []).append(loyalty)
        for leader in self.leaders:
            self._leader_colours[leader.pk] = self._ordered(colours.get(leader.pk), "colour")
            for name, ids, kind in (
                ("colours", colours.get(leader.pk), "colour"),
                ("keywords", keywords.get(leader.pk), "keyword"),
            ):
                items = self._ordered(ids, kind)
                if items is not None:
                    hold(leader, name, items)
            for loyalty in loyalties.get(leader.pk, []):
                loyalty.leader = leader
            hold(leader, "loyalties", loyalties.get(leader.pk, []))
        versions: dict[int, list] = {}
        for version in rows["format_versions"]:  # oldest first
            version.format = self.format_by_pk[version.format_id]
            versions.setdefault(version.format_id, []).append(version)
        for fmt in self.formats:
            hold(fmt, "versions", versions.get(fmt.pk, []))
        printings: dict[int, list] = {}
        for printing in rows["leader_printings"]:
            printings.setdefault(printing.leader_id, []).append(printing)
        faces: dict[int, list] = {}
        for face in rows["leader_faces"]:
            faces.setdefault(face.leader_id, []).append(face)
        for leader in self.leaders:
            hold(leader, "printings", self.dress_printings(printings.get(leader.pk, [])))
            hold(leader, "faces", faces.get(leader.pk, []))
        self.glossary_terms: list[Term] = read_terms(game, rows["glossary"])

    def _ordered(self, ids, kind: str) -> list | None:
        """The colours (or keywords) of these ids in the game's order; None if one is unknown
        (the caller then leaves the relation to a query)."""
        found = self.colour_by_pk if kind == "colour" else self.keyword_by_pk
        order = self._colour_order if kind == "colour" else self._keyword_order
        ids = ids or []
        if any(pk not in found for pk in ids):
            return None
        return [found[pk] for pk in sorted(set(ids), key=order.__getitem__)]

    def _attach(self, game: Game) -> None:
        for name in TERMS:
            hold(game, name, getattr(self, name))
        game.words = self  # what `of(game)` returns again

    def attach(self, game: Game) -> Game:
        """Let `game` (a row of this game) read its vocabulary from here without a query."""
        if game.pk != self.game.pk:
            raise ValueError(f"This is the vocabulary of {self.game}, not of {game}.")
        self._attach(game)
        return game

    def dress(self, card: Card, game: Game | None, colour_ids: str | None, keyword_ids: str | None):
        """Give `card` its game, rarity, type, loyalty faction, colours and keywords (ids as
        `relation_ids` reads them) from here; what this version does not know is left to a
        query."""
        card.game = game or self.game
        if card.rarity_id in self.rarity_by_pk:
            card.rarity = self.rarity_by_pk[card.rarity_id]
        if card.type_id in self.type_by_pk:
            card.type = self.type_by_pk[card.type_id]
        if card.loyalty_faction_id in self.keyword_by_pk:
            card.loyalty_faction = self.keyword_by_pk[card.loyalty_faction_id]
        for name, ids, kind in (
            ("colours", colour_ids, "colour"),
            ("keywords", keyword_ids, "keyword"),
        ):
            items = self._ordered(_ids(ids), kind)
            if items is not None:
                hold(card, name, items)
        # What the game has none of is held empty: its lists prefetch none (Dressing).
        hold(card, "printings", self.dress_printings(card.printings.all()) if self.sets else [])
        hold(card, "faces", card.faces.all() if self.card_faces else [])
        more = card.more_types.all() if self.more_types else []
        hold(card, "more_types", [self.type_by_pk.get(t.pk, t) for t in more])
        return card

    def dress_printings(self, printings) -> list[Printing]:
        """Printings with their set and rarity from here (those this version does not know are
        left to a query)."""
        printings = list(printings)
        for printing in printings:
            if printing.set_id in self.set_by_pk:
                printing.set = self.set_by_pk[printing.set_id]
            if printing.rarity_id in self.rarity_by_pk:
                printing.rarity = self.rarity_by_pk[printing.rarity_id]
        return printings

    def leader(self, pk) -> Leader | None:
        """The leader with its colours, keywords and loyalty (None: not of this version)."""
        return self.leader_by_pk.get(pk)

    def colours_of(self, leader: Leader) -> list[Colour]:
        """The leader's colours in the game's order, as `leader.colour_list` (no manager)."""
        found = self._leader_colours.get(leader.pk)
        return found if found is not None else leader.colour_list

    @cached_property
    def _leader_infos(self) -> dict:
        return {leader.pk: leader.info() for leader in self.leaders}

    def leader_info(self, leader: Leader):
        """The leader as the rules engine sees it (legality.LeaderInfo), made once a version."""
        return self._leader_infos.get(leader.pk) or leader.info()

    def leaders_named(self, text: str = "") -> list[Leader]:
        """The leaders whose name holds `text` (any case), by name."""
        text = text.casefold()
        return [leader for leader in self.leaders if text in leader.name.casefold()]

    @cached_property
    def _glossary(self) -> Glossary:
        return Glossary.of_terms(self.glossary_terms)

    def glossary(self) -> Glossary:
        """The game's glossary, a new one per page (it records the terms it linked)."""
        return self._glossary.fresh()


def _pairs(relation, owner: str, target: str, game_id: int) -> list[tuple[int, int]]:
    through = relation.through.objects.filter(**{f"{owner}__game_id": game_id})
    return list(through.values_list(f"{owner}_id", f"{target}_id"))


def _load(game_id: int) -> dict:
    """What a Vocabulary is built from: plain rows, picklable for the shared cache."""
    game = Game.objects.get(pk=game_id)
    formats = list(Format.objects.filter(game_id=game_id))
    versions = list(FormatVersion.objects.filter(format__game_id=game_id))
    refs = {rule.get("section") for v in versions for rule in v.rules} - {None, ""}
    anchors = RuleSection.objects.live().filter(game_id=game_id, number__in=refs)
    return {
        "game": game,
        "colours": list(Colour.objects.filter(game_id=game_id)),
        "rarities": list(Rarity.objects.filter(game_id=game_id)),
        "card_types": list(CardType.objects.filter(game_id=game_id)),
        "stats": list(Stat.objects.filter(game_id=game_id)),
        "formats": formats,
        "format_versions": versions,
        "keywords": list(Keyword.objects.filter(game_id=game_id)),
        "sets": list(CardSet.objects.filter(game_id=game_id)),
        "leader_printings": list(
            Printing.objects.filter(game_id=game_id, leader__isnull=False).select_related("art")
        ),
        "leader_faces": list(Face.objects.filter(leader__game_id=game_id)),
        "card_faces": Face.objects.filter(card__game_id=game_id).exists(),
        "more_types": Card.more_types.through.objects.filter(card__game_id=game_id).exists(),
        "leaders": list(Leader.objects.filter(game_id=game_id).select_related("art")),
        "leader_colours": _pairs(Leader.colours, "leader", "colour", game_id),
        "leader_keywords": _pairs(Leader.keywords, "leader", "keyword", game_id),
        "loyalties": list(Loyalty.objects.filter(leader__game_id=game_id)),
        "glossary": list(GlossaryTerm.objects.filter(game_id=game_id).select_related("section")),
        "rule_urls": rule_urls(game.slug, anchors.values_list("number", "anchor")),
    }


def rule_urls(game_slug: str, anchors) -> dict[str, str]:
    """{rules-reference number: page#anchor} for (number, anchor) pairs."""
    return {number: section_href(game_slug, number, anchor) for number, anchor in anchors}


def of(game: Game) -> Vocabulary:
    """The vocabulary of `game` at its rules_version, attached to it (see the module's
    docstring): no query when this process or the shared cache has it."""
    found = getattr(game, "words", None)
    if found is None:
        found = at(game.pk, game.rules_version)
        found.attach(game)
    return found


def at(game_id: int, rules_version: int) -> Vocabulary:
    """The vocabulary of the game `game_id` at `rules_version`, read with a row that points at
    the game (a deck): its `game` is the game's row of that version, to be read, not changed."""
    return cached(f"vocabulary:{game_id}", rules_version, lambda: _load(game_id), Vocabulary)


def lexicon(game: Game) -> tuple[str, ...]:
    """The words of the game's card names and texts as the search index holds them (PostgreSQL),
    sorted: `Card.objects.search` turns a word start that few of them have into those words.
    Kept like the vocabulary, at the game's rules_version (which every card change moves);
    built in one query (~0.2 s at 50,000 cards) once per version for all processes. Empty
    elsewhere (SQLite searches substrings: no index to help)."""
    if connection.vendor != "postgresql":
        return ()

    def load() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT DISTINCT word FROM cards_card, unnest(tsvector_to_array(search_vector))"
                " AS word WHERE game_id = %s",
                [game.pk],
            )
            return sorted(row[0] for row in cursor.fetchall())

    return cached(f"lexicon:{game.pk}", game.rules_version, load, tuple)


# --- the site's games ---------------------------------------------------------------------


@dataclass(frozen=True)
class NavGame:
    pk: int
    slug: str
    name: str
    has_sets: bool = False  # its navigation links to its sets


def _read_games() -> list[NavGame]:
    games = Game.objects.annotate(has_sets=Exists(CardSet.objects.filter(game=OuterRef("pk"))))
    return [NavGame(*row) for row in games.values_list("pk", "slug", "name", "has_sets")]


def navigation_games(version: str | None = None) -> list[NavGame]:
    """The games, by name, for the site's navigation: cached under `version` (a value of
    `games_version()` read in this request), else read (one query)."""
    if version is None:
        return _read_games()
    return cached("navigation", version, _read_games)


def remember_games_version(request, version: str | None) -> None:
    """Tell the navigation (cards.context_processors) which version of the games this request
    read, with its game or deck: it then costs no query."""
    request.games_version = version


def game_or_404(request, slug: str, *, vocabulary: bool = True, **annotations) -> Game:
    """The game of a page (404 if none) in one query, with the version of the site's games
    (for the navigation) and, unless `vocabulary` is False, its vocabulary attached."""
    game = get_object_or_404(
        Game.objects.annotate(games_version=games_version(), **annotations), slug=slug
    )
    remember_games_version(request, game.games_version)
    if vocabulary:
        of(game)
    return game
