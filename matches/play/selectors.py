"""Reads that span relations. Each runs a fixed number of queries, however long the table's
history: the table page and its polling stay cheap all season."""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, Subquery

from matches.models import Match, MatchCorrection, Player, Seat, Table, Tap
from matches.play import tonight
from matches.rules.scoring import finished_place

if TYPE_CHECKING:
    # django-stubs' type of a model instance with annotate()'s values; a dev-only package.
    from django_stubs_ext import WithAnnotations

RECENT_MATCHES = 5
# Filed matches per page of a table's history (its page and its JSON): a table with a season
# of filings answers as fast as one with a night's.
FILED_PAGE = 20


@dataclass(frozen=True)
class Board:
    """What the table page shows: the open match, who stands and who is out."""

    table: Table
    match: Match | None
    standing: list[Seat] = field(default_factory=list)
    out: list[Seat] = field(default_factory=list)
    last_tap: Tap | None = None
    recent: list[Match] = field(default_factory=list)
    # The match just filed, with its seats by place: shown as the result card until the
    # first tap of the next match.
    result: Match | None = None
    result_seats: list[Seat] = field(default_factory=list)
    # Undoing last_tap reopens its filed match (and removes the open one); if the open
    # match was given a new roster, that change goes too and the host confirms first.
    undo_reopens: bool = False
    undo_drops_roster: bool = False
    # Who an undo of last_tap puts back standing: the player out in its place, whom a
    # correction may have made another than the one tapped.
    undo_player: "Player | None" = None


class CurrentMatch(NamedTuple):
    """A table's open match (None when it has none), who stands and who is out."""

    match: Match | None
    standing: list[Seat]
    out: list[Seat]


def current_match(*, table: Table) -> CurrentMatch:
    """The open match, its standing seats in seating order, and who is out, first out first."""
    match = table.matches.open().select_related("first_dealer").first()
    seats = list(match.seats.select_related("player")) if match else []
    return CurrentMatch(match, *standing_and_out(seats))


def standing_and_out(seats: list[Seat]) -> tuple[list[Seat], list[Seat]]:
    """Who stands, in the order given, and who is out, first out first."""
    standing = [seat for seat in seats if seat.place is None]
    out = sorted(
        (seat for seat in seats if seat.place is not None),
        key=lambda s: -finished_place(s.place),
    )
    return standing, out


def _filed_with_winners(table: Table):
    """The table's filed matches, each read with its winner."""
    return table.matches.filed().select_related("winner")


def recent_filed(*, table: Table) -> list[Match]:
    """The table's latest filed matches with their winners, newest first (one query)."""
    return list(_filed_with_winners(table).order_by("-number")[:RECENT_MATCHES])


def recent_with(recent: Sequence[Match], match: Match) -> list[Match]:
    """recent_filed's list as it reads once match (just filed, winner set) is filed too."""
    return sorted([match, *recent], key=lambda m: -m.number)[:RECENT_MATCHES]


def table_board(*, table: Table, for_host: bool = False, last_result: bool = False) -> Board:
    """The table's open match with its seats in seating order, and what can be undone.
    The result card is the match just filed, until the next match's first tap; with
    last_result (the TV) it is the latest filed match whatever happened since. Whether an
    undo would drop a roster change is only worked out for a host (for_host)."""
    match, standing, out = current_match(table=table)
    # What Undo takes back (the undo service reads it the same way): never a tap in a match
    # a close discarded, which an undo could not change.
    last_tap = (
        Tap.objects.select_related("player", "match")
        .filter(match__table=table, undone_at__isnull=True)
        .exclude(match__status=Match.Status.DISCARDED)
        .order_by("-id")
        .first()
    )
    recent = recent_filed(table=table)
    return _board(
        table=table,
        match=match,
        standing=standing,
        out=out,
        last_tap=last_tap,
        recent=recent,
        for_host=for_host,
        # A finals table closed by its one match's crowning shows that result.
        last_result=last_result or (table.finals and not table.is_open),
    )


