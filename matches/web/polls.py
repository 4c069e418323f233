"""A spectator's poll answered before Django: the table page, the TV board and the JSON,
polled every few seconds by every viewer, cost a worker most of its time in the request and
response objects, the signals and the middleware chain around a 304 it already knew.

Nothing here is hand-written. SpectatorPollLearner, the outermost middleware, keeps the
whole stack's own answer to a plain spectator's poll: status, every header every middleware
added, and body (the WSGI server adds only Date and its own). SpectatorPolls, around the WSGI
application, answers the next poll with the same inputs from it: the 304 when the poll sends
the current tag, else the 200 of that tag. The current tag is the view's own ETag function's,
built from one read of the table's stamp (stamp.stamped_row: the view's own read, before its
conversion) and the variant (fragment or page, language, night) the stack used for those
inputs. Anything that is
not plainly a spectator's poll, and any poll whose answer was never seen, goes to Django."""

import functools
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, cast

from django.conf import settings
from django.core.signals import setting_changed
from django.db import DatabaseError, connection
from django.dispatch import receiver
from django.http import HttpRequest, parse_cookie
from django.http.response import HttpResponseBase
from django.middleware import csrf

from matches.core import autobackup
from matches.core import stamp as stamps
from matches.core.kept import Kept
from matches.org import hosts
from matches.web.caching.night import clock
from matches.web.caching.tags import TABLE_API, TABLE_PAGE, TV_PAGE, TagKind, stamp_read, tag
from matches.web.htmx import HtmxHttpRequest

# The polled pages, by route name: the kind of tag each one's ETag function builds for an
# anonymous viewer (table_page_etag, tv_etag, api_table_etag).
POLLED = {
    "matches:table": TABLE_PAGE,
    "matches:tv": TV_PAGE,
    "matches:api_table": TABLE_API,
}
KEPT_POLLS = 512

# A poll that sends any of these is Django's to answer (its conditional-request rules).
_OTHER_CONDITIONS = ("HTTP_IF_MATCH", "HTTP_IF_UNMODIFIED_SINCE", "HTTP_IF_MODIFIED_SINCE")

StartResponse = Callable[..., Any]


class Learnt(NamedTuple):
    """What the stack made of one set of inputs: the table and kind of tag it answered, and
    the tag's variant on the night it holds."""

    table_id: int
    kind: TagKind
    variant: tuple
    night: str


# inputs -> Learnt; (kind, row, variant) -> tag; (inputs, tag, current) -> the answer.
learnt = Kept(KEPT_POLLS)
tags = Kept(KEPT_POLLS)
replies = Kept(KEPT_POLLS)


def poll_inputs(environ: dict) -> tuple | None:
    """Everything in the request that the stack's answer to an anonymous poll reads, but the
    tag it sends; None when the request is not plainly a spectator's poll: not a GET, a query
    string, conditions other than one strong tag, a cookie other than the CSRF token's and
    the language's, a CSRF token the stack would replace, sessions holding the CSRF token, or
    no host account known yet (the stack leads to the setup page)."""
    sent = environ.get("HTTP_IF_NONE_MATCH")
    if (
        environ.get("REQUEST_METHOD") != "GET"
        or environ.get("QUERY_STRING")
        or (sent is not None and not _one_strong_tag(sent))
        or any(name in environ for name in _OTHER_CONDITIONS)
        or settings.CSRF_USE_SESSIONS
        or not hosts.host_known()
    ):
        return None
    cookies = _cookies(environ.get("HTTP_COOKIE", ""))
    if cookies is None:
        return None
    return (
        environ.get("PATH_INFO", ""),
        environ.get("SCRIPT_NAME", ""),
        environ.get("wsgi.url_scheme"),
        *(environ.get(name) for name in _trusted_headers()),
        environ.get("HTTP_HOST"),
        environ.get("SERVER_NAME"),
        environ.get("SERVER_PORT"),
        environ.get("HTTP_ACCEPT_LANGUAGE"),
        environ.get("CONTENT_TYPE"),
        environ.get("CONTENT_LENGTH"),
        # django-htmx's headers (HX-Request makes the fragment).
        tuple(sorted(item for item in environ.items() if item[0].startswith("HTTP_HX_"))),
        cookies,
    )


@functools.cache
def _trusted_headers() -> tuple[str, ...]:
    """The proxy's headers the settings tell Django to believe (scheme, host, port)."""
    names = []
    if settings.SECURE_PROXY_SSL_HEADER:
        names.append(settings.SECURE_PROXY_SSL_HEADER[0])
    if settings.USE_X_FORWARDED_HOST:
        names.append("HTTP_X_FORWARDED_HOST")
    if settings.USE_X_FORWARDED_PORT:
        names.append("HTTP_X_FORWARDED_PORT")
    return tuple(names)


def _cookies(header: str) -> tuple | None:
    """The cookies as the stack reads them: whether a CSRF token is there (its value is
    the stack's own business while it has the right form) and the language cookie's value."""
    if not header:
        return ()
    cookies = parse_cookie(header)
    if not cookies.keys() <= {settings.CSRF_COOKIE_NAME, settings.LANGUAGE_COOKIE_NAME}:
        return None  # a session (a host's, or a dead one the stack deletes), messages...
    token = cookies.get(settings.CSRF_COOKIE_NAME)
    if token is not None:
        try:
            # CsrfViewMiddleware's own check: a token it would replace sets a new cookie.
            csrf._check_token_format(token)  # type: ignore[attr-defined]
        except csrf.InvalidTokenFormat:
            return None
    return (token is not None, cookies.get(settings.LANGUAGE_COOKIE_NAME))


