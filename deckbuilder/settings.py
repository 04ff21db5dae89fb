"""Settings for the deckbuilder site: one file, configured by environment variables.

Development defaults are safe: DEBUG is off unless asked for, and with DEBUG off the site
refuses to start without a real SECRET_KEY.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None


DEBUG = env_bool("DEBUG", False)
# Set by the test suite: fast password hashing, static files without a built manifest.
TESTING = env_bool("TESTING", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off (set DEBUG=1 for local development)."
        )
    SECRET_KEY = "django-insecure-development-only-key"
elif not DEBUG and (len(SECRET_KEY) < 50 or SECRET_KEY.startswith("django-insecure")):
    raise ImproperlyConfigured("SECRET_KEY must be a real secret of at least 50 characters.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "cards",
    "deckbuilder",
]

MIDDLEWARE = [
    "deckbuilder.proxies.TrustedProxyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "deckbuilder.middleware.RequestGuardMiddleware",  # 413, NUL: before any view or query
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "deckbuilder.middleware.PrivateAnswerMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into the "too many attempts" page
]

ROOT_URLCONF = "deckbuilder.urls"
WSGI_APPLICATION = "deckbuilder.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "cards.context_processors.navigation",
                "cards.context_processors.page_urls",  # og:url, safe for a host not allowed
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A web server's SQLite: readers never wait for the writer (WAL), writers queue for up to
    # 20 s instead of failing, and a write transaction takes the lock when it begins, so two
    # transactions never deadlock upgrading a read lock ("database is locked").
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


def env_cache(name: str, default: str = "db://django_cache") -> dict:
    """A cache from a URL: redis://host:port/db (production), db://table (the default: shared
    by every process on the database, no server to run), file:///dir, locmem://, dummy://."""
    url = env_str(name) or default
    scheme, _, rest = url.partition("://")
    backends = {
        "redis": ("django.core.cache.backends.redis.RedisCache", url),
        "rediss": ("django.core.cache.backends.redis.RedisCache", url),
        "db": ("django.core.cache.backends.db.DatabaseCache", rest),
        "file": ("django.core.cache.backends.filebased.FileBasedCache", rest),
        "locmem": ("django.core.cache.backends.locmem.LocMemCache", rest),
        "dummy": ("django.core.cache.backends.dummy.DummyCache", ""),
    }
    if scheme not in backends or (scheme in {"db", "file"} and not rest):
        raise ImproperlyConfigured(
            f"{name} must be redis://…, db://TABLE, file:///DIR, locmem:// or dummy://; got {url!r}"
        )
    backend, location = backends[scheme]
    return {"BACKEND": backend, "LOCATION": location, "KEY_PREFIX": "deckbuilder"}


# What every process reads of a game (cards.vocabulary), shared by the app servers. Nothing that
# correctness or security depends on lives in a cache: sessions and log-in throttles are rows of
# the database, which page traffic can neither fill nor cull.
CACHES = {"default": env_cache("CACHE_URL")}

# Whole pages for anonymous readers (cards.pagecache), kept per process unless PAGE_CACHE_URL
# shares them. Off when developing (a template edited under runserver is not a new release).
PAGE_CACHE = env_bool("PAGE_CACHE", not DEBUG)
CACHES["pages"] = env_cache("PAGE_CACHE_URL", "locmem://pages")
if CACHES["pages"]["BACKEND"].endswith("LocMemCache"):
    # Pages kept compressed (~5-20 KB): at most ~20 MB a process, mostly far less.
    CACHES["pages"]["OPTIONS"] = {"MAX_ENTRIES": 2000}

# Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (addresses or networks,
# e.g. "127.0.0.1,10.0.0.0/8"). Empty: the client is the socket's peer, whatever the headers say.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

# The game the home page lists first (then by name).
FLAGSHIP_GAME = env_str("FLAGSHIP_GAME") or "card-of-gods"

