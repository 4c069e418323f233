"""Stored skill ratings, kept in step with the filed matches (the model is engine.py's).

Every filed match is one rating event, in filing order (filing time, then match id); each
player is a one-player team, passed to the model in seating order, starting from the model's
default rating at their first match. Ranks: a ranked table's places; at a winner-takes-all
table the winner 1 and everyone else 2, because that mode names only the winner.

Each filed match keeps every player's rating before and after it (RatingChange), and each
player their latest one (PlayerRating). Filing appends; undoing a crowning restores the
"before" values of that match and replays only the later matches that seat a player whose
rating moved, never the whole league. The standings stamp row, which every filing and undo
changes first, serialises these writes: two tables filing at once are rated one after the
other, and a match that reaches the ratings after one filed later is rated in its place.
"""

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import groupby
from typing import cast

from django.db import connection, transaction
from django.db.models import Q, QuerySet

from matches.core.stamp import standings_changed
from matches.models import Match, Player, PlayerRating, RatingChange, Seat
from matches.ratings.engine import NEWCOMER, Career, RatedState, Rating, Seating, State, rate
from matches.rules.scoring import finished_place, is_ranked

BATCH = 2000


def _filed_after(match: Match, *, inclusive: bool = False) -> QuerySet[Match]:
    same_time = Q(pk__gte=match.pk) if inclusive else Q(pk__gt=match.pk)
    return Match.objects.filed().filter(
        Q(filed_at__gt=match.filed_at) | (Q(filed_at=match.filed_at) & same_time)
    )


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


def _set_career(change: "RatingChange | StoredChange", career: Career) -> None:
    change.number, change.run, change.longest_run, change.best_place = career


def _change(
    match_id: int, player: int, place: int, ranked: bool, before: State, after: RatedState
) -> RatingChange:
    mu_before, sigma_before = before[0] or (None, None)
    change = RatingChange(
        match_id=match_id,
        player_id=player,
        mu_before=mu_before,
        sigma_before=sigma_before,
        mu=after[0][0],
        sigma=after[0][1],
        place=place,
        ranked=ranked,
    )
    _set_career(change, after[1])
    return change


def _replay(later: QuerySet[Match], moved: dict[int, State]) -> None:
    """Re-rate, in filing order, the later matches that seat a player whose rating or
    career moved (who then moves too); matches among unmoved players are read as seats only
    and keep their stored changes."""
    affected = []
    dirty = set(moved)
    for seating in _seatings(later):
        players = {player for player, _ in seating[2]}
        if players & dirty:
            affected.append(seating)
            dirty |= players
    changed: list[StoredChange] = []
    for seating, stored in _with_changes(affected):
        seats = seating[2]
        before = {p: moved[p] if p in moved else (_before(stored[p]), NEWCOMER) for p, _ in seats}
        after = rate(seating, before)
        for player, _ in seats:
            change = stored[player]
            change.mu_before, change.sigma_before = before[player][0] or (None, None)
            change.mu, change.sigma = after[player][0]
            if player in moved:
                _set_career(change, after[player][1])
            else:
                # Nothing before this match moved for this player: the career stands.
                after[player] = (after[player][0], _career(change))
            changed.append(change)
        moved.update(after)
    _save_changes(changed)


def _save_changes(changes: list[StoredChange]) -> None:
    """One prepared UPDATE run for every changed row: bulk_update's CASE per field costs
    seconds of Python for the few hundred rows an undo replays (see make bench)."""
    table, qn = RatingChange._meta.db_table, connection.ops.quote_name
    columns: tuple[str, ...] = ("mu_before", "sigma_before", "mu", "sigma", "number", "run")
    columns += ("longest_run", "best_place")
    assignments = ", ".join(f"{qn(column)} = %s" for column in columns)
    sql = f"UPDATE {qn(table)} SET {assignments} WHERE {qn('id')} = %s"  # noqa: S608 (names from the model, values as parameters)
    with connection.cursor() as cursor:
        cursor.executemany(
            sql, [(*(getattr(c, column) for column in columns), c.pk) for c in changes]
        )


def _rating_row(player: int, state: State) -> PlayerRating:
    rating, career = state
    if rating is None:  # a player has a rating from their first rated match on
        raise ValueError(f"Player #{player} has no rating to store")
    mu, sigma = rating
    return PlayerRating(
        player_id=player,
        mu=mu,
        sigma=sigma,
        matches=career.number,
        run=career.run,
        longest_run=career.longest,
        best_place=career.best,
    )


def _store_current(states: Mapping[int, State]) -> None:
    """Write these players' latest ratings and careers; a player left with no rated match
    has no rating."""
    PlayerRating.objects.filter(
        player_id__in=[p for p, (_, career) in states.items() if not career.number]
    ).delete()
    _upsert(_rating_row(p, state) for p, state in states.items() if state[1].number)


def _upsert(rows: Iterable[PlayerRating]) -> None:
    PlayerRating.objects.bulk_create(
        list(rows),
        update_conflicts=True,
        unique_fields=["player"],
        update_fields=["mu", "sigma", "matches", "run", "longest_run", "best_place"],
        batch_size=BATCH,
    )


