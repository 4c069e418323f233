"""The ratings replay in short steps: each re-rates the next filed matches from the replay's
position and moves it past them, so no transaction holds the league's write lock for a
time that grows with its history (worker.py runs the steps after the answers;
ratings_settle runs them to the end here and now).

A step is three parts. The claim reads where the replay stands and every player's state
before it (kept in memory between one process's steps). The re-rating reads the next
matches' seats and rates them, outside any transaction. The commit, one short transaction,
checks that what the step read still stands and writes it. A step's position is persisted
with what it wrote: a crash or a restart resumes it. The last step writes every player's
latest rating at once, so PlayerRating never shows a half-replayed mix.
"""

import datetime
import enum
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from typing import cast

from django.db import connection, transaction
from django.db.models import F, Max, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from matches.core.stamp import standings_changed
from matches.models import (
    Match,
    Player,
    PlayerRating,
    RatingChange,
    RatingsReplay,
    StandingsStamp,
)
from matches.ratings.engine import NEWCOMER_STATE, State, rate_states
from matches.ratings.store import (
    ChangeRow,
    Position,
    career_after,
    change_row,
    change_rows,
    changes_write,
    filed_before,
    filed_from,
    pending_position,
    ratings_store,
    replay_position,
    seatings_of,
    stored_numbers,
)
from matches.rules.scoring import is_ranked

# A replay step re-rates at most this many matches; its transaction only writes them, so it
# holds the write lock briefly.
STEP_MATCHES = 500
# A replayer holds the replay this long without a step before another process may take over.
LEASE = datetime.timedelta(seconds=20)


@dataclass
class _Kept:
    """What one process knows between its steps: every player's state before position, as
    of generation."""

    generation: int
    position: Position
    states: dict[int, State]


_kept: dict[str, _Kept] = {}  # by database alias
_kept_lock = threading.Lock()


class Step(enum.Enum):
    """What a step did."""

    STEPPED = "stepped"  # matches re-rated; more to do
    SETTLED = "settled"  # nothing (more) to do
    BUSY = "busy"  # another process holds the replay
    MOVED = "moved"  # the position moved while this step read: try again


@dataclass
class _Claim:
    """Where a step starts: the database, when it looked, and what the process knows there."""

    alias: str
    now: datetime.datetime
    kept: _Kept


@dataclass
class _Rerated:
    """What a step found to write: how many matches it rated, the last one's position
    (None: none left after them), their ids and every seat's rating change as a row."""

    done: int
    last: Position | None
    match_ids: list[int]
    rows: list[ChangeRow]
    upcoming: list[int]  # the ids of the matches read, and of the one after them if any
    numbers: dict[tuple[int, int], int] = field(default_factory=dict)  # as stored, read first

    def write(self) -> None:
        """Every row over the one stored for its match and player (one statement on
        PostgreSQL: a statement per row took most of each step's write transaction). A
        match keeps no row for a player it no longer seats: the writes that move seats (a
        merge and its undo) delete those rows themselves, and the step's commit refuses
        what was rated from seats that moved since."""
        changes_write(self.rows, self.numbers)


def _states_before(position: Position) -> dict[int, State]:
    """Every player's latest rating and career before position, from the stored changes
    (final there; those from position on may be stale). Read outside the step's
    transaction, from whichever side of position is shorter: a window over every earlier
    change grows with the whole history.

    Near the start, the earlier changes are few: the highest career number among them, by
    player. Near the end, the later ones are: each player's career index is walked back
    from their latest change (stale ones included) to the first one before position."""
    filed_at, match_id = position
    # Changes are kept for filed matches only. A seek on the matches' index for the
    # aggregate; a test of each change's match as the walk meets it for the walk.
    met_earlier = Q(match__filed_at__lt=filed_at) | Q(
        match__filed_at=filed_at, match_id__lt=match_id
    )
    marks: Iterable[tuple[int, int | None]]
    if filed_before(position).count() <= filed_from(position).count():
        marks = (
            RatingChange.objects.filter(match__in=filed_before(position))
            .values("player_id")
            .annotate(number=Max("number"))
            .values_list("player_id", "number")
        )
    else:
        walk = RatingChange.objects.filter(met_earlier, player=OuterRef("pk"))
        marks = Player.objects.annotate(
            number=Subquery(walk.order_by("-number").values("number")[:1])
        ).values_list("pk", "number")
    wanted = [Q(player_id=player, number=number) for player, number in marks if number]
    if not wanted:
        return {}
    # Among the earlier ones: a stale later change may carry the same career number.
    rows = change_rows(RatingChange.objects.filter(met_earlier, reduce(or_, wanted)))
    return {row.player_id: State((row.mu, row.sigma), career_after(row)) for row in rows}


def _leased_elsewhere(row: RatingsReplay, owner: str, now: datetime.datetime) -> bool:
    return bool(
        row.lease_owner
        and row.lease_owner != owner
        and row.lease_until is not None
        and row.lease_until > now
    )


def _upcoming(position: Position, unfiling: int | None) -> QuerySet[Match]:
    """The filed matches from position on, in filing order (less one being unfiled)."""
    matches = filed_from(position)
    if unfiling is not None:
        matches = matches.exclude(pk=unfiling)
    return matches.order_by("filed_at", "pk")


def _upcoming_ids(position: Position, unfiling: int | None) -> list[int]:
    """The ids of the next STEP_MATCHES filed matches from position, and of the one after
    them if any: what a step's commit checks still stands."""
    return list(_upcoming(position, unfiling).values_list("pk", flat=True)[: STEP_MATCHES + 1])


