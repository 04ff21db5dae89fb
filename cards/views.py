"""Server-rendered pages of the reference data: games, the card browser, cards and leaders,
and the rules reference (contents, sections, search, glossary, printable rules).

Views stay thin: they look objects up by slug, hand reads to QuerySet methods and the shared
CardFilter, and pass plain values to templates. Every page runs a constant number of queries
whatever the number of cards shown: it reads its game (`vocabulary.game_or_404`, one query that
also gives the navigation's version), takes the game's vocabulary and leaders from the cache
(cards.vocabulary), and lists cards with `for_listing(game)` (their colours and keywords come in
their rows), counted up to a cap (cards.pagination).
"""

import datetime
import re
import string
import unicodedata

from django import forms
from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import (
    Case,
    Count,
    Exists,
    IntegerField,
    JSONField,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    Value,
    When,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce, JSONObject, Substr
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from . import faces, filters, format_changes, legality, rulebook, vocabulary
from .filters import CardFilter
from .glossary import Glossary, rules_for_card
from .models import (
    SEARCH_MAX_LENGTH,
    Card,
    Colour,
    Face,
    Game,
    GlossaryTerm,
    Keyword,
    Leader,
    Printing,
    RuleSection,
    ancestor_numbers,
    as_tree,
    games_version,
    hold,
    section_href,
    section_hrefs,
    section_links,
    snippet,
    subtree_q,
)
from .pagecache import anonymous_page
from .pagination import paginate

CARDS_PER_PAGE = 24
LEADERS_PER_PAGE = 48
RESULTS_PER_PAGE = 20

# --- helpers --------------------------------------------------------------------------------


def _count_of(model):
    """A subquery counting the rows of `model` of the outer game (no join fan-out)."""
    counts = (
        model.objects.filter(game=OuterRef("pk"))
        .order_by()
        .values("game")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counts, output_field=IntegerField()), 0)


def _get_game(request, slug: str, **annotations) -> Game:
    """The page's game (404 if none), its vocabulary left in the database (rules pages), with
    `search_example`: the first term of its glossary that a section defines, the example of
    the rules' search box in the game's own words (None: no such term), in the same query."""
    example = GlossaryTerm.objects.filter(game=OuterRef("pk"), section__isnull=False)
    return vocabulary.game_or_404(
        request,
        slug,
        vocabulary=False,
        search_example=Subquery(example.order_by("pk").values("term")[:1]),
        **annotations,
    )


def _paginate(request, cards):
    """A page of cards (from `for_listing(game)`), counted up to a cap (cards.pagination)."""
    page = paginate(request, cards, CARDS_PER_PAGE)
    return page, list(page.object_list)


def leaders_able_to_use(card: Card, leaders, fmt: legality.Format, info_of=Leader.info):
    """The leaders (with prefetched colours, keywords, loyalties) the format lets use `card`;
    `info_of(leader)`: the leader as the engine sees it (the vocabulary keeps them)."""
    info = card.info()
    return [leader for leader in leaders if not legality.card_problems(fmt, info_of(leader), info)]


def _label(form, name: str) -> str:
    """The label of a filter field, as the form shows it (in the game's words)."""
    field = form.fields.get(name)
    return str(field.label) if field is not None and field.label else name


# --- pages ----------------------------------------------------------------------------------


# What a colour's CSS value may hold: enough for #hex, names and rgb()/hsl(), nothing that could
# end the declaration (; { } : quotes, backslash) and write other rules into the stylesheet.
CSS_COLOUR = re.compile(r"[#a-zA-Z0-9(),.%/ -]+")


@require_safe
@cache_control(max_age=300)
def colours_css(request):
    """Every game's colours as classes (`colour-<pk>` sets `--c`) for badges, pips and bars:
    the Content-Security-Policy refuses style attributes, and colours are data, not static."""
    lines = [
        f".colour-{pk} {{ --c: {css}; }}\n"
        for pk, css in Colour.objects.order_by("pk").values_list("pk", "css")
        if CSS_COLOUR.fullmatch(css)
    ]
    return HttpResponse("".join(lines), content_type="text/css; charset=utf-8")


def _pictures() -> dict:
    """Annotations of a game's picture, read in the game's own row: the pk of its first leader
    with a picture (art, or an image), and its first card as {"id", "slug", "name", "image",
    "art"} ("art": whether a printing of it has art)."""
    pictured = Q(art__isnull=False) | Q(printings__art__isnull=False) | Q(image__startswith="http")
    leaders = Leader.objects.filter(pictured, game=OuterRef("pk")).order_by("name")
    art = Exists(Printing.objects.filter(card=OuterRef("pk"), art__isnull=False))
    card = JSONObject(id="id", slug="slug", name="name", image="image", art=art)
    cards = Card.objects.filter(game=OuterRef("pk")).order_by("name").annotate(shown=card)
    return {
        "leader_shown": Subquery(leaders.values("pk")[:1]),
        "card_shown": Subquery(cards.values("shown")[:1], output_field=JSONField()),
    }


