"""The stored ratings checked against a full recompute: every filed match rated again from
nothing but its seats and places, in filing order, and compared with what is stored (the
integrity check's part for ratings)."""

from collections.abc import Iterable, Iterator

from matches.models import Match, PlayerRating, RatingChange
from matches.ratings.engine import NEWCOMER_STATE, RatedState, Seating, State, rate
from matches.ratings.store import (
    BATCH,
    RATING_COLUMNS,
    ChangeRow,
    career_after,
    change_rows,
    rating_before,
    rating_row,
    seatings,
)
from matches.rules.scoring import is_ranked


def _with_changes(
    matches: Iterable[Seating],
) -> Iterator[tuple[Seating, dict[int, ChangeRow]]]:
    """Each match with its stored rating changes by player, read a batch of matches at once."""
    batch: list[Seating] = []

    def flush() -> Iterator[tuple[Seating, dict[int, ChangeRow]]]:
        stored: dict[int, dict[int, ChangeRow]] = {seating.match_id: {} for seating in batch}
        for change in change_rows(RatingChange.objects.filter(match_id__in=list(stored))):
            stored[change.match_id][change.player_id] = change
        for seating in batch:
            yield seating, stored[seating.match_id]

    for seating in matches:
        batch.append(seating)
        if len(batch) >= BATCH:
            yield from flush()
            batch = []
    yield from flush()


def _replay_all() -> Iterator[tuple[Seating, dict[int, State], dict[int, RatedState]]]:
    """Every filed match in filing order with its players' ratings and careers before and
    after, computed from nothing but seats and places."""
    current: dict[int, State] = {}
    for seating in seatings(Match.objects.filed()):
        before = {player: current.get(player, NEWCOMER_STATE) for player, _ in seating.seats}
        after = rate(seating, before)
        current.update(after)
        yield seating, before, after


def _stored(change: ChangeRow) -> tuple:
    return (
        rating_before(change),
        (change.mu, change.sigma),
        change.place,
        change.ranked,
        career_after(change),
    )


def _rating_row_values(row: PlayerRating) -> tuple:
    """A stored rating as rating_row's values after the player."""
    return tuple(getattr(row, name) for name in RATING_COLUMNS[1:])


def rating_problems() -> list[str]:
    """Stored ratings, and the careers kept with them, that differ from a recomputation of
    every filed match."""
    problems: list[str] = []
    current: dict[int, State] = {}

    def recomputed() -> Iterator[Seating]:
        for seating, before, after in _replay_all():
            ranked = is_ranked(seating.mode)
            expected[seating.match_id] = {
                p: (before[p].rating, after[p].rating, place, ranked, after[p].career)
                for p, place in seating.seats
            }
            current.update(after)
            yield seating

    expected: dict[int, dict] = {}
    for seating, stored in _with_changes(recomputed()):
        found = {player: _stored(change) for player, change in stored.items()}
        wanted = expected.pop(seating.match_id)
        if found != wanted:
            problems.append(
                f"Match #{seating.match_id}: stored rating changes {found}, recomputed {wanted}"
            )
    kept = {r.player_id: _rating_row_values(r) for r in PlayerRating.objects.all()}
    wanted_rows = {p: rating_row(p, s)[1:] for p, s in current.items()}
    for player in sorted(set(kept) | set(wanted_rows)):
        if kept.get(player) != wanted_rows.get(player):
            problems.append(
                f"Player #{player}: stored rating {kept.get(player)}, "
                f"recomputed {wanted_rows.get(player)}"
            )
    return problems
