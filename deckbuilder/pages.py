"""What the pages kept for anonymous readers (cards.pagecache) show of decks, read in their keys.

A kept page's key holds the rows it shows, so a change to any of them is a new key: a deck's
page holds its deck's row and its owner's name (every change to a deck, its cards included,
saves its row: services), a card's page the public decks it lists. Nothing is moved or cleared
when a deck is written.
"""

from django.db.models import Count, Exists, OuterRef, Window

from cards import pagecache
from cards.models import Card

from .models import Deck, DeckCard, DeckVersion, Visibility

RECENT = 5  # the public decks a card's page lists

# The models of this app and how the kept pages see their changes (tests/cards/test_page_versions).
KEYED = {
    Deck: "a deck's page and a card's page read the rows they show in their key",
    DeckCard: "every change to a deck's cards saves the deck's row, which those keys read",
}
NOT_SHOWN = {
    DeckVersion: "history is shown on the history page only, which is never kept",
}


def public_decks_with(card_id):
    """The public decks that hold the card (in any section), most recently changed first, each
    with the number of them all (a window over the rows before the LIMIT)."""
    decks = Deck.objects.public().filter(
        Exists(DeckCard.objects.filter(deck=OuterRef("pk"), card=card_id))
    )
    return decks.annotate(total=Window(Count("pk"))).order_by("-updated")[:RECENT]


def deck_page_rows(*, share_id: str, **kwargs):
    """A deck's page: its row and its owner's name (None: no such deck anonymous readers see)."""
    fields = [f.attname for f in Deck._meta.concrete_fields]
    decks = Deck.objects.exclude(visibility=Visibility.PRIVATE).filter(share_id=share_id)
    return decks.values_list(*fields, "owner__username").first()


def card_page_rows(*, game: str, slug: str, **kwargs):
    """A card's page: the public decks it lists, with their owners' names."""
    card = Card.objects.filter(game__slug=game, slug=slug)
    decks = public_decks_with(card.values("pk")[:1])
    return tuple(decks.values_list("share_id", "name", "updated", "owner__username", "total"))


pagecache.also_shows("deck", deck_page_rows)
pagecache.also_shows("card", card_page_rows)
