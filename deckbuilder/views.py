"""Deck pages: public decks, my decks, the builder (new, edit), the deck page, copy, export.

Views stay thin. Every write goes through `services` (atomic, judged by the rules engine) and
every verdict shown is the engine's: the verdicts stored for the deck (one per version of each
format of its game), `legality.check` under a version a reader picks on the deck page, and
`legality.card_problems` for why a leader may not use a card. Templates decide no rule.

The builder's +/− are plain POST forms that redirect back (no JavaScript needed); with htmx
(`HX-Request: true`) the same endpoint answers with partials instead: the card's controls, the
panel (counter, legality, problems, stats) and a status line, all swapped out of band.
"""

import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import default_storage
from django.core.paginator import Paginator
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.text import slugify
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from cards import legality, vocabulary
from cards.filters import CardFilter
from cards.models import Card, Game, Leader, hold, holds
from cards.pagecache import anonymous_page
from cards.pagination import paginate as paginate_capped
from cards.templatetags.badges import address

from . import analysis, grouping, history, pages, services
from .forms import (
    CountForm,
    DeckImportForm,
    DeckNewForm,
    DeckSettingsForm,
    PendingSwap,
    PublicDeckFilterForm,
    SampleHandForm,
    UnpublishForm,
    pending_swap,
)
from .models import Deck, DeckCard, Visibility

CARDS_PER_PAGE = 60
DECKS_PER_PAGE = 20


@never_cache
@require_safe
def healthz(request):
    """200 when the site and its database answer, 503 otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any database failure means "not healthy", never a 500
        return JsonResponse(
            {"status": "error", "database": str(exc.__class__.__name__)}, status=503
        )
    return JsonResponse({"status": "ok", "database": "ok"})


# --- helpers ---------------------------------------------------------------------------------


def _deck_or_404(request, share_id: str, *, lock: bool = False, verdicts: bool = True) -> Deck:
    """The deck `request.user` may see (404 otherwise) with its owner, and the version of the
    site's games for the navigation: one query. Its game (with its vocabulary), format and
    leader come from the game's vocabulary at the rules_version read with it (cards.vocabulary),
    not from joins. `lock`: read with `select_for_update`, in the caller's transaction.
    `verdicts`: with its stored verdicts (a second query; the builder judges its deck itself)."""
    decks = (
        Deck.objects.visible_to(request.user)
        .select_related("owner")
        .annotate(games_version=vocabulary.games_version(), rules_version=F("game__rules_version"))
    )
    if lock:  # of=self: only the deck's row (a change judges the deck anew: its verdicts then)
        decks = decks.select_for_update(of=("self",))
    elif verdicts:  # one query; every verdict shown reads them
        decks = decks.prefetch_related("verdicts")
    deck = get_object_or_404(decks, share_id=share_id)
    vocabulary.remember_games_version(request, deck.games_version)
    words = vocabulary.at(deck.game_id, deck.rules_version)
    deck.game = words.game
    # What the version does not hold (none, with deletions protected) is read when asked for.
    if deck.format_id in words.format_by_pk:
        deck.format = words.format_by_pk[deck.format_id]
    if deck.leader_id in words.leader_by_pk:
        deck.leader = words.leader_by_pk[deck.leader_id]
    deck.format.game = deck.game
    return deck


def _entries(deck: Deck) -> list[DeckCard]:
    """The deck's entries with their cards, dressed from the game's cached vocabulary: one
    query whatever the deck's size, none when a service handed them over (deck_set_count)."""
    if not holds(deck, "entries"):
        hold(deck, "entries", deck.entries.with_cards(vocabulary.of(deck.game)))
    return list(deck.entry_list)


def _leader(deck: Deck) -> Leader | None:
    """The deck's leader with its colours, factions and loyalty (from the vocabulary)."""
    if deck.leader_id is None:
        return None
    return vocabulary.of(deck.game).leader(deck.leader_id) or services.leader_for_rules(deck.leader)


def _is_htmx(request) -> bool:
    return request.headers.get("HX-Request") == "true"


def _paginate(request, items, per_page):
    page = Paginator(items, per_page).get_page(request.GET.get("page"))
    page.elided_range = list(page.paginator.get_elided_page_range(page.number, on_each_side=2))
    return page


def _named(problems, cards_by_slug: dict, game: Game) -> list[dict]:
    """Problems (dicts or legality.Problem) with the Card they concern and its page
    (`card_url`), and the page of the rule they break (`rule_url`, None when the rule names no
    section), for links."""
    problems = [p if isinstance(p, dict) else p.as_dict() for p in problems]
    urls = vocabulary.of(game).rule_urls if problems else {}
    named = []
    for problem in problems:
        card = cards_by_slug.get(problem.get("card"))
        named.append(
            {
                **problem,
                "card_obj": card,
                "card_url": address("card-detail", game, card.slug) if card else None,
                "rule_url": urls.get(problem.get("ref")),
            }
        )
    return named


def _not_legal(error: services.DeckNotLegal | None, cards_by_slug: dict, deck: Deck):
    if error is None:
        return None
    return {
        "message": str(error),
        "problems": _named(error.report.problems, cards_by_slug, deck.game),
    }