def _board(
    *,
    table: Table,
    match: Match | None,
    standing: list[Seat],
    out: list[Seat],
    last_tap: Tap | None,
    recent: list[Match],
    for_host: bool,
    last_result: bool,
) -> Board:
    """The board from its rows (last_tap with its match); reads the result card's seats
    when one shows, and, for a host, the filed match's seating when an undo would reopen it."""
    result, result_seats = None, []
    just_filed = match is not None and not out and recent and recent[0].number == match.number - 1
    if recent and (just_filed or last_result):
        result = recent[0]
        result_seats = list(result.seats.select_related("player").order_by("place"))
    undo_reopens = last_tap is not None and last_tap.match.status == Match.Status.FILED
    undo_drops_roster = False
    undo_player = None
    if last_tap is not None:
        undo_player = (
            _out_in(out, last_tap) if last_tap.match_id == getattr(match, "pk", None) else None
        )
    if for_host and last_tap is not None and undo_reopens and match is not None:
        # One more read only when an undo would cross into the filed match.
        filed = list(last_tap.match.seats.select_related("player").order_by("position"))
        undo_player = _out_in(filed, last_tap)
        seating = [seat.player_id for seat in sorted(standing + out, key=lambda s: s.position)]
        undo_drops_roster = seating != [seat.player_id for seat in filed]
    return Board(
        table=table,
        match=match,
        standing=standing,
        out=out,
        last_tap=last_tap,
        recent=recent,
        result=result,
        result_seats=result_seats,
        undo_reopens=undo_reopens,
        undo_drops_roster=undo_drops_roster,
        undo_player=undo_player or (last_tap.player if last_tap is not None else None),
    )


def _out_in(seats: Sequence[Seat], tap: Tap) -> Player | None:
    """The player out in a tap's place among its match's seats."""
    return next((seat.player for seat in seats if seat.place == tap.place), None)


def board_after_undo(
    *, table: Table, match: Match, seats: list[Seat], last_tap: Tap | None, recent: list[Match]
) -> Board:
    """The host's board an undo of a plain tap leaves, from the rows its transaction holds:
    the open match with its seats in seating order (the player back standing), the tap now
    latest (with its match) and the latest filed matches (recent_filed) as the undo found
    them. Reads nothing mid-match; after taking back a match's first tap, what table_board
    reads then (the result card's seats; whether undoing on would drop a roster change)."""
    standing, out = standing_and_out(seats)
    return _board(
        table=table,
        match=match,
        standing=standing,
        out=out,
        last_tap=last_tap,
        recent=recent,
        for_host=True,
        last_result=False,
    )


def board_after_tap(
    *,
    table: Table,
    tap: Tap,
    seats: list[Seat],
    recent: list[Match],
    next_match: Match | None = None,
    next_seats: list[Seat] | None = None,
) -> Board:
    """The board a tap leaves, from the rows its transaction already holds: the tap, its
    match's seats and, after a crowning, the match it opened with that match's seats; and
    the latest filed matches (recent_filed) as the tap found them. Reads nothing."""
    crowned = next_match is not None
    match, board_seats = (next_match, next_seats or []) if crowned else (tap.match, seats)
    standing, out = standing_and_out(board_seats)
    return Board(
        table=table,
        match=match,
        standing=standing,
        out=out,
        last_tap=tap,
        recent=recent,
        # The match just filed is the result card until the next match's first tap.
        result=tap.match if crowned else None,
        result_seats=sorted(seats, key=lambda s: finished_place(s.place)) if crowned else [],
        undo_reopens=crowned,
        # The next match opened with the filed match's seating: no roster change to lose.
        undo_drops_roster=False,
        undo_player=tap.player,
    )


class _OpenMatchCounts(TypedDict):
    """What home_tables annotates on each table: its open match's number, players standing."""

    match_number: int | None
    standing: int | None


@dataclass(frozen=True)
class TableSummary:
    """A table as the home page lists it."""

    table: Table
    match_number: int | None
    standing: int | None
    leaders: "list[tonight.TonightRow]"  # more than one when the lead is shared


