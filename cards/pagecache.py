"""Whole pages for anonymous readers, kept while nothing they show has changed.

The one design (README, "Caching"): a page is kept in the "pages" cache (this process's memory
by default, PAGE_CACHE_URL to share it) under a key that names everything its bytes depend on:

- what was asked: host, scheme, path, the query parameters the page reads (a request
  with any other parameter is rendered and never kept), and the headers the answer varies on
  (VARY: content negotiation and htmx's);
- the release: a digest of the code, templates and static files (a deploy keys every page anew);
- the versions of the data it shows, read from the database in one query before the lookup:
  `games_version()` for the reference data (every write to a model of `cards.signals.REGISTRY`
  moves its game's `rules_version` in the writing transaction), the number of format versions
  in force or past today (a version dated in advance changes verdicts on its day) and, for a
  page that shows
  a deck, the rows it shows (`shows`: the deck's row and its owner's name).

So nothing is ever invalidated and nothing is written but pages: a write changes the versions,
the next reader computes a new key. Only an anonymous GET/HEAD answered 200, without cookies,
the CSRF token, the session or pending messages, is kept, for a day at most. The key is a digest
(bounded), and is the answer's ETag with `Cache-Control: no-cache`: a browser asks again each
time and gets a 304 without a render while nothing changed.
"""

from __future__ import annotations

import functools
import hashlib
import zlib
from collections.abc import Callable, Container
from functools import wraps
from pathlib import Path

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import caches
from django.db import connection
from django.http import HttpResponse, HttpResponseNotModified
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags

from .models import FormatVersion, games_version

# The request headers an answer may depend on besides its address: the API's content
# negotiation, and htmx asking for a part of a page (or restoring a whole one from history).
VARY = ("Accept", "HX-Request", "HX-Target", "HX-Boosted", "HX-History-Restore-Request")
SECONDS = 24 * 60 * 60  # a change makes new keys: old entries are never read again, and go
RELEASE_FOLDERS = ("cards", "deckbuilder", "templates", "static")


@functools.cache
def release() -> str:
    """A digest of every file that draws a page (code, templates, static files): a deploy that
    changes any of them draws every page anew, where a shared cache would otherwise serve pages
    drawn by the old code or pointing at static files the new build no longer has."""
    root = Path(settings.BASE_DIR)
    digest = hashlib.sha256()
    for folder in RELEASE_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(f"{path.relative_to(root)}\n".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def reference_version() -> str:
    """The version of every game's reference data and of the list of games, and how many
    format versions are in force or past today (it moves the day a version dated in advance
    takes effect, with no write): one query."""
    versions = FormatVersion._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT ({games_version().sql}), "  # noqa: S608 (no input)
            f"(SELECT COUNT(*) FROM {versions} WHERE starts <= %s)",
            [timezone.localdate().isoformat()],
        )
        return "-".join(map(str, cursor.fetchone()))


def _cacheable(request) -> bool:
    return (
        settings.PAGE_CACHE
        and request.method in ("GET", "HEAD")
        and "HTTP_AUTHORIZATION" not in request.META
        and not request.user.is_authenticated
        and not len(get_messages(request))
    )


def _storable(request, response) -> bool:
    session = getattr(request, "session", None)
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not (session is not None and session.modified)
    )


def _key(request, shown: tuple) -> str:
    query = sorted((k, request.GET.getlist(k)) for k in request.GET)
    asked = (request.scheme, request.get_host(), request.path, query)
    headers = tuple(request.headers.get(header, "") for header in VARY)
    text = repr((release(), reference_version(), shown, asked, headers))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def _finish(response, etag: str):
    response["ETag"] = etag
    patch_cache_control(response, no_cache=True)
    patch_vary_headers(response, VARY)
    return response


def anonymous_page(view=None, *, reads: Container[str] | Callable = (), shows=None):
    """Serve `view`'s page to anonymous readers from the pages cache (see the module).

    `reads`: the query parameters the page reads (a container, or a predicate on the name);
    `shows(**kwargs)`: the rows the page shows besides reference data, read in one query for
    its key (None: nothing to keep, e.g. its object does not exist)."""
    if view is None:
        return lambda view: anonymous_page(view, reads=reads, shows=shows)
    known = reads if callable(reads) else reads.__contains__

    @wraps(view)
    def cached_view(request, *args, **kwargs):
        if not _cacheable(request) or not all(map(known, request.GET)):
            return view(request, *args, **kwargs)
        shown = shows(**kwargs) if shows else ()
        if shown is None:  # what the page would show does not exist: render the answer
            return view(request, *args, **kwargs)
        key = _key(request, shown)
        etag = f'"{key}"'
        if etag in parse_etags(request.headers.get("If-None-Match", "")):
            return _finish(HttpResponseNotModified(), etag)
        pages = caches["pages"]
        hit = pages.get(key)
        if hit is not None:
            content, headers = hit
            return _finish(HttpResponse(zlib.decompress(content), headers=headers), etag)
        response = view(request, *args, **kwargs)
        if hasattr(response, "render") and not response.is_rendered:
            response.render()  # a DRF or template response: store what it renders
        if _storable(request, response):
            # Compressed: a page keeps in a fraction of its size, and reads back in well under
            # a millisecond.
            pages.set(key, (zlib.compress(response.content, 6), dict(response.headers)), SECONDS)
            return _finish(response, etag)
        return response

    return cached_view
