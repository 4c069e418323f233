"""Thin views: read a form, call one service or selector, render. Every htmx request gets
the board fragment; every plain request gets a whole page or a redirect, so the app also
works without JavaScript."""

import csv
import hashlib
import json
import uuid
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import cache_control
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import condition, require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from . import charts, selectors, services, showdown
from .forms import (
    FirstHostForm,
    LaunchForm,
    RosterForm,
    ShowdownForm,
    StandingsFilterForm,
    TapForm,
    UndoForm,
)
from .hands import SUIT_SYMBOL, HandError
from .models import Player, Table, points_for

BAD_TAP = _("That tap could not be read; nothing was changed. Reload the page and try again.")
BAD_UNDO = _("That undo could not be read; nothing was changed. Reload the page and try again.")
CLOSED = _("Table closed. No further match will open.")
ROSTER_SAVED = _("Roster saved for match %(number)s.")
POLL_SECONDS = 3
BOARD_ETAG_HEADER = "X-Board-ETag"
BOARD_TOP = 5
STANDINGS_CACHE_SECONDS = 24 * 3600


def host_required(view: Callable) -> Callable:
    """Only a logged-in host writes; anyone else is sent to log in and nothing changes."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.user.is_authenticated and request.user.is_active:
            return view(request, *args, **kwargs)
        # After logging in, land on the page the write was made from, never on a POST URL.
        after = request.get_full_path()
        if request.method != "GET":
            after = (
                reverse("matches:table", args=[kwargs["table_id"]])
                if "table_id" in kwargs
                else reverse("matches:home")
            )
        response = redirect_to_login(after)
        if request.htmx:
            return HttpResponseClientRedirect(response.url)
        return response

    return wrapped


def _table_or_404(table_id: int) -> Table:
    return get_object_or_404(Table, pk=table_id)


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    tables = Table.objects.order_by("closed_at", "-created_at")[:50]
    return render(request, "matches/home.html", {"tables": tables})


@require_http_methods(["GET", "POST"])
def setup(request: HttpRequest) -> HttpResponse:
    """Create the first host account; once one exists this page is gone."""
    if get_user_model().objects.exists():
        raise Http404
    form = FirstHostForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            user = form.save(commit=False)
            user.is_staff = user.is_superuser = True
            user.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("matches:home")
    return render(request, "matches/setup.html", {"form": form})


@host_required
@require_http_methods(["GET", "POST"])
def table_new(request: HttpRequest) -> HttpResponse:
    form = LaunchForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            table = services.table_launch(
                name=form.cleaned_data["name"],
                player_names=form.cleaned_data["players"],
                mode=form.cleaned_data["mode"],
                by=request.user,
            )
        except services.RuleError as error:
            form.add_error(None, error.message)
        else:
            return redirect("matches:table", table_id=table.pk)
    return render(request, "matches/table_new.html", {"form": form})


def _board_etag(request: HttpRequest, table_id: int) -> str | None:
    """Cheap revalidation for polling: one indexed read of the table's change counter."""
    if len(messages.get_messages(request)):
        return None  # a message waits to be shown: always render
    return _board_version_tag(request, table_id)


def _viewer_tag(request: HttpRequest) -> str:
    """Who the page was rendered for: a host's page carries buttons and their CSRF token."""
    viewer = request.user.pk if request.user.is_authenticated else 0
    csrf = request.COOKIES.get(settings.CSRF_COOKIE_NAME, "")
    return hashlib.blake2s(f"{viewer}:{csrf}".encode(), digest_size=6).hexdigest()


def _board_version_tag(request: HttpRequest, table_id: int) -> str | None:
    version = selectors.table_version(table_id=table_id)
    if version is None:
        return None
    # The page differs per viewer, per fragment or whole page, and per language.
    return f'"t{table_id}.v{version}.{_viewer_tag(request)}.{int(bool(request.htmx))}.{get_language()}"'


def _render_board(request: HttpRequest, table: Table, *, status: int = 200) -> HttpResponse:
    board = selectors.table_board(table=table)
    is_host = services.can_host(request.user, table)
    context = {
        "board": board,
        "table": table,
        "is_host": is_host,
        # One key per rendered button: a double tap or a retried request repeats it.
        "tap_buttons": [(seat, uuid.uuid4()) for seat in board.standing] if is_host else [],
        "poll_seconds": POLL_SECONDS,
    }
    template = "matches/table.html#board" if request.htmx else "matches/table.html"
    return render(request, template, context, status=status)