def _state_before(player: int, match: Match) -> State:
    latest = (
        RatingChange.objects.filter(player_id=player)
        .filter(
            Q(match__filed_at__lt=match.filed_at)
            | Q(match__filed_at=match.filed_at, match_id__lt=match.pk)
        )
        .order_by("-number")  # career numbers run in filing order
        .first()
    )
    return (None, NEWCOMER) if latest is None else ((latest.mu, latest.sigma), _career(latest))


def _state(rating: PlayerRating | None) -> State:
    if rating is None:
        return None, NEWCOMER
    career = Career(rating.matches, rating.run, rating.longest_run, rating.best_place)
    return (rating.mu, rating.sigma), career


def ratings_file(*, match: Match, mode: str, seats: Sequence[Seat]) -> None:
    """Rate a match in the transaction that files it, after that transaction changed the
    standings stamp (which holds the league-wide lock). seats: all its seats, places set."""
    places = [(s.player_id, finished_place(s.place)) for s in sorted(seats, key=_position)]
    seating: Seating = (match.pk, mode, places)
    players = [player for player, _ in seating[2]]
    later = _filed_after(match)
    out_of_order = later.exists()
    if out_of_order:
        # Another table's match, filed a moment later, was rated first (possible on
        # PostgreSQL, where tables file in parallel): rate this one in its place.
        before = {player: _state_before(player, match) for player in players}
    else:
        kept = {r.player_id: r for r in PlayerRating.objects.filter(player_id__in=players)}
        before = {player: _state(kept.get(player)) for player in players}
    after = rate(seating, before)
    ranked = is_ranked(mode)
    RatingChange.objects.bulk_create(
        [_change(match.pk, p, place, ranked, before[p], after[p]) for p, place in seating[2]]
    )
    if out_of_order:
        moved: dict[int, State] = dict(after)
        _replay(later, moved)
        _store_current(moved)
    else:
        _upsert(_rating_row(p, after[p]) for p in players)


def _position(seat: Seat) -> int:
    return seat.position


def ratings_unfile(*, match: Match) -> None:
    """Before a filed match is reopened: every rating as if it had never been filed. Like
    ratings_file, called after its transaction changed the standings stamp."""
    changes = list(match.rating_changes.all())
    earlier = Q(pk__in=[])
    for change in changes:
        earlier |= Q(player_id=change.player_id, number=change.number - 1)
    careers = {c.player_id: _career(c) for c in RatingChange.objects.filter(earlier)}
    moved = {c.player_id: (_before(c), careers.get(c.player_id, NEWCOMER)) for c in changes}
    RatingChange.objects.filter(pk__in=[change.pk for change in changes]).delete()
    _replay(_filed_after(match), moved)
    _store_current(moved)


def ratings_merged(*, keep: Player, dropped_id: int) -> None:
    """After a merge gave every seat and rating change of one record to another: replay
    from the first filed match of the merged player, who starts there as a newcomer."""
    PlayerRating.objects.filter(player_id=dropped_id).delete()
    first = (
        Match.objects.filed()
        .filter(seats__player=keep)
        .order_by("filed_at", "pk")
        .only("pk", "filed_at")
        .first()
    )
    moved: dict[int, State] = {keep.pk: (None, NEWCOMER)}
    if first is not None:
        _replay(_filed_after(first, inclusive=True), moved)
    _store_current(moved)


def _replay_all() -> Iterator[tuple[Seating, dict[int, State], dict[int, RatedState]]]:
    """Every filed match in filing order with its players' ratings and careers before and
    after, computed from nothing but seats and places."""
    current: dict[int, State] = {}
    for seating in _seatings(Match.objects.filed()):
        before = {player: current.get(player, (None, NEWCOMER)) for player, _ in seating[2]}
        after = rate(seating, before)
        current.update(after)
        yield seating, before, after


@transaction.atomic
def ratings_rebuild() -> int:
    """Recompute every rating from scratch; returns the number of rated matches."""
    standings_changed()  # the league-wide lock; cached standings show ratings
    RatingChange.objects.all().delete()
    PlayerRating.objects.all().delete()
    current: dict[int, State] = {}
    pending: list[RatingChange] = []
    rated = 0
    for seating, before, after in _replay_all():
        rated += 1
        match_id, mode, seats = seating
        ranked = is_ranked(mode)
        for player, place in seats:
            pending.append(_change(match_id, player, place, ranked, before[player], after[player]))
        current.update(after)
        if len(pending) >= BATCH:
            RatingChange.objects.bulk_create(pending, batch_size=BATCH)
            pending = []
    RatingChange.objects.bulk_create(pending, batch_size=BATCH)
    PlayerRating.objects.bulk_create(
        [_rating_row(p, state) for p, state in current.items()], batch_size=BATCH
    )
    return rated


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
    wanted_rows = {p: _rating_row_values(_rating_row(p, s)) for p, s in current.items()}
    for player in sorted(set(kept) | set(wanted_rows)):
        if kept.get(player) != wanted_rows.get(player):
            problems.append(
                f"Player #{player}: stored rating {kept.get(player)}, "
                f"recomputed {wanted_rows.get(player)}"
            )
    return problems


def _rating_row_values(row: PlayerRating) -> tuple:
    return (row.mu, row.sigma, row.matches, row.run, row.longest_run, row.best_place)
