"""Accounts: sign up, log in, log out, password change (Django auth) and API tokens.

The browser pages are Django's own auth views with the site's templates; sign up is the one
view written here. Templates have names of their own (not `registration/password_change_form.html`
and friends) so that the admin's password pages keep the admin's look.

Scripts get a token from `POST /api/auth/token/` and send `Authorization: Token <token>`.
"""

from django.conf import settings
from django.contrib.auth import REDIRECT_FIELD_NAME, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render, resolve_url
from django.urls import path
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.settings import api_settings


def safe_next(request) -> str:
    """The `next` of the request (POST first, then GET) if it points at this site, else ""."""
    url = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, "")
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return ""


# --- password guessing (django-axes counts the failures; see settings) ------------------------


def lockout_detail() -> str:
    minutes = settings.AXES_COOLOFF_MINUTES
    return (
        f"Too many failed log-in attempts for this account or from your address: "
        f"try again in {minutes} minute{'s' if minutes != 1 else ''}."
    )


class TooManyAttempts(exceptions.APIException):
    status_code = 429
    default_code = "too_many_attempts"

    def __init__(self):
        super().__init__(lockout_detail())
        self.wait = settings.AXES_COOLOFF_MINUTES * 60  # DRF's handler sends it as Retry-After


def locked_out(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: the answer to a locked-out login, a page or JSON by path."""
    if request.path.startswith("/api/"):
        error = TooManyAttempts()
        return JsonResponse(
            {"code": error.default_code, "detail": error.detail},
            status=error.status_code,
            headers={"Retry-After": str(error.wait)},
        )
    response = render(request, "registration/locked_out.html", {"detail": lockout_detail()})
    response.status_code = 429
    response["Retry-After"] = str(settings.AXES_COOLOFF_MINUTES * 60)
    return response


# --- pages ----------------------------------------------------------------------------------


@sensitive_post_parameters("password1", "password2")
@csrf_protect
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def signup(request):
    """Create an account (username and password), sign it in, then go to `next` or home."""
    next_url = safe_next(request)
    if request.user.is_authenticated:
        return HttpResponseRedirect(next_url or resolve_url(settings.LOGIN_REDIRECT_URL))
    if request.method == "POST":
        form = UserCreationForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return HttpResponseRedirect(next_url or resolve_url(settings.LOGIN_REDIRECT_URL))
    else:
        form = UserCreationForm()
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


urlpatterns = [
    path("signup/", signup, name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    # Django 5: POST only (GET answers 405); redirects to LOGOUT_REDIRECT_URL or a safe `next`.
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(template_name="registration/password_change.html"),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="registration/password_changed.html"
        ),
        name="password_change_done",
    ),
]


# --- API ------------------------------------------------------------------------------------


@extend_schema(
    tags=["auth"],
    summary="Get an API token",
    description=(
        "Exchange a username and password for the account's API token (the same token on "
        "every call). Send it on later requests as `Authorization: Token <token>`. Bad or "
        "missing credentials answer 400 with field errors. After 10 failures for one username "
        "or from one address, every log-in path answers 429 for 15 minutes."
    ),
    request=inline_serializer(
        "ApiTokenRequest",
        {"username": serializers.CharField(), "password": serializers.CharField()},
    ),
    responses={
        200: inline_serializer("ApiToken", {"token": serializers.CharField()}),
        400: inline_serializer(
            "ApiTokenError",
            {
                "username": serializers.ListField(child=serializers.CharField(), required=False),
                "password": serializers.ListField(child=serializers.CharField(), required=False),
                "non_field_errors": serializers.ListField(
                    child=serializers.CharField(), required=False
                ),
            },
        ),
        429: None,  # django-axes' lockout: described by deckbuilder.schema, like every error
    },
    examples=[
        OpenApiExample(
            "Credentials", value={"username": "alice", "password": "..."}, request_only=True
        ),
        OpenApiExample(
            "Token", value={"token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"}, response_only=True
        ),
    ],
)
class TokenView(ObtainAuthToken):
    """`POST /api/auth/token/`: credentials in, token out.

    No authentication classes: the credentials in the body are the only thing that counts (a
    stale `Authorization` header or a browser session neither helps nor gets in the way).
    """

    authentication_classes = []
    # JSON, as everywhere: ObtainAuthToken's own list has DRF's plain JSON parser (a 500 on
    # deeply nested JSON) and form parsers.
    parser_classes = api_settings.DEFAULT_PARSER_CLASSES

    def post(self, request, *args, **kwargs):
        try:
            return super().post(request, *args, **kwargs)
        except exceptions.ValidationError:
            # django-axes marks the DRF request it saw, which its middleware never looks at
            if getattr(request, "axes_locked_out", False):
                raise TooManyAttempts from None
            raise


token_view = TokenView.as_view()
