"""ETags and cache keys, each built the same way from its parts; a page that polls answers
304 until what it shows has changed. The table's pages are tagged by kind (TagKind): the
table's state (its version, generation and, for some kinds, the league's version) and the
variant the viewer's request asks for."""

import copy
import dataclasses
import datetime
import hashlib
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest
from django.utils.translation import get_language

from matches.core import stamp as stamps
from matches.core.stamp import Stamped
from matches.org.names import sees_real_names
from matches.web.caching import memo
from matches.web.caching.night import clock
from matches.web.forms.filed import FiledPageForm
from matches.web.htmx import HtmxHttpRequest


def key(*parts: object) -> str:
    """A cache key or tag body: the parts, in order, joined with dots."""
    return ".".join(str(part) for part in parts)


def etag(*parts: object) -> str:
    """A strong ETag made of its parts."""
    return f'"{key(*parts)}"'


def digest(text: str, size: int) -> str:
    """A short hash of text, size bytes long, as hex: a part that must not show what it names."""
    return hashlib.blake2s(text.encode(), digest_size=size).hexdigest()


def viewer(request: HtmxHttpRequest) -> str:
    """Who the page was rendered for: a logged-in user's page carries their name and CSRF
    tokens; every anonymous viewer gets the same page (0)."""
    if not request.user.is_authenticated:
        return "0"
    cookie = request.COOKIES.get(settings.CSRF_COOKIE_NAME, "")
    return digest(f"{request.user.pk}:{cookie}", 6)


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


def messages_waiting(request: HtmxHttpRequest) -> bool:
    return bool(len(messages.get_messages(request)))


def is_spectator(request: HtmxHttpRequest) -> bool:
    """Anonymous, with no message waiting: gets the page every such viewer gets."""
    return not request.user.is_authenticated and not messages_waiting(request)


def stamp(request: HtmxHttpRequest, table_id: int) -> Stamped | None:
    """The table row with its version and restore epoch (one indexed read), read once per
    request: the ETag, the kept rendering and the snapshot's first read share it."""
    return memo.once(
        request, "table stamp", lambda: stamps.stamped_table(table_id=table_id), table_id
    )


def stamp_read(request: HttpRequest, table_id: int) -> Stamped | None:
    """The row stamp() read for this request, without reading it (None if it was not)."""
    return memo.recalled(request, "table stamp", table_id)


def forget_stamp(request: HtmxHttpRequest) -> None:
    """After a write in this request: the next stamp() reads the row again."""
    memo.forget(request, "table stamp")


def filed_page_form(request: HtmxHttpRequest) -> FiledPageForm:
    """The request's ?before= (which page of filed matches), validated once: the tag, the
    kept rendering and the view share it."""
    return memo.once(request, "filed page", lambda: FiledPageForm(request.GET))


def filed_before(request: HtmxHttpRequest) -> int | None:
    """The number the page of filed matches reads below (None: the latest page; a bad one
    is answered 400 before anything asks)."""
    form = filed_page_form(request)
    return form.cleaned_data.get("before") if form.is_valid() else None


@dataclasses.dataclass(frozen=True, slots=True)
class TagKind:
    """One kind of answer about a table: what its tags and kept reads are named by, and the
    variant a viewer's request asks for (the parts of the tag beyond the table's state)."""

    name: str
    variant: Callable[[HtmxHttpRequest], tuple]


def _page_variant(request: HtmxHttpRequest, tonight_at: datetime.datetime | None = None) -> tuple:
    return (viewer(request), *rendering(request), clock.tonight(tonight_at))


def _tv_variant(request: HtmxHttpRequest) -> tuple:
    # The TV page has no buttons and no user: the same for every viewer.
    return (*rendering(request), clock.tonight())


def _api_variant(request: HtmxHttpRequest) -> tuple:
    # The JSON names no translated word and no user.
    return ()


def _before(request: HtmxHttpRequest) -> str:
    # The page as cleaned: ?before=07 and ?before=7 are one page and one tag.
    return f"b{filed_before(request) or ''}"


def _matches_variant(request: HtmxHttpRequest) -> tuple:
    # The list of filed matches: the viewer (the page's header names them), the language,
    # the page. It has no fragment and no tonight.
    return (viewer(request), get_language(), _before(request))


def _api_matches_variant(request: HtmxHttpRequest) -> tuple:
    return (_before(request),)


