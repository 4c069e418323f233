"""The standings' cache keys and tags: standings change only with the league's stamp
(core.stamp.standings_changed), so what is computed from them is kept in the cache under a
key naming the stamp, the filters asked for, the language and whose names they show."""

from collections.abc import Callable
from functools import partial
from typing import Any

from django.core.cache import cache
from django.utils.translation import get_language

from matches.core import stamp as stamps
from matches.models import Table
from matches.ratings import schedule as ratings_schedule
from matches.results import seasons
from matches.results import standings as league_standings
from matches.web.caching import memo
from matches.web.caching.tags import audience, digest, etag, key, viewer
from matches.web.forms.standings import StandingsFilterForm, asked_filters
from matches.web.htmx import HtmxHttpRequest

STANDINGS_CACHE_SECONDS = 24 * 3600


def standings_stamp(request: HtmxHttpRequest) -> str:
    """The standings' change stamp, read once per request: tags and cache keys share it."""
    return memo.once(request, "standings stamp", stamps.standings_stamp)


# The standings page (and its cached rows) opens on the season covering tonight; the JSON and
# the CSV read all time unless asked.
DEFAULT_SEASON_KINDS = ("page", "rows")


def standings_filters(
    request: HtmxHttpRequest, table_id: int | None = None, *, default_season: bool = False
) -> StandingsFilterForm:
    """The request's standings filters, validated once: tags, cache keys and the view share
    one form (and its one table lookup)."""

    def build() -> StandingsFilterForm:
        # A table's own standings fix the table; only its id is read (the view 404s a missing one).
        fixed = Table(pk=table_id) if table_id is not None else None
        current = seasons.current_season if default_season else None
        # The league's page opens on the mode played most when it has both.
        league_page = default_season and table_id is None
        mode = partial(mode_played_most, request) if league_page else None
        data = asked_filters(request.GET, current_season=current, default_mode=mode)
        return StandingsFilterForm(data, table=fixed)

    return memo.once(request, "standings filters", build)


def mode_played_most(request: HtmxHttpRequest, venue_slug: str | None = None) -> str | None:
    """The mode played most where the standings asked look (the league, or the venue of
    venue_slug, else of ?venue=) when both were played there, else None: read once per
    standings change (every filing moves the stamp), and once a request."""
    venue = venue_slug if venue_slug is not None else request.GET.get("venue") or ""

    def read() -> str | None:
        # "" stands for None: the cache keeps no None.
        played = cached(
            key("mode-played-most", standings_stamp(request), digest(venue, 8)),
            lambda: league_standings.mode_played_most(venue) or "",
        )
        return played or None

    return memo.once(request, "mode played most", read, venue)


def _filters(request: HtmxHttpRequest, table_id: int | None, kind: str) -> str:
    """The filters as cleaned, so parameters the form ignores (?junk=, their order, blank
    values) share one cache entry and tag instead of pushing real entries out."""
    form = standings_filters(request, table_id, default_season=kind in DEFAULT_SEASON_KINDS)
    if form.is_valid():
        return key(*form.query.as_json().values())
    # Answered with its errors, never cached: the tag still tells one bad input from another.
    return "bad-" + digest(request.GET.urlencode(), 8)


def standings_key(request: HtmxHttpRequest, kind: str, table_id: int | None = None) -> str:
    """Standings change only with the stamp (core.stamp.standings_changed): key on it, the
    filters asked for (as cleaned: the page's default season included), the language and
    which names the rows show (a host's or the public's)."""
    filters = _filters(request, table_id, kind)
    return key(
        kind, standings_stamp(request), table_id or 0, filters, get_language(), audience(request)
    )


def standings_etag(request: HtmxHttpRequest, table_id: int | None = None) -> str:
    return etag(standings_key(request, "page", table_id), viewer(request))


def api_standings_etag(request: HtmxHttpRequest) -> str:
    return etag(standings_key(request, "json"))


def form_key(kind: str, *shown: object) -> str:
    """A rendered form's key: what it shows (its choices, its values) in this language."""
    return key("form", kind, get_language(), digest(repr(shown), 12))


def ratings_updating(request: HtmxHttpRequest) -> bool:
    """Whether a ratings replay is pending (the ratings shown are the last settled ones),
    read once per standings change: scheduling a replay and settling it both move the
    stamp."""
    return cached(
        key("ratings-updating", standings_stamp(request)), ratings_schedule.ratings_updating
    )


def cached(cache_key: str, build: Callable[[], Any]) -> Any:
    """What build() returns, computed once per standings change."""
    return cache.get_or_set(cache_key, build, STANDINGS_CACHE_SECONDS)
