"""Conditional requests and cached renderings. Every ETag and cache key is built the same way,
from its parts; a page that polls answers 304 until what it shows has changed."""

import contextlib
import copy
import dataclasses
import datetime
import hashlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import get_template
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from matches.core import kept as kept_stores
from matches.core import stamp as stamps
from matches.core.kept import Kept
from matches.core.stamp import Snapshot, Stamped
from matches.models import Table
from matches.org.names import sees_real_names
from matches.ratings import schedule as ratings_schedule
from matches.results import seasons
from matches.rules.nights import night_start
from matches.web.forms.filed import FiledPageForm
from matches.web.forms.standings import StandingsFilterForm, asked_filters
from matches.web.htmx import HtmxHttpRequest

STANDINGS_CACHE_SECONDS = 24 * 3600


def key(*parts: object) -> str:
    """A cache key or tag body: the parts, in order, joined with dots."""
    return ".".join(str(part) for part in parts)


def etag(*parts: object) -> str:
    """A strong ETag made of its parts."""
    return f'"{key(*parts)}"'


def _digest(text: str, size: int) -> str:
    return hashlib.blake2s(text.encode(), digest_size=size).hexdigest()


def viewer(request: HtmxHttpRequest) -> str:
    """Who the page was rendered for: a logged-in user's page carries their name and CSRF
    tokens; every anonymous viewer gets the same page (0)."""
    if not request.user.is_authenticated:
        return "0"
    cookie = request.COOKIES.get(settings.CSRF_COOKIE_NAME, "")
    return _digest(f"{request.user.pk}:{cookie}", 6)


def real_names(request: HtmxHttpRequest) -> bool:
    """Whether this request's viewer reads players' names as entered (a logged-in host);
    everyone else reads the public names. Without a session cookie nobody is logged in: the
    session is not read, so a spectator's JSON and CSV still vary on nothing (a host's are
    private, CachePrivacyMiddleware). A poll answered by the middleware has no user."""
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return False
    return sees_real_names(getattr(request, "user", None))


def audience(request: HtmxHttpRequest) -> str:
    """The part of a key or tag naming which names an answer shows: a host's ("h") and the
    public's ("p") are never one entry."""
    return "h" if real_names(request) else "p"


def rendering(request: HtmxHttpRequest) -> tuple[int, str]:
    """A page differs as fragment or whole page, and per language."""
    return int(bool(request.htmx)), get_language()


# The night now, while it lasts: (time zone, its start, the next night's start, its name).
_this_night: tuple | None = None


def _night(now: datetime.datetime | None = None) -> str:
    # Tonight's totals start afresh at noon with no write on the table: the tag moves too.
    # A poll asks up to three times; working out local noon each time was a twentieth of a
    # 304's time, so the night is kept until the next one starts (checked against now).
    global _this_night
    now = now or timezone.now()
    zone = timezone.get_current_timezone()
    kept = _this_night
    if kept is not None and kept[0] is zone and kept[1] <= now < kept[2]:
        return kept[3]
    start, end, name = _night_bounds(now)
    _this_night = (zone, start, end, name)
    return name


def _night_bounds(now: datetime.datetime) -> tuple[datetime.datetime, datetime.datetime, str]:
    start = night_start(now)
    # Noon the next day, local time, whatever a clock change did in between.
    end = night_start(start + datetime.timedelta(hours=36))
    return start, end, start.strftime("n%Y%m%d")


# The same in the league's own time zone (settings.TIME_ZONE): (its start, the next's, name).
_league_night: tuple | None = None


def tonight_name() -> str:
    """The night now in the league's time zone, as tags name it, without asking which time
    zone is active (a thread-local lookup that cost a poll answered before Django a seventh
    of its time): nothing in the app activates another, so it is the night tags name."""
    global _league_night
    now = timezone.now()
    kept = _league_night
    if kept is not None and kept[0] <= now < kept[1]:
        return kept[2]
    with timezone.override(timezone.get_default_timezone()):
        _league_night = _night_bounds(now)
    return _league_night[2]


