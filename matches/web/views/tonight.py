"""The night's story at a table: the Tonight page, with its text to copy, and the
share card as a PNG. Public like the table page; both are read from one snapshot of the
table and kept per state (web/caching/renderings.py), so the card is drawn once per change, not per
request."""

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.core.stamp import Snapshot
from matches.models import Table
from matches.play import story as stories
from matches.web import share_card
from matches.web import story as words
from matches.web.caching.headers import shared_cache
from matches.web.caching.renderings import table_response
from matches.web.caching.tags import (
    TONIGHT_CARD,
    TONIGHT_PAGE,
    is_spectator,
    tonight_card_etag,
    tonight_etag,
)
from matches.web.htmx import HtmxHttpRequest


def _read(table: Table) -> stories.Story:
    return stories.night_story(table=table)


@require_safe
@vary_on_headers("Cookie")
@shared_cache(when=is_spectator)
@condition(etag_func=tonight_etag)
def table_tonight(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The night's story: champion, each player's line, the longest run, the biggest upset."""

    def render_page(snapshot: Snapshot) -> HttpResponse:
        story = snapshot.content
        link = request.build_absolute_uri(reverse("matches:tonight", args=[table_id]))
        text = words.share_text(story, link)
        context = {
            "table": snapshot.table,
            "share_text": text,
            "share_rows": text.count("\n") + 1,  # the whole text in view, no scrolling
            **words.story_context(story),
        }
        return render(request, "matches/tonight.html", context)

    keep = is_spectator(request)
    return table_response(request, table_id, TONIGHT_PAGE, _read, render_page, keep=keep)


@require_safe
@vary_on_headers("Cookie")
@shared_cache()
@condition(etag_func=tonight_card_etag)
def table_tonight_png(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The share card: the story drawn as a 1080x1080 PNG in the reader's language."""

    def draw(snapshot: Snapshot) -> HttpResponse:
        return HttpResponse(share_card.share_card(snapshot.content), content_type="image/png")

    return table_response(request, table_id, TONIGHT_CARD, _read, draw, keep=True)
