"""Tonight at a table: each player's running totals for the night, so the room sees who
leads without leaving the table page or the TV. A pub night runs from the afternoon into
the small hours, so a night starts at noon local time rather than at midnight."""

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import cast

from django.db.models import Count

from matches.models import Match, Player, Seat, Table
from matches.rules.nights import night_start
from matches.rules.scoring import is_ranked, place_counts


@dataclass(frozen=True)
class TonightRow:
    """A player's results at one table tonight. Points only count at a ranked table."""

    player_id: int
    # The player with every name of theirs: each viewer reads the one they may
    # (`{{ row.person|player_name:real_names }}`); the totals are kept for every viewer.
    person: Player
    played: int
    wins: int
    points: int | None
    seconds: int = 0
    thirds: int = 0
    # Level with the first row on everything the order counts: a shared lead is shown shared.
    leads: bool = False


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
        .values(
            "match__table_id",
            "player_id",
            "player__name",
            "player__public_name",
            "player__hidden",
            "player__erased_at",
            "place",
        )
        .annotate(n=Count("id"))
        .order_by()
    )


def _level(row: TonightRow) -> tuple:
    """What ranks a night, as the standings rank: points, wins, 2nds, 3rds, fewer played."""
    return (-(row.points or 0), -row.wins, -row.seconds, -row.thirds, row.played)


def _person(row: dict) -> Player:
    return Player(
        pk=row["player_id"],
        name=row["player__name"],
        public_name=row["player__public_name"],
        hidden=row["player__hidden"],
        erased_at=row["player__erased_at"],
    )


# Per player: [person, played, wins, points, seconds, thirds].
Totals = dict[int, list]


def _add(totals: Totals, player_id: int, person: Player, mode: str, place: int, n: int) -> None:
    counts = place_counts(mode, place)
    total = totals.setdefault(player_id, [person, 0, 0, 0, 0, 0])
    total[1] += n * counts.played
    total[2] += n * counts.wins
    total[3] += n * counts.points
    total[4] += n * counts.seconds
    total[5] += n * counts.thirds


def _ordered(mode: str, rows: list[dict]) -> list[TonightRow]:
    totals: Totals = {}
    for row in rows:
        _add(totals, row["player_id"], _person(row), mode, row["place"], row["n"])
    return _sorted(mode, totals)


def _sorted(mode: str, totals: Totals) -> list[TonightRow]:
    """Ranked: points, then wins, 2nds, 3rds; winner takes all: wins. Then fewer played, then
    name. Every player level with the first on all but the name leads (shares the crown)."""
    ranked = is_ranked(mode)
    result = sorted(
        (
            TonightRow(
                player_id=player_id,
                person=person,
                played=played,
                wins=wins,
                points=points if ranked else None,
                seconds=seconds,
                thirds=thirds,
            )
            for player_id, (person, played, wins, points, seconds, thirds) in totals.items()
        ),
        key=lambda r: (*_level(r), r.person.name.casefold()),
    )
    if not result:
        return result
    top = _level(result[0])
    return [replace(row, leads=True) if _level(row) == top else row for row in result]


def table_tonight(*, table: Table, now: datetime.datetime | None = None) -> list[TonightRow]:
    """Tonight's totals at a table, leader first (one query)."""
    return _ordered(table.mode, list(_rows([table.pk], now)))


def tonight_with(
    *, mode: str, rows: Sequence[TonightRow], match: Match, seats: Sequence[Seat]
) -> list[TonightRow]:
    """Tonight's totals as table_tonight read them (rows), with one more match of tonight
    counted: match, just filed, and its seats (places set, players loaded). The same rows as
    reading them again, without the read."""
    totals: Totals = {
        row.player_id: [row.person, row.played, row.wins, row.points or 0, row.seconds, row.thirds]
        for row in rows
    }
    for seat in seats:
        _add(totals, seat.player_id, seat.player, mode, cast("int", seat.place), 1)
    return _sorted(mode, totals)


def tonight_leaders(
    *, tables: Iterable[Table], now: datetime.datetime | None = None
) -> dict[int, list[TonightRow]]:
    """Each table's leaders tonight (more than one when the lead is shared), for a list of
    tables (one query for all of them)."""
    tables = list(tables)
    by_table: dict[int, list[dict]] = {table.pk: [] for table in tables}
    for row in _rows(by_table, now):
        by_table[row["match__table_id"]].append(row)
    leaders = {}
    for table in tables:
        ordered = _ordered(table.mode, by_table[table.pk])
        if ordered:
            leaders[table.pk] = [row for row in ordered if row.leads]
    return leaders
