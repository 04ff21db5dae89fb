"""Server-rendered pages of the reference data: games, the card browser, cards and leaders.

Views stay thin: they look objects up by slug, hand reads to QuerySet methods and the shared
CardFilter, and pass plain values to templates. Every page runs a constant number of queries
whatever the number of cards shown (lists use `for_listing()` and its prefetched relations).
"""

from django.core.paginator import Paginator
from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from . import legality
from .filters import CardFilter
from .models import Card, Colour, Game, Keyword, Leader

CARDS_PER_PAGE = 24

# Labels of the card browser's fields, as the page names them (for the error summary).
FILTER_LABELS = {
    "q": "Search",
    "colour": "Colour",
    "rarity": "Rarity",
    "faction": "Faction",
    "keyword": "Keyword",
    "leader": "Usable by",
    "cost_min": "Total cost from",
    "cost_max": "Total cost to",
    "sort": "Sort",
}


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


def _get_game(slug: str, *prefetch: str) -> Game:
    return get_object_or_404(Game.objects.prefetch_related(*prefetch), slug=slug)


def _cost_items(card: Card, domains: dict[str, Colour]) -> list[tuple[Colour, int]]:
    """The card's faith cost as (colour of the domain, amount), in the game's domain order."""
    cost = card.cost or {}
    return [(colour, cost[domain]) for domain, colour in domains.items() if domain in cost]


def _with_costs(cards, domains):
    """Attach `cost_items` to each card of a list, for templates (no queries)."""
    cards = list(cards)
    for card in cards:
        card.cost_items = _cost_items(card, domains)
    return cards


def _paginate(request, queryset):
    page = Paginator(queryset, CARDS_PER_PAGE).get_page(request.GET.get("page"))
    page.elided_range = list(page.paginator.get_elided_page_range(page.number, on_each_side=2))
    return page, page.object_list


def leaders_able_to_use(card: Card, leaders, fmt) -> list[Leader]:
    """The leaders (with prefetched colours and keywords) that the format lets use `card`."""
    info = card.info()
    return [leader for leader in leaders if not legality.card_problems(fmt, leader.info(), info)]


# --- pages ----------------------------------------------------------------------------------


@require_safe
def home(request):
    games = list(Game.objects.annotate(card_count=_count_of(Card), leader_count=_count_of(Leader)))
    return render(request, "cards/home.html", {"games": games, "nav_games": games})


@require_safe
def game_detail(request, game):
    game = get_object_or_404(
        Game.objects.annotate(card_count=_count_of(Card), leader_count=_count_of(Leader)),
        slug=game,
    )
    keywords = Keyword.objects.filter(game=game, is_faction=True)
    return render(
        request,
        "cards/game_detail.html",
        {
            "game": game,
            "colours": list(game.colours.all()),
            "rarities": list(game.rarities.all()),
            "factions": list(keywords),
        },
    )


@require_safe
def card_list(request, game):
    game = _get_game(game, "colours", "rarities")  # shared with CardFilter's choices
    filterset = CardFilter(
        request.GET, queryset=Card.objects.filter(game=game).for_listing(), game=game
    )
    valid = filterset.is_valid()
    if valid:
        page, cards = _paginate(request, filterset.qs)
        cards = _with_costs(cards, game.domains())
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
            {"field": name, "label": FILTER_LABELS.get(name, name), "messages": messages}
            for name, messages in filterset.form.errors.items()
        ],
        "leaders": list(Leader.objects.filter(game=game).only("slug", "name")),
        **filterset.form_options(),
    }
    return render(request, "cards/card_list.html", context, status=200 if valid else 400)


@require_safe
def card_detail(request, game, slug):
    game = _get_game(game)
    card = get_object_or_404(Card.objects.filter(game=game).for_listing(), slug=slug)
    card.cost_items = _cost_items(card, game.domains())
    leaders = Leader.objects.filter(game=game).prefetch_related("colours", "keywords")
    return render(
        request,
        "cards/card_detail.html",
        {"game": game, "card": card, "leaders": leaders_able_to_use(card, leaders, game.format)},
    )


@require_safe
def leader_list(request, game):
    game = _get_game(game)
    leaders = Leader.objects.filter(game=game).prefetch_related("colours", "keywords")
    return render(request, "cards/leader_list.html", {"game": game, "leaders": leaders})


@require_safe
def leader_detail(request, game, slug):
    game = _get_game(game)
    leader = get_object_or_404(
        Leader.objects.filter(game=game).prefetch_related("colours", "keywords"), slug=slug
    )
    page, cards = _paginate(request, Card.objects.usable_by(leader).for_listing())
    cards = _with_costs(cards, game.domains())
    return render(
        request,
        "cards/leader_detail.html",
        {"game": game, "leader": leader, "page": page, "cards": cards},
    )


# placeholder: replaced by the rules pages
@require_safe
def rule_index(request, game):
    from django.http import HttpResponse

    return HttpResponse(f"Rules of {_get_game(game).slug}", content_type="text/plain")


# placeholder: replaced by the rules pages
@require_safe
def rule_section(request, game, number):
    from django.http import HttpResponse

    section = get_object_or_404(_get_game(game).rule_sections, number=number)
    return HttpResponse(f"Rule {section.number}", content_type="text/plain")
