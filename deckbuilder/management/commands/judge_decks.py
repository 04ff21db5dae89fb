"""Judge every deck (or one game's) again: its verdicts under each version of each format of its
game in force today or later. Pages judge decks as they change; this fills in what an upgrade or
a bulk write to the database behind the site's back left out."""

from django.core.management.base import BaseCommand

from deckbuilder import services
from deckbuilder.models import Deck


class Command(BaseCommand):
    help = "Judge every deck again under the formats' versions in force today or later."

    def add_arguments(self, parser):
        parser.add_argument("--game", help="Only the decks of this game (its slug).")

    def handle(self, *args, game=None, **options):
        decks = Deck.objects.order_by("pk")
        if game:
            decks = decks.filter(game__slug=game)
        changed = services.refresh_legality(decks=decks.iterator(chunk_size=1000))
        self.stdout.write(f"{decks.count()} deck(s) judged, {changed} changed.")