def _closed(deck: Deck, leader=...) -> dict[str, str]:
    """The deck sections a `section_gate` of the format closes to the deck's leader (given, or
    read when needed), each with why in a few words ("needs a Ruler with Divinity"):
    legality.closed_sections."""
    engine = deck.format.engine()
    if not any(rule["rule"] == "section_gate" for rule in engine.rules):
        return {}
    if leader is ...:
        leader = _leader(deck)
    info = vocabulary.of(deck.game).leader_info(leader) if leader else None
    return legality.closed_sections(engine, info, short=True)


def _sections(deck: Deck, entries, closed: dict[str, str] | None = None) -> list[dict]:
    """The deck's sections in format order, each with its entries (by name), card count and
    the count its format asks for ("40–60"). A section `closed` to the leader (_closed) is left
    out while it is empty; holding cards (the leader changed), it shows, and the deck's
    section_closed problem says why."""
    engine = deck.format.engine()
    closed = closed or {}
    by_section: dict[str, list] = {}
    for entry in entries:
        by_section.setdefault(entry.section, []).append(entry)
    sections = []
    for section in deck.format.sections:
        rows = sorted(by_section.get(section["slug"], []), key=lambda e: e.card.name.casefold())
        if section["slug"] in closed and not rows:
            continue
        sections.append(
            {
                **section,
                "entries": rows,
                "count": sum(e.count for e in rows),
                "size": legality.size_label(engine, section["slug"]),
                "stats": analysis.deck_stats(rows, deck.game),
            }
        )
    return sections


def _sample_hand(request, deck: Deck, sections: list[dict]) -> dict:
    """The sample hand the URL asks for (`?hand=<seed>&draw=<n>`), drawn from the format's
    first section with its hand size (`?hand=new`: see _new_hand)."""
    form = SampleHandForm(request.GET)
    hand = {"seed": None, "size": deck.format.hand_size}
    if not form.is_valid():
        hand["errors"] = [f"{k}: {m}" for k, msgs in form.errors.items() for m in msgs]
        return hand
    seed, extra = form.cleaned_data["hand"], form.cleaned_data["draw"] or 0
    if seed is None:
        return hand
    pile = [(e.card, e.count) for e in sections[0]["entries"]] if sections else []
    cards, left = analysis.sample_hand(pile, size=deck.format.hand_size, seed=seed, extra=extra)
    hand.update(seed=seed, draw=extra, cards=cards, pile=left, more=len(cards) < left)
    return hand


def _new_hand(request):
    """`?hand=new` (the "new hand" links): a redirect to the same page with a fresh seed, whose
    address then always draws that hand. The page itself holds no random number, so it is the
    same for every reader (cards.pagecache)."""
    if request.GET.get("hand") != "new":
        return None
    query = request.GET.copy()
    query["hand"] = analysis.new_seed()
    query.pop("draw", None)
    return redirect(f"{request.path}?{query.urlencode()}#sample-hand")


def _panel_context(deck: Deck, entries, error=None, request=None) -> dict:
    for entry in entries:
        entry.card.game = deck.game  # the game with its vocabulary prefetched
    cards_by_slug = {e.card.slug: e.card for e in entries}
    closed = _closed(deck)
    sections = _sections(deck, entries, closed)
    names = {s["slug"]: s["name"] for s in deck.format.sections}
    return {
        "hand": _sample_hand(request, deck, sections) if request else None,
        "deck": deck,
        "game": deck.game,
        "format": deck.format,
        "entries": entries,
        "sections": sections,
        # where the builder offers to add cards, and the sections closed to the leader
        "open_sections": [s for s in deck.format.sections if s["slug"] not in closed],
        "closed_sections": [{"name": names[s], "reason": why} for s, why in closed.items()],
        "several_sections": len(sections) > 1,
        "size": sections[0]["size"] if len(sections) == 1 else "",
        "problems": _named(deck.problems, cards_by_slug, deck.game),
        "not_legal": error,
    }


def _card_rows(
    cards, *, deck: Deck, entries, leader: Leader | None, keep: str | None = None
) -> list[Card]:
    """Attach to each listed card what the builder shows: a control per deck section it may go
    in (its count there and the copy limit), why the leader may not use it, and the deck's
    problems about it. A section closed to the leader (_closed) is offered to no card; one that
    holds the card still shows its count, as does the section `keep` (the one just changed)."""
    engine = deck.format.engine()
    closed = _closed(deck, leader)
    counts = {(e.card_id, e.section): e.count for e in entries}
    names = {s["slug"]: s["name"] for s in deck.format.sections}
    deck_problems: dict[str, list[str]] = {}
    for problem in deck.problems:
        if problem.get("card"):
            deck_problems.setdefault(problem["card"], []).append(problem["message"])
    leader_info = leader.info() if leader else None
    public = deck.visibility == Visibility.PUBLIC
    cards = list(cards)
    for card in cards:
        card.game = deck.game
        info = card.info()
        held = {s for (pk, s) in counts if pk == card.pk}
        allowed = [s for s in legality.allowed_sections(engine, info) if s not in closed]
        card.slots = [
            {
                "section": slug,
                "name": names[slug],
                "count": counts.get((card.pk, slug), 0),
                "limit": legality.copy_limit(engine, info, slug),
                "allowed": slug in allowed,
            }
            for slug in engine.slugs
            if slug in allowed or slug in held or slug == keep
        ]
        card.in_deck = sum(slot["count"] for slot in card.slots)
        card.unusable = (
            [p.message for p in legality.card_problems(engine, leader_info, info)]
            if leader_info
            else []
        )
        card.deck_problems = [m for m in deck_problems.get(card.slug, []) if m not in card.unusable]
        for slot in card.slots:  # a public deck must stay legal: these + are refused for sure
            limit = services.MAX_COPIES if slot["limit"] is None else slot["limit"]
            slot["refused"] = ""
            if public and slot["allowed"] and card.unusable:
                slot["refused"] = f"{leader.name} may not use it"
            elif public and slot["allowed"] and slot["count"] >= limit:
                slot["refused"] = f"max {limit} reached"
    return cards