def _tables_with_counts():
    open_match = Match.objects.filter(table=OuterRef("pk"), status=Match.Status.OPEN)
    standing = (
        Seat.objects.filter(match__table=OuterRef("pk"), match__status=Match.Status.OPEN)
        .filter(place__isnull=True)
        .values("match")
        .annotate(n=Count("id"))
        .values("n")[:1]
    )
    return Table.objects.annotate(
        match_number=Subquery(open_match.values("number")[:1]), standing=Subquery(standing)
    )


def home_tables(*, limit: int = 50) -> tuple[list[TableSummary], list[TableSummary]]:
    """Open tables (newest first) with their match, players standing and tonight's leader;
    then closed tables, most recently closed first. A fixed four queries."""
    tables = _tables_with_counts()
    open_tables = list(tables.filter(closed_at__isnull=True).order_by("-created_at")[:limit])
    closed = list(tables.filter(closed_at__isnull=False).order_by("-closed_at", "-id")[:limit])
    leaders = tonight.tonight_leaders(tables=open_tables)

    def summary(table: "WithAnnotations[Table, _OpenMatchCounts]") -> TableSummary:
        return TableSummary(table, table.match_number, table.standing, leaders.get(table.pk, []))

    return [summary(t) for t in open_tables], [summary(t) for t in closed]


def venue_open_tables(*, venue_id: int, limit: int = 50) -> list[TableSummary]:
    """A venue's open tables (newest first) as the home page lists them: a fixed number of
    queries, however many tables."""
    tables = _tables_with_counts().filter(venue_id=venue_id, closed_at__isnull=True)
    open_tables = list(tables.order_by("-created_at")[:limit])
    leaders = tonight.tonight_leaders(tables=open_tables)
    return [TableSummary(t, t.match_number, t.standing, leaders.get(t.pk, [])) for t in open_tables]


def standing_names(table_id: str, *, real_names: bool = False) -> list[str]:
    """Who stands in a table's open match (the id as typed in a query; none if unknown), by
    their public names unless real_names (a host's)."""
    # ASCII digits only, and no longer than an id can be: int() refuses "²" (which isdigit()
    # accepts) and any string over 4,300 digits.
    if not (table_id.isascii() and table_id.isdigit()) or len(table_id) > 19:
        return []
    table = Table.objects.filter(pk=int(table_id)).first()
    seats = current_match(table=table).standing if table else []
    return [seat.player.shown_name(real=real_names) for seat in seats]


@dataclass(frozen=True)
class FiledPage:
    """A page of a table's filed matches, newest first, and where the next page starts:
    older is the number the next page reads below (None: this page holds the oldest)."""

    matches: list[Match]
    older: int | None


def _filed_page(filed, *, before: int | None, size: int) -> FiledPage:
    # By number (unique per table among filed matches), not offset: a page costs the same
    # however deep it is, and a filing while someone reads never shifts the next page.
    if before is not None:
        filed = filed.filter(number__lt=before)
    rows = list(filed.order_by("-number")[: size + 1])
    shown = rows[:size]
    return FiledPage(shown, shown[-1].number if len(rows) > size else None)


def table_filed_matches(
    *, table: Table, before: int | None = None, size: int = FILED_PAGE
) -> FiledPage:
    """A page of the table's filed matches with their winners, newest first: the latest
    size numbered below before (the latest of all without it), in one query."""
    return _filed_page(_filed_with_winners(table), before=before, size=size)


