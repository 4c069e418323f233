"""What the host reads after a write: message wording is presentation, so it lives with the
views that show it, not with the rules in services.py."""

from django.contrib.humanize.templatetags.humanize import ordinal
from django.utils.translation import gettext_lazy as _

from .models import Table
from .scoring import shown_place
from .services import TapResult, UndoResult

BAD_TAP = _("That tap could not be read; nothing was changed. Reload the page and try again.")
BAD_UNDO = _("That undo could not be read; nothing was changed. Reload the page and try again.")
CLOSED = _("Table closed. No further match will open.")
ROSTER_SAVED = _("Roster saved for match %(number)s.")
OUT_PLACED = _("%(name)s is out, %(place)s.")
OUT = _("%(name)s is out.")
WINS = _("%(name)s wins match %(number)s!")
ALREADY_RECORDED = _("Already recorded: %(message)s")
UNDONE = _("Undone: %(name)s is back in match %(number)s.")
UNDONE_CROWNING = _("Undone: %(name)s is back and match %(number)s is open again.")


def tap_message(result: TapResult, *, table: Table) -> str:
    """What the host reads after a tap: "Ben is out, 4th." and, on a crowning, the winner."""
    name = result.tap.player.name
    place = shown_place(table.mode, result.tap.place)
    if place is not None:
        message = str(OUT_PLACED) % {"name": name, "place": ordinal(place)}
    else:
        message = str(OUT) % {"name": name}
    if result.winner is not None:
        message += " " + str(WINS) % {"name": result.winner.name, "number": result.match.number}
    if result.replayed:
        message = str(ALREADY_RECORDED) % {"message": message}
    return message


def undo_message(result: UndoResult) -> str:
    """What the host reads after an undo, saying whether a filed match opened again."""
    template = UNDONE_CROWNING if result.reopened else UNDONE
    return str(template) % {"name": result.tap.player.name, "number": result.match.number}


def roster_saved(number: int) -> str:
    return str(ROSTER_SAVED) % {"number": number}
