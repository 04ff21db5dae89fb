from django.apps import AppConfig


class DeckbuilderConfig(AppConfig):
    name = "deckbuilder"