def _forget_night() -> None:
    global _this_night, _league_night
    _this_night = _league_night = None


kept_stores.register(_forget_night)


@receiver(setting_changed)
def _forget_night_of_old_zone(*, setting: str, **kwargs: object) -> None:
    if setting == "TIME_ZONE":
        _forget_night()


def stamp(request: HtmxHttpRequest, table_id: int) -> Stamped | None:
    """The table row with its version and restore epoch (one indexed read), read once per
    request: the ETag, the kept rendering and the snapshot's first read share it."""
    read = request.__dict__.setdefault("_table_stamps", {})
    if table_id not in read:
        read[table_id] = stamps.stamped_table(table_id=table_id)
    return read[table_id]


def stamp_read(request: HttpRequest, table_id: int) -> Stamped | None:
    """The row stamp() read for this request, without reading it (None if it was not)."""
    return request.__dict__.get("_table_stamps", {}).get(table_id)


def forget_stamp(request: HtmxHttpRequest) -> None:
    """After a write in this request: the next stamp() reads the row again."""
    request.__dict__.pop("_table_stamps", None)


def _generation(stamped: Stamped) -> str:
    """Changes on a restore (the epoch; versions go back to the backup's) and names this
    very table (its creation time), so a version number never means two states."""
    return "g" + _digest(f"{stamped.epoch}:{stamped.table.created_at.isoformat()}", 4)


def _league(kind: str, stamped: Stamped) -> tuple:
    # Tonight's story tells ratings, which the league's replay rewrites with no write on this
    # table (a filing elsewhere, a merge): its tags and kept readings name the league's
    # version too (read with the table row, no query of its own), and so does a closed
    # table's TV, which tells the story.
    if kind in LEAGUE_WIDE or (kind == TV_PAGE[0] and not stamped.table.is_open):
        return (f"l{stamped.league}",)
    return ()


def _tag(kind: str, stamped: Stamped, variant: tuple) -> str:
    return etag(
        f"{kind}{stamped.pk}",
        f"v{stamped.version}",
        _generation(stamped),
        *_league(kind, stamped),
        *variant,
    )


def spectator_tag(kind: tuple, stamped: Stamped, variant: tuple) -> str:
    """The tag of kind at stamped for the variant an anonymous viewer's request gives
    (kind[1](request)): what its ETag function answers (polls.SpectatorPolls builds it
    without the request, from the variant it learnt)."""
    return _tag(kind[0], stamped, variant)


def _page_variant(request: HtmxHttpRequest, tonight_at: datetime.datetime | None = None) -> tuple:
    return (viewer(request), *rendering(request), _night(tonight_at))


def _tv_variant(request: HtmxHttpRequest) -> tuple:
    # The TV page has no buttons and no user: the same for every viewer.
    return (*rendering(request), _night())


def _api_variant(request: HtmxHttpRequest) -> tuple:
    # The JSON names no translated word and no user.
    return ()


def filed_page(request: HtmxHttpRequest) -> FiledPageForm:
    """The request's ?before= (which page of filed matches), validated once: the tag, the
    kept rendering and the view share it."""
    form = request.__dict__.get("_filed_page")
    if form is None:
        form = request.__dict__["_filed_page"] = FiledPageForm(request.GET)
    return form


def filed_before(request: HtmxHttpRequest) -> int | None:
    """The number the page of filed matches reads below (None: the latest page; a bad one
    is answered 400 before anything asks)."""
    form = filed_page(request)
    return form.cleaned_data.get("before") if form.is_valid() else None


def _before(request: HtmxHttpRequest) -> str:
    # The page as cleaned: ?before=07 and ?before=7 are one page and one tag.
    return f"b{filed_before(request) or ''}"


