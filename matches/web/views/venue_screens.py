"""A venue's screens: its TV board (every open table at the pub, live) and its standings as
a page the pub's own website may frame."""

from typing import cast

from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.models import Venue
from matches.play import finals_boards, venue_boards
from matches.results import standings as league_standings
from matches.rules.nights import night_of
from matches.web.caching.headers import shared_cache
from matches.web.caching.standings import cached
from matches.web.caching.venues import (
    embed_filters,
    venue_board_etag,
    venue_board_state,
    venue_embed_etag,
    venue_embed_key,
)
from matches.web.forms.errors import first_error
from matches.web.framing import framed_by_venue_origins
from matches.web.htmx import HtmxHttpRequest
from matches.web.views import tables


@require_safe
@vary_on_headers("HX-Request", "Cookie")
@shared_cache()
@condition(etag_func=venue_board_etag)
def venue_board(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The pub's TV for the whole season: its open tables side by side, tonight's totals
    when none is open. No login, large type, follows its stream or polls."""
    state = venue_board_state(request, slug)
    if state is None:
        raise Http404
    board = venue_boards.venue_board(state=state)
    context = {
        "venue": state.venue,
        "boards": board.boards,
        "tonight_tables": board.tonight,
        # A season's champion crowned here tonight, at its finals night (read only when a
        # finals table is among tonight's: no query on any other night).
        "champions": finals_boards.venue_champions(venue_id=state.venue.pk, night=night_of())
        if any(table.finals for table in state.tables)
        else [],
        "poll_seconds": tables.POLL_SECONDS,
        # The pub's screen: the public's names, even in a host's browser.
        "real_names": False,
    }
    template = "matches/venue_board.html#board" if request.htmx else "matches/venue_board.html"
    return render(request, template, context)


@require_safe
@framed_by_venue_origins
@vary_on_headers("Cookie")
@shared_cache()
@condition(etag_func=venue_embed_etag)
def venue_standings_embed(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The venue's standings for the pub's own website to frame: no navigation, compact,
    the public's names only."""
    venue = get_object_or_404(Venue, slug=slug)
    form = embed_filters(request, slug)
    if not form.is_valid():
        context = {"venue": venue, "error": first_error(form)}
        return render(request, "matches/venue_standings_embed.html", context, status=400)
    query = form.query

    def build() -> list:
        return league_standings.standings(query, real_names=False)

    context = {
        "venue": venue,
        "rows": cached(venue_embed_key(request, slug), build),
        "filters": query,
        "season": form.cleaned_data.get("season"),
        "standings_query": cast(QueryDict, form.data).urlencode(),  # as asked_filters left it
    }
    return render(request, "matches/venue_standings_embed.html", context)
