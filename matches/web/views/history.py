"""A table's history: its filed matches a page at a time, one match with its taps and
corrections, and every filed result as CSV."""

from collections.abc import Callable
from functools import wraps
from urllib.parse import urlencode

from django.http import Http404, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.core.stamp import Snapshot
from matches.models import Table
from matches.org.roles import may_change_table
from matches.play import audit, selectors
from matches.web.caching.headers import shared_cache
from matches.web.caching.renderings import table_response
from matches.web.caching.tags import (
    MATCHES_PAGE,
    filed_before,
    filed_page_form,
    is_spectator,
    matches_etag,
    real_names,
    results_csv_etag,
    stamp,
)
from matches.web.exports import (
    TABLE_RESULTS_HEADER,
    csv_stream,
    json_response,
    table_result_row,
    table_results_filename,
)
from matches.web.forms.errors import first_error
from matches.web.htmx import HtmxHttpRequest
from matches.web.middleware import language_neutral


def filed_page(*, json: bool):
    """A view of a page of filed matches (?before=): a bad page is refused with a 400
    saying why, before the ETag is worked out."""

    def decorator(view):
        @wraps(view)
        def inner(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
            form = filed_page_form(request)
            if form.is_valid():
                return view(request, *args, **kwargs)
            if json:
                return json_response({"error": first_error(form)}, status=400)
            return HttpResponseBadRequest(
                first_error(form), content_type="text/plain; charset=utf-8"
            )

        return inner

    return decorator


def older_link(route: str, table_id: int) -> Callable[[int], str]:
    """The path of the page of filed matches before a number (a path: the same document
    whatever host name the reader used)."""
    path = reverse(route, args=[table_id])
    return lambda before: f"{path}?{urlencode({'before': before})}"


@require_safe
@filed_page(json=False)
@vary_on_headers("Cookie")
@shared_cache(when=is_spectator)
@condition(etag_func=matches_etag)
def table_matches(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The table's filed matches, newest first, a page at a time."""
    before = filed_before(request)

    def read(table: Table) -> selectors.FiledPage:
        return selectors.table_filed_matches(table=table, before=before)

    def render_page(snapshot: Snapshot) -> HttpResponse:
        page = snapshot.content
        context = {"table": snapshot.table, "matches": page.matches, "before": before}
        if page.older is not None:
            context["older"] = older_link("matches:matches", table_id)(page.older)
        return render(request, "matches/matches.html", context)

    # The latest page is what a visitor opens: kept for spectators; older pages are read.
    keep = before is None and is_spectator(request)
    return table_response(request, table_id, MATCHES_PAGE, read, render_page, keep=keep)


@require_safe
def match_detail(request: HtmxHttpRequest, table_id: int, number: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    match = selectors.match_detail(table=table, number=number)
    if match is None:
        raise Http404
    trail = audit.match_audit(match=match)
    # The corrections name seats: each player reads as this viewer reads them now.
    corrections = selectors.match_corrections(match=match)
    context = {
        "table": table,
        "match": match,
        "seats": match.seats.all(),
        "audit": trail,
        "corrections": corrections,
        # Asked whatever the match's state, so the page's reads do not change as it files.
        "may_correct": may_change_table(request.user, table) and match.status == match.Status.FILED,
    }
    return render(request, "matches/match.html", context)


@require_safe
@shared_cache()
@condition(etag_func=results_csv_etag)
def table_results_csv(request: HtmxHttpRequest, table_id: int) -> StreamingHttpResponse:
    """Every filed result of the table, streamed as it is read; tagged with the table's
    version, so a spreadsheet refreshing it gets a 304 until the table changes."""
    stamped = stamp(request, table_id)
    if stamped is None:
        raise Http404
    table = stamped.table
    real = real_names(request)
    rows = (
        table_result_row(table, seat, real_names=real)
        for seat in selectors.table_results(table=table)
    )
    response = csv_stream(table_results_filename(table), TABLE_RESULTS_HEADER, rows)
    language_neutral(response)
    return response
