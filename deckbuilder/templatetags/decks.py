"""Deck facts for pages of other apps: `cards` never imports `deckbuilder`, its templates load
this library instead.

    {% load decks %}{% public_decks_with card as using %}
"""

from django import template
from django.utils.safestring import mark_safe
from django.utils.text import Truncator

from cards.templatetags.badges import address, card_image, cost, esc, fact_line, keyword_list
from deckbuilder import pages

register = template.Library()


@register.simple_tag
def public_decks_with(card) -> dict:
    """{"count": how many public decks hold `card` (in any section), "decks": the most recently
    changed of them, with owner and leader}: one query."""
    recent = list(pages.public_decks_with(card.pk).select_related("owner", "leader"))
    return {"count": recent[0].total if recent else 0, "decks": recent}


# --- a deck page's cards, as a list and as stacks of pictures -----------------------------------
# Drawn here rather than by template loops: a 60-card deck draws both views of every entry.


@register.simple_tag
def deck_list_items(entries, game):
    """The <li>s of a type's entries in the list view: count, name (its picture on hover),
    cost and facts (the type is the heading's)."""
    items = []
    for entry in entries:
        card, n = entry.card, entry.count
        items.append(
            f'<li class="deck-card">\n  <span class="qty" aria-label="{n} cop'
            f'{"y" if n == 1 else "ies"}">{n}×</span>\n'
            f'  <span class="deck-card-name">{card_image(card, game, "name")}</span>\n'
            f"  {cost(card.cost_items, game, compact=True)}\n"
            f"  {fact_line(card, game, types=False)}\n</li>"
        )
    return mark_safe("\n".join(items))  # noqa: S308 (escaped by the tags)


@register.simple_tag
def deck_stack_items(entries, game):
    """The <li>s of a type's stack in the visual view: each card's picture under a strip
    with its count and name, linked to its page."""
    items = []
    for entry in entries:
        card = entry.card
        items.append(
            f'<li><a class="stack-card" href="{esc(address("card-detail", game, card.slug))}">'
            f'<span class="stack-label"><span class="stack-count">{entry.count}×</span> '
            f'<span class="stack-name">{esc(card.name)}</span></span>'
            f"{card_image(card, game, 'thumb')}</a></li>"
        )
    return mark_safe("\n".join(items))  # noqa: S308 (escaped)


# --- the builder's controls: 60 cards a page, each with forms per deck section -----------------
# Drawn here rather than by included templates: they were most of the builder's render.


def _csrf_input(context) -> str:
    token = context.get("csrf_token")
    if not token or token == "NOTPROVIDED":
        return ""
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{esc(token)}">'


@register.simple_tag
def slot_count(card, slot, several_sections, oob=False):
    """How many copies of `card` the deck section `slot` holds; swapped out of band after a
    change (oob)."""
    where = esc(slot["name"] if several_sections else "deck")
    count, oob = esc(slot["count"]), ' hx-swap-oob="true"' if oob else ""
    return mark_safe(  # noqa: S308 (escaped)
        f'<output class="in-deck" id="count-{esc(slot["section"])}-{esc(card.slug)}" '
        f'data-count="{count}" aria-label="{esc(card.name)}: copies in the {where}"{oob}>'
        f"{count}</output>"
    )


@register.simple_tag
def card_problems(card, oob=False):
    """The deck's problems about one card, beside its controls; swapped out of band after a
    change (oob)."""
    items = "".join(
        f'<li><span aria-hidden="true">⚠</span> {esc(message)}</li>'
        for message in card.deck_problems
    )
    oob = ' hx-swap-oob="true"' if oob else ""
    items = f"<ul>{items}</ul>" if items else ""
    return mark_safe(  # noqa: S308 (escaped)
        f'<div class="card-deck-problems" id="card-problems-{esc(card.slug)}"{oob}>{items}</div>'
    )


def _form(csrf: str, slug: str, section: str, op: str, sign: str, label: str, why="") -> str:
    """A −/+ form (its values escaped by the caller). `why`: the id of the words saying why
    the server will refuse it; the button then says it is unavailable (aria-disabled: it keeps
    its place in the keyboard's order, and a press still gets the server's reasons)."""
    refused = f' aria-disabled="true" aria-describedby="{why}"' if why else ""
    return (
        '<form method="post" hx-post="" hx-swap="none" hx-include="[name=shown]">\n'
        f'      {csrf}<input type="hidden" name="card" value="{slug}"><input type="hidden" '
        f'name="section" value="{section}"><input type="hidden" name="op" value="{op}">\n'
        f'      <button type="submit" class="qty-button {op}" id="{op}-{section}-{slug}"{refused}>'
        f'<span aria-hidden="true">{sign}</span><span class="visually-hidden">{label}</span>'
        "</button>\n    </form>"
    )


