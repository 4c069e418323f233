"""Stored skill ratings, kept in step with the filed matches (the model is engine.py's): what
the writes of other packages call, in their own transactions, to rate a filing or to
schedule a replay.

Every filed match is one rating event, in filing order (filing time, then match id); each
player is a one-player team, passed to the model in seating order, starting from the model's
default rating at their first match. Ranks: a ranked table's places; at a winner-takes-all
table the winner 1 and everyone else 2, because that mode names only the winner.

Filing the newest match appends, in the filing's transaction. Anything that changes the past
(undoing a crowning that later matches follow, a merge, a match filed out of order, a
rebuild) only moves the replay's position back (RatingsReplay) in its own transaction: the
replay then re-rates every match from there in short steps after the answer (steps.py,
which worker.py runs), each its own transaction, so no request holds the league's write lock
for a time that grows with its history. While a replay is pending, PlayerRating keeps the
last settled ratings (never a half-replayed mix) and ratings_updating() says so.

The standings stamp row, which every filing and undo changes first, orders these writes: a
step locks it too, so a filing never misses a replay that is just finishing.
"""

from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, Q
from django.dispatch import Signal
from django.utils import timezone

from matches.core.stamp import standings_changed
from matches.models import Match, Player, PlayerRating, RatingChange, RatingsReplay, Seat
from matches.ratings.engine import NEWCOMER, NEWCOMER_STATE, Career, Seating, State, rate
from matches.ratings.steps import ratings_settle
from matches.ratings.store import (
    Position,
    career_after,
    change_row,
    changes_upsert,
    filed_after,
    match_position,
    pending_position,
    rating_before,
    rating_row,
    ratings_store,
    ratings_upsert,
    replay_position,
)
from matches.rules.scoring import finished_place, is_ranked

# Sent after a write that moved the replay's position back has committed (worker.py wakes).
replay_scheduled = Signal()


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
    current = replay_position(row)
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


def _state(rating: PlayerRating | None) -> State:
    if rating is None:
        return NEWCOMER_STATE
    career = Career(rating.matches, rating.run, rating.longest_run, rating.best_place)
    return State((rating.mu, rating.sigma), career)


def _seat_position(seat: Seat) -> int:
    return seat.position


def ratings_file(*, match: Match, mode: str, seats: Sequence[Seat]) -> None:
    """Rate a match in the transaction that files it, after that transaction changed the
    standings stamp (which holds the league-wide lock). seats: all its seats, places set."""
    position = match_position(match)
    # One query for both questions: the crowning's query budget.
    pending, later = (
        Match.objects.filter(pk=match.pk)
        .annotate(
            pending=Exists(RatingsReplay.objects.filter(pk=1, from_match_id__isnull=False)),
            later=Exists(filed_after(match)),
        )
        .values_list("pending", "later")
        .get()
    )
    if pending:
        # A replay is under way: it rates this match in its turn (earlier ones first).
        current = pending_position()
        if current is not None and position < current:
            _schedule(position)
        return
    if later:
        # Another table's match, filed a moment later, was rated first (possible on
        # PostgreSQL, where tables file in parallel): this one is rated in its place.
        _schedule(position)
        return
    places = [(s.player_id, finished_place(s.place)) for s in sorted(seats, key=_seat_position)]
    seating = Seating(match.pk, mode, places)
    players = [player for player, _ in seating.seats]
    kept = {r.player_id: r for r in PlayerRating.objects.filter(player_id__in=players)}
    before = {player: _state(kept.get(player)) for player in players}
    after = rate(seating, before)
    ranked = is_ranked(mode)
    changes_upsert(
        [change_row(match.pk, p, place, ranked, before[p], after[p]) for p, place in seating.seats]
    )
    ratings_upsert(rating_row(p, after[p]) for p in players)


def ratings_unfile(*, match: Match) -> None:
    """Before a filed match is reopened: every rating as if it had never been filed. Like
    ratings_file, called after its transaction changed the standings stamp. The newest
    match's players simply get their ratings from before it back; an older one's undo
    leaves the later matches to the replay."""
    changes = list(match.rating_changes.all())
    RatingChange.objects.filter(pk__in=[change.pk for change in changes]).delete()
    if pending_position() is not None or filed_after(match).exists():
        _schedule(match_position(match), unfiling=match.pk)
        return
    earlier = Q(pk__in=[])
    for change in changes:
        earlier |= Q(player_id=change.player_id, number=change.number - 1)
    careers = {c.player_id: career_after(c) for c in RatingChange.objects.filter(earlier)}
    ratings_store(
        {c.player_id: State(rating_before(c), careers.get(c.player_id, NEWCOMER)) for c in changes}
    )


def ratings_corrected(*, match: Match) -> None:
    """After a filed match's places were corrected, in that write's transaction (after
    standings_changed): its ratings and every later match's are replayed from its position.
    The seats moved under any step already under way, which must not write what it read."""
    _schedule(match_position(match), seats_moved=True)


def ratings_merged(*, keep: Player, dropped_id: int) -> None:
    """After a merge gave every seat and rating change of one record to another: the replay
    re-rates from the first filed match of the merged player, who starts there as a
    newcomer."""
    PlayerRating.objects.filter(player_id=dropped_id).delete()
    first = _first_filed(seats__player=keep)
    if first is None:
        PlayerRating.objects.filter(player=keep).delete()
        return
    _schedule(first, seats_moved=True)


def ratings_unmerged(*, restored_id: int) -> None:
    """After an undone merge gave a record its seats back (and the rating changes of those
    matches), in that transaction: the replay re-rates from the first filed match the
    restored player sat in; every rating before it is as the merge left it, which is as if
    it had never happened."""
    first = _first_filed(seats__player_id=restored_id)
    if first is not None:
        _schedule(first, seats_moved=True)


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
    return _first_filed(table_id__in=table_ids)


def _first_filed(**filters: Any) -> Position | None:
    """The position in filing order of the first filed match these filters keep, if any."""
    first = (
        Match.objects.filed()
        .filter(**filters)
        .order_by("filed_at", "pk")
        .values_list("filed_at", "pk")
        .first()
    )
    return None if first is None else Position._make(first)


def ratings_rebuild(*, progress: Callable[[int, int], None] | None = None) -> int:
    """Recompute every rating from scratch, in the replay's short steps (the league stays
    open meanwhile); returns the number of rated matches. progress(done, total) after each
    step."""
    if not ratings_rebuild_schedule():
        return 0
    return ratings_settle(progress=progress)


def ratings_rebuild_schedule() -> bool:
    """Move the replay back to the very first filed match, for whoever replays next (a
    rebuild here, or a server's ratings worker); False when nothing is filed (then no
    rating is left)."""
    with transaction.atomic():
        standings_changed()  # the league-wide lock; cached standings show ratings
        # Rows of matches no longer filed (a raw edit): no step would ever visit them.
        RatingChange.objects.exclude(match__status=Match.Status.FILED).delete()
        first = Match.objects.filed().order_by("filed_at", "pk").only("pk", "filed_at").first()
        if first is None:
            RatingChange.objects.all().delete()
            PlayerRating.objects.all().delete()
            return False
        # Whatever is pending is covered: the replay from the very first match.
        RatingsReplay.objects.bulk_create([RatingsReplay(pk=1)], ignore_conflicts=True)
        RatingsReplay.objects.filter(pk=1).update(
            from_filed_at=first.filed_at,
            from_match_id=first.pk,
            generation=F("generation") + 1,
            scheduled_at=timezone.now(),
            replayed=0,
        )
    return True
