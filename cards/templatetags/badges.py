"""The small pieces every card and leader list repeats, drawn in Python: a page of 60 cards
draws hundreds of them, and each through `{% include %}` cost ~50 µs (most of a render).

    {% load badges %}
    {% colour_badge colour game %}            symbol + name; None: colourless (the game's word)
    {% rarity_badge rarity %}                 symbol + name
    {% cost card.cost_items game compact=True %}
    {% keyword_list card.keywords.all %}      factions marked
    {% card_image card game "thumb" %}        "thumb", "small", "large" or "name" (see below)
    {% leader_items leaders game %}           <li>s: each leader linked, with its colours
    {% card_facts card game %}                type, colours, rarity, stats, loyalty

Colours carry a symbol and a name, never the colour alone.
"""

import functools
import html

from django import template
from django.urls import get_script_prefix, reverse
from django.utils.safestring import mark_safe

from cards.models import CostSymbol

register = template.Library()


def esc(value) -> str:
    """`value` as HTML text, escaped as Django's `escape` does (html.escape), without the lazy
    string check Django's wraps it in: these tags escape thousands of values a page."""
    return html.escape(str(value))


@register.simple_tag
def colour_badge(colour, game=None):
    if colour:
        return mark_safe(  # noqa: S308 (escaped)
            f'<span class="badge colour colour-{colour.pk}"><span aria-hidden="true">'
            f"{esc(colour.symbol)}</span> {esc(colour.name)}</span>"
        )
    name = getattr(game, "no_colour_name", "") or "Colourless"
    return mark_safe(  # noqa: S308 (escaped)
        '<span class="badge colour colourless"><span aria-hidden="true">◇</span> '
        f"{esc(name)}</span>"
    )


@register.simple_tag
def rarity_badge(rarity):
    symbol = f'<span aria-hidden="true">{esc(rarity.symbol)}</span> ' if rarity.symbol else ""
    return mark_safe(  # noqa: S308 (escaped)
        f'<span class="badge rarity rarity-{esc(rarity.slug)}">{symbol}{esc(rarity.name)}</span>'
    )


@register.simple_tag
def cost(items, game, compact=False):
    """A cost: each domain with its colour's symbol, the amount and the domain name; then the
    generic amount, named as the game names it. `items` from Card.cost_items."""
    if not items:
        return mark_safe('<span class="cost free">No cost</span>')
    name_class = "visually-hidden" if compact else "pip-name"
    pips = []
    for colour, amount in items:
        amount = esc(amount)
        if colour:
            name = esc(colour.domain_name or colour.name)
            pips.append(
                f'<span class="pip colour-{colour.pk}" title="{amount} {name}"><span '
                f'aria-hidden="true">{esc(colour.symbol)}</span> <b>{amount}</b><span '
                f'class="{name_class}"> {name}</span></span>'
            )
        else:
            label = esc(game.generic_cost_label)
            pips.append(
                f'<span class="pip generic" title="{amount} {label}"><b>{amount}</b><span '
                f'class="{name_class}"> {label}</span></span>'
            )
    return mark_safe(f'<span class="cost">{"".join(pips)}</span>')  # noqa: S308 (escaped)


def _keyword(keyword) -> str:
    if keyword.is_faction:
        return (
            f'<li class="keyword faction"><span aria-hidden="true">⚑</span> {esc(keyword.name)}'
            '<span class="visually-hidden"> (faction)</span></li>'
        )
    return f'<li class="keyword">{esc(keyword.name)}</li>'


@register.simple_tag
def keyword_list(keywords):
    """Keywords of a card or leader, factions marked."""
    if not keywords:
        return ""
    return mark_safe(f'<ul class="keywords">{"".join(map(_keyword, keywords))}</ul>')  # noqa: S308


@functools.lru_cache(maxsize=256)
def _addresses(name: str, game_slug: str, prefix: str) -> str:
    """The address of the page `name` of a game's item, with "{}" for the item's slug: reversed
    once, not once per card of a list (`prefix`: the script prefix it was reversed under)."""
    return reverse(name, args=(game_slug, "-slug-")).replace("-slug-", "{}")


def address(name: str, game, slug: str) -> str:
    """reverse(name, args=(game.slug, slug)), for a slug (no character to quote)."""
    return _addresses(name, game.slug, get_script_prefix()).format(slug)


