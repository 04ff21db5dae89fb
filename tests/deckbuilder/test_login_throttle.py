"""Password guessing: every log-in path counts failures per username and per client address in
the database, and refuses after the limit with a clear message (429)."""

import pytest
from django.core.cache import caches
from django.test import Client, override_settings
from rest_framework.test import APIClient

LIMIT = 10
pytestmark = pytest.mark.django_db


def site_login(client, username, password, **extra):
    return client.post("/accounts/login/", {"username": username, "password": password}, **extra)


def admin_login(client, username, password, **extra):
    data = {"username": username, "password": password, "next": "/admin/"}
    return client.post("/admin/login/", data, **extra)


def token_login(client, username, password, **extra):
    data = {"username": username, "password": password}
    return APIClient().post("/api/auth/token/", data, format="json", **extra)


PATHS = {"site": site_login, "admin": admin_login, "token": token_login}


@pytest.mark.parametrize("path", PATHS)
def test_eleventh_wrong_password_is_refused_even_with_a_changing_forwarded_for(path, alice, staff):
    login = PATHS[path]
    user, password = (staff, "staff-password") if path == "admin" else (alice, "alice-password")
    client = Client()
    statuses = [
        login(client, user.username, "wrong", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").status_code
        for i in range(LIMIT + 1)
    ]
    assert 429 not in statuses[: LIMIT - 1]  # ordinary "wrong password" answers first
    assert statuses[LIMIT - 1 :] == [429, 429]
    # Locked: even the right password is refused, from another claimed address too.
    refused = login(client, user.username, password, HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "900"
    if path == "token":
        body = refused.json()
        assert body["code"] == "too_many_attempts"
        assert "try again in 15 minutes" in body["detail"]
        assert "token" not in body
    else:
        assert b"try again in 15 minutes" in refused.content
        assert "_auth_user_id" not in client.session


def test_failures_count_per_username_across_addresses(alice):
    for i in range(LIMIT):
        site_login(Client(REMOTE_ADDR=f"192.0.2.{i}"), "alice", "wrong")
    fresh_address = Client(REMOTE_ADDR="198.51.100.7")
    assert site_login(fresh_address, "alice", "alice-password").status_code == 429
    # Another account from that address is not affected.
    assert site_login(fresh_address, "bob", "bob-password").status_code == 302


def test_failures_count_per_address_across_usernames(alice):
    client = Client(REMOTE_ADDR="192.0.2.50")
    for i in range(LIMIT):
        site_login(client, f"nobody-{i}", "wrong")
    assert site_login(client, "alice", "alice-password").status_code == 429
    assert (
        site_login(Client(REMOTE_ADDR="192.0.2.51"), "alice", "alice-password").status_code == 302
    )


def test_a_successful_login_clears_the_count(alice):
    client = Client()
    for _ in range(LIMIT - 1):
        site_login(client, "alice", "wrong")
    assert site_login(client, "alice", "alice-password").status_code == 302
    client.logout()
    for _ in range(LIMIT - 1):
        assert site_login(client, "alice", "wrong").status_code == 200


@override_settings(TRUSTED_PROXIES=["127.0.0.1"])
def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(alice):
    proxy = Client(REMOTE_ADDR="127.0.0.1")
    for i in range(LIMIT):
        site_login(proxy, f"nobody-{i}", "wrong", HTTP_X_FORWARDED_FOR="203.0.113.5")
    locked = site_login(proxy, "alice", "alice-password", HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert locked.status_code == 429
    # Another client through the same proxy still logs in: the proxy itself is not counted.
    other = site_login(proxy, "alice", "alice-password", HTTP_X_FORWARDED_FOR="203.0.113.6")
    assert other.status_code == 302


@override_settings(TRUSTED_PROXIES=["10.0.0.0/8"])
def test_forwarded_for_is_read_from_the_right_up_to_the_first_untrusted_hop(rf):
    from deckbuilder.proxies import TrustedProxyMiddleware

    seen = {}

    def view(request):
        seen.update(
            ip=request.META["REMOTE_ADDR"], proto=request.META.get("HTTP_X_FORWARDED_PROTO")
        )

    middleware = TrustedProxyMiddleware(view)
    forged = "6.6.6.6, 203.0.113.9, 10.1.1.1"  # the client forged the first entry
    middleware(rf.get("/", REMOTE_ADDR="10.2.2.2", HTTP_X_FORWARDED_FOR=forged))
    assert seen["ip"] == "203.0.113.9"
    middleware(rf.get("/", REMOTE_ADDR="203.0.113.1", HTTP_X_FORWARDED_FOR="1.2.3.4"))
    assert seen["ip"] == "203.0.113.1"  # not a trusted peer: the header means nothing
    middleware(rf.get("/", REMOTE_ADDR="10.2.2.2", HTTP_X_FORWARDED_FOR="junk, 10.1.1.1"))
    assert seen["ip"] == "10.1.1.1"


def test_an_untrusted_peer_cannot_claim_https(rf):
    from deckbuilder.proxies import TrustedProxyMiddleware

    request = rf.get("/", HTTP_X_FORWARDED_PROTO="https")
    TrustedProxyMiddleware(lambda r: None)(request)
    assert not request.is_secure()


def test_the_count_survives_every_cache_being_emptied(alice):
    """Page traffic fills and culls caches (a database cache drops a third of its rows past its
    size): failures are counted where it cannot reach them."""
    client = Client(REMOTE_ADDR="192.0.2.60")
    for _ in range(LIMIT - 1):
        site_login(client, "alice", "wrong")
    for alias in ("default", "pages"):
        caches[alias].clear()
    assert site_login(client, "alice", "wrong").status_code == 429
    assert site_login(client, "alice", "alice-password").status_code == 429
