"""Whole pages for anonymous readers, rendered once per version of what they show.

A reference page (cards, leaders, rules), a deck page, the public decks or the API's card list
is the same for every anonymous reader until the reference data or a deck changes. So
`anonymous_page` keeps each answer (in the "pages" cache: this process's memory by default,
PAGE_CACHE_URL to share it) under a key made of what it was asked (host, path and query, and
the headers the answer depends on: Accept, and htmx's, which ask for a part of a page) and of
two generations kept in the shared cache:

- `REFERENCE` moves after every change to any game's reference data (cards.signals.bump, which
  also bumps the game's rules_version);
- `DECKS` moves after every listed (public) deck written, and every user renamed
  (deckbuilder.signals, services); a deck's own page also has a generation of its own,
  `deck(share_id)`, which moves whenever that deck is written.

A generation moves when the writing transaction commits (never before: a reader could then store
the old data under the new key), so the next request after a change renders it: nothing is
stale and nothing needs to expire. A generation moves by being forgotten: the next reader makes
it again (a new random value), as it does one the cache lost.

The answer carries its key as ETag with `Cache-Control: no-cache`: a browser or proxy keeps it
but asks again each time, and gets a 304 without a render while nothing changed.

Never stored: pages for signed-in readers (or an API token), answers other than 200, answers that
set a cookie, use the CSRF token or write the session, and pages shown with messages pending.

`private_page` keeps a signed-in reader's own page (the builder) the same way, under a key made
of the request, the reader and the state the view names: no generation, the state says all the
page shows (the deck's row, which every deck write saves, and the versions of the reference
data it read with it). Such a page holds forms: it is drawn with a stand-in for the CSRF token,
which each answer replaces with the reader's own.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
import zlib
from functools import wraps
from pathlib import Path

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache, caches
from django.db import transaction
from django.http import HttpResponse, HttpResponseNotModified
from django.middleware.csrf import get_token
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags

REFERENCE, DECKS = "reference", "decks"
GENERATIONS = (REFERENCE, DECKS)
# The request headers an answer may depend on besides its address: the API's content
# negotiation, and htmx asking for a part of a page.
VARY = ("Accept", "HX-Request", "HX-Target", "HX-Boosted")
SECONDS = 24 * 60 * 60  # unused entries go (a change makes new keys: old ones are never read)


def _generation_key(what: str) -> str:
    return f"page-generation:{what}"


def _move(what: str) -> None:
    # Forgotten, it is made again by the next reader (generations): one statement on the
    # database cache, where setting it takes five (a count for culling, then a transaction).
    cache.delete(_generation_key(what))


def changed(what: str) -> None:
    """Pages showing `what` (REFERENCE, DECKS or one `deck(share_id)`) are rendered again
    once the current transaction commits (at once outside one)."""
    if settings.PAGE_CACHE:
        transaction.on_commit(lambda: _move(what))


def deck(share_id: str) -> str:
    """The generation of one deck's own page: it moves whenever that deck is written."""
    return f"deck:{share_id}"


def generations(*more: str) -> tuple[str, ...]:
    """The current generations (REFERENCE, DECKS, then `more`), one read of the shared cache
    (a lost one is made again)."""
    keys = [_generation_key(what) for what in (*GENERATIONS, *more)]
    found = cache.get_many(keys)
    for key in keys:
        if key not in found:
            cache.add(key, uuid.uuid4().hex, None)
            found[key] = cache.get(key)  # whoever added it first
    return tuple(found[key] for key in keys)


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


@functools.cache
def release() -> str:
    """A digest of the code and templates that draw pages, in every key: a deploy that changes
    them draws every page anew, where a shared cache (PAGE_CACHE_URL) would otherwise serve the
    pages the old code drew, or entries it kept in another shape."""
    root = Path(settings.BASE_DIR)
    digest = hashlib.sha256()
    for folder in ("cards", "deckbuilder", "templates"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".py", ".html"):
                digest.update(f"{path.relative_to(root)}\n".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def entry_key(kind: str, *parts) -> str:
    """The pages cache's key of an entry other than a page (a builder row, a count): `kind`
    and a digest of `parts` with the release."""
    return f"{kind}:" + hashlib.sha256(repr((release(), *parts)).encode()).hexdigest()[:40]


def _key(request, generations_too=True, more=(), own=()) -> str:
    asked = [release(), request.scheme, request.get_host(), request.get_full_path()]
    asked += [request.headers.get(name, "") for name in VARY]
    now = generations(*own) if generations_too else ()  # one read of the shared cache
    text = "\n".join([*now, *asked, *map(str, more)])
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def _packed(content: bytes) -> bytes:
    """A page as kept: compressed (a 200 KB builder page keeps in ~15 KB; reading it back
    takes a fraction of a millisecond), so a process's cache holds many pages in little
    memory (settings: the pages cache's MAX_ENTRIES)."""
    return zlib.compress(content, 6)


def _finish(response, etag: str, private: bool = False):
    response["ETag"] = etag
    patch_cache_control(response, no_cache=True, **({"private": True} if private else {}))
    patch_vary_headers(response, (*VARY, "Cookie") if private else VARY)
    return response


def anonymous_page(view=None, *, own=None):
    """Serve `view`'s page to anonymous readers from the pages cache (see the module). With
    `own(**kwargs)`, the name of a generation of the page's own (`deck(share_id)`), read with
    the others: a deck's page moves with its deck, not with every unlisted deck written."""
    if view is None:
        return lambda view: anonymous_page(view, own=own)

    @wraps(view)
    def cached_view(request, *args, **kwargs):
        if not _cacheable(request):
            return view(request, *args, **kwargs)
        key = _key(request, own=(own(**kwargs),) if own else ())
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
            pages.set(key, (_packed(response.content), dict(response.headers)), SECONDS)
            return _finish(response, etag)
        return response

    return cached_view


def csrf_stand_in() -> str:
    """What a stored private page holds in place of the CSRF token: the same in every process
    (a shared cache), and no reader can guess it (it comes from SECRET_KEY)."""
    return "csrf" + hashlib.sha256(f"pagecache:{settings.SECRET_KEY}".encode()).hexdigest()[:32]


def private_page(request, state, render):
    """The signed-in reader's page that `render(csrf_token)` draws from `state` (values that
    change whenever anything the page shows changes: the deck's row, the rules_version of its
    game), kept in the pages cache while none of them changes (see the module). `render` gets
    the CSRF token's stand-in when its answer may be kept, else None (the template's own
    token); answers other than 200 are never kept."""
    if not (
        settings.PAGE_CACHE
        and request.method in ("GET", "HEAD")
        and request.user.is_authenticated
        and not len(get_messages(request))
    ):
        return render(None)
    user = request.user
    key = _key(request, False, (user.pk, user.get_username(), user.is_staff, *state))
    etag = f'"{key}"'
    if etag in parse_etags(request.headers.get("If-None-Match", "")):
        return _finish(HttpResponseNotModified(), etag, private=True)
    pages, stand_in = caches["pages"], csrf_stand_in().encode()
    hit = pages.get(key)
    if hit is None:
        response = render(csrf_stand_in())
        kept = response.status_code == 200 and not response.cookies
        if kept:
            headers = {"Content-Type": response["Content-Type"]}
            pages.set(key, (_packed(response.content), headers), SECONDS)
    else:
        response, kept = HttpResponse(zlib.decompress(hit[0]), headers=hit[1]), True
    token = get_token(request).encode()  # this reader's (and marks the cookie to be sent)
    response.content = response.content.replace(stand_in, token)
    return _finish(response, etag, private=True) if kept else response