# Tonight's story and its share card: the ratings they tell are the league's (a filing
# elsewhere, or the replay, moves them), as the TV's are. The page names the viewer, the
# card does not; both name the host the text's link is built on.
def _tonight_variant(request: HtmxHttpRequest) -> tuple:
    return (viewer(request), get_language(), clock.tonight(), digest(request.get_host(), 4))


def _card_variant(request: HtmxHttpRequest) -> tuple:
    return (get_language(), clock.tonight())


TONIGHT_PAGE = TagKind("st", _tonight_variant)
TONIGHT_CARD = TagKind("sc", _card_variant)


TABLE_PAGE = TagKind("t", _page_variant)
TV_PAGE = TagKind("tv", _tv_variant)
TABLE_API = TagKind("api", _api_variant)
TABLE_API_MATCHES = TagKind("apim", _api_matches_variant)
MATCHES_PAGE = TagKind("m", _matches_variant)
# The CSV names no user and no translated word; it is read after its tag (streamed), so a
# write landing during a download shows in its later rows, and the next request, whose tag
# has moved, fetches it whole again.
RESULTS_CSV = TagKind("csv", _api_variant)
# The JSON and the CSV as a logged-in host reads them (players' names as entered): another
# kind, so their tags, kept answers and snapshots are never the public's.
TABLE_API_REAL = TagKind("apih", _api_variant)
TABLE_API_MATCHES_REAL = TagKind("apimh", _api_matches_variant)
RESULTS_CSV_REAL = TagKind("csvh", _api_variant)
_REAL_KINDS = {
    TABLE_API: TABLE_API_REAL,
    TABLE_API_MATCHES: TABLE_API_MATCHES_REAL,
    RESULTS_CSV: RESULTS_CSV_REAL,
}

LEAGUE_WIDE = {TONIGHT_PAGE.name, TONIGHT_CARD.name}


def kind_for(request: HtmxHttpRequest, kind: TagKind) -> TagKind:
    """The kind of answer this viewer gets: the host's own for the JSON and the CSV."""
    return _REAL_KINDS.get(kind, kind) if real_names(request) else kind


def generation(stamped: Stamped) -> str:
    """Changes on a restore (the epoch; versions go back to the backup's) and names this
    very table (its creation time), so a version number never means two states."""
    return "g" + digest(f"{stamped.epoch}:{stamped.table.created_at.isoformat()}", 4)


def league_part(kind: TagKind, stamped: Stamped) -> tuple:
    """The league's version, for the kinds whose answer the league's changes move."""
    # Tonight's story tells ratings, which the league's replay rewrites with no write on this
    # table (a filing elsewhere, a merge): its tags and kept readings name the league's
    # version too (read with the table row, no query of its own), and so does a closed
    # table's TV, which tells the story.
    if kind.name in LEAGUE_WIDE or (kind.name == TV_PAGE.name and not stamped.table.is_open):
        return (f"l{stamped.league}",)
    return ()


def tag(kind: TagKind, stamped: Stamped, variant: tuple) -> str:
    """The tag of kind at stamped for a variant (kind.variant(request)): what its ETag
    function answers."""
    return etag(
        f"{kind.name}{stamped.pk}",
        f"v{stamped.version}",
        generation(stamped),
        *league_part(kind, stamped),
        *variant,
    )


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
    return tag(TABLE_PAGE, stamped, _page_variant(request, tonight_at))


def table_page_etag(request: HtmxHttpRequest, table_id: int) -> str | None:
    """The table page's tag, unless a message waits to be shown (then always render)."""
    if messages_waiting(request):
        return None
    return table_page_tag(request, table_id)


def _etag_func(kind: TagKind) -> Callable[[HtmxHttpRequest, int], str | None]:
    def table_etag(request: HtmxHttpRequest, table_id: int) -> str | None:
        stamped = stamp(request, table_id)
        if stamped is None:
            return None
        shown = kind_for(request, kind)
        return tag(shown, stamped, shown.variant(request))

    return table_etag


tv_etag = _etag_func(TV_PAGE)
tonight_etag = _etag_func(TONIGHT_PAGE)
tonight_card_etag = _etag_func(TONIGHT_CARD)
api_table_etag = _etag_func(TABLE_API)
api_matches_etag = _etag_func(TABLE_API_MATCHES)
matches_etag = _etag_func(MATCHES_PAGE)
results_csv_etag = _etag_func(RESULTS_CSV)
