"""Deck facts for pages of other apps: `cards` never imports `deckbuilder`, its templates load
this library instead.

    {% load decks %}{% public_decks_with card as using %}
"""

from django import template
from django.db.models import Exists, OuterRef

from deckbuilder.models import Deck, DeckCard

register = template.Library()

RECENT = 5


@register.simple_tag
def public_decks_with(card) -> dict:
    """{"count": how many public decks hold `card` (in any section), "decks": the RECENT most
    recently changed of them, with owner and leader}: 2 queries, 1 when there is none."""
    decks = Deck.objects.public().filter(
        Exists(DeckCard.objects.filter(deck=OuterRef("pk"), card=card))
    )
    count = decks.count()
    recent = (
        list(decks.select_related("owner", "leader").order_by("-updated")[:RECENT]) if count else []
    )
    return {"count": count, "decks": recent}
