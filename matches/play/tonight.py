"""Tonight at a table: each player's running totals for the night, so the room sees who
leads without leaving the table page or the TV. A pub night runs from the afternoon into
the small hours, so a night starts at noon local time rather than at midnight.

Also the one rule for a night's order and its leaders (night_level, night_places): the
Tonight panel, the home card, the night's story, its share card and its text all rank a
night by it, so no two of them ever crown different players."""

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import cast

from django.db.models import Count
from django.utils import translation

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
    # The night's place (night_places): level rows share it, so a shared lead is shown shared.
    place: int = 1

    @property
    def leads(self) -> bool:
        return self.place == 1


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


# The steps of a night's order, as the standings name them (results.standings).
NIGHT_STEPS = ("points", "wins", "seconds", "thirds", "played")


def night_level(*, points: int | None, wins: int, seconds: int, thirds: int, played: int) -> tuple:
    """What ranks a night, as the standings rank: points, wins, 2nds, 3rds, then fewer
    played (a winner-takes-all table keeps no points, 2nds or 3rds: wins, then fewer
    played). Sorting by it puts the leader first."""
    return (-(points or 0), -wins, -seconds, -thirds, played)


def night_places(levels: Sequence[tuple]) -> list[int]:
    """The place of each of a night's players, levels in order (night_level): players level
    on every step share a place (1, 1, 3), and those on 1 share the lead."""
    places: list[int] = []
    for index, level in enumerate(levels):
        places.append(places[-1] if index and levels[index - 1] == level else index + 1)
    return places


def separated_on(above: tuple, below: tuple) -> str | None:
    """The step of the order (NIGHT_STEPS) that put `below` under `above`; None if level."""
    for step, a, b in zip(NIGHT_STEPS, above, below, strict=True):
        if a != b:
            return step
    return None


def _level(row: TonightRow) -> tuple:
    return night_level(
        points=row.points, wins=row.wins, seconds=row.seconds, thirds=row.thirds, played=row.played
    )


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
    """In the night's order (night_level), then by the name the public reads; each row with
    its place (night_places): every player level with the first leads (shares the crown)."""
    ranked = is_ranked(mode)
    # Level players by the name the public reads, in no language ("Player 17"), as the
    # night's story lists them: the rows are kept for every viewer.
    with translation.override(None):
        result = _by_level(ranked, totals)
    places = night_places([_level(row) for row in result])
    return [replace(row, place=place) for row, place in zip(result, places, strict=True)]


def _by_level(ranked: bool, totals: Totals) -> list[TonightRow]:
    return sorted(
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
        key=lambda r: (*_level(r), r.person.shown_name(real=False).casefold(), r.player_id),
    )


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


def tables_tonight(
    *, tables: Iterable[Table], now: datetime.datetime | None = None
) -> dict[int, list[TonightRow]]:
    """Tonight's totals at each of a list of tables, leader first, as table_tonight reads
    them (one query for all of them)."""
    tables = list(tables)
    by_table: dict[int, list[dict]] = {table.pk: [] for table in tables}
    for row in _rows(by_table, now):
        by_table[row["match__table_id"]].append(row)
    return {table.pk: _ordered(table.mode, by_table[table.pk]) for table in tables}


def tonight_leaders(
    *, tables: Iterable[Table], now: datetime.datetime | None = None
) -> dict[int, list[TonightRow]]:
    """Each table's leaders tonight (more than one when the lead is shared), for a list of
    tables (one query for all of them)."""
    totals = tables_tonight(tables=tables, now=now)
    return {pk: [row for row in rows if row.leads] for pk, rows in totals.items() if rows}
