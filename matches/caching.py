"""Conditional requests and cached renderings. Every ETag and cache key is built the same way,
from its parts; a page that polls answers 304 until what it shows has changed."""

import hashlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import get_language

from . import selectors
from .forms import StandingsFilterForm
from .models import Table

STANDINGS_CACHE_SECONDS = 24 * 3600


def key(*parts: object) -> str:
    """A cache key or tag body: the parts, in order, joined with dots."""
    return ".".join(str(part) for part in parts)


def etag(*parts: object) -> str:
    """A strong ETag made of its parts."""
    return f'"{key(*parts)}"'


def _digest(text: str, size: int) -> str:
    return hashlib.blake2s(text.encode(), digest_size=size).hexdigest()


def viewer(request: HttpRequest) -> str:
    """Who the page was rendered for: a host's page carries buttons and their CSRF token."""
    user = request.user.pk if request.user.is_authenticated else 0
    return _digest(f"{user}:{request.COOKIES.get(settings.CSRF_COOKIE_NAME, '')}", 6)


def rendering(request: HttpRequest) -> tuple[int, str]:
    """A page differs as fragment or whole page, and per language."""
    return int(bool(request.htmx)), get_language()


def _table_tag(
    table_id: int, kind: str, *variant: object, version: int | None = None
) -> str | None:
    """A tag on the table's change counter (one indexed read unless the version is given,
    as a write knows the one it committed), or None: no such table."""
    if version is None:
        version = selectors.table_version(table_id=table_id)
    return None if version is None else etag(f"{kind}{table_id}", f"v{version}", *variant)


def table_page_tag(
    request: HttpRequest, table_id: int, *, version: int | None = None
) -> str | None:
    """The tag of the table page as this viewer now gets it (at `version`, when given)."""
    return _table_tag(table_id, "t", viewer(request), *rendering(request), version=version)


def table_page_etag(request: HttpRequest, table_id: int) -> str | None:
    """The table page's tag, unless a message waits to be shown (then always render)."""
    if len(messages.get_messages(request)):
        return None
    return table_page_tag(request, table_id)


def tv_etag(request: HttpRequest, table_id: int) -> str | None:
    """The TV page has no buttons: the same for every viewer."""
    return _table_tag(table_id, "tv", *rendering(request))


def api_table_etag(request: HttpRequest, table_id: int) -> str | None:
    return _table_tag(table_id, "api")


def standings_stamp(request: HttpRequest) -> str:
    """The standings' change stamp, read once per request: tags and cache keys share it."""
    if not hasattr(request, "_standings_stamp"):
        request._standings_stamp = selectors.standings_stamp()
    return request._standings_stamp


# The standings page (and its cached rows) opens on the season covering today; the JSON and
# the CSV read all time unless asked.
DEFAULT_SEASON_KINDS = ("page", "rows")


def standings_filters(
    request: HttpRequest, table_id: int | None = None, *, default_season: bool = False
) -> StandingsFilterForm:
    """The request's standings filters, validated once: tags, cache keys and the view share
    one form (and its one table lookup)."""
    if not hasattr(request, "_standings_filters"):
        # A table's own standings fix the table; only its id is read (the view 404s a missing one).
        fixed = Table(pk=table_id) if table_id is not None else None
        request._standings_filters = StandingsFilterForm(
            request.GET, table=fixed, default_season=default_season
        )
    return request._standings_filters


def _filters(request: HttpRequest, table_id: int | None, kind: str) -> str:
    """The filters as cleaned, so parameters the form ignores (?junk=, their order, blank
    values) share one cache entry and tag instead of pushing real entries out."""
    form = standings_filters(request, table_id, default_season=kind in DEFAULT_SEASON_KINDS)
    if form.is_valid():
        return key(*form.as_json().values())
    # Answered with its errors, never cached: the tag still tells one bad input from another.
    return "bad-" + _digest(request.GET.urlencode(), 8)


def standings_key(request: HttpRequest, kind: str, table_id: int | None = None) -> str:
    """Standings change only with the stamp (services.standings_changed): key on it, the
    filters asked for (as cleaned: the page's default season included) and the language."""
    filters = _filters(request, table_id, kind)
    return key(kind, standings_stamp(request), table_id or 0, filters, get_language())


def standings_etag(request: HttpRequest, table_id: int | None = None) -> str:
    return etag(standings_key(request, "page", table_id), viewer(request))


def api_standings_etag(request: HttpRequest) -> str:
    return etag(standings_key(request, "json"))


def cached(cache_key: str, build: Callable[[], Any]) -> Any:
    """What build() returns, computed once per standings change."""
    return cache.get_or_set(cache_key, build, STANDINGS_CACHE_SECONDS)