def _with_pictures(games: list[Game]) -> list[Game]:
    """The games (annotated with `_pictures()`), each with its picture: `picture_leader`, else
    `picture_card`. Leaders with a picture and cards with art are read with their printings'
    art (two queries for each, whatever the number of games; none when no game has one); a card
    without art is made from the game's row alone (its image or its drawn face): no query."""
    printings = Prefetch("printings", Printing.objects.select_related("art"))
    leaders = Leader.objects.select_related("art").prefetch_related(printings)
    leaders = leaders.in_bulk({g.leader_shown for g in games} - {None})
    shown = {g.pk: g.card_shown for g in games if g.card_shown and g.leader_shown is None}
    with_art = Card.objects.prefetch_related(printings)
    with_art = with_art.in_bulk([card["id"] for card in shown.values() if card["art"]])
    for game in games:
        game.picture_leader = leaders.get(game.leader_shown)
        game.picture_card = None
        if game.pk in shown:
            fields = {k: v for k, v in shown[game.pk].items() if k != "art"}
            game.picture_card = with_art.get(fields["id"])
            if game.picture_card is None:
                game.picture_card = Card(game=game, **fields)
                hold(game.picture_card, "printings", [])  # none with art: no query for them
    return games


@require_safe
@anonymous_page
def home(request):
    """Every game, the flagship first (settings.FLAGSHIP_GAME), each with its picture: two
    queries whatever the number of games, and those of the pictures with art (_with_pictures);
    the navigation's games come from the cache under the games' version read here."""
    flagship = settings.FLAGSHIP_GAME
    games = _with_pictures(
        list(
            Game.objects.annotate(
                card_count=_count_of(Card),
                leader_count=_count_of(Leader),
                games_version=games_version(),
                **_pictures(),
            )
            .order_by(Case(When(slug=flagship, then=Value(0)), default=Value(1)), "name")
            .prefetch_related("formats")
        )
    )
    if games:  # the navigation lists them by name, from the cache under this version
        vocabulary.remember_games_version(request, games[0].games_version)
    return render(request, "cards/home.html", {"games": games, "flagship": flagship})


@require_safe
@anonymous_page
def game_detail(request, game):
    game = vocabulary.game_or_404(
        request, game, card_count=_count_of(Card), leader_count=_count_of(Leader), **_pictures()
    )
    return render(
        request,
        "cards/game_detail.html",
        {
            "game": _with_pictures([game])[0],
            "colours": game.colour_list,
            "rarities": game.rarity_list,
            "card_types": game.type_list,
            "stats": game.stat_list,
            "formats": game.format_list,
            "factions": [k for k in game.keyword_list if k.is_faction],
        },
    )


@require_safe
@anonymous_page
def format_detail(request, game, slug):
    """A format in words: its deck sections and every rule (today's version), each linked to
    its rules section and marked when the site chose it; its versions, newest first, each with
    what it changed; the other formats of the game."""
    game = vocabulary.game_or_404(request, game)
    formats = game.format_list
    fmt = next((f for f in formats if f.slug == slug), None)
    if fmt is None:
        raise Http404("No such format.")
    engine = fmt.engine({t.slug: t.name for t in game.type_list})
    refs = {rule.get("section") for rule in fmt.rules} - {None}
    anchors = dict(
        RuleSection.objects.filter(game=game, number__in=refs).values_list("number", "anchor")
    )
    rows = [
        {
            "text": legality.describe(rule, engine),
            "code": legality.CODES[rule["rule"]],
            "site_default": rule.get("site_default", False),
            "ref": rule.get("section"),
            "href": section_href(game.slug, rule["section"], anchors[rule["section"]])
            if rule.get("section") in anchors
            else None,
        }
        for rule in engine.all_rules()
    ]
    gated = legality.closed_sections(engine, None, short=True)
    versions = _versions(fmt)
    changed = [v for v in versions if v["changes"]]
    bans = _bans(game, engine, {b.ref for v in changed for b in v["changes"].bans})
    for version in changed:
        version["bans"] = [(bans["named"].get(b.ref, b.ref), b) for b in version["changes"].bans]
    context = {
        "game": game,
        "format": fmt,
        "formats": formats,
        "rows": rows,
        "sizes": [
            (s, legality.size_label(engine, s.slug), gated.get(s.slug, "")) for s in engine.sections
        ],
        "versions": versions,
        "current": next((v for v in versions if v["in_force"]), None),
        "upcoming": [v for v in versions if v["upcoming"]][::-1],  # the next first
        **bans,
    }
    return render(request, "cards/format_detail.html", context)


