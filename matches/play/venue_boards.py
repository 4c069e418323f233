"""A venue's TV: every open table at the venue side by side, as each table's TV shows it,
and tonight's totals at its tables once none is open. Read in a fixed number of queries
however many tables the venue has (a table TV's reads, one query each for all of them)."""

import datetime
from dataclasses import dataclass

from django.db.models import OuterRef, Q, Subquery

from matches.models import Match, Seat, StandingsStamp, Table, Venue
from matches.play import tonight
from matches.play.selectors import Board, standing_and_out
from matches.play.tonight import TonightRow
from matches.rules.nights import night_start

# The snapshot is read again when a table moved meanwhile, at most this often; then the
# reads stand as they are (the tag was read before them, so the next poll fetches anew).
VENUE_READ_TRIES = 3


@dataclass(frozen=True)
class VenueState:
    """What a venue's board shows, as a state to tag: the tables it shows (its open ones;
    with none open, those closed tonight), each with its version, and the restore epoch."""

    venue: Venue
    tables: list[Table]
    epoch: str

    @property
    def any_open(self) -> bool:
        return any(table.is_open for table in self.tables)

    @property
    def versions(self) -> tuple[tuple[int, int], ...]:
        return tuple((table.pk, table.version) for table in self.tables)


@dataclass(frozen=True)
class TableTonight:
    """A table of the venue and its totals tonight (leader first)."""

    table: Table
    tonight: list[TonightRow]


@dataclass(frozen=True)
class VenueBoard:
    """The venue's board: each open table's board (its match, who stands, who is out, the
    last result), in launch order; with none open, tonight's totals at each table that
    filed tonight."""

    state: VenueState
    boards: list[Board]
    tonight: list[TableTonight]


def venue_by_slug(*, slug: str) -> Venue | None:
    return Venue.objects.filter(slug=slug).first()


def venue_state(*, venue: Venue, now: datetime.datetime | None = None) -> VenueState:
    """The venue's open tables in launch order, or with none open those closed tonight (two
    queries, the restore epoch's included)."""
    tonight_tables = Table.objects.filter(venue=venue).filter(
        Q(closed_at__isnull=True) | Q(closed_at__gte=night_start(now))
    )
    tables = list(tonight_tables.order_by("created_at", "pk"))
    shown = [table for table in tables if table.is_open] or tables
    epoch = StandingsStamp.objects.values_list("epoch", flat=True).first()
    return VenueState(venue, shown, getattr(epoch, "hex", str(epoch or "0")))


def venue_board(*, state: VenueState, now: datetime.datetime | None = None) -> VenueBoard:
    """What the venue's board shows at state (venue_state): read again, up to
    VENUE_READ_TRIES times, while a table moves under the reads."""
    for _ in range(VENUE_READ_TRIES):
        board = _read(state, now)
        ids = [table.pk for table in state.tables]
        now_at = dict(Table.objects.filter(pk__in=ids).order_by().values_list("pk", "version"))
        if all(now_at.get(table.pk) == table.version for table in state.tables):
            break
        state = venue_state(venue=state.venue, now=now)
    return board


def _read(state: VenueState, now: datetime.datetime | None) -> VenueBoard:
    if not state.any_open:
        totals = tonight.tables_tonight(tables=state.tables, now=now)
        shown = [
            TableTonight(table, totals[table.pk]) for table in state.tables if totals[table.pk]
        ]
        return VenueBoard(state, [], shown)
    tables = state.tables
    ids = [table.pk for table in tables]
    matches = {
        match.table_id: match
        for match in Match.objects.open().filter(table_id__in=ids).select_related("first_dealer")
    }
    seats: dict[int, list[Seat]] = {}
    for seat in (
        Seat.objects.filter(match__in=list(matches.values()))
        .select_related("player")
        .order_by("match_id", "position")
    ):
        seats.setdefault(seat.match_id, []).append(seat)
    # Each table's latest filed match (the TV's last result), in one query.
    latest = Match.objects.filed().filter(table=OuterRef("pk")).order_by("-number").values("pk")
    last_ids = Table.objects.filter(pk__in=ids).values(last=Subquery(latest[:1]))
    results = {
        match.table_id: match
        for match in Match.objects.filter(pk__in=last_ids).select_related("winner")
    }
    boards = []
    for table in tables:
        match = matches.get(table.pk)
        standing, out = standing_and_out(seats.get(match.pk, []) if match else [])
        boards.append(
            Board(
                table=table, match=match, standing=standing, out=out, result=results.get(table.pk)
            )
        )
    return VenueBoard(state, boards, [])
