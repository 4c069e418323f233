"""The undo: the table's most recent tap taken back, however far back; a crowning undone
reopens its match. An undo locks its table as a tap does, by moving its version on
(tables.bump_table), and names the tap it takes back, so a repeated or late undo refuses
instead of taking back a tap the host never meant."""

import datetime
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from matches.core.errors import Refusal, RuleError
from matches.core.stamp import Stamped
from matches.models import Match, Player, Seat, Table, Tap
from matches.play import messages
from matches.play.services import finals, tables
from matches.results import filing

A = TypeVar("A")


@dataclass(frozen=True)
class UndoOutcome(Generic[A]):
    """What an undo did."""

    tap: Tap
    match: Match
    # True when the undone tap was a crowning: the match is open again.
    reopened: bool
    # Who stands again: the player out in the tap's place, which a correction of the match
    # may have given another player than the one tapped (None: the tap's own player).
    back: Player | None = None
    # True when the undo named its tap by key and that tap had already been undone: a
    # resent undo from the tablet's queue, answered without changing anything.
    replayed: bool = False
    # The table with the version this undo wrote; None for a replay.
    written: Stamped | None = None
    # For the undo of a plain tap, the rows its transaction holds: the match's seats in
    # seating order (players loaded, the player back standing) and the tap now the table's
    # latest (with its match). Empty and None otherwise (a crowning undone, a replay).
    seats: list[Seat] = field(default_factory=list)
    latest: Tap | None = None
    # What the caller's step (table_undo_last's then) read in the undo's transaction.
    answer: A | None = None

    @property
    def player(self) -> Player:
        """The player who stands again."""
        return self.back if self.back is not None else self.tap.player


class _UndoReplayed(Exception):
    """An undo by key of a tap already undone: raised to roll back the version bump."""

    def __init__(self, tap: Tap) -> None:
        self.tap = tap
        super().__init__(tap.pk)


def table_undo_last(
    *,
    table_id: int,
    tap_id: int | None,
    by: User,
    drop_roster: bool = False,
    tap_key: uuid.UUID | None = None,
    queued_by: User | None = None,
    then: Callable[[UndoOutcome[Any]], A] | None = None,
) -> UndoOutcome[A]:
    """Take back the table's most recent tap, however far back; a crowning reopens its match.

    tap_id (the page's button) or tap_key (the tablet's queue) names the tap the host saw as
    the most recent: a repeated or late undo then refuses instead of taking back an older tap
    the host never meant; an undo by key of a tap already undone is answered as a replay,
    even once the table is closed or no longer this host's to change. Undoing a crowning
    removes the match that opened after it; if that match was given a new roster, the host
    must confirm (drop_roster) that the change goes with it. queued_by is the host whose
    tablet queued the undo, kept when it is not the sender. then, when given, runs in the
    undo's transaction once it has written (never for a replay): the caller's read of the
    state the undo leaves, returned as the outcome's answer, names the version it commits."""
    try:
        return _table_undo_last(
            table_id=table_id,
            tap_id=tap_id,
            by=by,
            drop_roster=drop_roster,
            tap_key=tap_key,
            queued_by=queued_by,
            then=then,
        )
    except _UndoReplayed as replayed:
        tap = replayed.tap
        return UndoOutcome(tap=tap, match=tap.match, reopened=False, replayed=True)


def _names_latest(latest: Tap, *, tap_id: int | None, tap_key: uuid.UUID | None) -> bool:
    """Whether the undo names the table's latest live tap (by key, else by id)."""
    if tap_key is not None:
        return latest.key == tap_key
    return tap_id is not None and latest.pk == tap_id


def _check_undo_named(
    *, table: Table, tap_id: int | None, tap_key: uuid.UUID | None, by: User
) -> Tap | None:
    """The tap the undo names, checked as the tap that may be taken back (or a replay
    raised), before the latest is compared with it; None when it names none."""
    named = None
    if tap_key is not None:
        named = Tap.objects.select_related("player", "match").filter(key=tap_key).first()
        if named is not None and named.match.table_id == table.pk and named.is_undone:
            # A resent undo: answered from what it did, before any refusal of the table.
            raise _UndoReplayed(named)
    tables.check_may_change(table, by, undo=True)
    if tap_key is not None:
        if named is None:
            raise RuleError(messages.TAP_NEVER_RECORDED, code=Refusal.TAP_UNKNOWN)
        if named.match.table_id != table.pk:
            raise RuleError(messages.TAP_NOT_FOUND, code=Refusal.TAP_NOT_FOUND)
    elif tap_id is not None:
        named = Tap.objects.select_related("match").filter(pk=tap_id, match__table=table).first()
        if named is None:
            raise RuleError(messages.TAP_NOT_FOUND, code=Refusal.TAP_NOT_FOUND)
        if named.is_undone:
            raise RuleError(messages.ALREADY_UNDONE, code=Refusal.ALREADY_UNDONE)
    if named is not None and named.match.status == Match.Status.DISCARDED:
        # Its match was closed with the table: there is nothing left to take it back from.
        raise RuleError(
            messages.MATCH_DISCARDED, code=Refusal.MATCH_DISCARDED, number=named.match.number
        )
    return named


