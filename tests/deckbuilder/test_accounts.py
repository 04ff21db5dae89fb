"""Accounts: sign up, log in, log out, password change, the header's account area, API tokens."""

import re

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.test import Client
from django.urls import NoReverseMatch, reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

GOOD_PASSWORD = "a-Long-unusual-passphrase-42"
CARDS_API = "/api/games/card-of-gods/cards/"
TOKEN_URL = "/api/auth/token/"

pytestmark = pytest.mark.django_db


def meta(html, attr, name):
    match = re.search(rf'<meta {attr}="{re.escape(name)}" content="([^"]*)"', html)
    return match and match.group(1)


def signed_in_user(client):
    """The User the client's session belongs to, or None."""
    user_id = client.session.get(SESSION_KEY)
    return User.objects.get(pk=user_id) if user_id else None


def signup(client, username="carol", password1=GOOD_PASSWORD, password2=None, next_url=None):
    data = {"username": username, "password1": password1, "password2": password2 or password1}
    if next_url is not None:
        data["next"] = next_url
    return client.post(reverse("signup"), data)


# --- every account page: title, description, OpenGraph -------------------------------------


@pytest.mark.parametrize(
    ("name", "signed_in", "title"),
    [
        ("signup", False, "Sign up"),
        ("login", False, "Log in"),
        ("password_change", True, "Change password"),
        ("password_change_done", True, "Password changed"),
    ],
)
def test_account_page_has_title_description_and_opengraph(client, alice, name, signed_in, title):
    if signed_in:
        client.force_login(alice)
    response = client.get(reverse(name))
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r"<title>([^<]+)</title>", html).group(1).startswith(title)
    assert len(meta(html, "name", "description")) > 30
    assert title in meta(html, "property", "og:title")
    assert meta(html, "property", "og:description")
    assert meta(html, "property", "og:url") == f"http://testserver{reverse(name)}"
    assert meta(html, "name", "robots").startswith("noindex")


@pytest.mark.parametrize("name", ["signup", "login"])
def test_form_inputs_are_labelled_and_the_form_posts_with_a_csrf_token(client, name):
    html = client.get(reverse(name)).content.decode()
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'method="post"' in html
    for field_id in re.findall(r'<input [^>]*id="(id_[a-z0-9_]+)"', html):
        assert f'<label for="{field_id}"' in html


# --- sign up --------------------------------------------------------------------------------


def test_signup_creates_the_user_signs_them_in_and_goes_home(client):
    response = signup(client)
    assert response.status_code == 302
    assert response.url == reverse("home")
    user = User.objects.get(username="carol")
    assert user.check_password(GOOD_PASSWORD)
    assert not user.is_staff
    assert signed_in_user(client) == user


def test_signup_with_mismatched_passwords_shows_the_error_at_the_field_and_creates_nothing(client):
    before = User.objects.count()
    response = signup(client, password2=GOOD_PASSWORD + "-typo")
    assert response.status_code == 200
    assert User.objects.count() == before
    assert signed_in_user(client) is None
    html = response.content.decode()
    assert 'role="alert"' in html
    assert re.search(r'<ul class="errorlist" id="id_password2_error"><li>The two password', html)
    assert re.search(r'<input [^>]*aria-invalid="true"[^>]*id="id_password2"', html)
    assert 'value="carol"' in html  # what was typed is kept (but never the passwords)
    assert GOOD_PASSWORD not in html


@pytest.mark.parametrize("taken", ["alice", "ALICE"])
def test_signup_with_a_taken_username_in_any_case_shows_an_error_and_creates_nothing(
    client, alice, taken
):
    before = User.objects.count()
    response = signup(client, username=taken)
    assert response.status_code == 200
    assert User.objects.count() == before
    assert alice.check_password("alice-password")
    html = response.content.decode()
    assert re.search(r'id="id_username_error"><li>A user with that username already exists', html)


