"""What a tap or an undo answers with: the board it leaves and tonight's totals, built as the
write's own step (its `then`) inside its transaction, from the rows the write holds and what
the table has filed (filings). The answer and the version the write commits name one state:
the web tags the one with the other, and another tablet's write landing between the commit
and the answer cannot slip into it."""

import datetime
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from matches.core.stamp import Stamped
from matches.play import filings, selectors
from matches.play.services.tap import TapOutcome
from matches.play.services.undo import UndoOutcome
from matches.play.tonight import TonightRow


@dataclass(frozen=True)
class Answer:
    """The board a write left, the table with the version it wrote, and tonight's totals."""

    written: Stamped
    board: selectors.Board
    tonight: list[TonightRow]
    # When tonight's totals were read: the answer's tag names that night, not the one at the
    # moment the tag is built (a tap answered across noon would otherwise tag last night's
    # totals as tonight's, and the polls would keep them with a 304).
    at: datetime.datetime


def after_tap(outcome: TapOutcome[Any]) -> Answer | None:
    """The board a tap leaves, from the rows its transaction holds (reads nothing but what
    the table has filed, and that only when this process has not kept it)."""
    written = outcome.written
    if written is None:
        return None  # a replay: nothing was written; the board is read afresh
    if outcome.winner is not None and outcome.next_match is None:
        return None  # a finals table's crowning closed it: the closed board is read afresh
    now = timezone.now()
    if outcome.next_match is None:
        filed = filings.filed(stamped=written, now=now)
    else:  # a crowning has just filed the match (and moved the stamp)
        filed = filings.filed_with(
            stamped=written, now=now, match=outcome.match, seats=outcome.seats
        )
    board = selectors.board_after_tap(
        table=written.table,
        tap=outcome.tap,
        seats=outcome.seats,
        recent=filed.recent,
        next_match=outcome.next_match,
        next_seats=outcome.next_seats,
    )
    return Answer(written=written, board=board, tonight=filed.tonight, at=now)


def after_undo(outcome: UndoOutcome[Any]) -> Answer | None:
    """The board an undo of a plain tap leaves, from the rows its transaction holds and what
    the table has filed as this process kept it (a plain tap changes none of it, and the
    stamp has not moved). None for a crowning undone or a replay: the board is read afresh."""
    written = outcome.written
    if written is None or not outcome.seats:
        return None
    now = timezone.now()
    filed = filings.filed(stamped=written, now=now)
    board = selectors.board_after_undo(
        table=written.table,
        match=outcome.match,
        seats=outcome.seats,
        last_tap=outcome.latest,
        recent=filed.recent,
    )
    return Answer(written=written, board=board, tonight=filed.tonight, at=now)
