"""The finals board's tag: the season's finals night, each heat's and the final's table with
its version and winner, the restore epoch and the variant (fragment or page, language,
night), read once per request and shared with the view."""

from django.utils.translation import get_language

from matches.play import finals_boards
from matches.play.finals_boards import FinalsState
from matches.web.caching import memo
from matches.web.caching.night import clock
from matches.web.caching.tags import digest, etag
from matches.web.htmx import HtmxHttpRequest


def finals_board_state(request: HtmxHttpRequest, season_id: int) -> FinalsState | None:
    """The finals night and its tables (None: the season has none), once per request."""

    def read() -> FinalsState | None:
        return finals_boards.finals_state(season_id=season_id)

    return memo.once(request, "finals board", read, season_id)


def finals_board_etag(request: HtmxHttpRequest, season_id: int) -> str | None:
    state = finals_board_state(request, season_id)
    if state is None:
        return None
    # Hashed, with no ".v<n>." part (stream.js reads that as one table's version).
    shown = (state.event.season.name, state.epoch, state.versions)
    return etag(
        f"fb{state.event.pk}",
        digest(repr(shown), 8),
        int(bool(request.htmx)),
        get_language(),
        clock.tonight(),
    )
