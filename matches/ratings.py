"""Skill ratings: openskill's Plackett-Luce model with its default parameters.

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
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Count, Prefetch, Q, QuerySet
from openskill.models import PlackettLuce

from . import scoring, services
from .models import Match, Player, PlayerRating, RatingChange, Seat

MODEL = PlackettLuce()
MODEL_NAME = "PlackettLuce"
# Fewer filed matches than this and the rating is still mostly the starting guess.
PROVISIONAL_BELOW = 5
BATCH = 2000

Rating = tuple[float, float]  # (mu, sigma)


def ordinal(mu: float, sigma: float) -> float:
    """The conservative skill estimate the lists rank by: mu - 3 sigma."""
    return mu - 3 * sigma


def shown_rating(mu: float, sigma: float) -> int:
    """The rating on the friendly scale people read: 1000 for a newcomer (ordinal 0),
    40 points per unit of ordinal."""
    return round(1000 + 40 * ordinal(mu, sigma))


def _ranks(mode: str, places: Sequence[int]) -> list[int]:
    """Each player's rank in the rating event: the place the mode names; at a
    winner-takes-all table everyone but the winner shares second."""
    return [scoring.shown_place(mode, place) or 2 for place in places]


def rate_match(
    *, mode: str, seats: Sequence[tuple[int, int]], before: Mapping[int, Rating | None]
) -> dict[int, Rating]:
    """New ratings of one match's players. seats: (player id, place) in seating order;
    before: each player's rating going in, None at their first match."""
    teams = [
        [MODEL.rating(*before[player]) if before[player] else MODEL.rating()] for player, _ in seats
    ]
    rated = MODEL.rate(teams, ranks=_ranks(mode, [place for _, place in seats]))
    return {
        player: (team[0].mu, team[0].sigma) for (player, _), team in zip(seats, rated, strict=True)
    }


def _filed_after(match: Match, *, inclusive: bool = False) -> QuerySet[Match]:
    same_time = Q(pk__gte=match.pk) if inclusive else Q(pk__gt=match.pk)
    return Match.objects.filed().filter(
        Q(filed_at__gt=match.filed_at) | (Q(filed_at=match.filed_at) & same_time)
    )


def _in_filing_order(matches: QuerySet[Match], *, with_changes: bool) -> Iterator[Match]:
    seats = Seat.objects.only("id", "match_id", "player_id", "place", "position")
    lookups = [Prefetch("seats", queryset=seats)]
    if with_changes:
        lookups.append("rating_changes")
    return (
        matches.order_by("filed_at", "pk")
        .select_related("table")
        .only("id", "filed_at", "table__mode")
        .prefetch_related(*lookups)
        .iterator(chunk_size=BATCH)
    )


def _seating(match: Match) -> list[tuple[int, int]]:
    return [(seat.player_id, seat.place) for seat in match.seats.all()]


def _before(change: RatingChange) -> Rating | None:
    return None if change.mu_before is None else (change.mu_before, change.sigma_before)


def _change(match_id: int, player: int, before: Rating | None, after: Rating) -> RatingChange:
    mu_before, sigma_before = before or (None, None)
    return RatingChange(
        match_id=match_id,
        player_id=player,
        mu_before=mu_before,
        sigma_before=sigma_before,
        mu=after[0],
        sigma=after[1],
    )


def _replay(later: QuerySet[Match], moved: dict[int, Rating | None]) -> None:
    """Re-rate, in filing order, the later matches that seat a player whose rating moved
    (who then moves too); matches among unmoved players keep their stored changes."""
    changed: list[RatingChange] = []
    for match in _in_filing_order(later, with_changes=True):
        seating = _seating(match)
        if not any(player in moved for player, _ in seating):
            continue
        stored = {change.player_id: change for change in match.rating_changes.all()}
        before = {
            player: moved[player] if player in moved else _before(stored[player])
            for player, _ in seating
        }
        after = rate_match(mode=match.table.mode, seats=seating, before=before)
        for player, rating in after.items():
            change = stored[player]
            change.mu_before, change.sigma_before = before[player] or (None, None)
            change.mu, change.sigma = rating
            changed.append(change)
        moved.update(after)
    _save_changes(changed)


