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

from django import template
from django.urls import get_script_prefix, reverse
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag
def colour_badge(colour, game=None):
    if colour:
        return format_html(
            '<span class="badge colour colour-{}"><span aria-hidden="true">{}</span> {}</span>',
            colour.pk,
            colour.symbol,
            colour.name,
        )
    return format_html(
        '<span class="badge colour colourless"><span aria-hidden="true">◇</span> {}</span>',
        getattr(game, "no_colour_name", "") or "Colourless",
    )


@register.simple_tag
def rarity_badge(rarity):
    symbol = (
        format_html('<span aria-hidden="true">{}</span> ', rarity.symbol) if rarity.symbol else ""
    )
    return format_html(
        '<span class="badge rarity rarity-{}">{}{}</span>', rarity.slug, symbol, rarity.name
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
        if colour:
            name = colour.domain_name or colour.name
            pips.append(
                format_html(
                    '<span class="pip colour-{}" title="{} {}"><span aria-hidden="true">{}</span>'
                    ' <b>{}</b><span class="{}"> {}</span></span>',
                    colour.pk,
                    amount,
                    name,
                    colour.symbol,
                    amount,
                    name_class,
                    name,
                )  # fmt: skip
            )
        else:
            label = game.generic_cost_label
            pips.append(
                format_html(
                    '<span class="pip generic" title="{} {}"><b>{}</b><span class="{}"> {}</span>'
                    "</span>",
                    amount,
                    label,
                    amount,
                    name_class,
                    label,
                )  # fmt: skip
            )
    return format_html('<span class="cost">{}</span>', mark_safe("".join(pips)))  # noqa: S308


def _keyword(keyword) -> str:
    if keyword.is_faction:
        return format_html(
            '<li class="keyword faction"><span aria-hidden="true">⚑</span> {}'
            '<span class="visually-hidden"> (faction)</span></li>',
            keyword.name,
        )
    return format_html('<li class="keyword">{}</li>', keyword.name)


@register.simple_tag
def keyword_list(keywords):
    """Keywords of a card or leader, factions marked."""
    if not keywords:
        return ""
    return format_html('<ul class="keywords">{}</ul>', mark_safe("".join(map(_keyword, keywords))))  # noqa: S308


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
    src = card.image or address("card-face", game, card.slug)
    if mode == "name":
        return format_html(
            '<span class="has-preview"><a href="{}">{}</a><span class="card-preview" '
            'aria-hidden="true"><img src="{}" alt="" width="250" height="350" loading="lazy" '
            'decoding="async"></span></span>',
            address("card-detail", game, card.slug),
            card.name,
            src,
        )
    if mode == "large":
        return format_html(
            '<img class="card-picture" src="{}" alt="{}" width="250" height="350" '
            'loading="lazy" decoding="async">',
            src,
            card.name,
        )
    if mode == "small":
        return format_html(
            '<img class="card-thumb small" src="{}" alt="" width="40" height="56" loading="lazy"'
            ' decoding="async">',
            src,
        )
    return format_html(
        '<img class="card-thumb" src="{}" alt="" width="100" height="140" loading="lazy" '
        'decoding="async">',
        src,
    )


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
            f'<li><a href="{address("leader-detail", game, leader.slug)}">{escape(leader.name)}</a>'
            f' <span class="badges">{shown}</span></li>'
        )
    return mark_safe("\n".join(items))  # noqa: S308 (escaped above)


@register.simple_tag
def card_facts(card, game):
    """Type (where the game has several), colours (where it names them), rarity, stats and
    loyalty of a card, as badges (a card of for_listing(); `game` with its vocabulary)."""
    lines = []
    if len(game.type_list) > 1:
        lines.append(format_html('<span class="badge type">{}</span>', card.type.name))
    if game.colour_label:
        colours = list(card.colour_list) or [None]
        lines.append("".join(f"{colour_badge(colour, game)} " for colour in colours))
    if card.rarity:
        lines.append(rarity_badge(card.rarity))
    lines.append(
        "".join(
            format_html(
                '<span class="badge stat"><abbr title="{}">{}</abbr> {}</span> ',
                stat.name,
                stat.name,
                value,
            )
            for stat, value in card.stat_items
        )
    )
    if card.loyalty_faction:
        lines.append(
            format_html(
                '<span class="badge loyalty"><span aria-hidden="true">⚑</span> {} {}'
                '<span class="visually-hidden"> loyalty needed</span></span>',
                card.loyalty_faction.name,
                card.loyalty_points,
            )
        )
    return mark_safe("\n".join(lines))  # noqa: S308 (each part escaped)