def _one_strong_tag(sent: str) -> bool:
    # One quoted tag, as our pages and script send back: a list, a weak tag or "*" (which
    # Django's condition matches its own way) takes the whole stack.
    return len(sent) > 1 and sent[0] == sent[-1] == '"' and '"' not in sent[1:-1]


class SpectatorPolls:
    """Around the WSGI application (gunicorn.conf.py's worker puts it there): a plain
    spectator's poll answered from what the stack answered the same inputs, everything else
    passed to Django's. Its nightly-backup check runs as on any request. Its one read
    autocommits; one that fails closes a broken connection and leaves the request to
    Django."""

    def __init__(self, application: Callable[[dict, StartResponse], Iterable[bytes]]) -> None:
        self.application = application

    def __call__(self, environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        answer = self.look(environ)[0]
        if answer is None:
            return self.application(environ, start_response)
        status, headers, body = answer
        start_response(status, list(headers))
        return [body]

    def look(
        self, environ: dict, rows: dict | None = None
    ) -> tuple[tuple[str, tuple, bytes] | None, bool]:
        """The server's way in (gunicorn.conf.py's worker asks from its main thread): the
        known answer or None, and whether the request is a poll the stack answered before
        (in another state: its answer in this one will be learnt from the stack).

        rows, when given, holds the stamps read for requests that had all started coming
        before the first of those reads: one read answers every poll of a table among
        them, as it would had they come a moment later (never a state older than the one
        the poll's viewer last saw, which was before its request)."""
        answer, seen = _look(environ, rows)
        if answer is not None:
            autobackup.backup_nightly_if_due()
        return answer, seen


def _look(environ: dict, rows: dict | None) -> tuple[tuple[str, tuple, bytes] | None, bool]:
    inputs = poll_inputs(environ)
    if inputs is None:
        return None, False
    poll = learnt.get(inputs)
    if poll is None or poll.night != clock.league_tonight():
        return None, False
    row = rows.get(poll.table_id) if rows is not None else None
    if row is None:
        try:
            row = stamps.stamped_row(table_id=poll.table_id)
        except DatabaseError:  # the stack answers, and reports, whatever went wrong
            # A thread only Django's handler runs in closes a broken connection at its next
            # request; the worker's main thread, which runs only this, closes it here.
            connection.close_if_unusable_or_obsolete()
            return None, False
        if row is None:
            return None, False
        if rows is not None:
            rows[poll.table_id] = row
    current = _current_tag(poll.kind, row, poll.variant)
    return replies.get((inputs, current, environ.get("HTTP_IF_NONE_MATCH") == current)), True


def _current_tag(kind: TagKind, row: tuple, variant: tuple) -> str:
    # The tag follows from the row as read: building the row's Stamped and the tag again
    # for every poll of the same state cost more than the read.
    key = (kind.name, row, variant)
    current = tags.get(key)
    if current is None:
        current = tag(kind, stamps.stamped_from_row(row), variant)
        tags.put(key, current)
    return current


class SpectatorPollLearner:
    """The outermost middleware: keeps the whole stack's answer to a plain spectator's poll
    (a 304 to the current tag, or a 200 to no tag or an old one), for SpectatorPolls. Only
    an anonymous viewer's answer that sets no cookie and whose tag is the one SpectatorPolls
    would build from the same stamp is kept."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        inputs = poll_inputs(request.META)  # before the stack adds its own keys to META
        response = self.get_response(request)
        if inputs is not None:
            _learn(request, response, inputs)
        return response


def _learn(request: HttpRequest, response: HttpResponseBase, inputs: tuple) -> None:
    match = request.resolver_match
    if match is None:
        return
    kind = POLLED.get(match.view_name)
    answered = response.get("ETag")
    sent = request.META.get("HTTP_IF_NONE_MATCH")
    current = response.status_code == 304 and answered == sent
    fetched = response.status_code == 200 and answered is not None and answered != sent
    user = getattr(request, "user", None)
    if (
        kind is None
        or not (current or fetched)
        or response.cookies
        or response.streaming
        or user is None
        or user.is_authenticated
    ):
        return
    table_id = match.kwargs["table_id"]
    stamped = stamp_read(request, table_id)
    variant = kind.variant(cast(HtmxHttpRequest, request))
    if stamped is None or tag(kind, stamped, variant) != answered:
        return  # the answer is of another state than the stamp read first (a write between)
    learnt.put(inputs, Learnt(table_id, kind, variant, clock.league_tonight()))
    status = f"{response.status_code} {response.reason_phrase}"
    body = b"" if current else response.content  # type: ignore[attr-defined]
    replies.put((inputs, answered, current), (status, tuple(response.items()), body))


@receiver(setting_changed)
def _forget(**kwargs: object) -> None:
    # The answers were learnt under the old settings (a test's override).
    _trusted_headers.cache_clear()
    learnt.clear()
    tags.clear()
    replies.clear()
