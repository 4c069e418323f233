"""The pub's TV: a table's big screen, live, with the night's story once it closes."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.core.stamp import Snapshot
from matches.models import Table
from matches.play import selectors, story, tonight
from matches.web.caching.headers import shared_cache
from matches.web.caching.renderings import table_response
from matches.web.caching.tags import TV_PAGE, tv_etag
from matches.web.htmx import HtmxHttpRequest
from matches.web.story import story_context
from matches.web.views import tables


def _read_tv(table: Table) -> tuple:
    board = selectors.table_board(table=table, last_result=True)
    # A closed table's TV tells the night's story.
    night = None if table.is_open else story.night_story(table=table)
    return board, tonight.table_tonight(table=table), night


@require_safe
@vary_on_headers("HX-Request", "Cookie")
@shared_cache()
@condition(etag_func=tv_etag)
def table_tv(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The big screen for the pub's TV: no login, large type, polls itself."""

    def render_tv(snapshot: Snapshot) -> HttpResponse:
        board, tonight_rows, night = snapshot.content
        context = {
            "table": snapshot.table,
            "board": board,
            "tonight": tonight_rows,
            **story_context(night),
            "poll_seconds": tables.POLL_SECONDS,
            "closed_poll_seconds": tables.CLOSED_POLL_SECONDS,
            # The pub's screen: the public's names, even in a host's browser.
            "real_names": False,
        }
        template = "matches/tv.html#tv" if request.htmx else "matches/tv.html"
        return render(request, template, context)

    return table_response(request, table_id, TV_PAGE, _read_tv, render_tv, keep=True)