def _claim(owner: str) -> _Claim | Step:
    """Where the replay stands and every player's state before it; SETTLED when nothing is
    pending, BUSY while another process's lease holds."""
    row = RatingsReplay.objects.filter(pk=1).first()
    position = replay_position(row)
    if row is None or position is None:
        return Step.SETTLED
    now = timezone.now()
    if _leased_elsewhere(row, owner, now):
        return Step.BUSY
    alias = connection.alias
    with _kept_lock:
        kept = _kept.get(alias)
    if kept is None or (kept.generation, kept.position) != (row.generation, position):
        kept = _Kept(row.generation, position, _states_before(position))
    return _Claim(alias, now, kept)


def _rerate(
    position: Position, states: dict[int, State], *, unfiling: int | None = None
) -> _Rerated:
    """Rate the next STEP_MATCHES filed matches from position, updating states; what to
    write for them."""
    upcoming = _upcoming(position, unfiling).values_list("filed_at", "pk", "table__mode")
    read = list(upcoming[: STEP_MATCHES + 1])  # and the one after them: not the last step
    batch = read[:STEP_MATCHES]
    step = _Rerated(len(batch), None, [pk for _, pk, _ in batch], [], [pk for _, pk, _ in read])
    if not batch:
        return step
    rows = step.rows
    for seating in seatings_of([(pk, mode) for _, pk, mode in batch]):
        match, mode, seats = seating
        ranked = is_ranked(mode)
        before = [states.get(player, NEWCOMER_STATE) for player, _ in seats]
        after = rate_states(seating, before)
        for (player, place), was, now in zip(seats, before, after, strict=True):
            states[player] = now
            rows.append(change_row(match, player, place, ranked, was, now))
    if len(read) > len(batch):
        filed_at, pk, _ = batch[-1]
        step.last = Position(cast("datetime.datetime", filed_at), pk)  # filed: stamped
    step.numbers = stored_numbers(step.match_ids)
    return step


def _store_all(states: Mapping[int, State]) -> None:
    """Every player's latest rating, as the replay ended: the settled ratings."""
    PlayerRating.objects.exclude(player_id__in=list(states)).delete()
    ratings_store(states)


def _commit(
    claim: _Claim,
    step: _Rerated,
    states: dict[int, State],
    *,
    owner: str,
    unfiling: int | None,
) -> tuple[Step, int]:
    """Write what the step rated and move the position past it, in one short transaction,
    if what the step read still stands; else MOVED (or BUSY), writing nothing."""
    kept = claim.kept
    with transaction.atomic():
        # The league's lock first, as every filing takes it: a filing never reads "pending"
        # from a replay that is finishing without it (and, once it has the lock, this
        # transaction sees every filing that had it).
        StandingsStamp.objects.select_for_update().filter(pk=1).values_list("pk").first()
        locked = RatingsReplay.objects.select_for_update().get(pk=1)
        if (locked.generation, replay_position(locked)) != (kept.generation, kept.position):
            return Step.MOVED, 0
        if _upcoming_ids(kept.position, unfiling) != step.upcoming:
            return Step.MOVED, 0
        if _leased_elsewhere(locked, owner, claim.now):
            return Step.BUSY, 0
        step.write()
        following: Position | None
        if step.last is None:
            _store_all(states)
            RatingsReplay.objects.filter(pk=1).update(
                from_filed_at=None, from_match_id=None, lease_owner="", lease_until=None
            )
            standings_changed()  # the settled ratings show: cached pages are rebuilt
            outcome = Step.SETTLED
            following = None
        else:
            # Ids are integers: just past the last match rated.
            following = Position(step.last.filed_at, step.last.match_id + 1)
            RatingsReplay.objects.filter(pk=1).update(
                from_filed_at=following.filed_at,
                from_match_id=following.match_id,
                replayed=F("replayed") + step.done,
                lease_owner=owner,
                lease_until=timezone.now() + LEASE,
            )
            outcome = Step.STEPPED
    with _kept_lock:
        if following is None:
            _kept.pop(claim.alias, None)
        else:
            _kept[claim.alias] = _Kept(kept.generation, following, states)
    return outcome, step.done


def replay_step(*, owner: str, unfiling: int | None = None) -> tuple[Step, int]:
    """Re-rate the next STEP_MATCHES filed matches from the replay's position and store
    what moved, in one short transaction that also moves the position past them (the last
    step writes PlayerRating and clears it); the outcome and how many matches it re-rated.
    owner names the process: one replays at a time, under a lease.

    The reads and the rating happen before the transaction; the transaction only writes,
    once it has checked that what the step read still stands: the same generation (no move
    back, no seats changing hands) and the same filed matches from the position (none
    undone among them, none filed in their midst, and for the last step none after them).
    Else: MOVED, and the step is taken again. Filings at the end of the league, the usual
    write during a replay, leave a step that is not the last untouched."""
    claim = _claim(owner)
    if isinstance(claim, Step):
        return claim, 0
    states = dict(claim.kept.states)
    step = _rerate(claim.kept.position, states, unfiling=unfiling)
    return _commit(claim, step, states, owner=owner, unfiling=unfiling)


def ratings_settle(
    *,
    owner: str = "settle",
    progress: Callable[[int, int], None] | None = None,
    unfiling: int | None = None,
) -> int:
    """Run the replay to its end here and now (the tests' inline mode, the rebuild, the
    integrity check), step by step; returns how many matches it re-rated. Waits out
    another process's lease. progress(done, total) after each step."""
    done = 0
    total = None
    while True:
        if progress is not None and total is None:
            position = pending_position()
            total = 0 if position is None else filed_from(position).count()
        outcome, rerated = replay_step(owner=owner, unfiling=unfiling)
        done += rerated
        if progress is not None and total is not None:
            progress(min(done, total), total)
        if outcome is Step.SETTLED:
            return done
        if outcome is Step.BUSY:
            time.sleep(0.2)