@register.simple_tag(takes_context=True)
def card_controls(context, card, several_sections, oob=False):
    """A card's count in each deck section it may go in, with −/+ (plain POST forms). After a
    change htmx swaps only the counts and the card's problems (out of band), never the forms:
    a click queued on another button of the same card while a change is on its way still finds
    its button in the page. Needs `card` from views._card_rows (its `slots`). Ids:
    add-/remove-/count-<section>-<card>. The forms name no address: they post to the page's
    own (its filters and page included; htmx keeps it current). Buttons stay enabled while a
    change is on its way, so they keep the keyboard focus: the page's hx-sync queues a second
    press instead. Every change names the cards listed (`shown`), so the answer updates only
    the counts that are on the page. In a public deck a + the server will refuse (a slot's
    `refused`) says so and why; the answer to a change there swaps the whole controls (`oob`),
    so that this follows the counts."""
    csrf = _csrf_input(context)
    slug, name = esc(card.slug), esc(card.name)
    oob = ' hx-swap-oob="true"' if oob else ""
    parts = [
        f'<div class="card-controls" id="controls-{slug}"{oob}>',
        f'  <input type="hidden" name="shown" value="{slug}">',
    ]
    for slot in card.slots:
        section, where = esc(slot["section"]), esc(slot["name"])
        parts.append(f'  <div class="qty" data-section="{section}">')
        if several_sections:
            parts.append(f'    <span class="slot-name" id="slot-{section}-{slug}">{where}</span>')
        label = f"Remove one {name}" + (f" from the {where}" if several_sections else "")
        parts.append("    " + _form(csrf, slug, section, "remove", "−", label))
        parts.append("    " + slot_count(card, slot, several_sections))
        why = f"why-{section}-{slug}" if slot.get("refused") else ""
        if slot["allowed"]:
            label = f"Add one {name}" + (f" to the {where}" if several_sections else "")
            parts.append("    " + _form(csrf, slug, section, "add", "+", label, why))
        if not slot["allowed"]:
            limit = "may not go here"
        elif slot["limit"] is not None:
            limit = f"max {slot['limit']}"
        else:
            limit = "no limit"
        if why:  # said in words, beside the button
            limit = f"{esc(slot['refused'])}: a public deck must stay legal"
            parts.append(f'    <p class="in-deck-label small refused" id="{why}">{limit}</p>')
        else:
            parts.append(f'    <p class="in-deck-label small">{limit}</p>')
        parts.append("  </div>")
    parts.append("  " + card_problems(card))
    parts.append("</div>")
    return mark_safe("\n".join(parts))  # noqa: S308 (every value escaped)


def truncated(text: str, length: int) -> str:
    """Django's `truncatechars`: plain ASCII (no combining characters to skip) by slicing,
    ~40 µs a card less; other text through Django's Truncator."""
    if not text.isascii():
        return Truncator(text).chars(length)
    return text if len(text) <= length else f"{text[: length - 1]}…"


@register.simple_tag(takes_context=True)
def card_row(context, card):
    """One card of the builder's list (`cards` of views._card_rows): what it is, why the
    leader may not use it, and its controls per deck section. Needs `game`, `leader` and
    `several_sections` in the context."""
    game = context["game"]
    text = f'<p class="card-text small">{esc(truncated(card.text, 140))}</p>'
    reason = ""
    if card.unusable:
        reason = (
            '<p class="reason"><strong><span aria-hidden="true">⊘</span> '
            f"{esc(context['leader'].name)} may not use it:</strong> "
            f"{esc('; '.join(card.unusable))}</p>"
        )
    return mark_safe(  # noqa: S308 (escaped)
        f'<li class="build-card{" unusable" if card.unusable else ""}" id="card-{esc(card.slug)}">'
        f'\n  {card_image(card, game, "small")}\n  <div class="build-card-main">\n'
        f'    <h3 class="card-name">{card_image(card, game, "name")}</h3>\n'
        f'    <p class="badges">\n      {cost(card.cost_items, game, compact=True)}\n'
        f"      {fact_line(card, game)}\n    </p>\n    {keyword_list(card.keyword_list)}\n"
        f"    {text if card.text else ''}\n    {reason}\n  </div>\n"
        f"  {card_controls(context, card, context.get('several_sections'))}\n</li>\n"
    )
