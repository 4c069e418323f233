"""The venue board's tag: the venue, the tables it shows with their versions, the restore
epoch, and the variant (fragment or page, language, night), read once per request and
shared with the view."""

from django.utils.translation import get_language

from matches.play import venue_boards
from matches.play.venue_boards import VenueState
from matches.web.caching import memo
from matches.web.caching.night import clock
from matches.web.caching.tags import digest, etag
from matches.web.htmx import HtmxHttpRequest


def venue_board_state(request: HtmxHttpRequest, slug: str) -> VenueState | None:
    """The venue and the tables its board shows (None: no such venue), once per request."""

    def read() -> VenueState | None:
        venue = venue_boards.venue_by_slug(slug=slug)
        return None if venue is None else venue_boards.venue_state(venue=venue)

    return memo.once(request, "venue board", read, slug)


def venue_board_etag(request: HtmxHttpRequest, slug: str) -> str | None:
    state = venue_board_state(request, slug)
    if state is None:
        return None
    # Hashed: a venue of eight tables would make a long tag. No ".v<n>." part, which
    # stream.js reads as one table's version.
    shown = (state.venue.name, state.venue.slug, state.epoch, state.versions)
    return etag(
        f"vb{state.venue.pk}",
        digest(repr(shown), 8),
        int(bool(request.htmx)),
        get_language(),
        clock.tonight(),
    )
