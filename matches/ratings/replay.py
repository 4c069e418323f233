"""Stored skill ratings, kept in step with the filed matches (the model is engine.py's).

Every filed match is one rating event, in filing order (filing time, then match id); each
player is a one-player team, passed to the model in seating order, starting from the model's
default rating at their first match. Ranks: a ranked table's places; at a winner-takes-all
table the winner 1 and everyone else 2, because that mode names only the winner.

Each filed match keeps every player's rating before and after it (RatingChange), and each
player their latest one (PlayerRating). Filing the newest match appends, in the filing's
transaction. Anything that changes the past (undoing a crowning that later matches follow, a
merge, a match filed out of order, a rebuild) only moves the replay's position back
(RatingsReplay) in its own transaction: the replay then re-rates every match from there in
short steps after the answer (worker.py runs them), each its own transaction, so no request
holds the league's write lock for a time that grows with its history. A step's position is
persisted with what it wrote: a crash or a restart resumes it. While a replay is pending,
PlayerRating keeps the last settled ratings (never a half-replayed mix) and
ratings_updating() says so; the last step writes them all at once.

The standings stamp row, which every filing and undo changes first, orders these writes: a
step locks it too, so a filing never misses a replay that is just finishing.
"""

import datetime
import enum
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import groupby
from operator import or_
from typing import cast

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, F, Max, OuterRef, Q, QuerySet, Subquery
from django.dispatch import Signal
from django.utils import timezone

from matches.core.rows import rows_upsert
from matches.core.stamp import standings_changed
from matches.models import (
    Match,
    Player,
    PlayerRating,
    RatingChange,
    RatingsReplay,
    Seat,
    StandingsStamp,
)
from matches.ratings.engine import NEWCOMER, Career, RatedState, Rating, Seating, State, rate
from matches.rules.scoring import finished_place, is_ranked

BATCH = 2000
# A replay step re-rates at most this many matches; its transaction, which only writes them,
# holds the write lock for a few tens of milliseconds (loadtest/run.py --replay).
STEP_MATCHES = 250
# A replayer holds the replay this long without a step before another process may take over.
LEASE = datetime.timedelta(seconds=20)
# Sent after a write that moved the replay's position back has committed (worker.py wakes).
replay_scheduled = Signal()

Position = tuple[datetime.datetime, int]  # (filed_at, match id): filing order


def _filed_from(position: Position) -> QuerySet[Match]:
    """The filed matches at position or after it in filing order. Written as a range on
    filed_at less the earlier ids at its first moment, which the (status, filed_at) index
    answers by seeking; the plain "later or same moment and id" OR made SQLite walk the
    whole index (38 ms against 1.5 ms for a step's next matches at 100,000)."""
    filed_at, match_id = position
    return (
        Match.objects.filed()
        .filter(filed_at__gte=filed_at)
        .exclude(filed_at=filed_at, pk__lt=match_id)
    )


def _filed_before(position: Position) -> QuerySet[Match]:
    """The filed matches before position in filing order (as _filed_from, by seeking)."""
    filed_at, match_id = position
    return (
        Match.objects.filed()
        .filter(filed_at__lte=filed_at)
        .exclude(filed_at=filed_at, pk__gte=match_id)
    )


def _filed_after(match: Match) -> QuerySet[Match]:
    # Ids are integers: the position just past the match's own.
    return _filed_from((cast("datetime.datetime", match.filed_at), match.pk + 1))


def _seatings(matches: QuerySet[Match]) -> Iterator[Seating]:
    """These matches in filing order, read as plain rows of their seats (one streamed query,
    no model instances: an undo reads every later match to find the ones it affects)."""
    rows = (
        Seat.objects.filter(match__in=matches)
        .order_by("match__filed_at", "match_id", "position")
        .values_list("match_id", "match__table__mode", "player_id", "place")
        .iterator(chunk_size=BATCH)
    )
    for (match_id, mode), seats in groupby(rows, key=lambda row: row[:2]):
        # Filed matches: every seat has its place.
        places = cast("list[tuple[int, int]]", [(p, place) for _, _, p, place in seats])
        yield match_id, mode, places


