"""Thin views: read a form, call one service or selector, render. Every htmx request gets
the board fragment; every plain request gets a whole page or a redirect, so the app also
works without JavaScript. ETags and cached renderings are web/caching.py's; message wording is
web/feedback.py's."""

import uuid
from collections.abc import Callable
from functools import wraps
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.http import Http404, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition, require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.core.errors import RuleError
from matches.core.stamp import Snapshot
from matches.models import Table
from matches.org.hosts import first_host_create, may_change_table
from matches.play import selectors, services, story, tonight
from matches.results import public_names
from matches.web import caching, feedback, qr, tap_queue
from matches.web.access import host_required
from matches.web.exports import (
    TABLE_RESULTS_HEADER,
    csv_stream,
    json_response,
    table_result_row,
    table_results_filename,
)
from matches.web.forms import (
    CloseForm,
    FirstHostForm,
    LaunchForm,
    RosterForm,
    TapForm,
    UndoForm,
)
from matches.web.htmx import HtmxHttpRequest
from matches.web.middleware import language_neutral
from matches.web.story import story_context

POLL_SECONDS = 3
# A closed table's TV and spectator page poll slowly, to notice a reopen (the page then
# reloads). A host's closed page polls at the live interval: the host is at the table, and a
# reopen from their phone must bring the tablet beside them back at once.
CLOSED_POLL_SECONDS = 30
BOARD_ETAG_HEADER = "X-Board-ETag"


def _table_or_404(table_id: int) -> Table:
    return get_object_or_404(Table, pk=table_id)


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    open_tables, closed_tables = selectors.home_tables()
    context = {"open_tables": open_tables, "closed_tables": closed_tables}
    return render(request, "matches/home.html", context)


@require_http_methods(["GET", "POST"])
def setup(request: HtmxHttpRequest) -> HttpResponse:
    """Create the first host account; once one exists this page is gone."""
    if get_user_model().objects.exists():
        raise Http404
    form = FirstHostForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = first_host_create(
                user=form.save(commit=False), display_name=form.cleaned_data["display_name"]
            )
        except RuleError as error:  # another first host won the race
            messages.info(request, error.message)
            return redirect("login")
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("matches:home")
    return render(request, "matches/setup.html", {"form": form})


@host_required
@require_http_methods(["GET", "POST"])
def table_new(request: HtmxHttpRequest) -> HttpResponse:
    form = LaunchForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            table = services.table_launch(**form.service_kwargs(), by=request.user)
        except RuleError as error:
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
    keep = caching.is_spectator(request)
    return caching.table_response(
        request, table_id, caching.TABLE_PAGE, read, render_page, keep=keep
    )


