"""What the host reads after a write: message wording is presentation, so it lives with the
views that show it, not with the rules in play/services/.

A message waits in the host's session until a page shows it, and a player named in it may
be erased, renamed or hidden meanwhile: a message names a player by reference (player_ref,
public_ref, absorbed_ref), and the name is read when the message is shown (with_names), as
the viewer reads it then. An erased name is never kept in a session."""

import re
from collections.abc import Iterable

from django.contrib.humanize.templatetags.humanize import ordinal
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeData, SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from matches.core.errors import RuleError
from matches.models import Player, PlayerMerge, Table
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


# A reference: private-use characters no name can hold (names are cleaned of them), the
# kind (p: a player as the viewer reads them; s: as the public does; m: the record a merge
# absorbed) and an id.
_REF = re.compile("\ue000([psm])([0-9]+)\ue001")


def player_ref(player: Player) -> str:
    return f"\ue000p{player.pk}\ue001"


def public_ref(player: Player) -> str:
    return f"\ue000s{player.pk}\ue001"


def absorbed_ref(merge: PlayerMerge) -> str:
    return f"\ue000m{merge.pk}\ue001"


def refusal_message(error: RuleError) -> str:
    """A refusal's message with every player it names by reference (the service passed the
    player, not the name)."""
    players = {key: value for key, value in error.params.items() if _players(value)}
    if not players:
        return error.message
    params = {
        key: ", ".join(player_ref(p) for p in _players(value)) if key in players else value
        for key, value in error.params.items()
    }
    return str(error.template) % params


def _players(value: object) -> list[Player]:
    if isinstance(value, Player):
        return [value]
    if isinstance(value, list | tuple) and value and all(isinstance(v, Player) for v in value):
        return list(value)
    return []


def with_names(text: str, *, real_names: bool, known: Iterable[Player] = ()) -> str:
    """A message with each reference replaced by the name as this viewer reads it now: from
    known (players the page has read already, as they are now), else one query per kind
    named. A message marked safe stays safe, its names escaped."""
    safe = isinstance(text, SafeData)
    text = str(text)
    found = _REF.findall(text)
    if not found:
        return mark_safe(text) if safe else text  # noqa: S308
    wanted = {kind: {int(pk) for k, pk in found if k == kind} for kind in "psm"}
    names: dict[tuple[str, int], str] = {}
    people = wanted["p"] | wanted["s"]
    read = {player.pk: player for player in known if player.pk in people}
    if people - set(read):
        read.update((p.pk, p) for p in Player.objects.filter(pk__in=people - set(read)))
    for player in read.values():
        names["p", player.pk] = player.shown_name(real=real_names)
        names["s", player.pk] = player.shown_name(real=False)
    if wanted["m"]:
        for pk, absorbed in PlayerMerge.objects.filter(pk__in=wanted["m"]).values_list(
            "pk", "absorbed_name"
        ):
            names["m", pk] = absorbed

    def name(match: re.Match) -> str:
        shown = names.get((match.group(1), int(match.group(2))), "–")
        return str(conditional_escape(shown)) if safe else shown

    replaced = _REF.sub(name, text)
    return mark_safe(replaced) if safe else replaced  # noqa: S308


def _name(player: Player) -> SafeString:
    return format_html("<bdi>{}</bdi>", player_ref(player))


def tap_message(result: TapOutcome, *, table: Table) -> str | None:
    """What the host reads after a tap: "Ben is out, 4th.". A crowning says nothing here:
    the result card shows every place (or the winner) once, instead of a second sentence."""
    if result.winner is not None and not result.replayed:
        return None
    name = _name(result.tap.player)
    place = shown_place(table.mode, result.tap.place)
    if place is not None:
        message = _fill(OUT_PLACED, name=name, place=ordinal(place))
    else:
        message = _fill(OUT, name=name)
    if result.winner is not None:
        winner = _fill(WINS, name=_name(result.winner), number=result.match.number)
        message = format_html("{} {}", message, winner)
    if result.replayed:
        message = _fill(ALREADY_RECORDED, message=message)
    return message


def undo_message(result: UndoOutcome) -> str:
    """What the host reads after an undo, saying whether a filed match opened again."""
    template = UNDONE_CROWNING if result.reopened else UNDONE
    message = _fill(template, name=_name(result.player), number=result.match.number)
    if result.replayed:
        message = _fill(ALREADY_RECORDED, message=message)
    return message


def roster_saved(number: int) -> str:
    return str(ROSTER_SAVED) % {"number": number}


def reopened(number: int) -> str:
    return str(REOPENED) % {"number": number}
