"""Production settings: safe by default, clean `check --deploy`, health endpoint."""

import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "x7#kq2!v9@production-like-secret-key-for-the-deploy-check-0123456789",
    "ALLOWED_HOSTS": "decks.example.org",
    "DATABASE_URL": "sqlite:////tmp/deploy-check.sqlite3",
}


def manage(*args, env):
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "SECRET_KEY",
            "DEBUG",
            "TESTING",
            "SECURE_SSL_REDIRECT",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
        }
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deploy_check_without_warnings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize("secret", ["", "short", "django-insecure-" + "x" * 60])
def test_production_refuses_to_start_without_a_real_secret_key(secret):
    result = manage("check", env={**PRODUCTION, "SECRET_KEY": secret})
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_debug_accepts_only_boolean_words():
    result = manage("check", env={**PRODUCTION, "DEBUG": "maybe"})
    assert result.returncode != 0 and "DEBUG must be a boolean" in result.stderr


@pytest.mark.django_db
def test_healthz_answers_200_when_the_database_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_fails(client):
    with mock.patch("deckbuilder.views.connection.cursor", side_effect=Exception("down")):
        response = client.get("/healthz")
    assert response.status_code == 503


@pytest.mark.parametrize(
    ("url", "backend", "location"),
    [
        ("", "db.DatabaseCache", "django_cache"),
        ("redis://127.0.0.1:6379/1", "redis.RedisCache", "redis://127.0.0.1:6379/1"),
        ("db://shared_cache", "db.DatabaseCache", "shared_cache"),
        ("file:///var/tmp/deckbuilder", "filebased.FileBasedCache", "/var/tmp/deckbuilder"),
        ("locmem://", "locmem.LocMemCache", ""),
    ],
)
def test_cache_comes_from_cache_url(url, backend, location):
    code = "from django.conf import settings as s; c = s.CACHES['default']; "
    code += "print(c['BACKEND'], c['LOCATION'], sep='|')"
    result = manage("shell", "--no-imports", "-c", code, env={**PRODUCTION, "CACHE_URL": url})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"django.core.cache.backends.{backend}|{location}"


@pytest.mark.parametrize("url", ["memcached://x", "db://", "nonsense"])
def test_a_cache_url_of_unknown_shape_is_refused_at_start(url):
    result = manage("check", env={**PRODUCTION, "CACHE_URL": url})
    assert result.returncode != 0 and "CACHE_URL must be" in result.stderr


def test_sqlite_is_configured_for_concurrent_writers():
    code = "from django.db import connection as c; c.ensure_connection(); "
    code += "print(c.cursor().execute('PRAGMA journal_mode').fetchone()[0], "
    code += "c.cursor().execute('PRAGMA busy_timeout').fetchone()[0], c.transaction_mode)"
    result = manage("shell", "--no-imports", "-c", code, env=PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["wal", "20000", "IMMEDIATE"]
