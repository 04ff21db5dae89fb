"""What every in-process benchmark does first: production-like settings (DEBUG off records no
queries) unless the caller chose otherwise, a temporary SQLite database of its own when
DATABASE_URL is unset or empty (never the project's db.sqlite3), then django.setup(). Import
this module before any of the project's."""

import os
import secrets
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
for key, value in {
    "DJANGO_SETTINGS_MODULE": "deckbuilder.settings",
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(64),
    "SECURE_SSL_REDIRECT": "0",
    "ALLOWED_HOSTS": "localhost,testserver",
}.items():
    os.environ.setdefault(key, value)
if not os.environ.get("DATABASE_URL"):
    TEMP = tempfile.TemporaryDirectory(prefix="bench-")  # removed when the process ends
    os.environ["DATABASE_URL"] = f"sqlite:///{TEMP.name}/bench.sqlite3"
warnings.filterwarnings("ignore", "No directory at")  # whitenoise: no collected static files

import django  # noqa: E402

django.setup()


def migrate_and_describe() -> None:
    """Migrate the benchmark's database, then print what the figures were measured on."""
    import platform
    import time

    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0, interactive=False)
    if connection.vendor == "sqlite":
        database = f"SQLite {connection.Database.sqlite_version}"
    else:
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            database = f"PostgreSQL {cursor.fetchone()[0]}"
    print(
        f"{database}, Django {django.get_version()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, DEBUG={settings.DEBUG}, {time.strftime('%Y-%m-%d %H:%M %Z')}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