STORED_COLUMNS = (
    "pk", "match_id", "player_id", "mu_before", "sigma_before", "mu", "sigma", "place",
    "ranked", "number", "run", "longest_run", "best_place",
)  # fmt: skip


class StoredChange:
    """A RatingChange row as the replay reads and rewrites it: plain attributes, no model
    instance (an undo reads hundreds of them)."""

    __slots__ = STORED_COLUMNS
    pk: int
    match_id: int
    player_id: int
    mu_before: float | None
    sigma_before: float | None
    mu: float
    sigma: float
    place: int
    ranked: bool
    number: int
    run: int
    longest_run: int
    best_place: int | None

    def __init__(self, values: Sequence) -> None:
        for name, value in zip(STORED_COLUMNS, values, strict=True):
            setattr(self, name, value)


def _with_changes(seatings: Iterable[Seating]) -> Iterator[tuple[Seating, dict]]:
    """Each match with its stored rating changes by player, read a batch of matches at once."""
    batch: list[Seating] = []

    def flush() -> Iterator[tuple[Seating, dict]]:
        stored: dict[int, dict[int, StoredChange]] = {seating[0]: {} for seating in batch}
        rows = RatingChange.objects.filter(match_id__in=list(stored)).values_list(
            "id", *STORED_COLUMNS[1:]
        )
        for row in rows:
            change = StoredChange(row)
            stored[change.match_id][change.player_id] = change
        for seating in batch:
            yield seating, stored[seating[0]]

    for seating in seatings:
        batch.append(seating)
        if len(batch) >= BATCH:
            yield from flush()
            batch = []
    yield from flush()


def _before(change: "RatingChange | StoredChange") -> Rating | None:
    # Both or neither (the rating_change_before_whole constraint).
    mu, sigma = change.mu_before, change.sigma_before
    return None if mu is None or sigma is None else (mu, sigma)


def _career(change: "RatingChange | StoredChange") -> Career:
    return Career(change.number, change.run, change.longest_run, change.best_place)


def _change(
    match_id: int, player: int, place: int, ranked: bool, before: State, after: RatedState
) -> tuple:
    """A rating change as a row of UPSERT_COLUMNS."""
    mu_before, sigma_before = before[0] or (None, None)
    (mu, sigma), career = after
    return (
        match_id, player, mu_before, sigma_before, mu, sigma, place, ranked,
        career.number, career.run, career.longest, career.best,
    )  # fmt: skip


RATING_COLUMNS = ("player_id", "mu", "sigma", "matches", "run", "longest_run", "best_place")


def _rating_row(player: int, state: State) -> tuple:
    """A player's latest rating and career as a row of RATING_COLUMNS."""
    rating, career = state
    if rating is None:  # a player has a rating from their first rated match on
        raise ValueError(f"Player #{player} has no rating to store")
    mu, sigma = rating
    return (player, mu, sigma, career.number, career.run, career.longest, career.best)


def _store_current(states: Mapping[int, State]) -> None:
    """Write these players' latest ratings and careers; a player left with no rated match
    has no rating."""
    PlayerRating.objects.filter(
        player_id__in=[p for p, (_, career) in states.items() if not career.number]
    ).delete()
    _upsert(_rating_row(p, state) for p, state in states.items() if state[1].number)


def _upsert(rows: Iterable[tuple]) -> None:
    # One statement or one executemany whatever the rows: nothing to cut into batches.
    rows_upsert(PlayerRating, RATING_COLUMNS, list(rows), keys=["player_id"])


def _state(rating: PlayerRating | None) -> State:
    if rating is None:
        return None, NEWCOMER
    career = Career(rating.matches, rating.run, rating.longest_run, rating.best_place)
    return (rating.mu, rating.sigma), career


def _match_position(match: Match) -> Position:
    # filed_at is set: these are filed matches (or one being unfiled, still stamped).
    return cast("datetime.datetime", match.filed_at), match.pk


def _replay_position(row: RatingsReplay | None) -> Position | None:
    if row is None or row.from_filed_at is None or row.from_match_id is None:
        return None
    return row.from_filed_at, row.from_match_id