def _versions(fmt) -> list[dict]:
    """The format's versions, newest first, each with whether it is in force today, to come
    (`upcoming`) or over (`until`: its last day), and what it changed from the one before
    (format_changes.Changes; None for the first). No query: the versions come with the game's
    vocabulary."""
    today = timezone.localdate()
    versions, now = fmt.version_list, fmt.version_on(today)
    rows = []
    for i, version in enumerate(versions):
        following = versions[i + 1] if i + 1 < len(versions) else None
        upcoming = version.starts is not None and version.starts > today
        rows.append(
            {
                "version": version,
                "in_force": version == now,
                "upcoming": upcoming,
                "until": following.starts - datetime.timedelta(days=1)
                if following and not upcoming
                else None,
                "changes": format_changes.diff(versions[i - 1].engine(), version.engine())
                if i
                else None,
                # its own words: not those of the one before, nor the page's lead (in force)
                "notes": ""
                if version == now or (i and version.notes == versions[i - 1].notes)
                else version.notes,
            }
        )
    return rows[::-1]


def _bans(game: Game, engine: legality.Format, more: set[str] = frozenset()) -> dict:
    """The format's bans by card (its ban list and its banlist rules, by slug or printing
    number), and its combination bans with the names of what they name (a reference to nothing
    of this pool stays as written); `named`: the cards and leaders of those and of the `more`
    refs (other versions' ban changes): four queries, none without bans."""
    bans: dict[str, int] = {}
    pairs = []
    for rule in engine.all_rules():
        if rule["rule"] == "banlist":
            for key, n in (rule.get("cards") or {}).items():
                bans[key] = min(n, bans.get(key, n))
        elif rule["rule"] == "combination_ban":
            pairs += rule.get("groups") or []
    refs = set(bans) | {ref for group in pairs for ref in group} | set(more)
    if not refs:
        return {"banned": [], "pairs": [], "named": {}}
    named: dict[str, Card | Leader] = {}
    for model in (Card, Leader):
        found = model.objects.filter(game=game).filter(
            Q(slug__in=refs) | Q(printings__number__in=refs)
        )
        for obj in found.distinct().prefetch_related("printings"):
            obj.game = game  # for its address
            for key in (obj.slug, *(p.number for p in obj.printing_list)):
                if key in refs:
                    named.setdefault(key, obj)
    banned: dict = {}
    for key, n in bans.items():
        card = named.get(key)
        if isinstance(card, Card):
            banned[card] = min(n, banned.get(card, n))
    return {
        "banned": sorted(banned.items(), key=lambda item: item[0].name),
        "pairs": [[named.get(ref, ref) for ref in group] for group in pairs],
        "named": named,
    }


# The card browser's views (`?view=`): tiles of picture and name, a table a card a row, the
# full text a card a block. The first is the default and has no parameter; an unknown one is it.
CARD_VIEWS = {"grid": "Grid", "list": "List", "text": "Text"}
DEFAULT_CARD_VIEW = "grid"


def _card_list_reads(name: str) -> bool:
    return name == "view" or filters.reads(name)


@require_safe
@anonymous_page(reads=_card_list_reads)
def card_list(request, game):
    game = vocabulary.game_or_404(request, game)  # its vocabulary: CardFilter's choices
    view = request.GET.get("view")
    if view not in CARD_VIEWS:
        view = DEFAULT_CARD_VIEW
    words = vocabulary.of(game)
    filterset = CardFilter(
        request.GET, queryset=Card.objects.filter(game=game).for_listing(words), game=game
    )
    valid = filterset.is_valid()
    if valid:
        page, cards = _paginate(request, filterset.qs)
    else:
        page, cards = None, []
    context = {
        "game": game,
        "filter": filterset,
        "form": filterset.form,
        "page": page,
        "cards": cards,
        "valid": valid,
        "filter_errors": [
            {"field": name, "label": _label(filterset.form, name), "messages": messages}
            for name, messages in filterset.form.errors.items()
        ],
        "leader_filter": game.has_leaders,  # a text box: its suggestions come from `suggest`
        "view": view,
        "views": [
            {"param": None if v == DEFAULT_CARD_VIEW else v, "label": label, "current": v == view}
            for v, label in CARD_VIEWS.items()
        ],
        **filterset.form_options(),
    }
    return render(request, "cards/card_list.html", context, status=200 if valid else 400)


