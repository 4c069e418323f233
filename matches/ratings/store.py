"""The stored ratings as the replay reads and writes them: filing order, the replay's
position, each filed match's seats, and the rows of RatingChange and PlayerRating, as
plain tuples rather than model instances (an undo reads hundreds of them).

Every filed match is one rating event, in filing order (filing time, then match id). Each
filed match keeps every player's rating before and after it (RatingChange), and each player
their latest one (PlayerRating)."""

import datetime
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple, cast

from django.db.models import QuerySet

from matches.core.rows import rows_update, rows_upsert
from matches.models import Match, PlayerRating, RatingChange, RatingsReplay, Seat
from matches.ratings.engine import Career, RatedState, Rating, Seating, State

BATCH = 2000


class Position(NamedTuple):
    """A place in filing order: a filed match's filing time and id."""

    filed_at: datetime.datetime
    match_id: int


def filed_from(position: Position) -> QuerySet[Match]:
    """The filed matches at position or after it in filing order.

    Written as a range on filed_at less the earlier ids at its first moment, which the
    (status, filed_at) index answers by seeking; the plain "later or same moment and id" OR
    made SQLite walk the whole index."""
    return (
        Match.objects.filed()
        .filter(filed_at__gte=position.filed_at)
        .exclude(filed_at=position.filed_at, pk__lt=position.match_id)
    )


def filed_before(position: Position) -> QuerySet[Match]:
    """The filed matches before position in filing order (as filed_from, by seeking)."""
    return (
        Match.objects.filed()
        .filter(filed_at__lte=position.filed_at)
        .exclude(filed_at=position.filed_at, pk__gte=position.match_id)
    )


def filed_after(match: Match) -> QuerySet[Match]:
    """The filed matches after this one in filing order."""
    # Ids are integers: the position just past the match's own.
    return filed_from(Position(cast("datetime.datetime", match.filed_at), match.pk + 1))


def match_position(match: Match) -> Position:
    """A filed match's place in filing order."""
    # filed_at is set: these are filed matches (or one being unfiled, still stamped).
    return Position(cast("datetime.datetime", match.filed_at), match.pk)


def replay_position(row: RatingsReplay | None) -> Position | None:
    """Where the replay stands in this row of it, None when nothing is pending."""
    if row is None or row.from_filed_at is None or row.from_match_id is None:
        return None
    return Position(row.from_filed_at, row.from_match_id)


def pending_position() -> Position | None:
    """Where the pending replay stands, None when nothing is pending."""
    return replay_position(RatingsReplay.objects.filter(pk=1).first())


def seatings(matches: QuerySet[Match]) -> Iterator[Seating]:
    """These matches in filing order, read as plain rows of their seats (one streamed query,
    no model instances: the audit reads every filed match)."""
    rows = (
        Seat.objects.filter(match__in=matches)
        .order_by("match__filed_at", "match_id", "position")
        .values_list("match_id", "match__table__mode", "player_id", "place")
        .iterator(chunk_size=BATCH)
    )
    for (match_id, mode), seats in groupby(rows, key=lambda row: row[:2]):
        # Filed matches: every seat has its place.
        places = cast("list[tuple[int, int]]", [(p, place) for _, _, p, place in seats])
        yield Seating(match_id, mode, places)


def seatings_of(matches: Sequence[tuple[int, str]]) -> list[Seating]:
    """These matches, given as (id, mode) in filing order, with their seats: one query of
    the seats alone, looked up by match id."""
    seats: dict[int, list[tuple[int, int]]] = {match_id: [] for match_id, _ in matches}
    rows = (
        Seat.objects.filter(match_id__in=list(seats))
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "place")
    )
    for match_id, player, place in rows:
        # Filed matches: every seat has its place.
        seats[match_id].append((player, cast(int, place)))
    return [Seating(match_id, mode, seats[match_id]) for match_id, mode in matches]


class ChangeRow(NamedTuple):
    """A RatingChange row as the replay reads and writes it; its fields are the columns."""

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


CHANGE_COLUMNS = ChangeRow._fields
CHANGE_KEYS = ("match_id", "player_id")


