"""Reads that span relations. Each runs a fixed number of queries, however long the table's
history: the table page and its polling stay cheap all season."""

import datetime
from dataclasses import dataclass, field

from django.db.models import (
    Case,
    Count,
    Exists,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Prefetch,
    Q,
    Sum,
    Value,
    When,
)
from django.utils.formats import number_format

from .models import RANKED_POINTS, League, Match, Player, Seat, Table, Tally, Tap, Total, points_for

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


def league_stamp() -> str:
    """Changes whenever any standings change; one read of a one-row table."""
    row = League.objects.values_list("epoch", "version").first()
    return f"{row[0].hex}.{row[1]}" if row else "0"


def table_version(*, table_id: int) -> int | None:
    """The table's change counter, or None when there is no such table."""
    return Table.objects.filter(pk=table_id).values_list("version", flat=True).first()


def _current_match(table: Table) -> tuple[Match | None, list[Seat], list[Seat]]:
    """The open match, its standing seats in seating order, and who is out, first out first."""
    match = table.matches.open().select_related("first_dealer").first()
    seats = list(match.seats.select_related("player")) if match else []
    standing = [seat for seat in seats if seat.place is None]
    out = sorted((seat for seat in seats if seat.place is not None), key=lambda s: -s.place)
    return match, standing, out


def _filed_with_winners(table: Table):
    return table.matches.filed().select_related("winner")


def table_board(*, table: Table) -> Board:
    """The table's open match with its seats in seating order, and what can be undone."""
    match, standing, out = _current_match(table)
    last_tap = (
        Tap.objects.select_related("player", "match")
        .filter(match__table=table, undone_at__isnull=True)
        .order_by("-id")
        .first()
    )
    recent = list(_filed_with_winners(table).order_by("-number")[:RECENT_MATCHES])
    return Board(
        table=table, match=match, standing=standing, out=out, last_tap=last_tap, recent=recent
    )


def table_filed_matches(*, table: Table) -> list[Match]:
    """Filed matches of a table, newest first, with their winners."""
    return list(_filed_with_winners(table).order_by("-number"))


def match_detail(*, table: Table, number: int) -> Match | None:
    """A match by number with its seats (by place, then seat)."""
    return (
        table.matches.live()
        .filter(number=number)
        .select_related("first_dealer", "winner")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
        .first()
    )


def match_audit(*, table: Table, number: int) -> list[Tap]:
    """Every tap ever made under this match number, undone ones included, and those of a
    match discarded when the crowning before it was undone: nothing is silently dropped."""
    return list(
        Tap.objects.filter(match__table=table, match__number=number)
        .select_related("player", "tapped_by", "undone_by", "match")
        .order_by("id")
    )


def _result_place(table: Table, seat: Seat) -> int | None:
    # A winner-takes-all table names only its winner.
    if table.is_ranked or seat.place == 1:
        return seat.place
    return None