SUGGESTIONS = 12
SUGGEST_KINDS = {"cards": Card, "keywords": Keyword, "leaders": Leader}


@require_safe
@cache_control(public=True, max_age=300)
def suggest(request, kind, game=None):
    """Names for a <datalist>, as <option value="Full Name"> elements (htmx swaps them in): at
    most SUGGESTIONS of the game's cards, keywords or leaders whose name starts with the text,
    then those holding it, any case; no text: the first ones by name. Cards and leaders are
    also found by the names of their other faces. 2 or 3 queries.

    Without a game (`suggest-any`: a filter of decks of any game) the names are any game's, and
    each option also says whose (`Eclipse — Berserk. Heroes, Card of Gods`); 2 queries.

    The text is `q`. An input that must keep its own name (a filter's `keyword`) may send its
    value under that name instead: without a non-empty `q`, the first other non-empty
    parameter is the text."""
    model = SUGGEST_KINDS.get(kind)
    if model is None:
        raise Http404(f"No suggestions of {kind!r}: ask for {', '.join(SUGGEST_KINDS)}.")
    of_game = {} if game is None else {"game": _get_game(request, game)}
    text = request.GET.get("q", "").strip()
    if not text:
        text = next((v.strip() for k, v in request.GET.items() if k != "q" and v.strip()), "")
    if len(text) > SEARCH_MAX_LENGTH:
        return HttpResponseBadRequest(
            f"The text is too long: at most {SEARCH_MAX_LENGTH} characters.",
            content_type="text/plain; charset=utf-8",
        )
    also = () if of_game else ("game__name",)  # across games: whose each name is
    found = _named(model.objects.filter(**of_game), text, *also)
    if model in (Card, Leader):  # the names of their other faces find them too
        owner = "card" if model is Card else "leader"
        faces = Face.objects.filter(**of_game, **{f"{owner}__isnull": False})
        found = sorted({*found, *_named(faces, text, *also)})[:SUGGESTIONS]
    games_of: dict[str, list[str]] = {}  # one option a name, whatever the games bearing it
    for _, name, *game_name in found:
        games_of.setdefault(name, []).extend(game_name)
    options = [
        (name, f"{name} — {', '.join(sorted(set(games)))}" if games else "")
        for name, games in games_of.items()
    ]
    return render(request, "cards/suggestions.html", {"options": options})