def _pending_position() -> Position | None:
    return _replay_position(RatingsReplay.objects.filter(pk=1).first())


def ratings_updating() -> bool:
    """Whether a replay is pending: the ratings shown are the last settled ones. One query."""
    return RatingsReplay.objects.filter(pk=1, from_match_id__isnull=False).exists()


def _schedule(
    position: Position, *, unfiling: int | None = None, seats_moved: bool = False
) -> None:
    """In a write's transaction, after standings_changed took the league's lock: the ratings
    of every match filed from position on are to be replayed. The position only moves back;
    the replay runs after the commit (at once in the tests' inline mode, which then skips
    the match being unfiled: it is still filed until its write ends). seats_moved (a merge):
    seats changed hands, so a step rated from the old ones must not be written."""
    RatingsReplay.objects.bulk_create([RatingsReplay(pk=1)], ignore_conflicts=True)
    row = RatingsReplay.objects.select_for_update().get(pk=1)
    current = _replay_position(row)
    if current is None or position < current or seats_moved:
        if current is None:
            row.scheduled_at, row.replayed = timezone.now(), 0
        row.from_filed_at, row.from_match_id = min(position, current or position)
        # Whatever a replayer kept in memory described the ratings before the old position,
        # or a step under way read the old seats.
        row.generation += 1
        row.save()
    if settings.RATINGS_REPLAY == "inline":
        ratings_settle(unfiling=unfiling)
    elif settings.RATINGS_REPLAY == "background":
        transaction.on_commit(lambda: replay_scheduled.send(sender=RatingsReplay))


def ratings_file(*, match: Match, mode: str, seats: Sequence[Seat]) -> None:
    """Rate a match in the transaction that files it, after that transaction changed the
    standings stamp (which holds the league-wide lock). seats: all its seats, places set."""
    position = _match_position(match)
    # One query for both questions: the crowning's budget (see make bench).
    pending, later = (
        Match.objects.filter(pk=match.pk)
        .annotate(
            pending=Exists(RatingsReplay.objects.filter(pk=1, from_match_id__isnull=False)),
            later=Exists(_filed_after(match)),
        )
        .values_list("pending", "later")
        .get()
    )
    if pending:
        # A replay is under way: it rates this match in its turn (earlier ones first).
        current = _pending_position()
        if current is not None and position < current:
            _schedule(position)
        return
    if later:
        # Another table's match, filed a moment later, was rated first (possible on
        # PostgreSQL, where tables file in parallel): this one is rated in its place.
        _schedule(position)
        return
    places = [(s.player_id, finished_place(s.place)) for s in sorted(seats, key=_seat_position)]
    seating: Seating = (match.pk, mode, places)
    players = [player for player, _ in seating[2]]
    kept = {r.player_id: r for r in PlayerRating.objects.filter(player_id__in=players)}
    before = {player: _state(kept.get(player)) for player in players}
    after = rate(seating, before)
    ranked = is_ranked(mode)
    rows_upsert(
        RatingChange,
        UPSERT_COLUMNS,
        [_change(match.pk, p, place, ranked, before[p], after[p]) for p, place in seating[2]],
        keys=UPSERT_KEYS,
    )
    _upsert(_rating_row(p, after[p]) for p in players)


def _seat_position(seat: Seat) -> int:
    return seat.position


def ratings_unfile(*, match: Match) -> None:
    """Before a filed match is reopened: every rating as if it had never been filed. Like
    ratings_file, called after its transaction changed the standings stamp. The newest
    match's players simply get their ratings from before it back; an older one's undo
    leaves the later matches to the replay."""
    changes = list(match.rating_changes.all())
    RatingChange.objects.filter(pk__in=[change.pk for change in changes]).delete()
    if _pending_position() is not None or _filed_after(match).exists():
        _schedule(_match_position(match), unfiling=match.pk)
        return
    earlier = Q(pk__in=[])
    for change in changes:
        earlier |= Q(player_id=change.player_id, number=change.number - 1)
    careers = {c.player_id: _career(c) for c in RatingChange.objects.filter(earlier)}
    _store_current({c.player_id: (_before(c), careers.get(c.player_id, NEWCOMER)) for c in changes})


