"""Tonight at a table: each player's running totals for the night, so the room sees who
leads without leaving the table page or the TV. A pub night runs from the afternoon into
the small hours, so a night starts at noon local time rather than at midnight."""

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count

from matches.models import Match, Seat, Table
from matches.rules.nights import night_start
from matches.rules.scoring import is_ranked, place_counts


@dataclass(frozen=True)
class TonightRow:
    """A player's results at one table tonight. Points only count at a ranked table."""

    player_id: int
    player: str
    played: int
    wins: int
    points: int | None


def _rows(table_ids: Iterable[int], now: datetime.datetime | None):
    """One grouped query: per table, player and place, how many of tonight's filed results.
    Counting places and pricing them here (scoring.place_counts) keeps the query small:
    it runs in every tap's answer."""
    return (
        Seat.objects.filter(
            match__table_id__in=list(table_ids),
            match__status=Match.Status.FILED,
            match__filed_at__gte=night_start(now),
        )
        .values("match__table_id", "player_id", "player__name", "place")
        .annotate(n=Count("id"))
        .order_by()
    )


def _ordered(mode: str, rows: list[dict]) -> list[TonightRow]:
    """Ranked: points, then wins; winner takes all: wins. Then fewer played, then name."""
    ranked = is_ranked(mode)
    totals: dict[int, list] = {}
    for row in rows:
        counts = place_counts(mode, row["place"])
        total = totals.setdefault(row["player_id"], [row["player__name"], 0, 0, 0])
        total[1] += row["n"] * counts.played
        total[2] += row["n"] * counts.wins
        total[3] += row["n"] * counts.points
    result = [
        TonightRow(
            player_id=player_id,
            player=name,
            played=played,
            wins=wins,
            points=points if ranked else None,
        )
        for player_id, (name, played, wins, points) in totals.items()
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
