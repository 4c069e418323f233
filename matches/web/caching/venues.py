"""The venue screens' tags. The board's: the venue, the tables it shows with their versions,
the restore epoch, and the variant (fragment or page, language, night), read once per
request and shared with the view. The standings embed's: the standings' stamp and filters."""

from functools import partial

from django.utils.translation import get_language

from matches.play import venue_boards
from matches.play.venue_boards import VenueState
from matches.results import seasons
from matches.web.caching import memo
from matches.web.caching.night import clock
from matches.web.caching.standings import mode_played_most, standings_stamp
from matches.web.caching.tags import digest, etag, key
from matches.web.forms.standings import StandingsFilterForm, asked_filters
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


def embed_filters(request: HtmxHttpRequest, slug: str) -> StandingsFilterForm:
    """The embed's standings filters: the venue's, opening on tonight's season and the mode
    played most as the standings page does, with what the framing site's address asks."""

    def build() -> StandingsFilterForm:
        data = request.GET.copy()
        data["venue"] = slug
        mode = partial(mode_played_most, request, slug)
        asked = asked_filters(data, current_season=seasons.current_season, default_mode=mode)
        return StandingsFilterForm(asked)

    return memo.once(request, "embed filters", build, slug)


def venue_embed_key(request: HtmxHttpRequest, slug: str) -> str:
    """The embed's rows change with the standings' stamp, the filters and the language; it
    shows the public's names to everyone."""
    form = embed_filters(request, slug)
    filters = form.query.as_json() if form.is_valid() else digest(request.GET.urlencode(), 8)
    return key("embed", slug, standings_stamp(request), digest(repr(filters), 8), get_language())


def venue_embed_etag(request: HtmxHttpRequest, slug: str) -> str:
    return etag(venue_embed_key(request, slug))