def ratings_corrected(*, match: Match) -> None:
    """After a filed match's places were corrected, in that write's transaction (after
    standings_changed): its ratings and every later match's are replayed from its position.
    The seats moved under any step already under way, which must not write what it read."""
    _schedule(_match_position(match), seats_moved=True)


def ratings_merged(*, keep: Player, dropped_id: int) -> None:
    """After a merge gave every seat and rating change of one record to another: the replay
    re-rates from the first filed match of the merged player, who starts there as a
    newcomer."""
    PlayerRating.objects.filter(player_id=dropped_id).delete()
    first = (
        Match.objects.filed()
        .filter(seats__player=keep)
        .order_by("filed_at", "pk")
        .only("pk", "filed_at")
        .first()
    )
    if first is None:
        PlayerRating.objects.filter(player=keep).delete()
        return
    _schedule(_match_position(first), seats_moved=True)


def ratings_unmerged(*, restored_id: int) -> None:
    """After an undone merge gave a record its seats back (and the rating changes of those
    matches), in that transaction: the replay re-rates from the first filed match the
    restored player sat in; every rating before it is as the merge left it, which is as if
    it had never happened."""
    first = (
        Match.objects.filed()
        .filter(seats__player_id=restored_id)
        .order_by("filed_at", "pk")
        .only("pk", "filed_at")
        .first()
    )
    if first is not None:
        _schedule(_match_position(first), seats_moved=True)


def ratings_matches_deleted(*, since: Position | None) -> None:
    """After filed matches were deleted with their table (the admin), in that transaction:
    every match filed from the first of them on is re-rated (since: its position, None if
    none was filed)."""
    if since is None:
        return
    standings_changed()  # the league-wide lock, as every move of the replay takes it
    _schedule(since)


def first_filed_position(*, table_ids: Sequence[int]) -> Position | None:
    """The position in filing order of the first match filed at these tables, if any."""
    first = (
        Match.objects.filed()
        .filter(table_id__in=table_ids)
        .order_by("filed_at", "pk")
        .values_list("filed_at", "pk")
        .first()
    )
    return None if first is None else (first[0], first[1])


def ratings_rebuild(*, progress: Callable[[int, int], None] | None = None) -> int:
    """Recompute every rating from scratch, in the replay's short steps (the league stays
    open meanwhile); returns the number of rated matches. progress(done, total) after each
    step."""
    with transaction.atomic():
        standings_changed()  # the league-wide lock; cached standings show ratings
        # Rows of matches no longer filed (a raw edit): no step would ever visit them.
        RatingChange.objects.exclude(match__status=Match.Status.FILED).delete()
        first = Match.objects.filed().order_by("filed_at", "pk").only("pk", "filed_at").first()
        if first is None:
            RatingChange.objects.all().delete()
            PlayerRating.objects.all().delete()
            return 0
        # Whatever is pending is covered: the replay from the very first match.
        RatingsReplay.objects.bulk_create([RatingsReplay(pk=1)], ignore_conflicts=True)
        RatingsReplay.objects.filter(pk=1).update(
            from_filed_at=first.filed_at,
            from_match_id=first.pk,
            generation=F("generation") + 1,
            scheduled_at=timezone.now(),
            replayed=0,
        )
    return ratings_settle(progress=progress)


# --- the replay's steps ----------------------------------------------------------------


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
    STEPPED = "stepped"  # matches re-rated; more to do
    SETTLED = "settled"  # nothing (more) to do
    BUSY = "busy"  # another process holds the replay
    MOVED = "moved"  # the position moved while this step read: try again


