"""What the host reads after a write: message wording is presentation, so it lives with the
views that show it, not with the rules in play/services/."""

from django.contrib.humanize.templatetags.humanize import ordinal
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from matches.models import Table
from matches.play.services.tap import TapOutcome
from matches.play.services.undo import UndoOutcome
from matches.rules.scoring import shown_place

BAD_TAP = _("That tap could not be read; nothing was changed. Reload the page and try again.")
BAD_UNDO = _("That undo could not be read; nothing was changed. Reload the page and try again.")
CLOSED = _("Table closed. No further match will open.")
CLOSED_TAG = "table-closed"  # marks that message, so the page does not say it twice
ROSTER_SAVED = _("Roster saved for match %(number)s.")
REOPENED = _("Table reopened: match %(number)s is open.")
OUT_PLACED = _("%(name)s is out, %(place)s.")
OUT = _("%(name)s is out.")
WINS = _("%(name)s wins match %(number)s!")
ALREADY_RECORDED = _("Already recorded: %(message)s")
UNDONE = _("Undone: %(name)s is back in match %(number)s.")
UNDONE_CROWNING = _("Undone: %(name)s is back and match %(number)s is open again.")


def _fill(template: str, **params: object) -> SafeString:
    """The translated sentence with its values escaped and names isolated (<bdi>), so a
    right-to-left name cannot reorder the words around it. Messages keep the safe flag."""
    return mark_safe(str(template) % {key: conditional_escape(v) for key, v in params.items()})  # noqa: S308


def _name(name: str) -> SafeString:
    return format_html("<bdi>{}</bdi>", name)


def tap_message(result: TapOutcome, *, table: Table) -> str | None:
    """What the host reads after a tap: "Ben is out, 4th.". A crowning says nothing here:
    the result card shows every place (or the winner) once, instead of a second sentence."""
    if result.winner is not None and not result.replayed:
        return None
    name = _name(result.tap.player.name)
    place = shown_place(table.mode, result.tap.place)
    if place is not None:
        message = _fill(OUT_PLACED, name=name, place=ordinal(place))
    else:
        message = _fill(OUT, name=name)
    if result.winner is not None:
        winner = _fill(WINS, name=_name(result.winner.name), number=result.match.number)
        message = format_html("{} {}", message, winner)
    if result.replayed:
        message = _fill(ALREADY_RECORDED, message=message)
    return message


def undo_message(result: UndoOutcome) -> str:
    """What the host reads after an undo, saying whether a filed match opened again."""
    template = UNDONE_CROWNING if result.reopened else UNDONE
    message = _fill(template, name=_name(result.player.name), number=result.match.number)
    if result.replayed:
        message = _fill(ALREADY_RECORDED, message=message)
    return message


def roster_saved(number: int) -> str:
    return str(ROSTER_SAVED) % {"number": number}


def reopened(number: int) -> str:
    return str(REOPENED) % {"number": number}
