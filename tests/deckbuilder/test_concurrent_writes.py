"""SQLite as a web server's database: concurrent writers queue for the lock instead of failing
with "database is locked", under gunicorn (several processes) and the dev server (threads)."""

import json
import os
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests import servers

WRITERS = 20
pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="SQLite's locking is under test: the SQLite pass of `make test` runs this",
)


@pytest.fixture(scope="module")
def sqlite_site(tmp_path_factory):
    """A file database migrated and loaded as `make run` does, and alice's API token."""
    folder = tmp_path_factory.mktemp("sqlite-site")
    env = servers.environment(DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}")
    servers.manage("migrate", "--noinput", env=env)
    servers.manage("load_sample_data", env=env)
    code = (
        "from django.contrib.auth.models import User; from rest_framework.authtoken.models "
        "import Token; u = User.objects.create_user('alice', password='alice-password'); "
        "print(Token.objects.create(user=u).key)"
    )
    token = servers.manage("shell", "--no-imports", "-c", code, env=env).split()[-1]
    return folder, env, token


def call(url, token, method="POST", body=None):
    request = urllib.request.Request(
        url,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def create_many(base, token):
    def create(i):
        body = {"game": "card-of-gods", "leader": None, "name": f"Concurrent {i}", "cards": []}
        return call(f"{base}/api/decks/", token, body=body)

    with ThreadPoolExecutor(WRITERS) as pool:
        return list(pool.map(create, range(WRITERS)))


@pytest.mark.parametrize("server", ["gunicorn", "runserver"])
def test_twenty_concurrent_deck_creates_all_succeed(sqlite_site, server):
    folder, env, token = sqlite_site
    port = servers.free_port()
    base = f"http://127.0.0.1:{port}"
    command = (
        servers.gunicorn(port)
        if server == "gunicorn"
        else [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
    )
    with servers.running(command, env=env, url=base, log=folder / f"{server}.log"):
        results = create_many(base, token)
        statuses = [status for status, _ in results]
        assert statuses == [201] * WRITERS, [body[:200] for _, body in results]
        # And writers racing on one deck: each PATCH waits its turn; none fails.
        deck = json.loads(results[0][1])["id"]

        def rename(i):
            return call(f"{base}/api/decks/{deck}/", token, "PATCH", {"name": f"Renamed {i}"})

        with ThreadPoolExecutor(WRITERS) as pool:
            assert {status for status, _ in pool.map(rename, range(WRITERS))} == {200}