def _matches_variant(request: HtmxHttpRequest) -> tuple:
    # The list of filed matches: the viewer (the page's header names them), the language,
    # the page. It has no fragment and no tonight.
    return (viewer(request), get_language(), _before(request))


def _api_matches_variant(request: HtmxHttpRequest) -> tuple:
    return (_before(request),)


# Tonight's story and its share card (issue 24): the ratings they tell are the league's
# (a filing elsewhere, or the replay, moves them), as the TV's are. The page names the
# viewer, the card does not; both name the host the text's link is built on.
def _tonight_variant(request: HtmxHttpRequest) -> tuple:
    return (viewer(request), get_language(), _night(), _digest(request.get_host(), 4))


def _card_variant(request: HtmxHttpRequest) -> tuple:
    return (get_language(), _night())


TONIGHT_PAGE = ("st", _tonight_variant)
TONIGHT_CARD = ("sc", _card_variant)


TABLE_PAGE = ("t", _page_variant)
TV_PAGE = ("tv", _tv_variant)
TABLE_API = ("api", _api_variant)
TABLE_API_MATCHES = ("apim", _api_matches_variant)
MATCHES_PAGE = ("m", _matches_variant)
# The CSV names no user and no translated word; it is read after its tag (streamed), so a
# write landing during a download shows in its later rows, and the next request, whose tag
# has moved, fetches it whole again.
RESULTS_CSV = ("csv", _api_variant)
# The JSON and the CSV as a logged-in host reads them (players' names as entered): another
# kind, so their tags, kept answers and snapshots are never the public's.
TABLE_API_REAL = ("apih", _api_variant)
TABLE_API_MATCHES_REAL = ("apimh", _api_matches_variant)
RESULTS_CSV_REAL = ("csvh", _api_variant)
_REAL_KINDS = {
    TABLE_API: TABLE_API_REAL,
    TABLE_API_MATCHES: TABLE_API_MATCHES_REAL,
    RESULTS_CSV: RESULTS_CSV_REAL,
}


def kind_for(request: HtmxHttpRequest, kind: tuple) -> tuple:
    """The kind of answer this viewer gets: the host's own for the JSON and the CSV."""
    return _REAL_KINDS.get(kind, kind) if real_names(request) else kind


def table_page_tag(
    request: HtmxHttpRequest,
    table_id: int,
    version: int | None = None,
    *,
    stamped: Stamped | None = None,
    tonight_at: datetime.datetime | None = None,
) -> str | None:
    """The tag of the table page as this viewer gets it at version (now, if None). Pass the
    row a write holds (stamped) to read nothing more, and tonight_at, when the page's
    tonight totals were read earlier than now."""
    if stamped is None:
        stamped = stamp(request, table_id)
        if stamped is None:
            return None
    if version is not None and version != stamped.version:
        table = copy.copy(stamped.table)
        table.version = version
        stamped = dataclasses.replace(stamped, table=table)
    return _tag(TABLE_PAGE[0], stamped, _page_variant(request, tonight_at))


def messages_waiting(request: HtmxHttpRequest) -> bool:
    return bool(len(messages.get_messages(request)))


def is_spectator(request: HtmxHttpRequest) -> bool:
    """Anonymous, with no message waiting: gets the page every such viewer gets."""
    return not request.user.is_authenticated and not messages_waiting(request)


def table_page_etag(request: HtmxHttpRequest, table_id: int) -> str | None:
    """The table page's tag, unless a message waits to be shown (then always render)."""
    if messages_waiting(request):
        return None
    return table_page_tag(request, table_id)


def _etag_func(kind: tuple) -> Callable[[HtmxHttpRequest, int], str | None]:
    def table_etag(request: HtmxHttpRequest, table_id: int) -> str | None:
        stamped = stamp(request, table_id)
        if stamped is None:
            return None
        shown = kind_for(request, kind)
        return _tag(shown[0], stamped, shown[1](request))

    return table_etag


