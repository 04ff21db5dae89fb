from django.apps import AppConfig


class DeckbuilderConfig(AppConfig):
    name = "deckbuilder"
    verbose_name = "Decks"

    def ready(self):
        from . import pages, signals  # noqa: F401  (connect the receivers, register pages)
