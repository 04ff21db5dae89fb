from django.apps import AppConfig


class DeckbuilderConfig(AppConfig):
    name = "deckbuilder"
    verbose_name = "Decks"

    def ready(self):
        from . import signals  # noqa: F401  (connects the receivers)
