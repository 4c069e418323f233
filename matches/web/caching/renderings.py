"""Renderings and reads kept in this process, keyed by the state they show: a table's pages
as rendered (and the snapshot they render from), and the rows of long tables. The first
requests after a change all miss at once: one thread makes what they want while the others
wait for it (Kept.filling)."""

import contextlib
from collections.abc import Callable
from typing import Any, cast

from django.http import Http404, HttpResponse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from matches.core import stamp as stamps
from matches.core.kept import Kept
from matches.core.stamp import Snapshot, Stamped
from matches.models import Table
from matches.web.caching.night import clock
from matches.web.caching.tags import (
    TABLE_PAGE,
    TagKind,
    generation,
    kind_for,
    league_part,
    messages_waiting,
    stamp,
    tag,
)
from matches.web.htmx import HtmxHttpRequest

KEPT_RENDERINGS = 512
kept = Kept(KEPT_RENDERINGS)


# Rows of long tables (the standings) as rendered, by content: a few hundred players, two
# languages and a handful of filters each.
KEPT_ROWS = 8192
kept_rows = Kept(KEPT_ROWS)


def rendered_rows(
    render: Callable[..., str], rows: list[dict], context: dict, *, content: Callable[[dict], tuple]
) -> SafeString:
    """The rows of a long table, each written by render(**context, **rows[i]) (escaped
    markup for one row) once per content(row), context and language. A filing moves a few
    players' standings: most rows read as before, and only those that changed are written
    again. Per process, and safe with any number of processes: the key is what the row
    shows, whatever else changed."""
    shared = (render.__module__, render.__qualname__, get_language(), *sorted(context.items()))
    keys = [(*shared, *content(row)) for row in rows]
    found = [kept_rows.get(row_key) for row_key in keys]
    for index, html in enumerate(found):
        if html is None:
            found[index] = render(**context, **rows[index])
            kept_rows.put(keys[index], found[index])
    # Every part is render's own escaped output; one row a line in the page's source.
    return mark_safe("\n".join(cast(list[str], found)))  # noqa: S308


def _read_key(kind: TagKind, stamped: Stamped, night: str) -> tuple:
    return (
        "read",
        kind.name,
        stamped.pk,
        stamped.version,
        generation(stamped),
        *league_part(kind, stamped),
        night,
    )


def _snapshot(
    table_id: int, read: Callable, stamped: Stamped, kind: TagKind, night: str, keep: bool
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
    kind: TagKind,
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
    night = clock.tonight()
    variant = kind.variant(request)
    path = request.get_full_path()  # the page names it (the language switcher's next)
    key = (tag(kind, stamped, variant), path)
    item = kept.get(key) if keep else None
    if item is None:
        # The first polls after a change all miss at once: one thread reads and renders while
        # the others wanting the same key wait for it, instead of each doing it (a process
        # under uvicorn runs Django in one thread; the development server has one per request).
        with kept.filling(key) if keep else contextlib.nullcontext():
            item = kept.get(key) if keep else None
            if item is None:
                snapshot = _snapshot(table_id, read, stamped, kind, night, keep)
                stamped = snapshot.stamped
                response = render(snapshot)
                if keep and response.status_code == 200:
                    key = (tag(kind, stamped, variant), path)
                    kept.put(key, (response.content, response["Content-Type"]))
    if item is not None:
        response = HttpResponse(item[0], content_type=item[1])
    if tagged:
        response["ETag"] = key[0]
    return response
