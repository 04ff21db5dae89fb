"""What a deck's page kept for anonymous readers (cards.pagecache) shows of decks, read in its
key: its deck's row and its owner's name. Every change to a deck, its cards included, saves its
row (services), so a change is a new key: nothing is moved or cleared when a deck is written.
"""

from django.db.models import Count, Exists, OuterRef, Window

from cards.models import Art

from .models import Deck, DeckCard, DeckVerdict, DeckVersion, Visibility

RECENT = 5  # the public decks a card's page lists

# The models of this app and how kept pages see their changes (tests/cards/test_page_versions).
KEYED = {
    Deck: "a deck's page reads its row in its key",
    DeckCard: "every change to a deck's cards saves the deck's row, which that key reads",
    DeckVerdict: "every change to a deck's verdicts saves the deck's row, which that key reads; "
    "which version is in force moves the key's count of versions started (cards.pagecache)",
}
NOT_SHOWN = {
    DeckVersion: "history is shown on the history page only, which is never kept",
    Art: "(cards) shown through the printing or leader that points at it, whose writes bump its "
    "game; a row never changes once made and is kept (PROTECT) while one points at it",
}


def public_decks_with(card_id):
    """The public decks that hold the card (in any section), most recently changed first, each
    with the number of them all (a window over the rows before the LIMIT)."""
    decks = Deck.objects.public().filter(
        Exists(DeckCard.objects.filter(deck=OuterRef("pk"), card=card_id))
    )
    return decks.annotate(total=Window(Count("pk"))).order_by("-updated")[:RECENT]


def deck_page_rows(*, share_id: str):
    """A deck's page: its row and its owner's name (None: no such deck anonymous readers see)."""
    fields = [f.attname for f in Deck._meta.concrete_fields]
    decks = Deck.objects.exclude(visibility=Visibility.PRIVATE).filter(share_id=share_id)
    return decks.values_list(*fields, "owner__username").first()
