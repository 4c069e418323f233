"""The wording of play's refusals: what its services raise, and what the forms say when they
check the same rules before a write (a launch's names and mode, a table's name)."""

from django.utils.translation import gettext_lazy as _

TABLE_NAME_EMPTY = _("Give the table a name.")
TABLE_NAME_TOO_LONG = _("A table name is at most %(limit_value)s characters.")
UNKNOWN_MODE = _("Choose a mode: Winner takes all or Ranked (3/2/1).")
TOO_FEW_PLAYERS = _("A table needs at least %(min)s players; %(count)s given.")
TOO_MANY_PLAYERS = _("A table seats at most %(max)s players; %(count)s given.")
DUPLICATE_PLAYER = _("“%(name)s” is listed twice (names ignore upper and lower case).")
NOT_YOUR_TABLE = _(
    "This table is at %(venue)s: only its hosts, its managers and the organiser can change it; "
    "nothing was changed."
)
NOT_YOUR_VENUE = _(
    "You do not host at %(venue)s: only its hosts, its managers and the organiser can launch a "
    "table there; nothing was saved."
)
CHOOSE_VENUE = _("Choose the venue the table is played at.")
NO_VENUE = _(
    "You do not host at any venue yet: ask the organiser or a venue manager for an invitation; "
    "nothing was saved."
)
TABLE_CLOSED = _("This table is closed; nothing was changed.")
MATCH_NOT_FOUND = _("That match does not exist; nothing was changed.")
WRONG_TABLE = _("That match belongs to another table; nothing was changed.")
MATCH_FILED = _("Match %(number)s is already filed; nothing was changed.")
MATCH_DISCARDED = _("Match %(number)s is no longer in play; nothing was changed.")
TAP_MATCH_DISCARDED = _(
    "%(name)s’s tap was for match %(number)s, which is no longer in play; nothing was changed."
)
NOT_THAT_NUMBER = _("That match is not match %(number)s; nothing was changed.")
CROWNED_OTHERWISE = _(
    "%(name)s’s tap was not recorded: match %(number)s did not open as this tablet expected; "
    "nothing was changed."
)
CROWNED_OTHERWISE_UNNUMBERED = _(
    "%(name)s’s tap was not recorded: its match did not open as this tablet expected; "
    "nothing was changed."
)
KEY_REUSED = _(
    "That key was already used for %(name)s’s tap in match %(number)s; nothing was changed."
)
UNKNOWN_PLAYER = _("That player is not seated in this match; nothing was changed.")
ALREADY_OUT = _("%(name)s is already out; nothing was changed.")
NOTHING_TO_UNDO = _("There is nothing to undo.")
TAP_WAS_UNDONE = _("That tap was already recorded and has since been undone; nothing was changed.")
TAP_NOT_FOUND = _("That tap is not on this table; nothing was changed.")
ALREADY_UNDONE = _("That tap was already undone; nothing was changed.")
NOT_LATEST = _(
    "Only the most recent tap can be undone and the table has moved on since; nothing was changed."
)
MATCH_NOT_OPEN = _("Match %(number)s has not started; nothing was changed.")
TAP_NEVER_RECORDED = _("That tap was never recorded, so there is nothing to undo.")
NOT_LATEST_NAMED = _(
    "%(name)s’s tap is no longer the most recent one on this table, so it was not undone; "
    "nothing was changed."
)
ROSTER_LOCKED = _("The roster can only change before the first tap of a match.")
MATCH_UNDER_WAY = _(
    "Match %(number)s is under way (out so far: %(names)s). Confirm that it is discarded, or "
    "finish it first; nothing was changed."
)
TABLE_NOT_CLOSED = _("This table is open; nothing was changed.")
UNDO_DROPS_ROSTER = _(
    "Undoing this reopens match %(number)s and removes match %(next)s with its new roster. "
    "Confirm to go ahead; nothing was changed."
)
FINALS_TABLE_FIXED = _(
    "This is a finals table: its players are set by the draw and it closes when its match is "
    "won; nothing was changed."
)
