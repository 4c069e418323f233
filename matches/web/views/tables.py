"""The table page and its writes: launch, the board, tap, undo, roster, close, reopen, and
the table's QR code. Thin views: read a form, call one service or selector, render. Every htmx
request gets the board fragment; every plain request gets a whole page or a redirect, so the
app also works without JavaScript. ETags and cached renderings are web/caching/'s; message
wording is web/feedback.py's."""

import uuid
from collections.abc import Callable
from typing import TypeVar

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition, require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.core.errors import Refusal, RuleError
from matches.core.stamp import Snapshot
from matches.models import Table
from matches.org.roles import hosted_venues, may_change_table
from matches.play import answers, selectors, tonight
from matches.play.messages import TABLE_CLOSED
from matches.play.services import tables, tap, undo
from matches.web import feedback, qr, tap_queue
from matches.web.access import host_required
from matches.web.caching.headers import shared_cache
from matches.web.caching.renderings import table_response
from matches.web.caching.tags import (
    TABLE_PAGE,
    forget_stamp,
    is_spectator,
    table_page_etag,
    table_page_tag,
)
from matches.web.forms.tables import CloseForm, LaunchForm, RosterForm
from matches.web.forms.taps import TapForm, UndoForm
from matches.web.htmx import HtmxHttpRequest

POLL_SECONDS = 3
# A closed table's TV and spectator page poll slowly, to notice a reopen (the page then
# reloads). A host's closed page polls at the live interval: the host is at the table, and a
# reopen from their phone must bring the tablet beside them back at once.
CLOSED_POLL_SECONDS = 30
BOARD_ETAG_HEADER = "X-Board-ETag"

Written = TypeVar(
    "Written", tap.TapOutcome[answers.Answer | None], undo.UndoOutcome[answers.Answer | None]
)


def _table_or_404(table_id: int) -> Table:
    return get_object_or_404(Table.objects.select_related("venue"), pk=table_id)


def _hosted_or_403(request: HtmxHttpRequest, table_id: int) -> Table:
    """The table, if this host may change it; else a 403 saying whose it is (a host of
    another venue reads it as a spectator does, and writes nothing)."""
    table = _table_or_404(table_id)
    if not may_change_table(request.user, table):
        raise PermissionDenied(tables.not_your_table(table).message)
    return table


@host_required
@require_http_methods(["GET", "POST"])
def table_new(request: HtmxHttpRequest) -> HttpResponse:
    form = LaunchForm(request.POST or None, venues=hosted_venues(request.user))
    if request.method == "POST" and form.is_valid():
        try:
            table = tables.table_launch(**form.service_kwargs(), by=request.user)
        except RuleError as error:
            if error.code == Refusal.NOT_YOUR_VENUE:
                raise PermissionDenied(error.message) from None
            form.add_error(None, error.message)
        else:
            return redirect("matches:table", table_id=table.pk)
    context = {"form": form, "last_seating": selectors.last_seating(host=request.user)}
    return render(request, "matches/table_new.html", context)


def _render_board(
    request: HtmxHttpRequest, table: Table, board: selectors.Board, tonight_rows: list
) -> HttpResponse:
    """The table page, or only its board fragment for htmx, from what was read."""
    is_host = may_change_table(request.user, table)
    context = {
        "board": board,
        "table": table,
        "is_host": is_host,
        # One key per rendered button: a double tap or a retried request repeats it.
        "tap_buttons": [(seat, uuid.uuid4()) for seat in board.standing] if is_host else [],
        "poll_seconds": POLL_SECONDS,
        "closed_poll_seconds": POLL_SECONDS if is_host else CLOSED_POLL_SECONDS,
        "tonight": tonight_rows,
        # The close's own message says the table is closed: the note under it does not repeat it.
        "just_closed": any(
            m.extra_tags == feedback.CLOSED_TAG for m in messages.get_messages(request)
        ),
    }
    template = "matches/table.html#board" if request.htmx else "matches/table.html"
    return render(request, template, context)


def _read_table_page(request: HtmxHttpRequest) -> Callable[[Table], tuple]:
    def read(table: Table) -> tuple:
        is_host = may_change_table(request.user, table)
        board = selectors.table_board(table=table, for_host=is_host)
        return board, tonight.table_tonight(table=table)

    return read