def _own_deck(request, share_id: str, *, lock: bool = False, verdicts: bool = True) -> Deck:
    """The deck if the user owns it; 404 if they cannot see it, 403 if they only can see it."""
    deck = _deck_or_404(request, share_id, lock=lock, verdicts=verdicts)
    if deck.owner_id != request.user.pk:
        raise PermissionDenied("Only the deck's owner can change it.")
    return deck


def _one_size(deck: Deck) -> str:
    """The card count a one-section format asks for ("10", "40–60"); "" for several sections."""
    return legality.size_label(deck.format.engine()) if len(deck.format.sections) == 1 else ""


def _with_size(decks, *, legal_in: bool = False):
    """Decks with `size`, the card count their format asks for (one-section formats), and with
    `legal_in` the names of the formats of their game whose verdict is legal now. Their formats
    come with their versions from the game's vocabulary: no query per deck."""
    decks = list(decks)
    for deck in decks:
        if deck.format_id in (words := vocabulary.of(deck.game)).format_by_pk:
            deck.format = words.format_by_pk[deck.format_id]
        else:  # not in the cached version: read when asked
            deck.format.game = deck.game
        one = len(deck.format.sections) == 1
        deck.size = legality.size_label(deck.format.engine({})) if one else ""
        if legal_in:
            deck.legal_in = [row["name"] for row in services.legality_of(deck) if row["legal"]]
    return decks


def _version_asked(fmt, asked: str):
    """The version of `fmt` a reader asked for by its id, or by a day (YYYY-MM-DD: the one in
    force then); an error message instead when there is none."""
    if asked.isdigit():
        found = next((v for v in fmt.version_list if str(v.pk) == asked), None)
        return found or f"{fmt.name} has no version {asked}: choose one from the list."
    try:
        day = datetime.date.fromisoformat(asked)
    except ValueError:
        return "Choose a version from the list, or a day as YYYY-MM-DD."
    return fmt.version_on(day) or f"{fmt.name} had no version yet on {day:%-d %B %Y}."


def _legality(request, deck: Deck, entries) -> dict:
    """What the deck page says of its legality besides its verdict today: a line per format of
    its game (services.legality_of), since when a version made it illegal, and its verdict under
    the version of its own format the reader picks (`?version=`), judged here by the engine
    (no query: the entries and the versions are in hand), with what each later version changed
    for it."""
    fmt = deck.format
    versions = fmt.version_list
    since = deck.illegal_since
    context = {
        "formats_legality": services.legality_of(deck),
        "illegal_since": next((v for v in versions if since and v.starts == since), None),
        "versions": versions[::-1],
        "version_asked": request.GET.get("version", "").strip(),
        "under": None,
    }
    if not context["version_asked"]:
        return context
    version = _version_asked(fmt, context["version_asked"])
    if isinstance(version, str):
        return {**context, "version_error": version}
    leader = _leader(deck)
    info = vocabulary.of(deck.game).leader_info(leader) if leader else None
    cards = [(e.card.info(), e.count, e.section) for e in entries]
    by_slug = {e.card.slug: e.card for e in entries}
    chosen = before = legality.check(version.engine(), info, cards)
    later = []
    for newer in versions[versions.index(version) + 1 :]:
        report = legality.check(newer.engine(), info, cards)
        was, now = {p.message for p in before.problems}, {p.message for p in report.problems}
        new = [p for p in report.problems if p.message not in was]
        gone = [p for p in before.problems if p.message not in now]
        if new or gone:  # a version that changes nothing for this deck goes unsaid
            later.append(
                {
                    "version": newer,
                    "legal": report.legal,
                    "new": _named(new, by_slug, deck.game),
                    "gone": [p.message for p in gone],
                }
            )
        before = report
    context["under"] = {
        "version": version,
        "legal": chosen.legal,
        "problems": _named(chosen.problems, by_slug, deck.game),
        "later": later,
        "last": version == versions[-1],
    }
    return context


# --- the builder -----------------------------------------------------------------------------