LEAGUE_WIDE = {TONIGHT_PAGE[0], TONIGHT_CARD[0]}


tv_etag = _etag_func(TV_PAGE)
tonight_etag = _etag_func(TONIGHT_PAGE)
tonight_card_etag = _etag_func(TONIGHT_CARD)
api_table_etag = _etag_func(TABLE_API)
api_matches_etag = _etag_func(TABLE_API_MATCHES)
matches_etag = _etag_func(MATCHES_PAGE)
results_csv_etag = _etag_func(RESULTS_CSV)


KEPT_RENDERINGS = 512
kept = Kept(KEPT_RENDERINGS)


# Rows of long tables (the standings) as rendered, by content: a few hundred players, two
# languages and a handful of filters each.
KEPT_ROWS = 8192
kept_rows = Kept(KEPT_ROWS)


def rendered_rows(
    template_name: str, rows: list, context: dict, *, content: Callable[[Any], tuple]
) -> SafeString:
    """The rows of a long table, rendered by template_name (a loop over context["rows"],
    one <tr> each) once per content(row), context and language. A filing moves a few
    players' standings: most rows read as before, and only those that changed are rendered
    again, in one pass. Per process, and safe with any number of processes: the key is
    what the row shows, whatever else changed."""
    shared = (template_name, get_language(), *sorted(context.items()))
    keys = [(*shared, *content(row)) for row in rows]
    found = [kept_rows.get(row_key) for row_key in keys]
    missing = [index for index, html in enumerate(found) if html is None]
    if missing:
        html = get_template(template_name).render({**context, "rows": [rows[i] for i in missing]})
        # Escaped text never holds "</tr>": every row ends at its own. A template that wrote
        # any other count would file rows under the wrong keys, so that fails loudly.
        *parts, tail = html.split("</tr>")
        if len(parts) != len(missing) or tail.strip():
            raise ValueError(f"{template_name} must write one <tr>…</tr> per row")
        for index, row_html in zip(missing, parts, strict=True):
            found[index] = row_html + "</tr>"
            kept_rows.put(keys[index], found[index])
    # Every part is a template's own autoescaped output.
    return mark_safe("".join(found))  # noqa: S308


def _read_key(kind: tuple, stamped: Stamped, night: str) -> tuple:
    return (
        "read",
        kind[0],
        stamped.pk,
        stamped.version,
        _generation(stamped),
        *_league(kind[0], stamped),
        night,
    )


def _snapshot(
    table_id: int, read: Callable, stamped: Stamped, kind: tuple, night: str, keep: bool
) -> Snapshot:
    """read(table) from one state, kept for every rendering of it (the other language, the
    fragment or the page), read by one thread at a time per key."""
    read_key = _read_key(kind, stamped, night)
    snapshot = kept.get(read_key) if keep else None
    if snapshot is not None:
        return snapshot
    with kept.filling(read_key) if keep else contextlib.nullcontext():
        snapshot = kept.get(read_key) if keep else None
        if snapshot is None:
            snapshot = stamps.table_snapshot(table_id=table_id, read=read, first=stamped)
            if snapshot is None:
                raise Http404
            if keep:  # only once proved whole: keyed on the version it was read at
                kept.put(_read_key(kind, snapshot.stamped, night), snapshot)
    return snapshot


