"""The small pieces every card and leader list repeats, drawn in Python: a page of 60 cards
draws hundreds of them, and each through `{% include %}` cost ~50 µs (most of a render).

    {% load badges %}
    {% colour_badge colour game %}            symbol + name; None: colourless (the game's word)
    {% rarity_badge rarity %}                 symbol + name
    {% cost card.cost_items game compact=True %}
    {% keyword_list card.keywords.all %}      factions marked
    {% card_image card game "thumb" %}        "thumb", "small", "large" or "name" (see below)
    {% leader_image leader as picture %}      a leader's picture, "" when it has none
    {% leader_items leaders game %}           <li>s: each leader linked, with its colours
    {% card_facts card game %}                type, colours, rarity, stats, loyalty
    {% fact_line card game types=False %}     the same as one line of text: primary, then minor
    {% card_columns game %} {% card_cells card game %}   the <th>s and <td>s of a card table

Colours carry a symbol and a name, never the colour alone.
"""

import functools
import html

from django import template
from django.urls import get_script_prefix, reverse
from django.utils.safestring import mark_safe

from cards import art
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


# How each picture of a card is drawn: its CSS class, the box of its SVG face (width, height),
# and its width on the page (`sizes`: the browser picks the rendition of art it needs).
PICTURES = {
    "thumb": ("card-thumb", (100, 140), "(min-width: 48rem) 12.5rem, 45vw"),  # a grid tile
    "small": ("card-thumb small", (40, 56), "2.5rem"),  # the builder's list
    "large": ("card-picture", (250, 350), "250px"),  # the card page
    "name": ("", (250, 350), "(min-width: 48rem) 250px, 180px"),  # the preview on hover
}
LEADER_SIZES = "(min-width: 64rem) 20rem, min(20rem, 100vw)"  # the leader page's figure


def picture(shown, css_class: str, sizes: str, alt: str) -> str:
    """Art as a <picture>: its renditions as WebP, else its JPEG or PNG ones, the browser
    choosing by `sizes`; width and height give its shape, so nothing moves as it loads."""
    shape = shown.renditions[min(1, len(shown.renditions) - 1)]
    attribute = f' class="{css_class}"' if css_class else ""
    return (
        f'<picture{attribute}><source type="image/webp" srcset="{esc(shown.srcset("webp"))}" '
        f'sizes="{sizes}"><img src="{esc(shown.url(shape["size"], shown.fallback))}" '
        f'srcset="{esc(shown.srcset(shown.fallback))}" sizes="{sizes}" alt="{esc(alt)}" '
        f'width="{shape["width"]}" height="{shape["height"]}" loading="lazy" '
        'decoding="async"></picture>'
    )


@register.simple_tag
def card_image(card, game, mode="thumb"):
    """The picture of `card`: its art (cards.art.shown) as renditions, else its image URL,
    else its SVG face (cards.faces). `mode`:
      "thumb" — a thumbnail beside the card's name (alt="": the name is right there);
      "small" — the same, smaller (the builder's list);
      "large" — the card page's picture (alt = the card's name);
      "name"  — the card's name as a link to its page, with a larger picture shown on hover and
                keyboard focus by CSS alone (.has-preview), hidden from screen readers.
    The class of a mode ("card-thumb", "card-thumb small", "card-picture") is on the <img>, or
    on the <picture> of art."""
    css_class, (width, height), sizes = PICTURES.get(mode, PICTURES["thumb"])
    alt = card.name if mode == "large" else ""
    shown = art.shown(card)
    if shown is not None:
        html_ = picture(shown, css_class, sizes, alt)
    else:
        src = esc(card.image or address("card-face", game, card.slug))
        attribute = f' class="{css_class}"' if css_class else ""
        html_ = (
            f'<img{attribute} src="{src}" alt="{esc(alt)}" width="{width}" height="{height}" '
            'loading="lazy" decoding="async">'
        )
    if mode == "name":
        html_ = (
            f'<span class="has-preview"><a href="{esc(address("card-detail", game, card.slug))}">'
            f'{esc(card.name)}</a><span class="card-preview" aria-hidden="true">{html_}'
            "</span></span>"
        )
    return mark_safe(html_)  # noqa: S308 (escaped)