def test_signup_with_a_too_common_password_is_refused(client):
    response = signup(client, password1="password123")
    assert response.status_code == 200
    assert not User.objects.filter(username="carol").exists()
    assert 'id="id_password2_error"' in response.content.decode()


def test_signup_redirects_to_a_safe_next(client):
    response = signup(client, next_url="/games/card-of-gods/cards/?q=heal")
    assert response.url == "/games/card-of-gods/cards/?q=heal"


@pytest.mark.parametrize("unsafe", ["https://evil.example/", "//evil.example/", "https:evil"])
def test_signup_ignores_a_next_to_another_site(client, unsafe):
    response = signup(client, next_url=unsafe)
    assert response.status_code == 302
    assert response.url == reverse("home")


def test_signup_keeps_a_safe_next_through_the_form_and_drops_an_unsafe_one(client):
    html = client.get(reverse("signup") + "?next=/games/").content.decode()
    assert '<input type="hidden" name="next" value="/games/">' in html
    html = client.get(reverse("signup") + "?next=https://evil.example/").content.decode()
    assert "evil.example" not in html


def test_signup_when_already_signed_in_just_redirects(client, alice):
    client.force_login(alice)
    before = User.objects.count()
    response = signup(client)
    assert response.status_code == 302
    assert User.objects.count() == before


# --- log in and log out ---------------------------------------------------------------------


def test_login_with_good_credentials_signs_in_and_goes_home(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "alice-password"})
    assert response.status_code == 302
    assert response.url == reverse("home")
    assert signed_in_user(client) == alice


def test_login_with_a_wrong_password_shows_an_error_and_signs_nobody_in(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "wrong"})
    assert response.status_code == 200
    assert signed_in_user(client) is None
    html = response.content.decode()
    assert 'role="alert"' in html
    assert "Please enter a correct username and password" in html


def test_login_redirects_to_a_safe_next(client, alice):
    response = client.post(
        reverse("login"),
        {"username": "alice", "password": "alice-password", "next": "/games/card-of-gods/"},
    )
    assert response.url == "/games/card-of-gods/"


def test_login_ignores_a_next_to_another_site(client, alice):
    url = reverse("login") + "?next=https://evil.example/steal"
    html = client.get(url).content.decode()
    assert "evil.example" not in html
    response = client.post(
        url, {"username": "alice", "password": "alice-password", "next": "https://evil.example/"}
    )
    assert response.url == reverse("home")


def test_login_page_redirects_a_signed_in_user(client, alice):
    client.force_login(alice)
    assert client.get(reverse("login")).status_code == 302


def test_logout_by_post_signs_out_and_goes_home(client, alice):
    client.force_login(alice)
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert response.url == reverse("home")
    assert signed_in_user(client) is None


def test_logout_by_get_is_not_allowed_and_keeps_the_user_signed_in(client, alice):
    client.force_login(alice)
    assert client.get(reverse("logout")).status_code == 405
    assert signed_in_user(client) == alice


def test_logout_form_in_the_header_works_with_csrf_checks(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    html = client.get(reverse("home")).content.decode()
    form = re.search(r'<form class="logout-form" method="post" action="([^"]+)">(.*?)</form>', html)
    assert form and form.group(1) == reverse("logout")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.group(2)).group(1)
    assert client.post(reverse("logout"), {"csrfmiddlewaretoken": token}).status_code == 302
    assert signed_in_user(client) is None


# --- password change ------------------------------------------------------------------------


def test_password_change_pages_require_login(client):
    for name in ["password_change", "password_change_done"]:
        response = client.get(reverse(name))
        assert response.status_code == 302
        assert response.url == f"{reverse('login')}?next={reverse(name)}"


def test_password_change_sets_the_new_password_and_keeps_the_user_signed_in(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "alice-password",
            "new_password1": GOOD_PASSWORD,
            "new_password2": GOOD_PASSWORD,
        },
    )
    assert response.status_code == 302
    assert response.url == reverse("password_change_done")
    alice.refresh_from_db()
    assert alice.check_password(GOOD_PASSWORD)
    assert signed_in_user(client) == alice  # session hash was updated
    assert client.get(reverse("password_change_done")).status_code == 200