@require_safe
@vary_on_headers("HX-Request", "Cookie")
@caching.shared_cache(when=caching.is_spectator)
@condition(etag_func=caching.table_page_etag)
def table_detail(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    return _render_table_page(request, table_id)


def _board_or_redirect(
    request: HtmxHttpRequest,
    table_id: int,
    written: services.TapResult | services.UndoResult | None = None,
) -> HttpResponse:
    """After a write: the fresh board for htmx, a redirect to the table page otherwise.
    The body and its X-Board-ETag name one state: the one a tap or an undo of one wrote
    (rendered from what its transaction held, tagged with the version it committed), else
    a fresh snapshot.
    The page's script sends the tag back, so the polls answer 304 and the message stays on
    screen until the table changes again."""
    if not request.htmx:
        return redirect("matches:table", table_id=table_id)
    if written is not None and written.board is not None and written.stamped is not None:
        stamped = written.stamped
        response = _render_board(request, stamped.table, written.board, written.tonight)
        response[BOARD_ETAG_HEADER] = caching.table_page_tag(
            request, stamped.pk, stamped=stamped, tonight_at=written.tonight_at
        )
        return response
    caching.forget_stamp(request)
    response = _render_table_page(request, table_id)
    response[BOARD_ETAG_HEADER] = response["ETag"]
    del response["ETag"]
    return response


@host_required
@require_POST
def table_tap(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    form = TapForm(request.POST, sender=request.user)
    if not form.is_valid():
        messages.error(request, feedback.BAD_TAP)
        return tap_queue.mark(_board_or_redirect(request, table_id), tap_queue.refusal())
    result = None
    try:
        result = services.match_eliminate(
            table_id=table_id, **form.service_kwargs(), by=request.user
        )
    except Table.DoesNotExist:
        raise Http404 from None
    except RuleError as error:
        messages.error(request, error.message)
        outcome = tap_queue.refusal(error)
    else:
        if message := feedback.tap_message(result, table=result.match.table):
            messages.info(request, message)
        outcome = tap_queue.outcome_of(result)
    return tap_queue.mark(_board_or_redirect(request, table_id, result), outcome)


@host_required
@require_http_methods(["GET", "POST"])
def table_undo(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """POST takes back the latest tap. GET is the confirmation asked for when that undo
    would also drop the next match's new roster."""
    if request.method == "GET":
        table = _table_or_404(table_id)
        board = selectors.table_board(table=table, for_host=True)
        if not (may_change_table(request.user, table) and board.undo_drops_roster):
            return redirect("matches:table", table_id=table.pk)
        return render(request, "matches/undo_confirm.html", {"table": table, "board": board})
    form = UndoForm(request.POST, sender=request.user)
    if not form.is_valid():
        table = _table_or_404(table_id)
        messages.error(request, feedback.BAD_UNDO)
        return tap_queue.mark(_board_or_redirect(request, table.pk), tap_queue.refusal())
    result = None
    try:
        result = services.table_undo_last(
            table_id=table_id, **form.service_kwargs(), by=request.user
        )
    except Table.DoesNotExist:
        raise Http404 from None
    except RuleError as error:
        messages.error(request, error.message)
        outcome = tap_queue.refusal(error)
    else:
        messages.info(request, feedback.undo_message(result))
        outcome = tap_queue.outcome_of(result)
    return tap_queue.mark(_board_or_redirect(request, table_id, result), outcome)


def _roster_refused(table: Table, board: selectors.Board, user) -> str | None:
    """Why this user may not edit the roster now, or None."""
    if not may_change_table(user, table):
        return services.NOT_YOUR_TABLE
    return services.TABLE_CLOSED if board.match is None else None


@host_required
@require_http_methods(["GET", "POST"])
def table_roster(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(table_id)
    board = selectors.table_board(table=table)
    if refused := _roster_refused(table, board, request.user):
        messages.error(request, refused)
        return redirect("matches:table", table_id=table.pk)
    form = RosterForm(request.POST or None, initial=RosterForm.initial_for(board))
    if request.method == "POST" and form.is_valid():
        try:
            match = services.match_set_roster(
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
    table = _table_or_404(table_id)
    if request.method == "GET":
        if not (table.is_open and may_change_table(request.user, table)):
            return redirect("matches:table", table_id=table.pk)
        context = {"table": table, "board": selectors.table_board(table=table)}
        return render(request, "matches/close_confirm.html", context)
    form = CloseForm(request.POST)
    discard = form.cleaned_data["discard"] if form.is_valid() else None
    try:
        services.table_close(table_id=table.pk, by=request.user, discard_match_id=discard)
    except RuleError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, feedback.CLOSED, extra_tags=feedback.CLOSED_TAG)
    return redirect("matches:table", table_id=table.pk)


@host_required
@require_POST
def table_reopen(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(table_id)
    try:
        match = services.table_reopen(table_id=table.pk, by=request.user)
    except RuleError as error:
        messages.error(request, error.message)
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


def _filed_page(*, json: bool):
    """A view of a page of filed matches (?before=): a bad page is refused with a 400
    saying why, before the ETag is worked out."""

    def decorator(view):
        @wraps(view)
        def inner(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
            form = caching.filed_page(request)
            if form.is_valid():
                return view(request, *args, **kwargs)
            if json:
                return json_response({"error": form.first_error()}, status=400)
            return HttpResponseBadRequest(
                form.first_error(), content_type="text/plain; charset=utf-8"
            )

        return inner

    return decorator


def _older_link(route: str, table_id: int) -> Callable[[int], str]:
    """The path of the page of filed matches before a number (a path: the same document
    whatever host name the reader used)."""
    path = reverse(route, args=[table_id])
    return lambda before: f"{path}?{urlencode({'before': before})}"


@require_safe
@_filed_page(json=False)
@vary_on_headers("Cookie")
@caching.shared_cache(when=caching.is_spectator)
@condition(etag_func=caching.matches_etag)
def table_matches(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The table's filed matches, newest first, a page at a time."""
    before = caching.filed_before(request)

    def read(table: Table) -> selectors.FiledPage:
        return selectors.table_filed_matches(table=table, before=before)

    def render_page(snapshot: Snapshot) -> HttpResponse:
        page = snapshot.content
        context = {"table": snapshot.table, "matches": page.matches, "before": before}
        if page.older is not None:
            context["older"] = _older_link("matches:matches", table_id)(page.older)
        return render(request, "matches/matches.html", context)

    # The latest page is what a visitor opens: kept for spectators; older pages are read.
    keep = before is None and caching.is_spectator(request)
    return caching.table_response(
        request, table_id, caching.MATCHES_PAGE, read, render_page, keep=keep
    )


@require_safe
def match_detail(request: HtmxHttpRequest, table_id: int, number: int) -> HttpResponse:
    table = _table_or_404(table_id)
    match = selectors.match_detail(table=table, number=number)
    if match is None:
        raise Http404
    audit = selectors.match_audit(match=match)
    corrections = selectors.match_corrections(match=match)
    # The orders were kept as names: each read as this viewer reads its player (issue 22).
    players = [seat.player for seat in match.seats.all()]
    real = caching.real_names(request)
    for correction in corrections:
        for order in ("before", "after"):
            shown = public_names.names_as_shown(
                getattr(correction, order), players=players, real_names=real
            )
            setattr(correction, f"{order}_shown", shown)
    context = {
        "table": table,
        "match": match,
        "seats": match.seats.all(),
        "audit": audit,
        "corrections": corrections,
        "may_correct": match.status == match.Status.FILED and may_change_table(request.user, table),
    }
    return render(request, "matches/match.html", context)


@require_safe
@caching.shared_cache()
@condition(etag_func=caching.api_table_etag)
def api_table(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The table, its open match and its latest filed matches; next links the older ones."""
    older = _older_link("matches:api_table_matches", table_id)
    real = caching.real_names(request)

    def read(table: Table) -> dict:
        with translation.override(None):  # the same document in every language
            return selectors.table_api(table=table, link_older=older, real_names=real)

    response = caching.table_response(
        request,
        table_id,
        caching.TABLE_API,
        read,
        lambda snapshot: json_response(snapshot.content),
        keep=True,
    )
    # The same document in every language: a shared cache keeps one copy, not one per
    # Accept-Language (middleware.LanguageNeutralMiddleware drops what LocaleMiddleware adds).
    language_neutral(response)
    return response


@require_safe
@_filed_page(json=True)
@caching.shared_cache()
@condition(etag_func=caching.api_matches_etag)
def api_table_matches(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """A page of the table's filed matches (?before=), oldest first, as in the JSON."""
    before = caching.filed_before(request)
    older = _older_link("matches:api_table_matches", table_id)
    real = caching.real_names(request)

    def read(table: Table) -> dict:
        with translation.override(None):  # the same document in every language
            return selectors.table_api_matches(
                table=table, before=before, link_older=older, real_names=real
            )

    response = caching.table_response(
        request, table_id, caching.TABLE_API_MATCHES, read, json_response_of, keep=False
    )
    language_neutral(response)
    return response


def json_response_of(snapshot: Snapshot) -> HttpResponse:
    return json_response(snapshot.content)


def csrf_failure(request: HtmxHttpRequest, reason: str = "") -> HttpResponse:
    """A clear page instead of Django's technical one; nothing was saved."""
    return render(request, "matches/csrf_failure.html", status=403)


@require_safe
@caching.shared_cache()
@condition(etag_func=caching.results_csv_etag)
def table_results_csv(request: HtmxHttpRequest, table_id: int) -> StreamingHttpResponse:
    """Every filed result of the table, streamed as it is read; tagged with the table's
    version, so a spreadsheet refreshing it gets a 304 until the table changes."""
    stamped = caching.stamp(request, table_id)
    if stamped is None:
        raise Http404
    table = stamped.table
    real = caching.real_names(request)
    rows = (
        table_result_row(table, seat, real_names=real)
        for seat in selectors.table_results(table=table)
    )
    response = csv_stream(table_results_filename(table), TABLE_RESULTS_HEADER, rows)
    language_neutral(response)
    return response


def _read_tv(table: Table) -> tuple:
    board = selectors.table_board(table=table, last_result=True)
    # A closed table's TV tells the night's story (issue 24).
    night = None if table.is_open else story.night_story(table=table)
    return board, tonight.table_tonight(table=table), night


@require_safe
@vary_on_headers("HX-Request", "Cookie")
@caching.shared_cache()
@condition(etag_func=caching.tv_etag)
def table_tv(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The big screen for the pub's TV: no login, large type, polls itself."""

    def render_tv(snapshot: Snapshot) -> HttpResponse:
        board, tonight_rows, night = snapshot.content
        context = {
            "table": snapshot.table,
            "board": board,
            "tonight": tonight_rows,
            **story_context(night),
            "poll_seconds": POLL_SECONDS,
            "closed_poll_seconds": CLOSED_POLL_SECONDS,
            # The pub's screen: the public's names, even in a host's browser.
            "real_names": False,
        }
        template = "matches/tv.html#tv" if request.htmx else "matches/tv.html"
        return render(request, template, context)

    return caching.table_response(
        request, table_id, caching.TV_PAGE, _read_tv, render_tv, keep=True
    )
