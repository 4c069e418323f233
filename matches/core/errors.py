"""The one error a rule raises, and the codes it carries: the tablet's script (static/js/
tap-queue.js) and the tests tell refusals apart by these codes, never by their wording."""

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise


class Refusal(StrEnum):
    """Why a write was refused, as the tablet's queue reads it from the X-Tap-Code header."""

    REFUSED = "refused"  # a rule with no code of its own (form errors, hosts' pages)
    BAD_REQUEST = "bad_request"  # the request could not be read
    NOT_YOUR_TABLE = "not_your_table"
    NOT_YOUR_VENUE = "not_your_venue"  # a launch at a venue the host does not host at
    NOT_THE_ORGANISER = "not_the_organiser"  # the league's writes: venues, seasons, players…
    TABLE_CLOSED = "table_closed"
    MATCH_NOT_FOUND = "match_not_found"
    WRONG_TABLE = "wrong_table"
    MATCH_FILED = "match_filed"
    MATCH_DISCARDED = "match_discarded"
    MATCH_NOT_OPEN = "match_not_open"
    NOT_SEATED = "not_seated"
    ALREADY_OUT = "already_out"
    TAP_WAS_UNDONE = "tap_was_undone"
    KEY_REUSED = "key_reused"  # the key names a tap of another player, match or table
    CROWNED_OTHERWISE = "crowned_otherwise"  # the crowning a tap followed is not the one filed
    TAP_UNKNOWN = "tap_unknown"
    TAP_NOT_FOUND = "tap_not_found"
    ALREADY_UNDONE = "already_undone"
    NOTHING_TO_UNDO = "nothing_to_undo"
    NOT_LATEST = "not_latest"
    UNDO_DROPS_ROSTER = "undo_drops_roster"
    ROSTER_LOCKED = "roster_locked"
    # A close and a reopen (hosts' pages: the queue never sends them).
    MATCH_UNDER_WAY = "match_under_way"  # a close must name the match it discards
    TABLE_NOT_CLOSED = "table_not_closed"  # a reopen of a table that is open
    # Corrections of a filed match (play/corrections.py).
    MATCH_IN_PLAY = "match_in_play"
    NOT_THE_SEATED = "not_the_seated"
    ORDER_UNCHANGED = "order_unchanged"
    NIGHT_CLOSED = "night_closed"
    # Merging players: the host did not confirm that a hidden record's results go public.
    MERGE_SHOWS_HIDDEN = "merge_shows_hidden"
    # A season's qualification rules changed after its first night, not (or no longer)
    # confirmed as shown.
    RULES_UNCONFIRMED = "rules_unconfirmed"
    # Venues, their hosts and invitations (org/venues.py).
    NOT_VENUE_MANAGER = "not_venue_manager"  # a write only the venue's managers may make
    INVITATION_UNKNOWN = "invitation_unknown"
    INVITATION_SPENT = "invitation_spent"  # expired, or already used


class RuleError(Exception):
    """A write the rules refuse. Its message is shown to the host as it is; its code is for
    programs (the tablet's tap queue explains a refused tap by it)."""

    def __init__(
        self,
        message: "str | StrPromise",
        *,
        code: Refusal = Refusal.REFUSED,
        instead: Mapping[str, object] | None = None,
        **params: object,
    ) -> None:
        # A parameter may be a player (or a list of players), read here by name: the page
        # that keeps the message for later names them by reference instead (web.feedback).
        self.template = message
        self.params = params
        shown = {key: _text(value) for key, value in params.items()}
        self.message = str(message) % shown if params else str(message)
        self.code = code
        # What stands instead of the refused write, for programs (a tap refused because
        # another tablet put its player out: the place they have, who won): plain values.
        self.instead = dict(instead) if instead else None
        super().__init__(self.message)


def _text(value: object) -> object:
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value)
    return value
