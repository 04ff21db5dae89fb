"""What the migrations that add PostgreSQL-only objects (triggers, indexes, functions) share.
The migration loader skips modules whose name starts with "_"."""


def on_postgresql(statements):
    """A RunPython operation running `statements` on PostgreSQL, and nothing on SQLite."""

    def operation(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql)

    return operation
