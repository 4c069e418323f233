"""The server's side of the tablet's tap queue (static/js/tap-queue.js): the outcome headers
that tell the queue what became of each entry it sent, and the board's state as data, which
the queue builds its prediction on while entries wait."""

import functools
import json
from dataclasses import dataclass

from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import get_language, ngettext

from matches.core.errors import Refusal, RuleError
from matches.play.services.tap import TapOutcome
from matches.play.services.undo import UndoOutcome
from matches.rules import nights, scoring
from matches.rules.limits import MAX_PLAYERS

OUTCOME_HEADER = "X-Tap-Outcome"
CODE_HEADER = "X-Tap-Code"
# What stands instead of a refused tap (the place its player has, who won): JSON.
INSTEAD_HEADER = "X-Tap-Instead"
APPLIED, REPLAYED, REFUSED = "applied", "replayed", "refused"


@dataclass(frozen=True)
class Outcome:
    """What became of one tap or undo: applied, replayed (already applied earlier under the
    same key) or refused, with the rule's code when refused."""

    outcome: str
    code: str = ""
    # A refusal's RuleError.instead, as JSON (ASCII: a header's value).
    instead: str = ""


def outcome_of(result: TapOutcome | UndoOutcome) -> Outcome:
    return Outcome(REPLAYED if result.replayed else APPLIED)


def refusal(error: RuleError | None = None) -> Outcome:
    code = error.code if error is not None else Refusal.BAD_REQUEST
    # The code's plain text: a WSGI server takes only str header values, not a subclass.
    instead = error.instead if error is not None else None
    return Outcome(
        REFUSED, code.value, json.dumps(instead, separators=(",", ":")) if instead else ""
    )


def mark(response: HttpResponse, outcome: Outcome) -> HttpResponse:
    """The outcome headers on a tap's or an undo's answer."""
    response[OUTCOME_HEADER] = outcome.outcome
    if outcome.code:
        response[CODE_HEADER] = outcome.code
    if outcome.instead:
        response[INSTEAD_HEADER] = outcome.instead
    return response


def _points(mode: str, place: int) -> str:
    points = scoring.points_for(mode, place)
    if points is None:
        return ""
    # The result card's own wording ({% blocktranslate count %} in _result_card.html).
    return ngettext("%(counter)s pt", "%(counter)s pts", points) % {"counter": points}


def board_state(*, board, table, is_host: bool, user=None) -> dict:
    """The board on screen as data: the queue predicts on top of it. Seats in seating order
    with their places; the latest live tap (its key names it in an undo); the result card's
    places (an undone crowning puts them back); labels for every place in this mode; the
    viewer (an entry queued by one host and sent by another names who queued it); and when
    tonight began (the tablet holds back entries queued before it)."""
    # Only a host's board carries it (_host_board.html): the names as entered.
    match = board.match
    seats = sorted(board.standing + board.out, key=lambda seat: seat.position)
    last = board.last_tap
    mode = table.mode
    return {
        "table": table.pk,
        # The table's change counter: a tablet keeps the newest board it has seen.
        "version": table.version,
        "mode": mode,
        "ranked": table.is_ranked,
        "open": table.is_open,
        # A finals table plays one match: the queue predicts no next match after its crowning.
        "one_match": table.finals,
        "host": is_host,
        "match": match.number if match else None,
        "match_id": match.pk if match else None,
        "dealer": match.first_dealer.shown_name(real=True) if match else None,
        "seats": [
            {
                "player": seat.player_id,
                "name": seat.player.shown_name(real=True),
                "place": seat.place,
            }
            for seat in seats
        ],
        "last_tap": (
            {
                "key": str(last.key),
                # Who the undo puts back: the player out in the tap's place.
                "player": board.undo_player.pk if board.undo_player else last.player_id,
                "name": (board.undo_player or last.player).shown_name(real=True),
                "number": last.match.number,
                "match_id": last.match_id,
                "place": last.place,
                "crowned": board.undo_reopens,
                # Undoing it would drop the next match's new roster: the page asks first.
                "drops_roster": board.undo_drops_roster,
            }
            if last is not None and is_host
            else None
        ),
        "result": (
            {
                "number": board.result.number,
                "seats": [
                    {
                        "player": s.player_id,
                        "name": s.player.shown_name(real=True),
                        "place": s.place,
                    }
                    for s in board.result_seats
                ],
            }
            if board.result is not None
            else None
        ),
        "user": (
            {"id": user.pk, "name": user.get_username()}
            if user is not None and user.is_authenticated
            else None
        ),
        "night": nights.night_start(timezone.now()).isoformat(),
        # Copies: the board's state is the caller's to change, the labels are every board's.
        **{name: dict(labels) for name, labels in _labels(mode, get_language()).items()},
    }


@functools.lru_cache(maxsize=16)
def _labels(mode: str, language: str) -> dict:
    """Every place's label and points in this mode, as the active language (named in the
    arguments, so each language has its own) words them: the same for every board."""
    places = range(1, MAX_PLAYERS + 1)
    return {
        "places": {place: scoring.place_label(mode, place) for place in places},
        "points": {place: _points(mode, place) for place in places},
    }
