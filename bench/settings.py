"""The site's settings plus bench-only URLs (bench/urls.py); nothing else changes.

DJANGO_SETTINGS_MODULE=bench.settings gunicorn deckbuilder.wsgi
"""

from deckbuilder.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
