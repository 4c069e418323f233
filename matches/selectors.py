"""Reads that span relations. Each runs a fixed number of queries, however long the table's
history: the table page and its polling stay cheap all season."""

from dataclasses import dataclass, field

from django.db.models import Prefetch

from .models import Match, Seat, Table, Tap, points_for

RECENT_MATCHES = 5


@dataclass(frozen=True)
class Board:
    """What the table page shows: the open match, who stands and who is out."""

    table: Table
    match: Match | None
    standing: list[Seat] = field(default_factory=list)
    out: list[Seat] = field(default_factory=list)
    last_tap: Tap | None = None
    recent: list[Match] = field(default_factory=list)


def table_version(*, table_id: int) -> int | None:
    """The table's change counter, or None when there is no such table."""
    return Table.objects.filter(pk=table_id).values_list("version", flat=True).first()


def table_board(*, table: Table) -> Board:
    """The table's open match with its seats in seating order, and what can be undone."""
    match = table.matches.open().select_related("first_dealer").first()
    seats = list(match.seats.select_related("player")) if match else []
    last_tap = (
        Tap.objects.select_related("player", "match")
        .filter(match__table=table, undone_at__isnull=True)
        .order_by("-id")
        .first()
    )
    recent = list(
        table.matches.filed().select_related("winner").order_by("-number")[:RECENT_MATCHES]
    )
    return Board(
        table=table,
        match=match,
        standing=[seat for seat in seats if seat.place is None],
        # Elimination order: the first out (the highest place) first.
        out=sorted((seat for seat in seats if seat.place is not None), key=lambda s: -s.place),
        last_tap=last_tap,
        recent=recent,
    )


def table_filed_matches(*, table: Table) -> list[Match]:
    """Filed matches of a table, newest first, with their winners."""
    return list(table.matches.filed().select_related("winner").order_by("-number"))


def match_detail(*, table: Table, number: int) -> Match | None:
    """A match by number with its seats (by place, then seat) and its whole audit trail."""
    return (
        table.matches.live()
        .filter(number=number)
        .select_related("first_dealer", "winner")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player")),
            Prefetch(
                "taps",
                queryset=Tap.objects.select_related("player", "tapped_by", "undone_by"),
            ),
        )
        .first()
    )


def _result_place(table: Table, seat: Seat) -> int | None:
    # A winner-takes-all table names only its winner.
    if table.is_ranked or seat.place == 1:
        return seat.place
    return None


def table_api(*, table: Table) -> dict:
    """The read-only JSON document for scoreboards and other programs."""
    board = table_board(table=table)
    current = None
    if board.match is not None:
        current = {
            "number": board.match.number,
            "first_dealer": board.match.first_dealer.name,
            "standing": [seat.player.name for seat in board.standing],
            "out": [
                {"player": seat.player.name, "place": _result_place(table, seat)}
                for seat in board.out
            ],
        }
    filed = (
        table.matches.filed()
        .select_related("winner")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("place"))
        )
        .order_by("number")
    )
    return {
        "id": table.pk,
        "name": table.name,
        "mode": table.mode,
        "is_open": table.is_open,
        "current_match": current,
        "matches": [
            {
                "number": match.number,
                "filed_at": match.filed_at.isoformat(),
                "winner": match.winner.name,
                "results": [
                    {
                        "player": seat.player.name,
                        "place": _result_place(table, seat),
                        "points": points_for(table.mode, seat.place),
                    }
                    for seat in match.seats.all()
                ],
            }
            for match in filed
        ],
    }