@register.simple_tag
def card_image(card, game, mode="thumb"):
    """The picture of `card`: its image when it has one (the URL wins), else its SVG face
    (cards.faces). `mode`:
      "thumb" — a thumbnail beside the card's name (alt="": the name is right there);
      "small" — the same, smaller (the builder's list);
      "large" — the card page's picture (alt = the card's name);
      "name"  — the card's name as a link to its page, with a larger picture shown on hover and
                keyboard focus by CSS alone (.has-preview), hidden from screen readers."""
    src = esc(card.image or address("card-face", game, card.slug))
    if mode == "name":
        html_ = (
            f'<span class="has-preview"><a href="{esc(address("card-detail", game, card.slug))}">'
            f'{esc(card.name)}</a><span class="card-preview" aria-hidden="true"><img src="{src}" '
            'alt="" width="250" height="350" loading="lazy" decoding="async"></span></span>'
        )
    elif mode == "large":
        html_ = (
            f'<img class="card-picture" src="{src}" alt="{esc(card.name)}" width="250" '
            'height="350" loading="lazy" decoding="async">'
        )
    elif mode == "small":
        html_ = (
            f'<img class="card-thumb small" src="{src}" alt="" width="40" height="56" '
            'loading="lazy" decoding="async">'
        )
    else:
        html_ = (
            f'<img class="card-thumb" src="{src}" alt="" width="100" height="140" loading="lazy" '
            'decoding="async">'
        )
    return mark_safe(html_)  # noqa: S308 (escaped)


@register.simple_tag
def leader_items(leaders, game):
    """A list item per (leader, its colours): its name linked to its page, and its colours
    (a card's page lists up to every leader of the game: each address and badge is made once)."""
    badges = {}
    items = []
    for leader, colours in leaders:
        for colour in colours:
            if colour.pk not in badges:
                badges[colour.pk] = f"{colour_badge(colour, game)} "
        shown = "".join(badges[colour.pk] for colour in colours)
        items.append(
            f'<li><a href="{address("leader-detail", game, leader.slug)}">{esc(leader.name)}</a>'
            f' <span class="badges">{shown}</span></li>'
        )
    return mark_safe("\n".join(items))  # noqa: S308 (escaped above)


@register.simple_tag
def card_facts(card, game):
    """Type (where the game has several), colours (where it names them), rarity, stats and
    loyalty of a card, as badges (a card of for_listing(); `game` with its vocabulary)."""
    lines = []
    if len(game.type_list) > 1:
        names = " / ".join(esc(t.name) for t in card.type_list)
        lines.append(f'<span class="badge type">{names}</span>')
    if game.colour_label:
        colours = card.colour_list or [None]
        lines.append("".join(f"{colour_badge(colour, game)} " for colour in colours))
    if card.rarity:
        lines.append(rarity_badge(card.rarity))
    lines.append(
        "".join(
            f'<span class="badge stat"><abbr title="{esc(stat.name)}">{esc(stat.name)}</abbr> '
            f"{esc(value)}</span> "
            for stat, value in card.stat_items
        )
    )
    if card.loyalty_faction:
        lines.append(
            f'<span class="badge loyalty"><span aria-hidden="true">⚑</span> '
            f"{esc(card.loyalty_faction.name)} {esc(card.loyalty_points)}"
            '<span class="visually-hidden"> loyalty needed</span></span>'
        )
    return mark_safe("\n".join(lines))  # noqa: S308 (each part escaped)


@register.simple_tag
def face_facts(face, game):
    """Another face's type line, cost, colours and stats as badges, in the game's words
    (`game` with its vocabulary: no query)."""
    types = {t.slug: t.name for t in game.type_list}
    colours = {c.slug: c for c in game.colour_list}
    domains = game.domains()
    lines = []
    if face.types:
        names = " / ".join(esc(types.get(t, t)) for t in face.types)
        lines.append(f'<span class="badge type">{names}</span>')
    if face.cost:
        items = [(domains[k], n) for k, n in face.cost.items() if k in domains]
        items += [(None, n) for k, n in face.cost.items() if k == "generic"]
        items += [
            (CostSymbol(k), n) for k, n in face.cost.items() if k not in domains and k != "generic"
        ]
        lines.append(cost(items, game, compact=True))
    shown = list(
        dict.fromkeys(
            [
                *(domains[k] for k in face.cost if k in domains),
                *(colours[c] for c in face.colours if c in colours),
            ]
        )
    )
    if game.colour_label and shown:
        lines.append("".join(f"{colour_badge(colour, game)} " for colour in shown))
    stats = {s.slug: s.name for s in game.stat_list}
    lines.append(
        "".join(
            f'<span class="badge stat"><abbr title="{esc(stats.get(k, k))}">{esc(stats.get(k, k))}'
            f"</abbr> {esc(v)}</span> "
            for k, v in face.stats.items()
        )
    )
    return mark_safe("\n".join(lines))  # noqa: S308 (each part escaped)
