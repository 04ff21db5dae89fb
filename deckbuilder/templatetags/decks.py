"""Deck facts for pages of other apps: `cards` never imports `deckbuilder`, its templates load
this library instead.

    {% load decks %}{% public_decks_with card as using %}
"""

from django import template
from django.db.models import Count, Exists, OuterRef, Window

from deckbuilder.models import Deck, DeckCard

register = template.Library()

RECENT = 5


@register.simple_tag
def public_decks_with(card) -> dict:
    """{"count": how many public decks hold `card` (in any section), "decks": the RECENT most
    recently changed of them, with owner and leader}: one query (each row carries the count
    of them all, a window over the rows before the LIMIT)."""
    decks = Deck.objects.public().filter(
        Exists(DeckCard.objects.filter(deck=OuterRef("pk"), card=card))
    )
    recent = list(
        decks.select_related("owner", "leader")
        .annotate(total=Window(Count("pk")))
        .order_by("-updated")[:RECENT]
    )
    return {"count": recent[0].total if recent else 0, "decks": recent}
