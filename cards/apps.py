from django.apps import AppConfig


class CardsConfig(AppConfig):
    name = "cards"
    verbose_name = "Card reference"

    def ready(self):
        from django.db.backends.signals import connection_created

        from . import signals  # noqa: F401  (keeps Game.rules_version current)

        connection_created.connect(register_sqlite_functions, dispatch_uid="cards-sqlite")


def register_sqlite_functions(sender, connection, **kwargs):
    """casefold(text) for SQLite, whose own lower() and LIKE fold only ASCII letters: rules
    search in Cyrillic (and any script) on the embedded database."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(
            "casefold",
            1,
            lambda text: text.casefold() if text is not None else None,
            deterministic=True,
        )