def _states_before(position: Position) -> dict[int, State]:
    """Every player's latest rating and career before position, from the stored changes
    (final there; those from position on may be stale). Read outside the step's
    transaction, from whichever side of position is shorter: a window over every earlier
    change took 20 s at 100,000 matches.

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
    if _filed_before(position).count() <= _filed_from(position).count():
        marks = (
            RatingChange.objects.filter(match__in=_filed_before(position))
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
    rows = RatingChange.objects.filter(met_earlier, reduce(or_, wanted)).values_list(
        "player_id", "mu", "sigma", "number", "run", "longest_run", "best_place"
    )
    return {
        player: ((mu, sigma), Career(number, run, longest, best))
        for player, mu, sigma, number, run, longest, best in rows
    }


def _leased_elsewhere(row: RatingsReplay, owner: str, now: datetime.datetime) -> bool:
    return bool(
        row.lease_owner
        and row.lease_owner != owner
        and row.lease_until is not None
        and row.lease_until > now
    )


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
    alias = connection.alias
    row = RatingsReplay.objects.filter(pk=1).first()
    position = _replay_position(row)
    if row is None or position is None:
        return Step.SETTLED, 0
    now = timezone.now()
    if _leased_elsewhere(row, owner, now):
        return Step.BUSY, 0
    with _kept_lock:
        kept = _kept.get(alias)
    if kept is None or (kept.generation, kept.position) != (row.generation, position):
        kept = _Kept(row.generation, position, _states_before(position))
    states = dict(kept.states)
    step = _rerate(position, states, unfiling=unfiling)
    with transaction.atomic():
        # The league's lock first, as every filing takes it: a filing never reads "pending"
        # from a replay that is finishing without it (and, once it has the lock, this
        # transaction sees every filing that had it).
        StandingsStamp.objects.select_for_update().filter(pk=1).values_list("pk").first()
        locked = RatingsReplay.objects.select_for_update().get(pk=1)
        if (locked.generation, _replay_position(locked)) != (kept.generation, kept.position):
            return Step.MOVED, 0
        if _upcoming(position, unfiling) != step.upcoming:
            return Step.MOVED, 0
        if _leased_elsewhere(locked, owner, now):
            return Step.BUSY, 0
        step.write()
        if step.last is None:
            _store_all(states)
            RatingsReplay.objects.filter(pk=1).update(
                from_filed_at=None, from_match_id=None, lease_owner="", lease_until=None
            )
            standings_changed()  # the settled ratings show: cached pages are rebuilt
            outcome = Step.SETTLED
            following = None
        else:
            following = (step.last[0], step.last[1] + 1)  # ids are integers: just past it
            RatingsReplay.objects.filter(pk=1).update(
                from_filed_at=following[0],
                from_match_id=following[1],
                replayed=F("replayed") + step.done,
                lease_owner=owner,
                lease_until=timezone.now() + LEASE,
            )
            outcome = Step.STEPPED
    with _kept_lock:
        if following is None:
            _kept.pop(alias, None)
        else:
            _kept[alias] = _Kept(kept.generation, following, states)
    return outcome, step.done


UPSERT_COLUMNS = (
    "match_id", "player_id", "mu_before", "sigma_before", "mu", "sigma", "place", "ranked",
    "number", "run", "longest_run", "best_place",
)  # fmt: skip
UPSERT_KEYS = ("match_id", "player_id")


@dataclass
class _Rerated:
    """What a step found to write: how many matches it rated, the last one's position
    (None: none left after them), their ids and every seat's rating change as a row."""

    done: int
    last: Position | None
    match_ids: list[int]
    rows: list[tuple]
    upcoming: list[Position]  # the matches read, and the one after them if any

    def write(self) -> None:
        """One upsert for every row, keyed on (match, player), so nothing stored has to be
        read first; then whatever a match keeps for a player it no longer seats (its seating
        changed since those rows were written)."""
        if not self.rows:
            return
        # One statement on PostgreSQL: executemany sent one per row (1,600 a step), which
        # took 94 ms of each step's write transaction, two thirds of a 100k replay's time.
        rows_upsert(RatingChange, UPSERT_COLUMNS, self.rows, keys=UPSERT_KEYS)
        seated = Seat.objects.filter(match_id=OuterRef("match_id"), player_id=OuterRef("player_id"))
        RatingChange.objects.filter(match_id__in=self.match_ids).exclude(Exists(seated)).delete()