@require_safe
@vary_on_headers("HX-Request", "Cookie")
@cache_control(no_cache=True, private=True)
@condition(etag_func=_board_etag)
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    return _render_board(request, _table_or_404(table_id))


def _after_write(request: HttpRequest, table: Table) -> HttpResponse:
    if not request.htmx:
        return redirect("matches:table", table_id=table.pk)
    response = _render_board(request, table)
    # The tag a poll of this board would now get: the page's script sends it back, so the
    # polls answer 304 and the message stays on screen until the table changes again.
    response[BOARD_ETAG_HEADER] = _board_version_tag(request, table.pk) or ""
    return response


@host_required
@require_POST
def table_tap(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(table_id)
    form = TapForm(request.POST)
    if not form.is_valid():
        messages.error(request, BAD_TAP)
        return _after_write(request, table)
    try:
        result = services.match_eliminate(
            table_id=table.pk,
            match_id=form.cleaned_data["match"],
            player_id=form.cleaned_data["player"],
            key=form.cleaned_data["key"] or uuid.uuid4(),
            by=request.user,
        )
    except services.RuleError as error:
        messages.error(request, error.message)
    else:
        level = messages.SUCCESS if result.winner else messages.INFO
        messages.add_message(request, level, services.tap_message(result, table=table))
    return _after_write(request, table)


@host_required
@require_POST
def table_undo(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(table_id)
    form = UndoForm(request.POST)
    if not form.is_valid():
        messages.error(request, BAD_UNDO)
        return _after_write(request, table)
    try:
        result = services.table_undo_last(
            table_id=table.pk, tap_id=form.cleaned_data["tap"], by=request.user
        )
    except services.RuleError as error:
        messages.error(request, error.message)
    else:
        messages.info(request, services.undo_message(result))
    return _after_write(request, table)


@host_required
@require_http_methods(["GET", "POST"])
def table_roster(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(table_id)
    if not services.can_host(request.user, table):
        messages.error(request, services.NOT_YOUR_TABLE)
        return redirect("matches:table", table_id=table.pk)
    board = selectors.table_board(table=table)
    if board.match is None:
        messages.error(request, services.TABLE_CLOSED)
        return redirect("matches:table", table_id=table.pk)
    initial = {
        "match": board.match.pk,
        "players": "\n".join(seat.player.name for seat in board.standing + board.out),
    }
    form = RosterForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            match = services.match_set_roster(
                table_id=table.pk,
                match_id=form.cleaned_data["match"],
                player_names=form.cleaned_data["players"],
                by=request.user,
            )
        except services.RuleError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, str(ROSTER_SAVED) % {"number": match.number})
            return redirect("matches:table", table_id=table.pk)
    context = {"table": table, "board": board, "form": form}
    return render(request, "matches/roster.html", context)


@host_required
@require_POST
def table_close(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(table_id)
    try:
        services.table_close(table_id=table.pk, by=request.user)
    except services.RuleError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, CLOSED)
    return redirect("matches:table", table_id=table.pk)


@require_safe
def table_matches(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(table_id)
    matches = selectors.table_filed_matches(table=table)
    return render(request, "matches/matches.html", {"table": table, "matches": matches})


@require_safe
def match_detail(request: HttpRequest, table_id: int, number: int) -> HttpResponse:
    table = _table_or_404(table_id)
    match = selectors.match_detail(table=table, number=number)
    if match is None:
        raise Http404
    seats = sorted(match.seats.all(), key=lambda s: (s.place is None, s.place or 0, s.position))
    taps = selectors.match_audit(table=table, number=number)
    context = {"table": table, "match": match, "seats": seats, "taps": taps}
    return render(request, "matches/match.html", context)


def _api_etag(request: HttpRequest, table_id: int) -> str | None:
    version = selectors.table_version(table_id=table_id)
    return None if version is None else f'"api{table_id}.v{version}"'


@require_safe
@cache_control(no_cache=True)
@condition(etag_func=_api_etag)
def api_table(request: HttpRequest, table_id: int) -> JsonResponse:
    table = _table_or_404(table_id)
    return JsonResponse(selectors.table_api(table=table), json_dumps_params={"ensure_ascii": False})


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A clear page instead of Django's technical one; nothing was saved."""
    return render(request, "matches/csrf_failure.html", status=403)


def _standing_rows_html(rows, player_base: str) -> str:
    """The standings' table rows, escaped. Built in Python rather than a template loop and
    cached per change of the standings: a league has hundreds of players and this is the
    page everyone refreshes (see make bench)."""
    return format_html_join(
        "\n",
        '<tr><td>{}{}</td><td><a href="{}{}/">{}</a></td><td>{}</td><td>{}</td><td>{}</td>'
        "<td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                "=" if r.shared else "",
                r.rank,
                player_base,
                r.player_id,
                r.player,
                r.played,
                r.wins,
                r.seconds,
                r.thirds,
                r.points,
                r.win_percent_text,
            )
            for r in rows
        ),
    )


def _standings_form(request: HttpRequest, table: Table | None = None) -> StandingsFilterForm:
    data = request.GET.copy()
    if table is not None:
        data["table"] = str(table.pk)
    return StandingsFilterForm(data)


def _league_stamp(request: HttpRequest) -> str:
    # Read once per request: the ETag and the cache key share it.
    if not hasattr(request, "_league_stamp"):
        request._league_stamp = selectors.league_stamp()
    return request._league_stamp


def _standings_key(request: HttpRequest, kind: str, table_id: int | None) -> str:
    query = hashlib.blake2s(request.GET.urlencode().encode(), digest_size=8).hexdigest()
    return f"{kind}.{_league_stamp(request)}.{table_id or 0}.{query}.{get_language()}"


def _standings_etag(request: HttpRequest, table_id: int | None = None) -> str:
    return f'"{_standings_key(request, "page", table_id)}.{_viewer_tag(request)}"'


def _cached_standings(request: HttpRequest, form: StandingsFilterForm, kind: str, table_id, build):
    """Standings change only when a match is filed or unfiled: compute once per change."""
    return cache.get_or_set(
        _standings_key(request, kind, table_id),
        lambda: build(selectors.standings(**form.selector_kwargs())),
        STANDINGS_CACHE_SECONDS,
    )


@require_safe
@vary_on_headers("Cookie")
@cache_control(no_cache=True, private=True)
@condition(etag_func=_standings_etag)
def standings(request: HttpRequest, table_id: int | None = None) -> HttpResponse:
    table = _table_or_404(table_id) if table_id is not None else None
    form = _standings_form(request, table)
    rows_html = ""
    if form.is_valid():
        # Rows link to player pages; one reverse() here instead of one per row.
        player_base = reverse("matches:player", args=[0])[: -len("0/")]
        rows_html = _cached_standings(
            request, form, "rows", table_id, lambda rows: _standing_rows_html(rows, player_base)
        )
    context = {
        "form": form,
        "rows_html": rows_html,
        "table": table,
        "query": request.GET.urlencode(),
    }
    return render(
        request, "matches/standings.html", context, status=200 if form.is_valid() else 400
    )


@require_safe
@cache_control(no_cache=True)
@condition(etag_func=lambda request: f'"{_standings_key(request, "json", None)}"')
def api_standings(request: HttpRequest) -> JsonResponse:
    form = _standings_form(request)
    if not form.is_valid():
        return JsonResponse({"error": form.first_error()}, status=400)
    fields = ("rank", "shared", "player", "played", "wins", "seconds", "thirds", "points")
    rows = _cached_standings(
        request,
        form,
        "json",
        None,
        lambda rows: [{name: getattr(row, name) for name in fields} for row in rows],
    )
    payload = {"filters": form.as_json(), "rows": rows}
    return JsonResponse(payload, json_dumps_params={"ensure_ascii": False})


def _csv_response(filename: str, header: list[str], rows) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    # The byte-order mark makes spreadsheets read the file as UTF-8 (accents intact).
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows(rows)
    return response


@require_safe
def standings_csv(request: HttpRequest) -> HttpResponse:
    form = _standings_form(request)
    if not form.is_valid():
        return HttpResponse(
            form.first_error(), status=400, content_type="text/plain; charset=utf-8"
        )
    rows = selectors.standings(**form.selector_kwargs())
    return _csv_response(
        "standings.csv",
        ["rank", "player", "played", "wins", "2nds", "3rds", "points", "win %"],
        (
            [f"={r.rank}" if r.shared else r.rank, r.player, r.played, r.wins, r.seconds,
             r.thirds, r.points, f"{r.win_percent:.1f}"]
            for r in rows
        ),
    )  # fmt: skip


@require_safe
def table_results_csv(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(table_id)
    seats = selectors.table_results(table=table)
    return _csv_response(
        f"table-{table.pk}-results.csv",
        ["match", "filed_at", "player", "place", "points", "winner"],
        (
            [
                seat.match.number,
                seat.match.filed_at.isoformat(),
                seat.player.name,
                seat.place if table.is_ranked or seat.place == 1 else "",
                "" if not table.is_ranked else points_for(table.mode, seat.place),
                "yes" if seat.place == 1 else "no",
            ]
            for seat in seats.iterator(chunk_size=2000)
        ),
    )


@require_safe
def player_detail(request: HttpRequest, player_id: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=player_id)
    history = selectors.player_history(player=player)
    context = {"history": history, "player": player, "chart": charts.player_chart(history)}
    return render(request, "matches/player.html", context)


def _board_tv_etag(request: HttpRequest, table_id: int) -> str | None:
    version = selectors.table_version(table_id=table_id)
    if version is None:
        return None
    return f'"tv{table_id}.v{version}.{int(bool(request.htmx))}.{get_language()}"'


@require_safe
@vary_on_headers("HX-Request")
@cache_control(no_cache=True)
@condition(etag_func=_board_tv_etag)
def table_board_tv(request: HttpRequest, table_id: int) -> HttpResponse:
    """The big screen for the pub's TV: no login, large type, polls itself."""
    table = _table_or_404(table_id)
    context = {
        "table": table,
        "board": selectors.table_board(table=table),
        "top": selectors.standings(table_id=table.pk)[:BOARD_TOP],
        "poll_seconds": POLL_SECONDS,
    }
    template = "matches/board.html#tv" if request.htmx else "matches/board.html"
    return render(request, template, context)


BAD_SHOWDOWN_JSON = _('Send JSON like {"hands": {"Ann": "QS 7D 4C", "Ben": "10h 10c 2s"}}.')
CARD_GRID = [
    [
        (f"{rank}{suit}", f"{rank}{SUIT_SYMBOL[value]}")
        for rank in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
    ]
    for suit, value in (("S", 4), ("H", 3), ("D", 2), ("C", 1))
]


@require_safe
def rules(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/rules.html")


@require_safe
def showdown_page(request: HttpRequest) -> HttpResponse:
    """Judge a showdown: a GET form (it changes nothing), so a result can be shared."""
    submitted = any(key.startswith("hand_") for key in request.GET)
    initial = {}
    table_id = request.GET.get("table", "")
    if table_id.isdigit():
        table = Table.objects.filter(pk=int(table_id)).first()
        if table is not None:
            board = selectors.table_board(table=table)
            initial = {f"name_{n}": seat.player.name for n, seat in enumerate(board.standing, 1)}
    form = ShowdownForm(request.GET if submitted else None, initial=initial)
    verdict = form.cleaned_data["verdict"] if submitted and form.is_valid() else None
    context = {"form": form, "verdict": verdict, "card_grid": CARD_GRID}
    return render(
        request, "matches/showdown.html", context, status=400 if submitted and not verdict else 200
    )


@csrf_exempt  # it changes nothing; scripts post JSON without a session
@require_POST
def api_showdown(request: HttpRequest) -> JsonResponse:
    try:
        hands = json.loads(request.body)["hands"]
        if not isinstance(hands, dict) or not all(
            isinstance(k, str) and k.strip() and isinstance(v, str) for k, v in hands.items()
        ):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        return JsonResponse({"error": str(BAD_SHOWDOWN_JSON)}, status=400)
    try:
        verdict = showdown.showdown_judge([(k.strip(), v) for k, v in hands.items()])
    except HandError as error:
        return JsonResponse({"error": showdown.error_message(error)}, status=400)
    return JsonResponse(verdict.as_json(), json_dumps_params={"ensure_ascii": False})