def _render_table_page(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The table page, or only its board fragment for htmx, from one snapshot of the table;
    its ETag names that snapshot's version."""

    def render_page(snapshot: Snapshot) -> HttpResponse:
        board, tonight_rows = snapshot.content
        return _render_board(request, snapshot.table, board, tonight_rows)

    read = _read_table_page(request)
    keep = is_spectator(request)
    return table_response(request, table_id, TABLE_PAGE, read, render_page, keep=keep)


@require_safe
@vary_on_headers("HX-Request", "Cookie")
@shared_cache(when=is_spectator)
@condition(etag_func=table_page_etag)
def table_detail(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    return _render_table_page(request, table_id)


def _board_or_redirect(
    request: HtmxHttpRequest, table_id: int, answer: answers.Answer | None = None
) -> HttpResponse:
    """After a write: the fresh board for htmx, a redirect to the table page otherwise.
    The body and its X-Board-ETag name one state: the one a tap or an undo of one wrote
    (its answer, read in its transaction, tagged with the version it committed), else a
    fresh snapshot.
    The page's script sends the tag back, so the polls answer 304 and the message stays on
    screen until the table changes again."""
    if not request.htmx:
        return redirect("matches:table", table_id=table_id)
    if answer is not None:
        written = answer.written
        response = _render_board(request, written.table, answer.board, answer.tonight)
        response[BOARD_ETAG_HEADER] = table_page_tag(
            request, written.pk, stamped=written, tonight_at=answer.at
        )
        return response
    forget_stamp(request)
    response = _render_table_page(request, table_id)
    response[BOARD_ETAG_HEADER] = response["ETag"]
    del response["ETag"]
    return response


def _written_or_refused(
    request: HtmxHttpRequest,
    table_id: int,
    write: Callable[[], Written],
    message: Callable[[Written], str | None],
) -> HttpResponse:
    """A tap's or an undo's answer: its board (or a redirect) marked with what became of it.
    A refusal is shown as its message and told to the tablet's queue by its code."""
    try:
        result = write()
    except Table.DoesNotExist:
        raise Http404 from None
    except RuleError as error:
        if error.code == Refusal.NOT_YOUR_TABLE and not request.htmx:
            raise PermissionDenied(error.message) from None
        messages.error(request, feedback.refusal_message(error))
        response = tap_queue.mark(_board_or_redirect(request, table_id), tap_queue.refusal(error))
        if error.code == Refusal.NOT_YOUR_TABLE:
            # Another venue's table, read-only to this host: the board it may read, refused.
            response.status_code = 403
        return response
    if text := message(result):
        messages.info(request, text)
    response = _board_or_redirect(request, table_id, result.answer)
    return tap_queue.mark(response, tap_queue.outcome_of(result))


@host_required
@require_POST
def table_tap(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    form = TapForm(request.POST, sender=request.user)
    if not form.is_valid():
        messages.error(request, feedback.BAD_TAP)
        return tap_queue.mark(_board_or_redirect(request, table_id), tap_queue.refusal())
    return _written_or_refused(
        request,
        table_id,
        lambda: tap.match_eliminate(
            table_id=table_id,
            **form.service_kwargs(),
            by=request.user,
            then=answers.after_tap,
        ),
        lambda result: feedback.tap_message(result, table=result.match.table),
    )


@host_required
@require_http_methods(["GET", "POST"])
def table_undo(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """POST takes back the latest tap. GET is the confirmation asked for when that undo
    would also drop the next match's new roster."""
    if request.method == "GET":
        table = _hosted_or_403(request, table_id)
        board = selectors.table_board(table=table, for_host=True)
        if not board.undo_drops_roster:
            return redirect("matches:table", table_id=table.pk)
        return render(request, "matches/undo_confirm.html", {"table": table, "board": board})
    form = UndoForm(request.POST, sender=request.user)
    if not form.is_valid():
        table = _table_or_404(table_id)
        messages.error(request, feedback.BAD_UNDO)
        return tap_queue.mark(_board_or_redirect(request, table.pk), tap_queue.refusal())
    return _written_or_refused(
        request,
        table_id,
        lambda: undo.table_undo_last(
            table_id=table_id,
            **form.service_kwargs(),
            by=request.user,
            then=answers.after_undo,
        ),
        feedback.undo_message,
    )


@host_required
@require_http_methods(["GET", "POST"])
def table_roster(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    table = _hosted_or_403(request, table_id)
    board = selectors.table_board(table=table)
    if board.match is None:
        messages.error(request, TABLE_CLOSED)
        return redirect("matches:table", table_id=table.pk)
    form = RosterForm(request.POST or None, initial=RosterForm.initial_for(board))
    if request.method == "POST" and form.is_valid():
        try:
            match = tables.match_set_roster(
                table_id=table.pk, **form.service_kwargs(), by=request.user
            )
        except RuleError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, feedback.roster_saved(match.number))
            return redirect("matches:table", table_id=table.pk)
    editing = board.match.pk if board.match is not None else None  # never None here
    last = selectors.last_seating(table=table, excluding_match_id=editing)
    context = {"table": table, "board": board, "form": form, "last_seating": last}
    return render(request, "matches/roster.html", context)


@host_required
@require_http_methods(["GET", "POST"])
def table_close(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """GET asks for confirmation, saying what happens to a match under way; POST closes."""
    table = _hosted_or_403(request, table_id)
    if request.method == "GET":
        if not table.is_open:
            return redirect("matches:table", table_id=table.pk)
        context = {"table": table, "board": selectors.table_board(table=table)}
        return render(request, "matches/close_confirm.html", context)
    form = CloseForm(request.POST)
    discard = form.cleaned_data["discard"] if form.is_valid() else None
    try:
        tables.table_close(table_id=table.pk, by=request.user, discard_match_id=discard)
    except RuleError as error:
        messages.error(request, feedback.refusal_message(error))
    else:
        messages.success(request, feedback.CLOSED, extra_tags=feedback.CLOSED_TAG)
    return redirect("matches:table", table_id=table.pk)


@host_required
@require_POST
def table_reopen(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    table = _hosted_or_403(request, table_id)
    try:
        match = tables.table_reopen(table_id=table.pk, by=request.user)
    except RuleError as error:
        messages.error(request, feedback.refusal_message(error))
    else:
        messages.success(request, feedback.reopened(match.number))
    return redirect("matches:table", table_id=table.pk)


@require_safe
@cache_control(max_age=3600)
def table_qr(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The QR code of the table's read-only page, as SVG from our own origin (no service
    on the internet sees the pub's address)."""
    table = _table_or_404(table_id)
    url = request.build_absolute_uri(reverse("matches:table", args=[table.pk]))
    return HttpResponse(qr.svg(url), content_type="image/svg+xml")