def table_api(*, table: Table) -> dict:
    """The read-only JSON document for scoreboards and other programs."""
    match, standing, out = _current_match(table)
    current = None
    if match is not None:
        current = {
            "number": match.number,
            "first_dealer": match.first_dealer.name,
            "standing": [seat.player.name for seat in standing],
            "out": [
                {"player": seat.player.name, "place": _result_place(table, seat)} for seat in out
            ],
        }
    filed = (
        _filed_with_winners(table)
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


def integrity_problems() -> list[str]:
    """Every broken game rule in the database, found with a fixed number of aggregate queries.

    The constraints should make most of these impossible; this finds damage done around them
    (raw SQL, a restore from a bad copy, a constraint dropped by hand)."""
    problems: list[str] = []
    live = Match.objects.live().select_related("table")
    per_match = live.annotate(
        seated=Count("seats"),
        placed=Count("seats", filter=Q(seats__place__isnull=False)),
        distinct_places=Count("seats__place", distinct=True),
        firsts=Count("seats", filter=Q(seats__place=1)),
        low=Min("seats__place"),
        high=Max("seats__place"),
        winner_first=Exists(
            Seat.objects.filter(match=OuterRef("pk"), place=1, player=OuterRef("winner"))
        ),
    )
    for m in per_match.iterator(chunk_size=2000):
        where = f"Table {m.table.name!r} (#{m.table_id}) match {m.number}"
        if m.distinct_places != m.placed:
            problems.append(f"{where}: two players share a place")
        if m.status == Match.Status.FILED:
            if m.winner_id is None or m.filed_at is None:
                problems.append(f"{where}: filed without a winner")
            if m.firsts > 1:
                problems.append(f"{where}: two winners")
            elif not m.winner_first:
                problems.append(f"{where}: the winner is not the player in first place")
            if (m.placed, m.low, m.high) != (m.seated, 1, m.seated):
                problems.append(f"{where}: places do not run {m.seated}..1")
        else:
            if m.winner_id is not None or m.firsts:
                problems.append(f"{where}: a winner in a match still open")
            if m.placed and (m.high != m.seated or m.low != m.seated - m.placed + 1):
                problems.append(f"{where}: places do not run down from {m.seated}")
            if m.seated - m.placed < 2:
                problems.append(f"{where}: open with fewer than two standing")
        if not 3 <= m.seated <= 10:
            problems.append(f"{where}: {m.seated} players seated")

    for row in (
        Match.objects.open()
        .values("table_id", "table__name")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    ):
        problems.append(
            f"Table {row['table__name']!r} (#{row['table_id']}): {row['n']} open matches"
        )
    for m in Match.objects.open().filter(table__closed_at__isnull=False).select_related("table"):
        problems.append(
            f"Table {m.table.name!r} (#{m.table_id}): closed with match {m.number} open"
        )

    active = Tap.objects.filter(undone_at__isnull=True, match__status__in=["open", "filed"])
    seated = Seat.objects.filter(match=OuterRef("match"), player=OuterRef("player"))
    for t in active.filter(~Exists(seated)).select_related("match__table", "player"):
        problems.append(
            f"Table {t.match.table.name!r} (#{t.match.table_id}) match {t.match.number}: "
            f"{t.player.name} was eliminated but is not seated"
        )
    for t in active.filter(
        Exists(seated), ~Exists(seated.filter(place=OuterRef("place")))
    ).select_related("match__table", "player"):
        problems.append(
            f"Table {t.match.table.name!r} (#{t.match.table_id}) match {t.match.number}: "
            f"{t.player.name}'s tap and seat disagree on the place"
        )
    tapped = Tap.objects.filter(
        undone_at__isnull=True, match=OuterRef("match"), player=OuterRef("player")
    )
    for s in (
        Seat.objects.filter(place__gte=2, match__status__in=["open", "filed"])
        .filter(~Exists(tapped))
        .select_related("match__table", "player")
    ):
        problems.append(
            f"Table {s.match.table.name!r} (#{s.match.table_id}) match {s.match.number}: "
            f"{s.player.name} has place {s.place} without a tap"
        )
    problems.extend(tally_mismatches())
    return problems


def _standing_key(row: dict) -> tuple[int, ...]:
    return tuple(
        row[f] for f in ("points_sum", "wins_sum", "seconds_sum", "thirds_sum", "played_sum")
    )


@dataclass(frozen=True)
class StandingRow:
    rank: int
    shared: bool
    player_id: int
    player: str
    played: int
    wins: int
    seconds: int
    thirds: int
    points: int

    @property
    def win_percent(self) -> float:
        return 100 * self.wins / self.played if self.played else 0.0

    @property
    def win_percent_text(self) -> str:
        """One decimal, in the reader's language (50.0 or 50,0)."""
        return number_format(self.win_percent, 1)


def _tally_filter(
    table_id: int | None, date_from: datetime.date | None, date_to: datetime.date | None
) -> Q:
    where = Q()
    if table_id is not None:
        where &= Q(table_id=table_id)
    if date_from is not None:
        where &= Q(day__gte=date_from)
    if date_to is not None:
        where &= Q(day__lte=date_to)
    return where


def standings(
    *,
    table_id: int | None = None,
    date_from: datetime.date | None = None,
    date_to: datetime.date | None = None,
) -> list[StandingRow]:
    """League standings over filed matches, summed in one aggregate query over the tallies.

    Order: points, wins, 2nds, 3rds, then fewer played; players equal on all five share a
    rank (1, =2, =2, 4) and are listed by name."""
    # The season totals answer without dates; the daily tallies answer a date range.
    source = Tally if date_from or date_to else Total
    rows = list(
        source.objects.filter(_tally_filter(table_id, date_from, date_to))
        .values("player_id", "player__name")
        .annotate(
            played_sum=Sum("played"),
            wins_sum=Sum("wins"),
            seconds_sum=Sum("seconds"),
            thirds_sum=Sum("thirds"),
            points_sum=Sum("points"),
        )
        .filter(played_sum__gt=0)
        .order_by(
            "-points_sum",
            "-wins_sum",
            "-seconds_sum",
            "-thirds_sum",
            "played_sum",
            "player__key",
        )
    )
    # Ranks over the player rows (a few hundred at most), not over matches.
    result: list[StandingRow] = []
    for index, row in enumerate(rows):
        tied_above = index > 0 and _standing_key(rows[index - 1]) == _standing_key(row)
        tied_below = index + 1 < len(rows) and _standing_key(rows[index + 1]) == _standing_key(row)
        rank = result[-1].rank if tied_above else index + 1
        shared = tied_above or tied_below
        result.append(
            StandingRow(
                rank=rank,
                shared=shared,
                player_id=row["player_id"],
                player=row["player__name"],
                played=row["played_sum"],
                wins=row["wins_sum"],
                seconds=row["seconds_sum"],
                thirds=row["thirds_sum"],
                points=row["points_sum"],
            )
        )
    return result


@dataclass(frozen=True)
class PlayerHistory:
    player: Player
    totals: StandingRow | None
    matches: list[Seat]
    total_matches: int
    # (day, cumulative points) for the chart.
    points_by_day: list[tuple[datetime.date, int]]


PLAYER_PAGE_MATCHES = 100


def player_history(*, player: Player) -> PlayerHistory:
    """A player's filed matches (newest first, the latest 100), totals and points over time."""
    seats = (
        Seat.objects.filter(player=player, match__status=Match.Status.FILED)
        .select_related("match__table")
        .order_by("-match__filed_at", "-match_id")
    )
    totals = Total.objects.filter(player=player).aggregate(
        played=Sum("played"),
        wins=Sum("wins"),
        seconds=Sum("seconds"),
        thirds=Sum("thirds"),
        points=Sum("points"),
    )
    daily = (
        Tally.objects.filter(player=player)
        .values("day")
        .annotate(points=Sum("points"))
        .order_by("day")
    )
    running, cumulative = 0, []
    for row in daily:  # one row per day played, not per match
        running += row["points"]
        cumulative.append((row["day"], running))
    row = None
    if totals["played"]:
        row = StandingRow(rank=0, shared=False, player_id=player.pk, player=player.name, **totals)
    return PlayerHistory(
        player=player,
        totals=row,
        matches=list(seats[:PLAYER_PAGE_MATCHES]),
        total_matches=totals["played"] or 0,
        points_by_day=cumulative,
    )


def table_results(*, table: Table):
    """Every result of a table's filed matches, by match then place, for the CSV export."""
    return (
        Seat.objects.filter(match__table=table, match__status=Match.Status.FILED)
        .select_related("match", "player")
        .order_by("match__number", "place")
    )


def tally_mismatches() -> list[str]:
    """Players whose daily tallies or season totals differ from their filed results."""
    ranked = Q(match__table__mode=Table.Mode.RANKED)
    points = Case(
        *[When(ranked & Q(place=place), then=Value(p)) for place, p in RANKED_POINTS.items()],
        default=Value(0),
        output_field=IntegerField(),
    )
    actual = {
        (r["player_id"], r["match__table_id"]): (r["p"], r["w"], r["s"], r["t"], r["pts"])
        for r in Seat.objects.filter(match__status=Match.Status.FILED)
        .values("player_id", "match__table_id")
        .annotate(
            p=Count("id"),
            w=Count("id", filter=Q(place=1)),
            s=Count("id", filter=ranked & Q(place=2)),
            t=Count("id", filter=ranked & Q(place=3)),
            pts=Sum(points),
        )
    }
    kept = {
        (r["player_id"], r["table_id"]): (r["p"], r["w"], r["s"], r["t"], r["pts"])
        for r in Tally.objects.values("player_id", "table_id")
        .annotate(
            p=Sum("played"), w=Sum("wins"), s=Sum("seconds"), t=Sum("thirds"), pts=Sum("points")
        )
        .filter(p__gt=0)
    }
    return [
        f"Player #{player} at table #{table}: tallies say {kept.get((player, table))}, "
        f"filed results say {actual.get((player, table))}"
        for player, table in sorted(set(actual) | set(kept))
        if actual.get((player, table)) != kept.get((player, table))
    ]