def _render_builder(
    request,
    deck: Deck,
    *,
    settings_form=None,
    error=None,
    count_errors=(),
    swap_refused=False,
    status=200,
):
    game = deck.game  # with its vocabulary (_own_deck)
    leader = _leader(deck)
    entries = _entries(deck)
    try:
        pending = pending_swap(
            request.GET.get("swap", ""),
            game=game,
            fmt=deck.format,
            cards=[e.card for e in entries],
        )
    except ValidationError:  # a bad address asks for no swap: the page shows none
        pending = None
    pending = _still_possible(pending, entries)
    if not holds(deck, "verdicts"):  # judged here, from what the page holds: no query
        hold(deck, "verdicts", [services.verdict_now(deck=deck, entries=entries, leader=leader)])
    show_all = request.GET.get("all") == "1" or leader is None

    cards = Card.objects.filter(game=game)
    if not show_all:
        cards = cards.usable_by(leader, deck.format)
    data = request.GET.copy()
    data.pop("leader", None)  # the deck's leader decides, not a filter
    data.pop("in_format", None)
    filterset = CardFilter(data, queryset=cards, game=game)
    valid = filterset.is_valid()
    if valid:
        listed = filterset.qs.for_listing(vocabulary.of(game))
        page = paginate_capped(request, listed, CARDS_PER_PAGE)
        rows = _card_rows(page.object_list, deck=deck, entries=entries, leader=leader)
    else:
        page, rows = None, []

    if settings_form is None:
        settings_form = DeckSettingsForm(
            game=game,
            initial={
                "name": deck.name,
                "description": deck.description,
                "format": deck.format.slug,
                "leader": leader.name if leader else None,  # typed: shown by name
                "visibility": deck.visibility,
            },
        )
    cards_by_slug = {e.card.slug: e.card for e in entries}
    if error is not None:  # the card a refused change named may be in no entry
        named = {p.card for p in error.report.problems} - set(cards_by_slug) - {None}
        cards_by_slug |= {c.slug: c for c in Card.objects.filter(game=game, slug__in=named)}
    context = {
        **_panel_context(deck, entries, _not_legal(error, cards_by_slug, deck), request),
        **filterset.form_options(exclude=("leader",)),
        "leader": leader,
        "show_all": show_all,
        "filter": filterset,
        "form": filterset.form,
        "valid": valid,
        "filter_errors": filterset.form.errors,
        "page": page,
        "cards": rows,
        "settings_form": settings_form,
        "count_errors": count_errors,
        "quick_add_name": request.POST.get("name", "") if count_errors else "",
        "action_url": request.get_full_path(),
        **_swap_context(request, deck, pending, refused=swap_refused),
    }
    return render(request, "deckbuilder/deck_edit.html", context, status=status)


def _still_possible(pending: PendingSwap | None, entries) -> PendingSwap | None:
    """The pending swap, unless its card to take out is no longer in its section."""
    if pending and pending.way == "out" and not _held(entries, pending.card, pending.section):
        return None
    return pending


def _held(entries, card: Card, section: str) -> int:
    """How many copies of `card` the entries hold in `section`."""
    return next((e.count for e in entries if e.card_id == card.pk and e.section == section), 0)


def _query(request, pending: PendingSwap | None):
    """The page's query (its filters, page and hand) waiting for `pending`, or for no swap."""
    query = request.GET.copy()
    query.pop("swap", None)
    if pending is not None:
        query["swap"] = pending.value
    return query


def _address(request, query) -> str:
    return f"{request.path}?{query.urlencode(safe=':')}" if query else request.path


def _swap_context(request, deck: Deck, pending: PendingSwap | None, *, refused=False) -> dict:
    """What the swap prompt shows (partials/swap_prompt.html): the swap waiting, the section's
    name, where "Cancel swap" goes, and whether the swap just tried was refused."""
    names = {s["slug"]: s["name"] for s in deck.format.sections}
    return {
        "pending_swap": pending,
        "swap_section": names.get(pending.section) if pending else "",
        "cancel_url": _address(request, _query(request, None)),
        "swap_refused": refused,
    }


