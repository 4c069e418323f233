"""League standings as a page, JSON and CSV, with the table, date, season and mode filters.
Rows are rendered once per change of the standings (web/caching/standings.py keys them)."""

from functools import partial
from typing import cast

from django.http import HttpResponse, JsonResponse, QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.models import Table
from matches.play import selectors as play
from matches.ratings import selectors as ratings
from matches.results import standings as league_standings
from matches.results.standings import StandingsQuery
from matches.web.caching.headers import shared_cache
from matches.web.caching.renderings import rendered_rows
from matches.web.caching.standings import (
    api_standings_etag,
    cached,
    form_key,
    mode_played_most,
    ratings_updating,
    standings_etag,
    standings_filters,
    standings_key,
    standings_stamp,
)
from matches.web.caching.tags import audience, etag, is_spectator, real_names
from matches.web.exports import (
    LEAGUE_RESULTS_FILENAME,
    STANDINGS_CSV_HEADER,
    TABLE_RESULTS_HEADER,
    csv_response,
    csv_stream,
    json_response,
    league_result_row,
    standings_csv_row,
    standings_filename,
)
from matches.web.forms.errors import first_error
from matches.web.forms.standings import StandingsFilterForm, asked_filters
from matches.web.htmx import HtmxHttpRequest
from matches.web.middleware import language_neutral
from matches.web.standing_rows import standing_row


def _standing_rows_html(request: HtmxHttpRequest, query: StandingsQuery, table_id) -> str:
    """The standings' rows, put together once per change of the standings: a league has
    hundreds of players and this is the page everyone refreshes."""
    players_url = reverse("matches:player", args=[0]).removesuffix("0/")
    real = real_names(request)

    def build() -> str:
        rated = {row.player_id: row for row in ratings.rating_table()}
        rows = [
            {"row": row, "rating": rated.get(row.player_id)}
            for row in league_standings.standings(query, real_names=real)
        ]
        # One reverse() for the player links instead of one per row (see make bench).
        context = {"wins_only": query.wins_only, "players_url": players_url}
        return rendered_rows(standing_row, rows, context, content=_row_content)

    return cached(standings_key(request, "rows", table_id), build)


def _filters_html(form: StandingsFilterForm) -> str:
    """The filter form as rendered. Its lists of tables and seasons change far less often
    than the standings (every filing moves those), so a valid form is kept by what it
    shows: those lists, the values in its fields and the language."""
    render = partial(render_to_string, "matches/_form_fields.html", {"form": form})
    if not form.is_valid():
        return render()  # with its errors, never kept
    choices = league_standings.filter_choices()
    if len(choices.venues) < 2 and "venue" in form.fields and not form.cleaned_data.get("venue"):
        # A league of one pub sees no venue choice (the parameter still reads).
        del form.fields["venue"]
    form.offer(choices)
    shown = [str(form[name].value()) for name in form.fields]
    return cached(form_key("filters", choices, shown), render)


def _mode_links(request: HtmxHttpRequest, form: StandingsFilterForm) -> list[tuple[str, str, bool]]:
    """For a league of both modes: each mode and both, as (label, query, shown), so the
    mode the page did not open on is one tap away. Empty for a league of one mode."""
    if not form.is_valid() or mode_played_most(request) is None:
        return []
    shown = form.cleaned_data.get("mode") or ""
    links = []
    for value, label in [*Table.Mode.choices, ("", _("Both modes"))]:
        data = cast(QueryDict, form.data).copy()  # the request's GET, as asked_filters left it
        data["mode"] = value
        links.append((str(label), data.urlencode(), value == shown))
    return links


def _row_content(row: dict) -> tuple:
    """Everything a standings row shows but the columns: the row's own fields and its
    rating as shown. Two rows with the same content read the same."""
    rating = row["rating"]
    return (row["row"], (rating.shown, rating.provisional) if rating else None)


@require_safe
@vary_on_headers("Cookie")
@shared_cache(when=is_spectator)
@condition(etag_func=standings_etag)
def standings(request: HtmxHttpRequest, table_id: int | None = None) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id) if table_id is not None else None
    form = standings_filters(request, table_id, default_season=True)
    if table is not None:
        form.fixed_table = table  # the table itself, not just its id: its mode picks the columns
    filters = form.query if form.is_valid() else None
    rows_html = _standing_rows_html(request, filters, table_id) if filters else ""
    filters_html = _filters_html(form)
    context = {"form": form, "filters_html": filters_html, "rows_html": rows_html, "table": table}
    context["venue"] = form.cleaned_data.get("venue") if form.is_valid() else None
    # What the standings shown are of (their columns and notes); None for a form in error.
    context["filters"] = filters
    # Rows show ratings: a form in error shows none.
    context["ratings_updating"] = form.is_valid() and ratings_updating(request)
    # The exports' links carry the filters shown, the default season included.
    context["query"] = form.data.urlencode()
    context["mode_links"] = _mode_links(request, form) if table is None else []
    status = 200 if form.is_valid() else 400
    return render(request, "matches/standings.html", context, status=status)


@require_safe
@shared_cache()
@condition(etag_func=api_standings_etag)
def api_standings(request: HtmxHttpRequest) -> JsonResponse:
    form = standings_filters(request)
    if not form.is_valid():
        return JsonResponse({"error": first_error(form)}, status=400)
    query, real = form.query, real_names(request)

    def build() -> list[dict]:
        with translation.override(None):  # names as every other JSON gives them
            rows = league_standings.standings(query, real_names=real)
            return [row.as_json() for row in rows]

    rows = cached(standings_key(request, "json"), build)
    return json_response({"filters": query.as_json(), "rows": rows})


@require_safe
def standings_csv(request: HtmxHttpRequest) -> HttpResponse:
    form = StandingsFilterForm(asked_filters(request.GET))
    if not form.is_valid():
        return HttpResponse(first_error(form), status=400, content_type="text/plain; charset=utf-8")
    query = form.query
    with translation.override(None):  # the file is the same in every language
        rows = league_standings.standings(query, real_names=real_names(request))
    rated = {row.player_id: row for row in ratings.rating_table()}
    filename = standings_filename(
        table=form.cleaned_data.get("table"),
        season=form.cleaned_data.get("season"),
        date_from=query.date_from if query.season_id is None else None,
        date_to=query.date_to if query.season_id is None else None,
        mode=query.mode,
        venue=query.venue_slug,
    )
    lines = (standings_csv_row(row, rated.get(row.player_id)) for row in rows)
    return csv_response(filename, STANDINGS_CSV_HEADER, lines)


def _league_results_etag(request: HtmxHttpRequest) -> str:
    # Every filing, unfiling, rename, merge and admin edit moves the standings stamp.
    # A host's file names players as entered: a tag of its own.
    return etag("results", standings_stamp(request), audience(request))


@require_safe
@shared_cache()
@condition(etag_func=_league_results_etag)
def league_results_csv(request: HtmxHttpRequest) -> StreamingHttpResponse:
    """Every table's filed results in one file, streamed as it is read, in filing order;
    a spreadsheet refreshing it gets a 304 until a result or a name changes."""
    real = real_names(request)
    rows = (league_result_row(seat, real_names=real) for seat in play.league_results())
    response = csv_stream(LEAGUE_RESULTS_FILENAME, TABLE_RESULTS_HEADER, rows)
    language_neutral(response)
    return response