def _save_changes(changes: list[RatingChange]) -> None:
    """One prepared UPDATE run for every changed row: bulk_update's CASE per field costs
    seconds of Python for the few hundred rows an undo replays (see make bench)."""
    table, qn = RatingChange._meta.db_table, connection.ops.quote_name
    columns = ("mu_before", "sigma_before", "mu", "sigma")
    assignments = ", ".join(f"{qn(column)} = %s" for column in columns)
    sql = f"UPDATE {qn(table)} SET {assignments} WHERE {qn('id')} = %s"  # noqa: S608 (names from the model, values as parameters)
    with connection.cursor() as cursor:
        cursor.executemany(
            sql, [(c.mu_before, c.sigma_before, c.mu, c.sigma, c.pk) for c in changes]
        )


def _store_current(ratings: Mapping[int, Rating | None]) -> None:
    """Write these players' latest ratings, counting their rated matches afresh."""
    counts = dict(
        RatingChange.objects.filter(player_id__in=ratings)
        .values("player_id")
        .annotate(n=Count("id"))
        .values_list("player_id", "n")
    )
    PlayerRating.objects.filter(player_id__in=[p for p in ratings if not counts.get(p)]).delete()
    _upsert(
        PlayerRating(player_id=p, mu=r[0], sigma=r[1], matches=counts[p])
        for p, r in ratings.items()
        if counts.get(p) and r is not None
    )


def _upsert(rows: Iterable[PlayerRating]) -> None:
    PlayerRating.objects.bulk_create(
        list(rows),
        update_conflicts=True,
        unique_fields=["player"],
        update_fields=["mu", "sigma", "matches"],
        batch_size=BATCH,
    )


def _rating_before(player: int, match: Match) -> Rating | None:
    latest = (
        RatingChange.objects.filter(player_id=player)
        .filter(
            Q(match__filed_at__lt=match.filed_at)
            | Q(match__filed_at=match.filed_at, match_id__lt=match.pk)
        )
        .order_by("-match__filed_at", "-match_id")
        .first()
    )
    return None if latest is None else (latest.mu, latest.sigma)


def ratings_file(*, match: Match, mode: str, seats: Sequence[Seat]) -> None:
    """Rate a match in the transaction that files it, after that transaction changed the
    standings stamp (which holds the league-wide lock). seats: all its seats, places set."""
    seating = [(s.player_id, s.place) for s in sorted(seats, key=lambda s: s.position)]
    players = [player for player, _ in seating]
    later = _filed_after(match)
    out_of_order = later.exists()
    if out_of_order:
        # Another table's match, filed a moment later, was rated first (possible on
        # PostgreSQL, where tables file in parallel): rate this one in its place.
        before = {player: _rating_before(player, match) for player in players}
    else:
        current = PlayerRating.objects.filter(player_id__in=players)
        kept = {r.player_id: r for r in current}
        before = {p: (kept[p].mu, kept[p].sigma) if p in kept else None for p in players}
    after = rate_match(mode=mode, seats=seating, before=before)
    RatingChange.objects.bulk_create([_change(match.pk, p, before[p], after[p]) for p in players])
    if out_of_order:
        moved: dict[int, Rating | None] = dict(after)
        _replay(later, moved)
        _store_current(moved)
    else:
        _upsert(
            PlayerRating(
                player_id=p,
                mu=after[p][0],
                sigma=after[p][1],
                matches=(kept[p].matches if p in kept else 0) + 1,
            )
            for p in players
        )


def ratings_unfile(*, match: Match) -> None:
    """Before a filed match is reopened: every rating as if it had never been filed. Like
    ratings_file, called after its transaction changed the standings stamp."""
    changes = list(match.rating_changes.all())
    moved = {change.player_id: _before(change) for change in changes}
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
    moved: dict[int, Rating | None] = {keep.pk: None}
    if first is not None:
        _replay(_filed_after(first, inclusive=True), moved)
    _store_current(moved)