def _upcoming(position: Position, unfiling: int | None) -> list[Position]:
    """The next STEP_MATCHES filed matches from position, and the one after them if any."""
    matches = _filed_from(position)
    if unfiling is not None:
        matches = matches.exclude(pk=unfiling)
    rows = matches.order_by("filed_at", "pk").values_list("filed_at", "pk")
    # Filed matches: filed_at is set.
    return [(cast("datetime.datetime", at), pk) for at, pk in rows[: STEP_MATCHES + 1]]


def _rerate(
    position: Position, states: dict[int, State], *, unfiling: int | None = None
) -> _Rerated:
    """Rate the next STEP_MATCHES filed matches from position, updating states; what to
    write for them."""
    upcoming = _upcoming(position, unfiling)
    batch = upcoming[:STEP_MATCHES]
    step = _Rerated(len(batch), None, [pk for _, pk in batch], [], upcoming)
    if not batch:
        return step
    for seating in _seatings(Match.objects.filter(pk__in=step.match_ids)):
        match, mode, seats = seating
        before = {p: states.get(p, (None, NEWCOMER)) for p, _ in seats}
        after = rate(seating, before)
        ranked = is_ranked(mode)
        for player, place in seats:
            step.rows.append(_change(match, player, place, ranked, before[player], after[player]))
        states.update(after)
    if len(upcoming) > len(batch):
        step.last = batch[-1]
    return step


def _store_all(states: Mapping[int, State]) -> None:
    """Every player's latest rating, as the replay ended: the settled ratings."""
    PlayerRating.objects.exclude(player_id__in=list(states)).delete()
    _store_current(states)


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
            position = _pending_position()
            total = 0 if position is None else _filed_from(position).count()
        outcome, rerated = replay_step(owner=owner, unfiling=unfiling)
        done += rerated
        if progress is not None and total is not None:
            progress(min(done, total), total)
        if outcome is Step.SETTLED:
            return done
        if outcome is Step.BUSY:
            time.sleep(0.2)


def _replay_all() -> Iterator[tuple[Seating, dict[int, State], dict[int, RatedState]]]:
    """Every filed match in filing order with its players' ratings and careers before and
    after, computed from nothing but seats and places."""
    current: dict[int, State] = {}
    for seating in _seatings(Match.objects.filed()):
        before = {player: current.get(player, (None, NEWCOMER)) for player, _ in seating[2]}
        after = rate(seating, before)
        current.update(after)
        yield seating, before, after


def _stored(change: StoredChange) -> tuple:
    return (
        _before(change),
        (change.mu, change.sigma),
        change.place,
        change.ranked,
        _career(change),
    )


def rating_problems() -> list[str]:
    """Stored ratings, and the careers kept with them, that differ from a recomputation of
    every filed match."""
    problems: list[str] = []
    current: dict[int, State] = {}

    def recomputed() -> Iterator[Seating]:
        for seating, before, after in _replay_all():
            expected[seating[0]] = {
                p: (before[p][0], after[p][0], place, is_ranked(seating[1]), after[p][1])
                for p, place in seating[2]
            }
            current.update(after)
            yield seating

    expected: dict[int, dict] = {}
    for (match_id, _, _), stored in _with_changes(recomputed()):
        found = {player: _stored(change) for player, change in stored.items()}
        wanted = expected.pop(match_id)
        if found != wanted:
            problems.append(
                f"Match #{match_id}: stored rating changes {found}, recomputed {wanted}"
            )
    kept = {r.player_id: _rating_row_values(r) for r in PlayerRating.objects.all()}
    wanted_rows = {p: _rating_row(p, s)[1:] for p, s in current.items()}
    for player in sorted(set(kept) | set(wanted_rows)):
        if kept.get(player) != wanted_rows.get(player):
            problems.append(
                f"Player #{player}: stored rating {kept.get(player)}, "
                f"recomputed {wanted_rows.get(player)}"
            )
    return problems


def _rating_row_values(row: PlayerRating) -> tuple:
    """A stored rating as _rating_row's values after the player."""
    return tuple(getattr(row, name) for name in RATING_COLUMNS[1:])
