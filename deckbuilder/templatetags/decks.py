"""Deck facts for pages of other apps: `cards` never imports `deckbuilder`, its templates load
this library instead.

    {% load decks %}{% public_decks_with card as using %}
"""

from django import template

from deckbuilder import pages

register = template.Library()


@register.simple_tag
def public_decks_with(card) -> dict:
    """{"count": how many public decks hold `card` (in any section), "decks": the most recently
    changed of them, with owner and leader}: one query."""
    recent = list(pages.public_decks_with(card.pk).select_related("owner", "leader"))
    return {"count": recent[0].total if recent else 0, "decks": recent}