def test_password_change_with_a_wrong_old_password_changes_nothing(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("password_change"),
        {"old_password": "nope", "new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD},
    )
    assert response.status_code == 200
    assert 'id="id_old_password_error"' in response.content.decode()
    alice.refresh_from_db()
    assert alice.check_password("alice-password")


# --- header account area --------------------------------------------------------------------


def test_header_offers_log_in_and_sign_up_returning_to_the_current_page(client, game):
    html = client.get("/games/card-of-gods/cards/?q=heal").content.decode()
    next_query = "?next=/games/card-of-gods/cards/%3Fq%3Dheal"
    assert f'href="{reverse("login")}{next_query}"' in html
    assert f'href="{reverse("signup")}{next_query}"' in html
    assert reverse("logout") not in html


def test_header_on_the_login_page_passes_its_next_on_to_sign_up(client):
    html = client.get(reverse("login") + "?next=/games/").content.decode()
    assert f'href="{reverse("signup")}?next=/games/"' in html
    assert f"?next={reverse('login')}" not in html


def url_or_none(name):
    try:
        return reverse(name)
    except NoReverseMatch:
        return None


def test_header_for_a_signed_in_user_shows_name_deck_links_password_and_logout(client, alice):
    client.force_login(alice)
    html = client.get(reverse("home")).content.decode()
    assert "<strong>alice</strong>" in html
    assert f'href="{reverse("password_change")}"' in html
    assert f'action="{reverse("logout")}"' in html
    assert f'href="{reverse("login")}' not in html
    assert f'href="{reverse("signup")}' not in html
    # The deck pages may not exist yet: their links appear exactly when they do.
    for name, label in [("my-decks", "My decks"), ("deck-new", "New deck")]:
        url = url_or_none(name)
        assert (f'href="{url}"' in html and label in html) if url else label not in html


# --- API tokens -----------------------------------------------------------------------------


def get_token(username, password, **extra):
    return APIClient().post(
        TOKEN_URL, {"username": username, "password": password}, format="json", **extra
    )


def test_token_endpoint_returns_the_users_token_for_good_credentials(alice):
    response = get_token("alice", "alice-password")
    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=alice).key}
    assert get_token("alice", "alice-password").json() == response.json()  # same token again


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"username": "alice", "password": "wrong"}, "non_field_errors"),
        ({"username": "nobody", "password": "alice-password"}, "non_field_errors"),
        ({"username": "alice"}, "password"),
        ({}, "username"),
    ],
)
def test_token_endpoint_answers_400_with_field_errors_for_bad_credentials(alice, data, field):
    response = APIClient().post(TOKEN_URL, data, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert "token" not in response.json()
    assert not Token.objects.filter(user=alice).exists()


def test_token_endpoint_ignores_a_stale_authorization_header(alice):
    response = get_token("alice", "alice-password", HTTP_AUTHORIZATION="Token not-a-real-token")
    assert response.status_code == 200


def test_token_endpoint_only_accepts_post():
    assert APIClient().get(TOKEN_URL).status_code == 405


def test_token_authenticates_api_requests(alice):
    token = get_token("alice", "alice-password").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.get("/api/games/")
    assert response.status_code == 200
    assert response.wsgi_request.user == alice


def test_staff_token_passes_the_staff_only_write_check_and_others_do_not(alice, staff, game):
    def post_card(token=None):
        client = APIClient()
        if token:
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return client.post(CARDS_API, {}, format="json")

    staff_token = get_token("staff", "staff-password").json()["token"]
    alice_token = get_token("alice", "alice-password").json()["token"]
    assert post_card(staff_token).status_code == 400  # authenticated and allowed; empty body
    assert post_card(alice_token).status_code == 403
    assert post_card().status_code == 401
    assert post_card("not-a-real-token").status_code == 401