def _named(rows, text: str, *also: str) -> list[tuple]:
    """(0 if the name starts with `text` else 1, name, *the fields `also`) of the first
    SUGGESTIONS of `rows` whose name holds `text`, any case."""
    if text:
        rows = rows.filter(name__icontains=text).annotate(
            later=Case(
                When(name__istartswith=text, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
    else:
        rows = rows.annotate(later=Value(0, output_field=IntegerField()))
    rows = rows.order_by("later", "name", *also).values_list("later", "name", *also).distinct()
    return list(rows[:SUGGESTIONS])


def _standing(game: Game, card: Card) -> list[dict]:
    """Each format of the game with where `card` alone stands under its version in force
    today (legality.card_status), for the card's page."""
    info = card.info()
    rows = []
    for fmt in game.format_list:
        status, limit = legality.card_status(fmt.engine(), info)
        rows.append(
            {
                "format": fmt,
                "version": fmt.current,
                "status": status,
                "label": legality.status_label(status, limit),
            }
        )
    return rows


@require_safe
def card_detail(request, game, slug):
    game = vocabulary.game_or_404(request, game)
    words = vocabulary.of(game)  # the leaders with their colours, keywords and loyalty
    card = get_object_or_404(Card.objects.filter(game=game).for_listing(words), slug=slug)
    fmt = game.default_format()
    engine = fmt.engine() if fmt and game.has_leaders else None
    glossary = Glossary.for_game(game)
    rulings = list(card.rulings.all())
    links = section_links(game) if rulings else {}  # "see 9.3" in answers: a link
    for ruling in rulings:
        ruling.answer_html = rulebook.render_markdown(ruling.answer, links)
        ruling.source_url = (
            ruling.source if ruling.source.startswith(("https://", "http://")) else ""
        )
    return render(
        request,
        "cards/card_detail.html",
        {
            "game": game,
            "card": card,
            "leaders": [
                (leader, words.colours_of(leader))
                for leader in leaders_able_to_use(card, words.leaders, engine, words.leader_info)
            ]
            if engine
            else [],
            "leader_rules": [
                legality.describe(rule, engine)
                for rule in (engine.rules if engine else [])
                if rule["rule"] in legality.LEADER_RULES
            ],
            "format": fmt,
            "standing": _standing(game, card),
            "glossary": glossary,
            "concerns": rules_for_card(card, glossary),
            "rulings": rulings,
        },
    )


# --- card faces -----------------------------------------------------------------------------

FACE_MAX_AGE = 86400
# The face is an image: nothing in it may run or load anything (it draws with attributes only).
FACE_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox"


@require_safe
def card_face(request, game, slug):
    """The SVG face of a card (cards.faces), shown for the cards without an image: cached a day
    by anyone and revalidated by its ETag (one query answers 304, six draw the face), under a
    policy that lets nothing in it run or load."""
    card = get_object_or_404(
        Card.objects.select_related("game", "rarity", "type"), game__slug=game, slug=slug
    )
    response = HttpResponse(content_type="image/svg+xml; charset=utf-8")
    response["ETag"] = faces.face_etag(card, card.game)
    patch_cache_control(response, public=True, max_age=FACE_MAX_AGE)
    response["Content-Security-Policy"] = FACE_CSP
    response["X-Content-Type-Options"] = "nosniff"
    answer = get_conditional_response(request, etag=response["ETag"], response=response)
    if answer is not response:  # 304 Not Modified
        return answer
    prefetch_related_objects([card], "colours", "keywords", "faces", "more_types", "game__stats")
    response.content = faces.card_face_svg(card, card.game)
    return response


class LeaderSearchForm(forms.Form):
    q = forms.CharField(label="Name", max_length=SEARCH_MAX_LENGTH, required=False, strip=True)


@require_safe
@anonymous_page(reads={"q", "page"})
def leader_list(request, game):
    """The leaders, LEADERS_PER_PAGE a page, those whose name holds `q` (any case): the game's
    cached vocabulary holds them with their colours, factions and loyalty, so the page costs
    the game's query only."""
    game = vocabulary.game_or_404(request, game)
    if not game.has_leaders:
        raise Http404(f"{game.name} has no leaders.")
    form = LeaderSearchForm(request.GET)
    valid = form.is_valid()
    query = form.cleaned_data["q"] if valid else ""
    leaders = vocabulary.of(game).leaders_named(query) if valid else []
    page = paginate(request, leaders, LEADERS_PER_PAGE)
    context = {
        "game": game,
        "form": form,
        "query": query,
        "page": page,
        "leaders": list(page.object_list),
        "valid": valid,
    }
    return render(request, "cards/leader_list.html", context, status=200 if valid else 400)


@require_safe
@anonymous_page(reads={"page"})
def leader_detail(request, game, slug):
    game = vocabulary.game_or_404(request, game)
    leader = vocabulary.of(game).leader_by_slug.get(slug)
    if leader is None:
        raise Http404(f"No {game.leader_label or 'leader'} {slug!r} in {game.name}.")
    usable = Card.objects.usable_by(leader).for_listing(vocabulary.of(game))
    page, cards = _paginate(request, usable)
    return render(
        request,
        "cards/leader_detail.html",
        {
            "game": game,
            "leader": leader,
            "format": game.default_format(),
            "page": page,
            "cards": cards,
        },
    )


# --- sets ------------------------------------------------------------------------------------

PRINTINGS_PER_PAGE = 100


@require_safe
@anonymous_page
def set_list(request, game):
    """The game's sets by group (in the order of their first release), each with its count of
    printings: one query besides the game."""
    game = vocabulary.game_or_404(request, game)
    counts = dict(
        Printing.objects.filter(game=game).order_by().values_list("set_id").annotate(n=Count("pk"))
    )
    groups: dict[str, list] = {}
    for card_set in game.set_list:
        card_set.card_count = counts.get(card_set.pk, 0)
        groups.setdefault(card_set.group, []).append(card_set)
    return render(
        request,
        "cards/set_list.html",
        {"game": game, "groups": list(groups.items()), "set_count": len(game.set_list)},
    )


@require_safe
@anonymous_page(reads={"page"})
def set_detail(request, game, code):
    """One set's printings by number, PRINTINGS_PER_PAGE a page, with their cards' names and
    types (from the game's vocabulary): two queries besides the game."""
    game = vocabulary.game_or_404(request, game)
    words = vocabulary.of(game)
    card_set = words.set_by_code.get(code.lower())
    if card_set is None:
        raise Http404(f"No set {code!r} in {game.name}.")
    if code != card_set.code:
        return redirect(card_set, permanent=True)
    printings = (
        Printing.objects.filter(set=card_set)
        .select_related("card", "leader")
        .only(*SET_ROW_FIELDS)
        .order_by("number")
    )
    page = paginate(request, printings, PRINTINGS_PER_PAGE)
    rows = words.dress_printings(page.object_list)
    for printing in rows:
        owner = printing.owner
        owner.game = game
        if printing.card_id and printing.card.type_id in words.type_by_pk:
            printing.card.type = words.type_by_pk[printing.card.type_id]
    return render(
        request,
        "cards/set_detail.html",
        {"game": game, "set": card_set, "page": page, "printings": rows},
    )


# What a set's list shows of each printing and its card or leader.
SET_ROW_FIELDS = (
    "number",
    "set_id",
    "rarity_id",
    "card_id",
    "leader_id",
    "artist",
    "card__slug",
    "card__name",
    "card__type_id",
    "card__game_id",
    "leader__slug",
    "leader__name",
    "leader__game_id",
)


# --- the rules reference --------------------------------------------------------------------
# Each page reads the game and then its sections (or terms) in one query, whatever their number.


class RuleSearchForm(forms.Form):
    q = forms.CharField(
        label="Search the rules", max_length=SEARCH_MAX_LENGTH, required=False, strip=True
    )


# The contents list every section when a game has at most this many current ones; above, it
# lists the chapters (top-level sections) only, and each chapter's contents are a page of their
# own (rule_contents), which htmx loads into the chapter's block when it is opened.
CONTENTS_ONE_PAGE_MAX = 400
# What the contents show of a section: number and display title (the start of the body for an
# untitled rule), linked to its page; not the rendered body.
_CONTENTS_FIELDS = ("game", "number", "title", "body", "anchor", "parent", "depth", "sort_key")


def _size(section: RuleSection) -> int:
    """How many sections a section of `as_tree` holds, at any depth."""
    return sum(1 + _size(node) for node in section.nodes)


def _linked(sections, game: Game) -> list[RuleSection]:
    """The sections as a list, each with `game` set (no query per section) and `href`, its
    permalink (the page of its first part, at its anchor)."""
    sections = list(sections)
    pages = section_hrefs(game.slug, ((rulebook.page_number(s.number), "") for s in sections))
    for section in sections:
        section.game = game
        section.href = pages[rulebook.page_number(section.number)] + section.anchor
    return sections


def _is_htmx(request) -> bool:
    """An htmx request for a fragment (not the restore of a page from htmx's history)."""
    return (
        request.headers.get("HX-Request") == "true"
        and request.headers.get("HX-History-Restore-Request") != "true"
    )


def _top_number(number: str, game: Game) -> str:
    """The number of a top-level section (a chapter of chaptered rules) as written in its URL,
    normalised; Http404 for anything else."""
    try:
        clean = rulebook.normalise_number(number)
    except ValueError:
        raise Http404("No such chapter.") from None
    if not clean.isdigit() or rulebook.depth(clean, game.rules_chapters) != 1:
        raise Http404("No such chapter.")
    return clean


@require_safe
@anonymous_page
def rule_index(request, game):
    """The contents: a collapsible block per chapter (top-level section), its sections nested
    inside. A game with more than CONTENTS_ONE_PAGE_MAX current sections gets its chapters
    only, each with its size and a link to its contents page, which htmx loads into the block.

    The game is read with its number of current sections; then every section (one query), or
    the chapters (one query) and the size of each (one more: a chapter's sort key is the first
    four characters of its sections' keys). 3 queries in all, 4 for a large rulebook."""
    live = RuleSection.objects.live()
    count = live.filter(game=OuterRef("pk")).order_by().values("game").annotate(n=Count("pk"))
    game = _get_game(
        request,
        game,
        rules_count=Coalesce(Subquery(count.values("n"), output_field=IntegerField()), 0),
    )
    live = live.filter(game=game).only(*_CONTENTS_FIELDS).order_by("sort_key")
    paged = game.rules_count > CONTENTS_ONE_PAGE_MAX
    if paged:  # the chapters: sections without a parent (the index of parent finds them)
        tree = as_tree(_linked(live.filter(parent__isnull=True, depth=1), game))
        sizes = dict(
            live.order_by()
            .values(top=Substr("sort_key", 1, 4))
            .annotate(n=Count("pk"))
            .values_list("top", "n")
        )
        for chapter in tree:
            chapter.size = sizes.get(chapter.sort_key, 1) - 1
    else:
        tree = as_tree(_linked(live, game))
        for chapter in tree:
            chapter.size = _size(chapter)
    context = {
        "game": game,
        "tree": tree,
        "count": game.rules_count,
        "paged": paged,
        "form": RuleSearchForm(),
    }
    return render(request, "cards/rules_index.html", context)


@require_safe
@anonymous_page
def rule_contents(request, game, number):
    """The contents of one chapter (top-level section): its sections as a nested list, with
    links to read and print it. A page of its own (title, breadcrumbs, the previous and next
    chapters); to htmx only the list, which the contents page loads into the chapter's block.
    One query reads the chapter's sections and the other chapters."""
    game = _get_game(request, game)
    clean = _top_number(number, game)
    if clean != number:
        return redirect("rule-contents", game=game.slug, number=clean, permanent=True)
    rows = _linked(
        RuleSection.objects.live()
        .filter(game=game)
        .filter(Q(depth=1) | subtree_q(clean, game.rules_chapters))
        .only(*_CONTENTS_FIELDS)
        .order_by("sort_key"),
        game,
    )
    tops = as_tree(rows)  # the chapters; this one with its sections
    chapter = next((s for s in tops if s.number == clean), None)
    if chapter is None:
        raise Http404("No such chapter.")
    chapter.size = _size(chapter)
    context = {"game": game, "chapter": chapter}
    if _is_htmx(request):
        response = render(request, "cards/rules_chapter_contents.html", context)
    else:
        i = tops.index(chapter)
        context["previous"] = tops[i - 1] if i else None
        context["next"] = tops[i + 1] if i + 1 < len(tops) else None
        response = render(request, "cards/rules_contents.html", context)
    patch_vary_headers(response, ["HX-Request"])
    return response


def _pages_q() -> Q:
    """Sections that have a page of their own: one-part numbers (chapters too)."""
    return Q(number__regex=r"^[0-9]+$")


@require_safe
@anonymous_page
def rule_section(request, game, number):
    """A section with all its subsections, each with its anchor and a permalink (a chapter of
    chaptered rules: with its sections listed). Sections a re-import removed are kept at the
    end of the page of their first part, with a notice."""
    game = _get_game(request, game)
    try:
        clean = rulebook.normalise_number(number)
    except ValueError:
        raise Http404("No such section.") from None
    if clean != number:
        return redirect("rule-section", game=game.slug, number=clean, permanent=True)
    chapters = game.rules_chapters
    ancestors = ancestor_numbers(clean, chapters)
    chapter = chapters and rulebook.depth(clean, chapters) == 1 and clean.isdigit()
    inside = subtree_q(clean, chapters) & (Q(depth__lte=2) if chapter else Q())
    rows = _linked(  # the page's sections, its ancestors and the pages: one query
        RuleSection.objects.filter(game=game).filter(
            (_pages_q() | Q(number__in=ancestors)) & Q(obsolete_since__isnull=True) | inside
        ),
        game,
    )
    key = rulebook.sort_key(clean, chapters)
    mine = [s for s in rows if s.sort_key == key or s.sort_key.startswith(key + ".")]
    current = [s for s in mine if s.obsolete_since is None and (not chapter or s.depth <= 2)]
    removed = [s for s in mine if s.obsolete_since is not None]
    section = next((s for s in current if s.number == clean), None)
    if section is None and not removed:
        raise Http404("No such section.")
    anchors = {s.anchor for s in mine}
    for s in mine:
        s.level = min(6, 1 + s.depth - rulebook.depth(clean, chapters))
        s.alias = s.number_anchor if s.number_anchor not in anchors else ""
    tops = [s for s in rows if s.obsolete_since is None and s.number.isdigit()]
    previous = following = None
    if section is not None:
        section.summary = rulebook.excerpt(section.body, 160)
        if section in tops:
            i = tops.index(section)
            previous = tops[i - 1] if i else None
            following = tops[i + 1] if i + 1 < len(tops) else None
        section = as_tree(current)[0]
    terms = GlossaryTerm.objects.filter(section__in=[s.pk for s in current]).only(
        "term", "slug", "section"
    )
    context = {
        "game": game,
        "number": clean,
        "section": section,
        "removed": removed,
        "ancestors": [s for number in ancestors for s in rows if s.number == number],
        "previous": previous,
        "next": following,
        "terms": sorted(terms, key=lambda t: t.term.casefold()),
    }
    return render(request, "cards/rules_section.html", context)


@require_safe
@anonymous_page(reads={"q", "page"})
def rule_search(request, game):
    """Current sections matching the query, best first, with highlighted snippets."""
    game = _get_game(request, game)
    form = RuleSearchForm(request.GET)
    valid = form.is_valid()
    query = form.cleaned_data["q"] if valid else ""
    page, results = None, []
    sections = RuleSection.objects.live().filter(game=game)
    if query and request.GET.get("page") is None:
        try:  # a rule's number: go straight to that rule
            number = rulebook.normalise_number(query)
        except ValueError:
            number = None
        target = sections.filter(number=number).first() if number else None
        if target is not None:
            return redirect(section_href(game.slug, target.number, target.anchor))
    if query:
        # a glossary term or alias ("героя"): its defining section is found too (the game's
        # cached vocabulary holds the glossary)
        term = vocabulary.of(game).glossary().defining(query)
        defined = term.section.number if term else None
        found = sections.search(query, game.language, defined=defined)
        page = Paginator(found, RESULTS_PER_PAGE).get_page(request.GET.get("page"))
        page.elided_range = list(page.paginator.get_elided_page_range(page.number))
        results = _linked(page.object_list, game)
        for section in results:
            section.snippet = snippet(section, query)
            section.defines = term if section.number == defined else None
    context = {
        "game": game,
        "form": form,
        "query": query,
        "search_text": request.GET.get("q", ""),
        "page": page,
        "results": results,
    }
    return render(request, "cards/rules_search.html", context, status=200 if valid else 400)


def _initial(term: str) -> str:
    """The letter a term is filed under: A-Z without accents, another letter as it is, else #."""
    letter = unicodedata.normalize("NFKD", term.strip()[:1]).upper()[:1]
    return letter if letter.isalpha() else "#"


@require_safe
@anonymous_page
def rule_glossary(request, game):
    """The glossary A-Z: each term with its definition, other names and defining section."""
    game = _get_game(request, game)
    terms = sorted(
        GlossaryTerm.objects.filter(game=game).select_related("section"),
        key=lambda t: t.term.casefold(),
    )
    groups: dict[str, list[GlossaryTerm]] = {}
    for term in terms:
        if term.section is not None:
            _linked([term.section], game)
        groups.setdefault(_initial(term.term), []).append(term)
    extra = sorted(set(groups) - set(string.ascii_uppercase))
    letters = [(letter, letter in groups) for letter in [*string.ascii_uppercase, *extra]]
    context = {
        "game": game,
        "groups": list(groups.items()),
        "letters": letters,
        "count": len(terms),
    }
    return render(request, "cards/rules_glossary.html", context)


_PRINTED = (  # one section of a printable page; the HTML is sanitised when stored
    '<section class="rule depth-{depth}" id="{anchor}" aria-labelledby="{anchor}-title">\n'
    '<h{level} class="rule-heading" id="{anchor}-title"><span class="rule-number">{number}</span>'
    '{title} <a class="permalink" href="#{anchor}" aria-label="Permalink to {number}">#</a>'
    "</h{level}>\n{body}</section>\n"
)


def _printable(sections) -> tuple[list[dict], SafeString]:
    """The sections of a printable page in rule order (one query), as rows and as their HTML.
    A whole rulebook is thousands of sections: built here, the page takes a tenth of the time
    the template engine takes to loop over them."""
    rows = list(
        sections.order_by("sort_key").values("number", "title", "body_html", "anchor", "depth")
    )
    out = []
    for row in rows:
        anchor, number, body = escape(row["anchor"]), escape(row["number"]), row["body_html"]
        out.append(
            _PRINTED.format(
                depth=row["depth"],
                level=min(6, row["depth"] + 1),
                anchor=anchor,
                number=number,
                title=f" {escape(row['title'])}" if row["title"] else "",
                body=f'<div class="rule-body">{body}</div>\n' if body else "",
            )
        )
    return rows, mark_safe("".join(out))  # noqa: S308 (escaped above; bodies are sanitised)


@require_safe
@anonymous_page
def rule_print(request, game):
    """Every current section in order on one page, for printing, with links to print one
    chapter (top-level section) instead."""
    game = _get_game(request, game)
    sections, printed = _printable(RuleSection.objects.live().filter(game=game))
    context = {
        "game": game,
        "sections": sections,
        "printed": printed,
        "chapters": [s for s in sections if s["depth"] == 1],
    }
    return render(request, "cards/rules_print.html", context)


@require_safe
@anonymous_page
def rule_print_chapter(request, game, number):
    """One chapter (top-level section) and all its current sections, in order, for printing:
    one query for the sections."""
    game = _get_game(request, game)
    clean = _top_number(number, game)
    if clean != number:
        return redirect("rule-print-chapter", game=game.slug, number=clean, permanent=True)
    sections, printed = _printable(
        RuleSection.objects.live().filter(game=game).filter(subtree_q(clean, game.rules_chapters))
    )
    if not sections or sections[0]["number"] != clean:
        raise Http404("No such chapter.")
    context = {"game": game, "sections": sections, "printed": printed, "chapter": sections[0]}
    return render(request, "cards/rules_print.html", context)