@register.simple_tag
def leader_image(leader):
    """The picture of a leader (its page): its art (cards.art.shown) as renditions, else its
    image when that is a URL, else "" (`{% leader_image leader as picture %}`)."""
    shown = art.shown(leader)
    if shown is not None:
        return mark_safe(picture(shown, "", LEADER_SIZES, leader.name))  # noqa: S308 (escaped)
    if leader.image.startswith(("https://", "http://")):
        return mark_safe(  # noqa: S308 (escaped)
            f'<img src="{esc(leader.image)}" alt="{esc(leader.name)}" loading="lazy">'
        )
    return ""


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


# --- facts as text: lists (the card browser's list and text views, the deck page) ------------
# What a player scans a list for (type, colours) reads first, in ink; what they look up
# (rarity, stats, loyalty) follows, muted. Plain text between separators, not a wall of pills.


def _colour_marks(card, game) -> str:
    """The card's colours as text, each with its symbol (the colour only adds to the words);
    none: the game's word for colourless."""
    if not card.colour_list:
        name = esc(getattr(game, "no_colour_name", "") or "Colourless")
        return (
            f'<span class="colour-mark colourless"><span aria-hidden="true">◇</span> {name}</span>'
        )
    return ", ".join(
        f'<span class="colour-mark colour-{c.pk}"><span aria-hidden="true">{esc(c.symbol)}'
        f"</span> {esc(c.name)}</span>"
        for c in card.colour_list
    )


def _rarity_text(rarity) -> str:
    symbol = f'<span aria-hidden="true">{esc(rarity.symbol)}</span> ' if rarity.symbol else ""
    return f"{symbol}{esc(rarity.name)}"


def _type_names(card) -> str:
    return " / ".join(esc(t.name) for t in card.type_list)


@register.simple_tag
def fact_line(card, game, types=True):
    """Type (where the game has several; `types=False` leaves it to a heading), colours (where
    the game names them), then, minor, rarity, stats and loyalty: one line of text whose parts
    CSS separates (a card of for_listing(); `game` with its vocabulary)."""
    major, minor = [], []
    if types and len(game.type_list) > 1:
        major.append(_type_names(card))
    if game.colour_label:
        major.append(_colour_marks(card, game))
    if card.rarity:
        minor.append(_rarity_text(card.rarity))
    minor += [f"{esc(stat.name)} {esc(value)}" for stat, value in card.stat_items]
    if card.loyalty_faction:
        minor.append(
            f'<span aria-hidden="true">⚑</span> {esc(card.loyalty_faction.name)} '
            f"{esc(card.loyalty_points)}"
            '<span class="visually-hidden"> loyalty needed</span>'
        )
    parts = [f'<span class="fact">{p}</span>' for p in major]
    parts += [f'<span class="fact minor">{p}</span>' for p in minor]
    # spaces between the parts: read aloud (and copied) as words apart, CSS adds the dots
    return mark_safe(f'<span class="facts">{" ".join(parts)}</span>')  # noqa: S308 (escaped)


def _columns(game) -> list[str]:
    """The fact columns of a card table, in the game's words (card_columns, card_cells)."""
    names = ["Type"] if len(game.type_list) > 1 else []
    if game.colour_label:
        names.append(game.colour_label)
    if game.rarity_list:
        names.append("Rarity")
    return names + [stat.name for stat in game.stat_list]


@register.simple_tag
def card_columns(game):
    """The <th>s of a card table's fact columns (those card_cells fills)."""
    return mark_safe(  # noqa: S308 (escaped)
        "".join(f'<th scope="col">{esc(name)}</th>' for name in _columns(game))
    )


@register.simple_tag
def card_cells(card, game):
    """A card's <td>s under card_columns: type, colours, rarity (minor), each stat (minor)."""
    cells = [f"<td>{_type_names(card)}</td>"] if len(game.type_list) > 1 else []
    if game.colour_label:
        cells.append(f"<td>{_colour_marks(card, game)}</td>")
    if game.rarity_list:
        rarity = _rarity_text(card.rarity) if card.rarity else ""
        cells.append(f'<td class="minor">{rarity}</td>')
    stats = card.stats or {}
    cells += [
        f'<td class="minor num">{esc(stats[stat.slug]) if stat.slug in stats else ""}</td>'
        for stat in game.stat_list
    ]
    return mark_safe("".join(cells))  # noqa: S308 (escaped)