def table_response(
    request: HtmxHttpRequest,
    table_id: int,
    kind: tuple,
    read: Callable[[Table], Any],
    render: Callable[[Snapshot], HttpResponse],
    *,
    keep: bool,
) -> HttpResponse:
    """render(snapshot) of read(table), tagged with the snapshot's own version: the body and
    its ETag name one state. With keep (what every viewer of a language gets), a rendering
    made for this version is served again without a query, and so is the snapshot (the
    other language, the fragment or the page render from it)."""
    stamped = stamp(request, table_id)
    if stamped is None:
        raise Http404
    kind = kind_for(request, kind)
    # A table page showing a message is not the state's page: no tag (a reload must not
    # revalidate it into a stale message). After a write the tag is wanted for X-Board-ETag.
    # Only the table page shows messages: the others never read the session.
    tagged = (
        kind is not TABLE_PAGE
        or request.method not in ("GET", "HEAD")
        or not messages_waiting(request)
    )
    # The night as it was before anything is read: a read that straddles noon is then kept
    # as the old night's (read again after), never as the new night's with old totals.
    night = _night()
    variant = kind[1](request)
    path = request.get_full_path()  # the page names it (the language switcher's next)
    key = (_tag(kind[0], stamped, variant), path)
    item = kept.get(key) if keep else None
    if item is None:
        # The first polls after a change all miss at once: one thread (gthread) reads and
        # renders while the others wanting the same key wait for it, instead of each doing it.
        with kept.filling(key) if keep else contextlib.nullcontext():
            item = kept.get(key) if keep else None
            if item is None:
                snapshot = _snapshot(table_id, read, stamped, kind, night, keep)
                stamped = snapshot.stamped
                response = render(snapshot)
                if keep and response.status_code == 200:
                    key = (_tag(kind[0], stamped, variant), path)
                    kept.put(key, (response.content, response["Content-Type"]))
    if item is not None:
        response = HttpResponse(item[0], content_type=item[1])
    if tagged:
        response["ETag"] = key[0]
    return response


def shared_cache(*, when: Callable[[HtmxHttpRequest], bool] | None = None):
    """Cache-Control: public with a short max-age (a shared cache or the browser may answer
    a poll on its own for SPECTATOR_MAX_AGE s) when every viewer gets these bytes (when(),
    asked before the view runs), else private and revalidated every time."""

    def decorator(view):
        @wraps(view)
        def inner(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
            public = when is None or when(request)
            response = view(request, *args, **kwargs)
            if public:
                patch_cache_control(response, public=True, max_age=SPECTATOR_MAX_AGE)
            else:
                patch_cache_control(response, private=True, no_cache=True)
            return response

        return inner

    return decorator


# Under the 3 s poll: a spectator's browser or a micro-cache answers at most one poll alone.
SPECTATOR_MAX_AGE = 2


def standings_stamp(request: HtmxHttpRequest) -> str:
    """The standings' change stamp, read once per request: tags and cache keys share it."""
    if not hasattr(request, "_standings_stamp"):
        request._standings_stamp = stamps.standings_stamp()
    return request._standings_stamp


# The standings page (and its cached rows) opens on the season covering tonight; the JSON and
# the CSV read all time unless asked.
DEFAULT_SEASON_KINDS = ("page", "rows")


def standings_filters(
    request: HtmxHttpRequest, table_id: int | None = None, *, default_season: bool = False
) -> StandingsFilterForm:
    """The request's standings filters, validated once: tags, cache keys and the view share
    one form (and its one table lookup)."""
    if not hasattr(request, "_standings_filters"):
        # A table's own standings fix the table; only its id is read (the view 404s a missing one).
        fixed = Table(pk=table_id) if table_id is not None else None
        current = seasons.current_season if default_season else None
        data = asked_filters(request.GET, current_season=current)
        request._standings_filters = StandingsFilterForm(data, table=fixed)
    return request._standings_filters


def _filters(request: HtmxHttpRequest, table_id: int | None, kind: str) -> str:
    """The filters as cleaned, so parameters the form ignores (?junk=, their order, blank
    values) share one cache entry and tag instead of pushing real entries out."""
    form = standings_filters(request, table_id, default_season=kind in DEFAULT_SEASON_KINDS)
    if form.is_valid():
        return key(*form.query.as_json().values())
    # Answered with its errors, never cached: the tag still tells one bad input from another.
    return "bad-" + _digest(request.GET.urlencode(), 8)


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
    return key("form", kind, get_language(), _digest(repr(shown), 12))


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