def table_filed_with_seats(
    *, table: Table, before: int | None = None, size: int = FILED_PAGE
) -> FiledPage:
    """A page of filed matches as table_filed_matches reads it, each with its seats by place
    and their players: two queries."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("place"))
    return _filed_page(_filed_with_winners(table).prefetch_related(seats), before=before, size=size)


def match_detail(*, table: Table, number: int) -> Match | None:
    """A match by number with its seats (by place, then seat), and whether it was ever
    corrected (its `corrected`)."""
    return (
        table.matches.live()
        .filter(number=number)
        .annotate(corrected=Exists(MatchCorrection.objects.filter(match_id=OuterRef("pk"))))
        .select_related("first_dealer", "winner")
        .prefetch_related(
            Prefetch(
                "seats",
                # Standing players (no place yet) last: SQLite sorts NULL first unless told.
                queryset=Seat.objects.select_related("player").order_by(
                    F("place").asc(nulls_last=True), "position"
                ),
            )
        )
        .first()
    )


# Filed matches read per query of the CSV exports: a few thousand rows, one short query.
RESULTS_CHUNK = 500


def table_results(*, table: Table, chunk: int | None = None) -> Iterator[Seat]:
    """Every result of a table's filed matches, by match then place, for the CSV export:
    read chunk matches at a time, each read its own short query, so neither the rows nor an
    open read (which would hold SQLite's WAL from being checkpointed) last as long as a slow
    download."""
    chunk = chunk or RESULTS_CHUNK
    after = 0
    while True:
        numbers = table.matches.filed().filter(number__gt=after).order_by("number")
        seats = list(
            Seat.objects.filter(match__in=numbers.values("pk")[:chunk])
            .select_related("match", "player")
            .order_by("match__number", "place")
        )
        yield from seats
        if len({seat.match_id for seat in seats}) < chunk:
            return
        after = seats[-1].match.number


def league_results(*, chunk: int | None = None) -> Iterator[Seat]:
    """Every result of every table's filed matches, in filing order (then by place), for the
    league's CSV export: read as table_results reads one table, chunk matches per short
    query, each seat with its match, table and player."""
    chunk = chunk or RESULTS_CHUNK
    after: Q | None = None
    while True:
        filed = Match.objects.filed()
        if after is not None:
            filed = filed.filter(after)
        matches = filed.order_by("filed_at", "pk").values("pk")[:chunk]
        seats = list(
            Seat.objects.filter(match__in=matches)
            .select_related("match__table", "player")
            .order_by("match__filed_at", "match_id", "place")
        )
        yield from seats
        if len({seat.match_id for seat in seats}) < chunk:
            return
        last = seats[-1].match
        # The next chunk starts after the last match read, by its filing time then its id.
        after = Q(filed_at__gt=last.filed_at) | Q(filed_at=last.filed_at, pk__gt=last.pk)


# --- The seat picker's "Same players as last time" ---


def last_seating(
    *, table: Table | None = None, host=None, excluding_match_id: int | None = None
) -> list[str]:
    """The names seated, in order, in the latest match of a table (but excluding_match_id,
    the one being edited), or of the latest table the host launched; [] when there is none.
    One query."""
    matches = Match.objects.all()
    if table is not None:
        matches = matches.filter(table=table)
    elif host is not None and host.is_authenticated:
        matches = matches.filter(table__created_by=host)
    else:
        return []
    if excluding_match_id is not None:
        matches = matches.exclude(pk=excluding_match_id)
    latest = matches.order_by("-table__created_at", "-table_id", "-id").values("id")[:1]
    # An erased player's placeholder is no name to seat again.
    seats = Seat.objects.filter(match=Subquery(latest), player__erased_at__isnull=True)
    seats = seats.order_by("position")
    return list(seats.values_list("player__name", flat=True))


@dataclass(frozen=True)
class CorrectionLine:
    """A correction as the match page shows it: who corrected, when, and the orders before
    and after as the match's seats (each with its player as the record reads now)."""

    correction: MatchCorrection
    before: list[Seat]
    after: list[Seat]


def match_corrections(*, match: Match) -> list[CorrectionLine]:
    """A match's corrections, oldest first, each with its host's display name and its
    orders as the match's seats (match_detail's, players read): one query, none for a match
    read by match_detail that was never corrected."""
    if not getattr(match, "corrected", True):
        return []
    seats = {seat.pk: seat for seat in match.seats.all()}
    corrections = (
        MatchCorrection.objects.filter(match_id=match.pk)
        .select_related("corrected_by__host_profile")
        .order_by("id")
    )
    return [
        CorrectionLine(
            correction=correction,
            before=[seats[pk] for pk in correction.before_seats if pk in seats],
            after=[seats[pk] for pk in correction.after_seats if pk in seats],
        )
        for correction in corrections
    ]
