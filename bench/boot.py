"""What every in-process benchmark does first: production-like settings (DEBUG off records no
queries) unless the caller chose otherwise, then django.setup(). Import this module before any
of the project's."""

import os
import secrets
import sys
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
warnings.filterwarnings("ignore", "No directory at")  # whitenoise: no collected static files

import django  # noqa: E402

django.setup()
