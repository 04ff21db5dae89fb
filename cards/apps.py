from django.apps import AppConfig


class CardsConfig(AppConfig):
    name = "cards"
    verbose_name = "Card reference"

    def ready(self):
        from . import signals  # noqa: F401  (keeps Game.rules_version current)
