"""Tonight at a table: each player's running totals for the night, so the room sees who
leads without leaving the table page or the TV. A pub night runs from the afternoon into
the small hours, so a night starts at noon local time rather than at midnight."""

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils import timezone

from .models import Match, Seat, Table
from .scoring import count_sum, is_ranked

NIGHT_STARTS = datetime.time(12)


@dataclass(frozen=True)
class TonightRow:
    """A player's results at one table tonight. Points only count at a ranked table."""

    player_id: int
    player: str
    played: int
    wins: int
    points: int | None


def night_start(now: datetime.datetime | None = None) -> datetime.datetime:
    """When tonight began: noon today, or noon yesterday before noon (local time)."""
    local = timezone.localtime(now)
    day = local.date() if local.time() >= NIGHT_STARTS else local.date() - datetime.timedelta(1)
    return timezone.make_aware(datetime.datetime.combine(day, NIGHT_STARTS))


def _rows(table_ids: Iterable[int], now: datetime.datetime | None):
    """One grouped query: per table and player, tonight's filed results."""
    return (
        Seat.objects.filter(
            match__table_id__in=list(table_ids),
            match__status=Match.Status.FILED,
            match__filed_at__gte=night_start(now),
        )
        .values("match__table_id", "player_id", "player__name")
        .annotate(**{field: count_sum(field) for field in ("played", "wins", "points")})
    )


def _ordered(mode: str, rows: list[dict]) -> list[TonightRow]:
    """Ranked: points, then wins; winner takes all: wins. Then fewer played, then name."""
    ranked = is_ranked(mode)
    result = [
        TonightRow(
            player_id=row["player_id"],
            player=row["player__name"],
            played=row["played"],
            wins=row["wins"],
            points=row["points"] if ranked else None,
        )
        for row in rows
    ]
    return sorted(
        result,
        key=lambda r: (-(r.points or 0), -r.wins, r.played, r.player.casefold()),
    )


def table_tonight(*, table: Table, now: datetime.datetime | None = None) -> list[TonightRow]:
    """Tonight's totals at a table, leader first (one query)."""
    return _ordered(table.mode, list(_rows([table.pk], now)))


def tonight_leaders(
    *, tables: Iterable[Table], now: datetime.datetime | None = None
) -> dict[int, TonightRow]:
    """Each table's leader tonight, for a list of tables (one query for all of them)."""
    tables = list(tables)
    by_table: dict[int, list[dict]] = {table.pk: [] for table in tables}
    for row in _rows(by_table, now):
        by_table[row["match__table_id"]].append(row)
    leaders = {}
    for table in tables:
        ordered = _ordered(table.mode, by_table[table.pk])
        if ordered:
            leaders[table.pk] = ordered[0]
    return leaders