def _replay_all(*, with_changes: bool = False) -> Iterator[tuple[Match, dict, dict]]:
    """Every filed match in filing order with its players' ratings before and after,
    computed from nothing but seats and places."""
    current: dict[int, Rating] = {}
    for match in _in_filing_order(Match.objects.filed(), with_changes=with_changes):
        seating = _seating(match)
        before = {player: current.get(player) for player, _ in seating}
        after = rate_match(mode=match.table.mode, seats=seating, before=before)
        current.update(after)
        yield match, before, after


@transaction.atomic
def ratings_rebuild() -> int:
    """Recompute every rating from scratch; returns the number of rated matches."""
    services.standings_changed()  # the league-wide lock; cached standings show ratings
    RatingChange.objects.all().delete()
    PlayerRating.objects.all().delete()
    current: dict[int, tuple[float, float, int]] = {}
    pending: list[RatingChange] = []
    rated = 0
    for match, before, after in _replay_all():
        rated += 1
        for player, rating in after.items():
            pending.append(_change(match.pk, player, before[player], rating))
            current[player] = (*rating, current.get(player, (0, 0, 0))[2] + 1)
        if len(pending) >= BATCH:
            RatingChange.objects.bulk_create(pending, batch_size=BATCH)
            pending = []
    RatingChange.objects.bulk_create(pending, batch_size=BATCH)
    PlayerRating.objects.bulk_create(
        [PlayerRating(player_id=p, mu=mu, sigma=s, matches=n) for p, (mu, s, n) in current.items()],
        batch_size=BATCH,
    )
    return rated


def rating_problems() -> list[str]:
    """Stored ratings that differ from a recomputation of every filed match."""
    problems: list[str] = []
    current: dict[int, tuple[float, float, int]] = {}
    for match, before, after in _replay_all(with_changes=True):
        stored = {c.player_id: (_before(c), (c.mu, c.sigma)) for c in match.rating_changes.all()}
        expected = {player: (before[player], after[player]) for player in after}
        if stored != expected:
            problems.append(
                f"Match #{match.pk}: stored rating changes {stored}, recomputed {expected}"
            )
        for player, rating in after.items():
            current[player] = (*rating, current.get(player, (0, 0, 0))[2] + 1)
    kept = {r.player_id: (r.mu, r.sigma, r.matches) for r in PlayerRating.objects.all()}
    for player in sorted(set(kept) | set(current)):
        if kept.get(player) != current.get(player):
            problems.append(
                f"Player #{player}: stored rating {kept.get(player)}, "
                f"recomputed {current.get(player)}"
            )
    return problems


@dataclass(frozen=True)
class RatingRow:
    rank: int
    player_id: int
    player: str
    matches: int
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_BELOW

    @property
    def shown(self) -> int:
        return shown_rating(self.mu, self.sigma)

    def as_json(self) -> dict:
        return {
            "rank": self.rank,
            "id": self.player_id,
            "player": self.player,
            "matches": self.matches,
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "provisional": self.provisional,
        }


def _ranked(ratings: QuerySet[PlayerRating]) -> list[RatingRow]:
    rows = sorted(
        ratings.values_list("player_id", "player__name", "player__key", "matches", "mu", "sigma"),
        key=lambda r: (-ordinal(r[4], r[5]), r[2], r[0]),
    )
    return [
        RatingRow(rank=n, player_id=p, player=name, matches=m, mu=mu, sigma=s)
        for n, (p, name, _, m, mu, s) in enumerate(rows, 1)
    ]


def rating_table() -> list[RatingRow]:
    """Every rated player, best ordinal first, then by name; one query."""
    return _ranked(PlayerRating.objects.all())


def player_rating(*, player: Player) -> RatingRow | None:
    """One player's current rating with their place in the rating list, or None if unrated."""
    for row in rating_table():
        if row.player_id == player.pk:
            return row
    return None
