"""Several app servers on one database: `scripts/cluster.py` (make cluster) starts nginx in front
of two gunicorns sharing PostgreSQL and Redis; what one server does holds on the other."""

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
from urllib.parse import urlencode, urlsplit

import pytest

from tests import servers

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="the cluster runs on PostgreSQL: the PostgreSQL pass of `make test` runs this",
    ),
    pytest.mark.skipif(
        not (shutil.which("nginx", path="/usr/sbin:/usr/bin") and shutil.which("redis-server")),
        reason="needs Debian's nginx and redis-server (`make test` installs them)",
    ),
]


class Browser:
    """Just enough of a client: one server, cookies kept by hand (Secure ones too: production
    settings mark them Secure, and this cluster speaks plain HTTP on loopback)."""

    def __init__(self, base):
        self.base, self.cookies = base, {}

    def request(self, method, path, *, form=None, body=None, headers=None):
        url = urlsplit(self.base)
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        headers = {"Host": "127.0.0.1", **(headers or {})}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Referer"] = self.base + path
        elif body is not None:
            body = json.dumps(body)
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";")[0]
        content = response.read().decode()
        connection.close()
        return response.status, content

    def login(self, username, password):
        status, page = self.request("GET", "/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        form = {"username": username, "password": password, "csrfmiddlewaretoken": token}
        return self.request("POST", "/accounts/login/", form=form)[0]


def token_login(base, username, password, forwarded_for=None):
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
    body = {"username": username, "password": password}
    return Browser(base).request("POST", "/api/auth/token/", body=body, headers=headers)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The cluster on a database of its own on the test run's PostgreSQL server, with the
    sample data and two users; yields (nginx URL, [app server URLs])."""
    import psycopg

    server = os.environ["DATABASE_URL"]
    name = f"cluster_{os.getpid()}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    env = servers.environment(DATABASE_URL=server.rsplit("/", 1)[0] + "/" + name)
    log = tmp_path_factory.mktemp("cluster") / "cluster.log"
    process = subprocess.Popen(
        [sys.executable, "scripts/cluster.py", "--sample"],
        cwd=servers.ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=open(log, "wb"),  # noqa: SIM115 - closed with the process
        text=True,
    )
    urls = {}
    deadline = time.monotonic() + 180
    for line in process.stdout:
        if match := re.match(r"cluster: nginx (\S+) → app servers (\S+)", line):
            urls = {"nginx": match.group(1), "apps": match.group(2).split(",")}
        if "serving" in line or time.monotonic() > deadline:
            break
    assert urls, f"the cluster did not start: {log.read_text()[-2000:]}"
    code = (
        "from django.contrib.auth.models import User; "
        "User.objects.create_user('alice', password='alice-password'); "
        "User.objects.create_user('staff', password='staff-password', is_staff=True)"
    )
    servers.manage("shell", "--no-imports", "-c", code, env=env)
    yield urls["nginx"], urls["apps"]
    process.terminate()
    process.wait(timeout=30)
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_a_session_made_on_one_server_holds_on_the_other(cluster):
    _, (one, two) = cluster
    browser = Browser(one)
    assert browser.login("alice", "alice-password") == 302
    browser.base = two
    status, page = browser.request("GET", "/decks/mine/")
    assert status == 200 and "alice" in page


def test_a_rules_change_made_on_one_server_holds_on_the_other(cluster):
    _, (one, two) = cluster
    status, body = token_login(one, "staff", "staff-password")
    token = json.loads(body)["token"]
    deck = {"leader": "gottfried", "cards": [{"card": "despair", "count": 3}]}

    def despair_problems():
        status, body = Browser(two).request("POST", "/api/games/card-of-gods/validate/", body=deck)
        return [p["code"] for p in json.loads(body)["problems"] if p["card"] == "despair"]

    assert despair_problems() == []
    card_page = "/games/card-of-gods/cards/despair/"
    assert not re.search(r"\bRare\b", Browser(two).request("GET", card_page)[1])
    rare = {"rarity": "rare"}
    headers = {"Authorization": f"Token {token}"}
    status, _ = Browser(one).request(
        "PATCH", "/api/games/card-of-gods/cards/despair/", body=rare, headers=headers
    )
    assert status == 200
    # Pages read the database: the other server shows the change at once.
    status, page = Browser(two).request("GET", card_page)
    assert status == 200 and re.search(r"\bRare\b", page)
    # Each of its processes rechecks its validation catalogue's rules version once a second
    # (RULES_CACHE_SECONDS): after that, every answer is the new rule's.
    time.sleep(1.5)
    assert [despair_problems() for _ in range(8)] == [["copy_limit"]] * 8


def test_a_throttle_counted_on_one_server_holds_on_the_other_and_behind_nginx(cluster):
    nginx, (one, two) = cluster
    for i in range(10):
        status, _ = token_login(one, "alice", "wrong", forwarded_for=f"10.0.0.{i}")
    assert status == 429
    status, body = token_login(two, "alice", "alice-password", forwarded_for="10.9.9.9")
    assert status == 429 and json.loads(body)["code"] == "too_many_attempts"
    # Through nginx too, whatever X-Forwarded-For the client sends.
    status, _ = token_login(nginx, "alice", "alice-password", forwarded_for="192.0.2.1")
    assert status == 429
    browser = Browser(nginx)
    assert browser.login("alice", "alice-password") == 429
