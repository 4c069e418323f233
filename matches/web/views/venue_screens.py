"""A venue's screens: its TV board (every open table at the pub, live) and its standings as
a page the pub's own website may frame."""

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.play import venue_boards
from matches.web.caching.headers import shared_cache
from matches.web.caching.venues import venue_board_etag, venue_board_state
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
        "poll_seconds": tables.POLL_SECONDS,
        # The pub's screen: the public's names, even in a host's browser.
        "real_names": False,
    }
    template = "matches/venue_board.html#board" if request.htmx else "matches/venue_board.html"
    return render(request, template, context)