# A deck's changes this close to its latest version (by the same save path) update that version
# instead of adding one: a burst of +/− clicks is one version of its history. 0: every change.
HISTORY_MERGE_SECONDS = env_int("HISTORY_MERGE_SECONDS", 60)

# Uploaded card and leader art (cards.art): files under MEDIA_ROOT, served by runserver with
# DEBUG and by the proxy in production (README, "Card art"), or an S3-compatible bucket.
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT") or BASE_DIR / "media")
ART_MAX_BYTES = env_int("ART_MAX_BYTES", 10 * 1024 * 1024)  # an upload or a fetched file
ART_MAX_PIXELS = env_int("ART_MAX_PIXELS", 40_000_000)  # width × height, read before decoding
ART_FETCH_TIMEOUT = env_int("ART_FETCH_TIMEOUT", 20)  # seconds, for an import's art URL


def media_storage() -> dict:
    """Where art is stored: an S3-compatible bucket when AWS_STORAGE_BUCKET_NAME is set
    (django-storages with boto3, the `s3` extra; credentials from AWS_ACCESS_KEY_ID and
    AWS_SECRET_ACCESS_KEY), else the file system under MEDIA_ROOT. Art's file names are
    content-addressed, so its files are public, unsigned and cacheable forever."""
    bucket = env_str("AWS_STORAGE_BUCKET_NAME")
    if not bucket:
        return {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    options = {
        "bucket_name": bucket,
        "querystring_auth": False,
        "object_parameters": {"CacheControl": "public, max-age=31536000, immutable"},
    }
    for option, name in (
        ("endpoint_url", "AWS_S3_ENDPOINT_URL"),
        ("region_name", "AWS_S3_REGION_NAME"),
        ("custom_domain", "AWS_S3_CUSTOM_DOMAIN"),
    ):
        if env_str(name):
            options[option] = env_str(name)
    return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}


STORAGES = {
    "default": media_storage(),
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG or TESTING
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# How long a process trusts its cached rules data before rechecking Game.rules_version.
RULES_CACHE_SECONDS = env_int("RULES_CACHE_SECONDS", 0 if TESTING else 1)

# Password guessing: after AXES_FAILURE_LIMIT failures for one username, or from one client
# address, every login path (site, admin, API token) refuses for AXES_COOLOFF_MINUTES, counted
# in the database (never a cache, which other traffic could fill and cull). A refused try
# restarts the wait.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 10)
AXES_COOLOFF_MINUTES = env_int("AXES_COOLOFF_MINUTES", 15)
AXES_COOLOFF_TIME = timedelta(minutes=AXES_COOLOFF_MINUTES)
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_CLIENT_IP_CALLABLE = "deckbuilder.proxies.client_ip"
AXES_LOCKOUT_CALLABLE = "deckbuilder.accounts.locked_out"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

REST_FRAMEWORK = {
    # Token first, so that anonymous callers get 401 (with WWW-Authenticate), not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "deckbuilder.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": ["cards.filters.GameFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "deckbuilder.schema.AutoSchema",
    # All bodies are JSON (the API contract), refused with a 400 when too deep or holding NUL.
    "DEFAULT_PARSER_CLASSES": ["deckbuilder.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "EXCEPTION_HANDLER": "deckbuilder.api_errors.exception_handler",
    "NUM_PROXIES": 0,  # throttles see REMOTE_ADDR, which TrustedProxyMiddleware sets
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Deckbuilder API",
    "DESCRIPTION": "Cards, leaders, decks and rules of leader-based card games.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Production hardening: on whenever DEBUG is off (so `check --deploy` is clean).
# Believed only from TRUSTED_PROXIES: TrustedProxyMiddleware drops it from anyone else.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Our own origin only, no inline script or style: templates use static files and CSS classes.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:", "https:"],  # card images may be on other hosts
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"axes": {"level": "WARNING"}},  # lockouts and failures, not every login
}

if TESTING:  # hashing strength is not under test
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