def _change_count(request, share_id: str):
    """+/−: set one card's count in one section with services.deck_set_count, then redirect
    back (PRG), or answer htmx with the partials. A change refused (public deck made illegal)
    changes nothing. The deck is read and locked in one statement and its entries read once,
    in the change's transaction; the card named is found among them when it is in the deck.

    A public deck must stay legal, so a − it refuses (or a + refused for the deck's size, no
    rule about the card itself) is not an end: it becomes half a swap (forms.PendingSwap),
    which the page's address then holds and every +/− form posts back; the next + (or −)
    completes it with services.deck_swap, both changes judged as one. Nothing is written
    until then; "Cancel swap" is the address without it."""
    error = errors = None
    swap = {}  # what this change did to a swap: "offered", "done" (out, into), "cancelled"
    data = request.POST.copy()
    if "swap" not in data:  # the page's address holds the swap it waits for
        data["swap"] = request.GET.get("swap", "")
    try:
        with transaction.atomic():
            deck = _own_deck(request, share_id, lock=True)
            entries = _entries(deck)
            form = CountForm(data, deck=deck, cards=[e.card for e in entries])
            if form.is_valid():
                card, section = form.cleaned_data["card"], form.cleaned_data["section"]
                pending = _still_possible(form.cleaned_data["swap"], entries)
                held = _held(entries, card, section)
                step = form.new_count(held) - held
                pair = pending.completed_by(card, section, step) if pending else None
                if pair == PendingSwap.CANCEL:
                    swap, pending = {"cancelled": True}, None
                elif pair:
                    (out, out_section), (into, into_section) = swap["pair"] = pair
                    deck = services.deck_swap(
                        deck=deck,
                        out=out,
                        out_section=out_section,
                        into=into,
                        into_section=into_section,
                        entries=entries,
                    )
                    swap["done"], pending = {"out": out, "into": into}, None
                else:
                    deck = services.deck_set_count(
                        deck=deck, card=card, count=form.new_count, section=section, entries=entries
                    )
            else:
                errors = [m for messages_ in form.errors.values() for m in messages_]
    except services.DeckNotLegal as e:  # rolled back: the deck and entries as read
        error = e
    if errors or error:
        hold(deck, "entries", entries)
    if not holds(deck, "verdicts"):  # refused or unchanged: those stored, read once
        hold(deck, "verdicts", deck.verdicts.all())
    if errors:
        if not _is_htmx(request):
            return _render_builder(request, deck, count_errors=errors, status=400)
        context = {"deck": deck, "count_errors": errors, "size": _one_size(deck)}
        return render(request, "deckbuilder/partials/count_error.html", context, status=400)
    if error is not None and "pair" not in swap and _swap_helps(deck, card, step, error):
        error, swap["offered"] = None, True
        pending = PendingSwap("out" if step < 0 else "in", section, card)
    pending = _still_possible(pending, _entries(deck))
    query = _query(request, pending)

    if _is_htmx(request):
        vocabulary.of(deck.game)
        deck.format.game = deck.game
        entries = _entries(deck)
        leader = _leader(deck)
        changed = list(swap["pair"]) if "pair" in swap else [(card, section)]
        rows = []
        for one, where in changed:
            shown = next((e.card for e in entries if e.card_id == one.pk), None)
            if shown is None:  # no longer in the deck
                shown = Card.objects.filter(pk=one.pk).for_listing(vocabulary.of(deck.game)).get()
            # the section changed keeps its count in the row (0 once emptied), to be swapped
            [row] = _card_rows([shown], deck=deck, entries=entries, leader=leader, keep=where)
            row.changed = where
            row.shown = row.slug in request.POST.getlist("shown")
            rows.append(row)
        row = next(r for r in rows if r.pk == card.pk)
        cards_by_slug = {e.card.slug: e.card for e in entries} | {r.slug: r for r in rows}
        not_legal = _not_legal(error, cards_by_slug, deck)
        url = _address(request, query)
        moved = url != request.get_full_path()
        request.GET = query  # the answer's links (the sample hand's) keep the swap, as the page
        context = {
            **_panel_context(deck, entries, not_legal, request),
            "card": row,
            "rows": rows,
            "changed_section": next(s for s in row.slots if s["section"] == section),
            "action_url": url,
            "swap": swap,
            **_swap_context(request, deck, pending, refused="pair" in swap and error is not None),
        }
        response = render(request, "deckbuilder/partials/count_response.html", context)
        if moved:  # the grid's forms post to the page's address: it holds the swap
            response["HX-Replace-Url"] = url
        patch_vary_headers(response, ["HX-Request"])
        return response
    if error is not None:
        return _render_builder(request, deck, error=error, swap_refused="pair" in swap, status=400)
    if "done" in swap:
        out, into = swap["done"]["out"], swap["done"]["into"]
        messages.success(request, f"Swapped: {out.name} out, {into.name} in.")
        anchor = f"card-{into.slug}"
    elif "offered" in swap:  # where the card to complete it is picked
        anchor = "builder-cards" if pending.way == "out" else "deck-panel"
    elif request.POST.get("from") == "panel":
        anchor = "deck-panel"
    else:
        anchor = f"card-{card.slug}"
    return redirect(f"{_address(request, query)}#{anchor}")


def _swap_helps(deck: Deck, card: Card, step: int, error: services.DeckNotLegal) -> bool:
    """Whether a swap could make a refused change of one copy legal: a public deck's −, or its
    + when the engine names no rule about the card itself (a copy limit, a leader's colours) —
    the deck is full."""
    if deck.visibility != Visibility.PUBLIC or abs(step) != 1:
        return False
    return step < 0 or not any(p.card == card.slug for p in error.report.problems)