def change_rows(changes: QuerySet[RatingChange]) -> Iterator[ChangeRow]:
    """These rating changes as rows, no model instances."""
    for values in changes.values_list(*CHANGE_COLUMNS):
        yield ChangeRow._make(values)


def change_row(
    match_id: int, player: int, place: int, ranked: bool, before: State, after: RatedState
) -> ChangeRow:
    """A player's rating change in a match, from their states before and after it."""
    mu_before, sigma_before = before.rating or (None, None)
    mu, sigma = after.rating
    career = after.career
    return ChangeRow(
        match_id, player, mu_before, sigma_before, mu, sigma, place, ranked,
        career.number, career.run, career.longest, career.best,
    )  # fmt: skip


def changes_upsert(rows: list[ChangeRow]) -> None:
    """Write these rating changes, each over the one stored for its match and player."""
    rows_upsert(RatingChange, CHANGE_COLUMNS, rows, keys=CHANGE_KEYS)


# A replay rewrites every column but the keys and the career number, which stands for most
# rows (it moves only when a player's earlier career changed: an undo, a merge).
_REWRITTEN = tuple(c for c in CHANGE_COLUMNS if c != "number")
_rewritten = itemgetter(*(CHANGE_COLUMNS.index(c) for c in _REWRITTEN))


def stored_numbers(match_ids: Iterable[int]) -> dict[tuple[int, int], int]:
    """The career number stored on each rating change of these matches, by (match, player)."""
    rows = RatingChange.objects.filter(match_id__in=match_ids).values_list(
        "match_id", "player_id", "number"
    )
    return {(match, player): number for match, player, number in rows}


def changes_write(rows: list[ChangeRow], numbers: Mapping[tuple[int, int], int]) -> None:
    """Write these rating changes over the stored ones, whose career numbers were read as
    numbers (stored_numbers): a row whose number stands is updated without it, which on
    SQLite leaves the career index alone; the others are upserted whole."""
    standing: list[ChangeRow] = []
    moved: list[ChangeRow] = []
    for row in rows:
        stands = numbers.get((row.match_id, row.player_id)) == row.number
        (standing if stands else moved).append(row)
    updated = rows_update(
        RatingChange, _REWRITTEN, [_rewritten(row) for row in standing], keys=CHANGE_KEYS
    )
    if updated != len(standing):  # a row went since numbers were read: write them all whole
        moved = rows
    changes_upsert(moved)


def rating_before(change: RatingChange | ChangeRow) -> Rating | None:
    """The rating a player went into the change's match with, None at their first."""
    # Both or neither (the rating_change_before_whole constraint).
    mu, sigma = change.mu_before, change.sigma_before
    return None if mu is None or sigma is None else (mu, sigma)


def career_after(change: RatingChange | ChangeRow) -> Career:
    """A player's career after the change's match."""
    return Career(change.number, change.run, change.longest_run, change.best_place)


RATING_COLUMNS = ("player_id", "mu", "sigma", "matches", "run", "longest_run", "best_place")


def rating_row(player: int, state: State) -> tuple:
    """A player's latest rating and career as a row of RATING_COLUMNS."""
    if state.rating is None:  # a player has a rating from their first rated match on
        raise ValueError(f"Player #{player} has no rating to store")
    mu, sigma = state.rating
    career = state.career
    return (player, mu, sigma, career.number, career.run, career.longest, career.best)


def ratings_upsert(rows: Iterable[tuple]) -> None:
    """Write these rows of RATING_COLUMNS, each over the player's stored rating."""
    # One statement or one executemany whatever the rows: nothing to cut into batches.
    rows_upsert(PlayerRating, RATING_COLUMNS, list(rows), keys=["player_id"])


def ratings_store(states: Mapping[int, State]) -> None:
    """Write these players' latest ratings and careers; a player left with no rated match
    has no rating."""
    PlayerRating.objects.filter(
        player_id__in=[p for p, state in states.items() if not state.career.number]
    ).delete()
    ratings_upsert(rating_row(p, state) for p, state in states.items() if state.career.number)