@transaction.atomic
def _table_undo_last(
    *,
    table_id: int,
    tap_id: int | None,
    by: User,
    drop_roster: bool,
    tap_key: uuid.UUID | None,
    queued_by: User | None,
    then: Callable[[UndoOutcome[Any]], A] | None,
) -> UndoOutcome[A]:
    # Locked as a tap locks it, by moving its version on: the undo writes, or raises and
    # rolls the bump back.
    stamped = tables.bump_table(table_id, by)
    table = stamped.table
    # The latest live tap and the one before it (the latest once this one is undone: the
    # board's Undo button names it), with their matches, in one read. A tap in a match
    # discarded by a close is not one to take back: undoing it would change nothing.
    taps = list(
        Tap.objects.select_related("player", "match__first_dealer")
        .filter(match__table=table, undone_at__isnull=True)
        .exclude(match__status=Match.Status.DISCARDED)
        .order_by("-id")[:2]
    )
    latest, before = (taps[0], taps[1:]) if taps else (None, [])
    if latest is None or not _names_latest(latest, tap_id=tap_id, tap_key=tap_key):
        named = _check_undo_named(table=table, tap_id=tap_id, tap_key=tap_key, by=by)
        if latest is None:
            raise RuleError(messages.NOTHING_TO_UNDO, code=Refusal.NOTHING_TO_UNDO)
        if named is not None and latest.pk != named.pk:
            if tap_key is not None:
                raise RuleError(
                    messages.NOT_LATEST_NAMED, code=Refusal.NOT_LATEST, name=named.player
                )
            raise RuleError(messages.NOT_LATEST, code=Refusal.NOT_LATEST)
    else:
        # The host named the latest tap (the usual undo): nothing more to look up about it.
        tables.check_may_change(table, by, undo=True)

    # The table's lock serialises every write on its matches, as for a tap.
    match = latest.match
    match.table = table
    undone_at = timezone.now()
    outcome: UndoOutcome[A]
    if match.status == Match.Status.OPEN:
        outcome = _undo_plain(
            stamped=stamped, latest=latest, before=before, by=by, queued_by=queued_by, at=undone_at
        )
    else:
        outcome = _undo_crowning(
            stamped=stamped,
            latest=latest,
            drop_roster=drop_roster,
            by=by,
            queued_by=queued_by,
            at=undone_at,
        )
    return outcome if then is None else replace(outcome, answer=then(outcome))


def _undo_crowning(
    *,
    stamped: Stamped,
    latest: Tap,
    drop_roster: bool,
    by: User,
    queued_by: User | None,
    at: datetime.datetime,
) -> "UndoOutcome[Any]":
    """Undo a tap of a match no longer open: a crowning reopens its filed match, and the
    match that opened after it is discarded."""
    table = stamped.table
    match = latest.match
    reopened = match.status == Match.Status.FILED
    if reopened:
        # The match that opened on its own after the crowning has no live taps (this one
        # is the latest), so it goes; its rows stay for the audit trail.
        following = table.matches.open().first()
        if following is not None and not drop_roster and tables.roster_changed(match, following):
            raise RuleError(
                messages.UNDO_DROPS_ROSTER,
                code=Refusal.UNDO_DROPS_ROSTER,
                number=match.number,
                next=following.number,
            )
        tables.discard_open(table, Match.DiscardReason.UNDONE)
        if table.finals:
            finals.final_lock_first(table)  # tables before the stamp stage_unfiled moves
            finals.stage_unfiled(table=table)
        seats = list(match.seats.select_related("player"))
        filing.match_unfile(table=table, match=match, seats=seats)
        match.seats.filter(place=1).update(place=None)
        match.status = Match.Status.OPEN
        match.winner = None
        match.filed_at = None
        match.save(update_fields=["status", "winner", "filed_at"])
        # The tap's place names who stands again: a correction may have put another player
        # there than the one tapped (the seats hold the corrected order).
        back = next((seat.player for seat in seats if seat.place == latest.place), None)
    else:
        back = None
    match.seats.filter(place=latest.place).update(place=None)
    _mark_undone(latest, by=by, queued_by=queued_by, at=at)
    return UndoOutcome(tap=latest, match=match, reopened=reopened, written=stamped, back=back)


def _mark_undone(tap: Tap, *, by: User, queued_by: User | None, at: datetime.datetime) -> None:
    tap.undone_at = at
    tap.undone_by = by
    tap.undo_queued_by = tables.queued_by_other(queued_by, by)
    tap.save(update_fields=["undone_at", "undone_by", "undo_queued_by"])


def _undo_plain(
    *,
    stamped: Stamped,
    latest: Tap,
    before: list[Tap],
    by: User,
    queued_by: User | None,
    at: datetime.datetime,
) -> "UndoOutcome[Any]":
    """Undo a tap of the open match (no crowning): its player stands again. The outcome
    holds the rows read here, so the board it leaves is built as a tap's is: the match's
    seats and the tap before this one."""
    match = latest.match
    seats = list(
        Seat.objects.filter(match_id=match.pk).select_related("player").order_by("position")
    )
    # By place: once a corrected match is reopened, a tap made before the correction names
    # who was tapped, and the seats say who is out in its place now.
    seat = next(s for s in seats if s.place == latest.place)
    for each in seats:
        each.match = match
    seat.place = None
    seat.save(update_fields=["place"])
    _mark_undone(latest, by=by, queued_by=queued_by, at=at)
    return UndoOutcome(
        tap=latest,
        match=match,
        reopened=False,
        written=stamped,
        back=seat.player,
        seats=seats,
        latest=before[0] if before else None,
    )