def _save_settings(request, deck: Deck):
    form = DeckSettingsForm(request.POST, game=deck.game)
    error = None
    if form.is_valid():
        try:
            services.deck_update(deck=deck, **form.cleaned_data)
        except services.DeckNotLegal as e:
            error = e
        except services.DeckUnpublished as e:
            form.add_error("visibility", str(e))
        else:
            messages.success(request, "Deck saved.")
            return redirect("deck-edit", share_id=deck.share_id)
    return _render_builder(request, deck, settings_form=form, error=error, status=400)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def deck_edit(request, share_id):
    if request.method == "POST" and request.POST.get("action") != "settings":
        return _change_count(request, share_id)
    deck = _own_deck(request, share_id, verdicts=request.method == "POST")
    if request.method == "POST":
        return _save_settings(request, deck)
    return _new_hand(request) or _render_builder(request, deck)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def deck_new(request):
    """Choose a game (when there are several), a format, a leader (in games that have them)
    and a name; POST creates a draft."""
    data = request.POST if request.method == "POST" else request.GET
    games = list(Game.objects.all())
    slug = data.get("game", "")
    game = next((g for g in games if g.slug == slug), None)
    if game is None and not slug and len(games) == 1:
        game = games[0]
    if game is None:
        return render(
            request,
            "deckbuilder/deck_new.html",
            {"games": games, "game": None, "unknown_game": slug},
            status=400 if slug else 200,
        )

    status = 200
    if request.method == "POST":
        form = DeckNewForm(request.POST, game=game)
        if form.is_valid():
            deck = services.deck_create(
                owner=request.user,
                game=game,
                format=form.cleaned_data["format"],
                leader=form.cleaned_data.get("leader"),
                name=form.cleaned_data["name"],
            )
            messages.success(request, "Deck created: add cards with the + buttons.")
            return redirect("deck-edit", share_id=deck.share_id)
        status = 400
    else:
        default = game.default_format()
        form = DeckNewForm(
            game=game,
            initial={
                "leader": request.GET.get("leader", ""),
                "format": request.GET.get("format") or (default.slug if default else ""),
            },
        )
    leaders = vocabulary.of(game).leaders  # with colours, factions and loyalty
    context = {
        "games": games,
        "game": game,
        "form": form,
        "formats": game.format_list,
        "chosen_format": form["format"].value(),
        "leaders": list(leaders) if game.has_leaders else [],
        "chosen": form["leader"].value() if game.has_leaders else None,
    }
    return render(request, "deckbuilder/deck_new.html", context, status=status)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def deck_import(request):
    """A new private deck from pasted text (services.deck_import, as the API's import); the
    game and format may be left to the text (DeckImportForm). Every bad line is listed by
    number and nothing is created."""
    errors, status = [], 200
    if request.method == "POST":
        form = DeckImportForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                deck = services.deck_import(
                    owner=request.user,
                    game=data["game"],
                    format=data["format"],
                    text=data["text"],
                    name=data["name"],
                )
            except services.TextImportError as e:
                errors = e.errors
            else:
                messages.success(request, "Deck imported: it is private until you share it.")
                return redirect("deck-edit", share_id=deck.share_id)
        status = 400
    else:
        form = DeckImportForm(initial={"game": request.GET.get("game")})
    context = {"form": form, "line_errors": errors, "games": list(Game.objects.all())}
    return render(request, "deckbuilder/deck_import.html", context, status=status)


# --- reading decks ---------------------------------------------------------------------------


# The deck page's views of its cards (`?view=`): a list grouped by type (the default, no
# parameter; an unknown one is it) or stacks of pictures, a column per type.
DECK_VIEWS = {"list": "List", "visual": "Visual"}


@require_safe
@anonymous_page(reads={"hand", "draw", "version", "view"}, shows=pages.deck_page_rows)
def deck_detail(request, share_id):
    """The deck's share page: anyone for unlisted and public decks, the owner for private ones.
    Three queries, whatever the deck's size and the versions of its game's formats: the deck
    (with its game, whose vocabulary and formats' versions are cached), its verdicts, its
    entries with their cards."""
    deck = _deck_or_404(request, share_id)
    if new_hand := _new_hand(request):
        return new_hand
    entries = _entries(deck)
    export_text = services.deck_export_text(deck, entries)
    panel = _panel_context(deck, entries, request=request)
    for section in panel["sections"]:
        section["groups"] = grouping.by_type(section["entries"], deck.game)
    view = request.GET.get("view")
    if view not in DECK_VIEWS:
        view = "list"
    context = {
        **panel,
        "deck_view": view,
        "deck_views": [
            {"value": v, "param": None if v == "list" else v, "label": label, "current": v == view}
            for v, label in DECK_VIEWS.items()
        ],
        "type_level": 4 if panel["several_sections"] else 3,  # under the sections' headings
        **_legality(request, deck, entries),
        "is_owner": request.user.is_authenticated and deck.owner_id == request.user.pk,
        "export_text": export_text,
        "export_rows": export_text.count("\n") + 1,
        "share_url": request.build_absolute_uri(deck.get_absolute_url()),
    }
    status = 400 if context["hand"].get("errors") or context.get("version_error") else 200
    return render(request, "deckbuilder/deck_detail.html", context, status=status)


