"""Each player's nights (rules.nights: noon to noon, by the evening's date): their filed
results per night summed over tables (PlayerNight), kept by the services beside the daily
tallies so the player page reads its best night as one row of an index."""

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.db.models import Sum

from matches.models import DailyTally, Player, PlayerNight, Seat
from matches.results.counters import count_rows
from matches.rules.scoring import finished_place, place_counts

COUNTS = ("played", "wins", "points")


@dataclass(frozen=True)
class Night:
    day: datetime.date
    played: int
    wins: int
    points: int


def best_night(*, player: Player) -> Night | None:
    """The day with most wins; then most points, fewer matches, the latest (one indexed row)."""
    row = (
        PlayerNight.objects.filter(player=player, wins__gt=0)
        .order_by("-wins", "-points", "played", "-day")
        .values("day", *COUNTS)
        .first()
    )
    return Night(**row) if row else None


def nights_file(*, day: datetime.date, mode: str, seats: Sequence[Seat], sign: int) -> None:
    """Count a filed match in its players' night (sign 1), or take it back (sign -1)."""
    rows = [
        (
            seat.player_id,
            day,
            *(getattr(place_counts(mode, finished_place(seat.place)), c) for c in COUNTS),
        )
        for seat in seats
    ]
    count_rows(PlayerNight, keys=("player_id", "day"), counts=COUNTS, rows=rows, sign=sign)


def _from_tallies(
    player_ids: Sequence[int] | None = None,
) -> dict[tuple[int, datetime.date], tuple]:
    """Every player's nights added up from the daily tallies (what the nights must equal)."""
    tallies = DailyTally.objects.all()
    if player_ids is not None:
        tallies = tallies.filter(player_id__in=player_ids)
    rows = tallies.values("player_id", "day").annotate(**{c: Sum(c) for c in COUNTS})
    # The sums are named at run time (annotate(**...)): the stubs' row type lacks them.
    return {
        (row["player_id"], row["day"]): tuple(row[c] for c in COUNTS)
        for row in cast("Iterable[dict[str, Any]]", rows.filter(played__gt=0))
    }


def _insert(nights: dict) -> int:
    rows = PlayerNight.objects.bulk_create(
        (
            PlayerNight(player_id=player, day=day, **dict(zip(COUNTS, counts, strict=True)))
            for (player, day), counts in nights.items()
        ),
        batch_size=2000,
    )
    return len(rows)


def nights_refresh(*, player_ids: Sequence[int]) -> None:
    """Count these players' nights afresh from their tallies (after a merge)."""
    PlayerNight.objects.filter(player_id__in=player_ids).delete()
    _insert(_from_tallies(player_ids))


def nights_rebuild() -> int:
    """Count every night afresh from the daily tallies; returns the number of nights."""
    PlayerNight.objects.all().delete()
    return _insert(_from_tallies())


def night_problems() -> list[str]:
    """Players' nights that differ from their daily tallies added up."""
    kept = {
        (p, d): (n, w, s)
        for p, d, n, w, s in PlayerNight.objects.values_list("player_id", "day", *COUNTS)
    }
    actual = _from_tallies()
    return [
        f"Player #{player} on {day}: nights say {kept.get((player, day))}, tallies say "
        f"{actual.get((player, day))}"
        for player, day in sorted(set(kept) | set(actual))
        if kept.get((player, day)) != actual.get((player, day))
    ]