@require_safe
def deck_export(request, share_id):
    """The text export (the API's text): a download named after the deck."""
    deck = get_object_or_404(
        Deck.objects.visible_to(request.user).select_related("game", "format", "leader"),
        share_id=share_id,
    )
    response = HttpResponse(
        services.deck_export_text(deck), content_type="text/plain; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{slugify(deck.name) or "deck"}.txt"'
    response["X-Robots-Tag"] = "noindex"
    return response


@login_required
@require_POST
def deck_unpublish(request, share_id):
    """Staff: take a public deck out of the lists with a reason its owner will read."""
    if not request.user.is_staff:
        raise PermissionDenied("Only staff can unpublish a deck.")
    deck = get_object_or_404(Deck.objects.visible_to(request.user), share_id=share_id)
    form = UnpublishForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Say why the deck is unpublished: " + form.errors["reason"][0])
    else:
        try:
            services.deck_unpublish(deck=deck, by=request.user, reason=form.cleaned_data["reason"])
        except services.DeckNotPublic as e:
            messages.error(request, str(e))
        else:
            messages.success(request, "Deck unpublished: it is unlisted now; its owner sees why.")
    return redirect(deck)


@login_required
@require_POST
def deck_copy(request, share_id):
    """A private copy of a deck the user can see, owned by them; then its builder."""
    deck = get_object_or_404(
        Deck.objects.visible_to(request.user).select_related("game", "leader"), share_id=share_id
    )
    copy = services.deck_copy(deck=deck, owner=request.user)
    messages.success(request, f"Copied “{deck.name}” to your decks: this copy is yours to edit.")
    return redirect("deck-edit", share_id=copy.share_id)


@login_required
@require_safe
def my_decks(request):
    decks = Deck.objects.filter(owner=request.user).for_display()
    page = _paginate(request, decks, DECKS_PER_PAGE)
    return render(
        request,
        "deckbuilder/my_decks.html",
        {"page": page, "decks": _with_size(page.object_list)},
    )


@require_safe
def deck_list(request):
    """Public decks, newest (last updated) or most copied first, each with the formats it is
    legal in now; filters (GET): game, format, the format of the game a deck is legal in now
    (`legal_in`), leader and card (a slug, a name or the start of one). With htmx the form
    swaps in only the #deck-results of the page (and its game-dependent boxes: leader and card
    suggestions, the game's formats)."""
    games = list(Game.objects.only("slug", "name"))
    data = request.GET
    if len(games) == 1 and not data.get("game"):  # the only game is chosen (its formats)
        data = data.copy()
        data["game"] = games[0].slug
    form = PublicDeckFilterForm(data)
    decks = Deck.objects.public().for_display()
    valid = form.is_valid()
    game = form.cleaned_data.get("game")  # the game, even if another field is bad
    if valid:
        data = form.cleaned_data
        if game:
            decks = decks.filter(game=game)
        if data["in_format"]:
            decks = decks.filter(format__slug=data["in_format"])
        if data["legal_in"]:
            decks = decks.legal_in(data["legal_in"])
        if data["leader"]:
            decks = decks.filter(leader__in=[leader.pk for leader in data["leader"]])
        if data["card"]:
            decks = decks.filter(
                Exists(DeckCard.objects.filter(form.card_condition(), deck=OuterRef("pk")))
            )
        decks = decks.order_by(*form.ordering())
    else:
        decks = decks.none()
    page = _paginate(request, decks, DECKS_PER_PAGE)
    found = form.cleaned_data if valid else {}
    context = {
        "form": form,
        "valid": valid,
        "games": games,
        "nav_games": games,
        "chosen_game": game,
        # one game: its leaders come from `suggest`; else the leader box lists every name
        "leader_names": []
        if game
        else list(Leader.objects.order_by("name").values_list("name", flat=True).distinct()),
        "chosen": {  # what the boxes show: the full name found, else the text as typed
            name: found[name][0].name if found.get(name) else request.GET.get(name, "").strip()
            for name in ("leader", "card")
        },
        "sorts": form.fields["sort"].choices,
        "current_sort": request.GET.get("sort") or "new",
        "filtered": any(
            request.GET.get(k, "").strip() for k in ("game", "leader", "card", "legal_in")
        ),
        # the chosen game's formats (cached vocabulary), for "Legal in"
        "game_formats": vocabulary.of(game).formats if game else [],
        "legal_in": request.GET.get("legal_in", "").strip(),
        "page": page,
        "decks": _with_size(page.object_list, legal_in=True),
    }
    return render(request, "deckbuilder/deck_list.html", context, status=200 if valid else 400)


# --- history and deletion --------------------------------------------------------------------

VERSIONS_PER_PAGE = 20
_LARGEST_NUMBER = 2**31 - 1  # a larger version number cannot be in the database


def _versions_with_changes(deck: Deck, page) -> list:
    """The page's versions, each with `changes`: its diff against the version before it (the
    one before the page's oldest is read too: 1 query), "created with…" for the first."""
    shown = list(page.object_list)
    older = None
    if shown:
        older = (
            deck.versions.select_related("format", "leader")
            .filter(number__lt=shown[-1].number)
            .order_by("-number")
            .first()
        )
    formats = vocabulary.of(deck.game).format_by_pk  # with their versions: no query each
    for version in shown + ([older] if older else []):
        if version.format_id in formats:
            version.format = formats[version.format_id]
    snapshots = [history.Snapshot.of(v) for v in shown + ([older] if older else [])]
    label = deck.game.leader_label.lower() or "leader"
    for i, version in enumerate(shown):
        version.current = page.number == 1 and i == 0  # nothing to restore: the deck as it is
        if i + 1 < len(snapshots):
            version.changes = history.diff(snapshots[i + 1], snapshots[i], leader_label=label)
        elif version.number == 1:
            version.changes = history.created(snapshots[i])
        else:  # the deck was made before history was kept
            version.changes = history.started(snapshots[i])
    return shown


def _render_history(request, deck: Deck, *, error=None, refused=None, status=200):
    """Queries: the deck (by the caller), the number of versions, the page's versions with
    their formats and leaders, the version before them; whatever the number of versions."""
    versions = deck.versions.select_related("format", "leader").order_by("-number")
    page = _paginate(request, versions, VERSIONS_PER_PAGE)
    context = {
        "deck": deck,
        "game": deck.game,
        "page": page,
        "versions": _versions_with_changes(deck, page),
        "is_owner": request.user.is_authenticated and deck.owner_id == request.user.pk,
        "not_legal": _not_legal(error, {}, deck),
        "refused": refused,
    }
    return render(request, "deckbuilder/deck_history.html", context, status=status)


@require_safe
def deck_history(request, share_id):
    """Every saved change of a deck, newest first: whoever may see the deck may see its history
    (the owner only for a private deck); only the owner gets restore buttons."""
    deck = get_object_or_404(Deck.objects.visible_to(request.user).for_display(), share_id=share_id)
    return _render_history(request, deck)


@login_required
@require_POST
def deck_restore_version(request, share_id, number):
    """The owner brings back an old version's format, leader and cards as a new version."""
    deck = _own_deck(request, share_id)
    if number > _LARGEST_NUMBER or not deck.versions.filter(number=number).exists():
        raise Http404("This deck has no such version.")
    try:
        restored = services.deck_restore_version(deck=deck, number=number)
    except services.DeckNotLegal as e:
        return _render_history(request, deck, error=e, refused=number, status=400)
    what = (
        f"cards, format and {deck.game.leader_label.lower()}"
        if deck.game.has_leaders
        else "cards and format"
    )
    if restored.number is None:
        messages.info(request, f"The deck already holds the {what} of version {number}.")
    else:
        messages.success(
            request, f"Restored the {what} of version {number} as version {restored.number}."
        )
    if restored.skipped:
        messages.warning(
            request,
            f"Left out, no longer in {deck.game.name}: {', '.join(restored.skipped)}.",
        )
    return redirect("deck-history", share_id=deck.share_id)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def deck_delete(request, share_id):
    """The owner confirms (GET shows what goes), then POST deletes the deck for good."""
    deck = _own_deck(request, share_id)
    if request.method == "POST":
        services.deck_delete(deck=deck)
        messages.success(request, f"Deleted “{deck.name}”.")
        return redirect("my-decks")
    return render(
        request,
        "deckbuilder/deck_delete.html",
        {"deck": deck, "game": deck.game, "decks": _with_size([deck])},
    )


# --- link previews ---------------------------------------------------------------------------

# These views import deckbuilder.previews where they run: it brings Pillow, ~6 MB a worker that
# only a picture's first request needs.

# How long caches keep a picture: a deck's address names its version (a change is a new
# address), a card's or leader's does not. Its ETag (the digest of what it shows) revalidates it.
DECK_PREVIEW_MAX_AGE = 7 * 24 * 60 * 60
PREVIEW_MAX_AGE = 24 * 60 * 60


def _picture(request, name: str, draw, *, public: bool = True, max_age: int = PREVIEW_MAX_AGE):
    """The picture stored at `name` (drawn and stored first when missing: previews.fetch), or
    304 when the reader has it (its ETag is the digest in its name)."""
    response = HttpResponse(content_type="image/png")
    response["ETag"] = '"' + name.rsplit("/", 1)[-1].removesuffix(".png") + '"'
    answer = get_conditional_response(request, etag=response["ETag"], response=response)
    if answer is response:
        from . import previews

        answer = FileResponse(previews.fetch(default_storage, name, draw), content_type="image/png")
        answer["ETag"] = response["ETag"]
    if public:
        patch_cache_control(answer, public=True, max_age=max_age)
    else:
        patch_cache_control(answer, private=True, max_age=max_age)
    answer["X-Content-Type-Options"] = "nosniff"
    return answer


@require_safe
def deck_preview(request, share_id, version):
    """The deck's picture for link previews (og:image; deckbuilder.previews). Whoever may see
    the deck may see it, and no one else (404, as its page); another version's address
    redirects to the current one's. Queries: the deck, its verdicts, its entries with their
    cards (its game, format and leader come from the cache), whatever the deck's size."""
    from . import previews

    deck = _deck_or_404(request, share_id)
    if version != deck.version:
        return redirect("deck-preview", share_id=deck.share_id, version=deck.version)
    picture = previews.deck_picture(deck, _entries(deck), _leader(deck), size=_one_size(deck))
    return _picture(
        request,
        previews.deck_file(deck.share_id, deck.version, picture),
        lambda: previews.draw_deck(picture, default_storage),
        public=deck.visibility != Visibility.PRIVATE,
        max_age=DECK_PREVIEW_MAX_AGE,
    )


@require_safe
def card_preview(request, game, slug):
    """A card's picture for link previews, for a card without art of its own: the game, the
    card (and what for_listing prefetches in its game: its printings). Here rather than in
    cards.views: the reference never imports the decks."""
    from . import previews

    game = vocabulary.game_or_404(request, game)
    cards = Card.objects.filter(game=game).for_listing(vocabulary.of(game))
    card = get_object_or_404(cards, slug=slug)
    face = previews.face_of(card, game, text=True)
    return _picture(
        request,
        previews.face_file("cards", card.pk, face),
        lambda: previews.draw_card(face, game.name, default_storage),
    )


@require_safe
def leader_preview(request, game, slug):
    """A leader's picture for link previews: one query (the game; the leader is in its
    vocabulary)."""
    from . import previews

    game = vocabulary.game_or_404(request, game)
    leader = vocabulary.of(game).leader_by_slug.get(slug)
    if leader is None:
        raise Http404(f"No {game.leader_label or 'leader'} {slug!r} in {game.name}.")
    face = previews.leader_face(leader, game.leader_label)
    return _picture(
        request,
        previews.face_file("leaders", leader.pk, face),
        lambda: previews.draw_card(face, game.name, default_storage),
    )
