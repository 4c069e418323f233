"""A finals night as its pages read it: the event with its draw, each heat and the final with
its board (who stands and who is out while it is played, its places once filed), and the
season's champion. Read in a fixed number of queries however many heats there are."""

import datetime
from dataclasses import dataclass

from django.db.models import Prefetch

from matches.models import (
    FinalsEntry,
    FinalsEvent,
    FinalsTable,
    Match,
    Player,
    Season,
    Seat,
    StandingsStamp,
)
from matches.play.selectors import Board, standing_and_out
from matches.rules.nights import night_of
from matches.rules.scoring import finished_place


@dataclass(frozen=True)
class FinalsState:
    """The finals night as a state to tag: its heats and final with their tables' versions
    and winners, and the restore epoch."""

    event: FinalsEvent
    stages: list[FinalsTable]
    epoch: str

    @property
    def versions(self) -> tuple[tuple[int, int, int | None], ...]:
        return tuple((s.table_id, s.table.version, s.winner_id) for s in self.stages)

    @property
    def heats(self) -> list[FinalsTable]:
        return [stage for stage in self.stages if not stage.is_final]

    @property
    def final(self) -> FinalsTable | None:
        return next((stage for stage in self.stages if stage.is_final), None)


@dataclass(frozen=True)
class StageBoard:
    """A heat or the final: its table's board (the open match, or the filed one's places
    as the result) and its winner once filed."""

    stage: FinalsTable
    board: Board

    @property
    def label(self) -> str:
        return self.stage.table.name


@dataclass(frozen=True)
class FinalsBoard:
    state: FinalsState
    heats: list[StageBoard]
    final: StageBoard | None

    @property
    def champion(self) -> Player | None:
        final = self.state.final
        return final.winner if final is not None else None

    @property
    def final_open(self) -> bool:
        return self.final is not None and self.final.stage.table.is_open


def finals_of(*, season_id: int) -> FinalsEvent | None:
    """The season's finals night, with its season and venue (None: not created)."""
    return FinalsEvent.objects.select_related("season", "venue").filter(season_id=season_id).first()


def finals_state(*, season_id: int) -> FinalsState | None:
    """The season's finals night and its tables, heats first (two queries and the epoch)."""
    event = finals_of(season_id=season_id)
    if event is None:
        return None
    stages = list(
        FinalsTable.objects.filter(event=event)
        .select_related("table", "winner")
        .order_by("heat", "pk")
    )
    # The final has no heat number: it comes last.
    stages.sort(key=lambda stage: (stage.is_final, stage.heat or 0))
    epoch = StandingsStamp.objects.values_list("epoch", flat=True).first()
    return FinalsState(event, stages, getattr(epoch, "hex", str(epoch or "0")))


def finals_board(*, state: FinalsState) -> FinalsBoard:
    """Each heat's and the final's board: the open match with who stands and who is out,
    or, once filed, its places as the result (two queries)."""
    ids = [stage.table_id for stage in state.stages]
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    matches: dict[int, Match] = {}
    for match in (
        Match.objects.live()
        .filter(table_id__in=ids)
        .select_related("first_dealer", "winner")
        .prefetch_related(seats)
        .order_by("pk")
    ):
        matches[match.table_id] = match  # a table plays one live match: the latest
    boards = []
    for stage in state.stages:
        match = matches.get(stage.table_id)
        rows = list(match.seats.all()) if match is not None else []
        if match is not None and match.status == Match.Status.OPEN:
            standing, out = standing_and_out(rows)
            board = Board(table=stage.table, match=match, standing=standing, out=out)
        else:
            placed = sorted(rows, key=lambda seat: finished_place(seat.place))
            board = Board(table=stage.table, match=None, result=match, result_seats=placed)
        boards.append(StageBoard(stage, board))
    heats = [board for board in boards if not board.stage.is_final]
    final = next((board for board in boards if board.stage.is_final), None)
    return FinalsBoard(state, heats, final)


def finals_draw(*, event: FinalsEvent) -> list[FinalsEntry]:
    """The finalists in the order the draw (or the seeding) dealt them, with their players
    and the venues they qualified at."""
    return list(
        FinalsEntry.objects.filter(event=event)
        .select_related("player", "venue")
        .order_by("draw_position")
    )


@dataclass(frozen=True)
class Champion:
    """A season's champion: the winner of its finals night's final."""

    player: Player
    event: FinalsEvent


@dataclass(frozen=True)
class SeasonFinals:
    """What a season's page says of its finals night: whether there is one, and its
    champion once the final is won."""

    event: FinalsEvent | None
    champion: Player | None
    # The season's last night is behind us: its finals night may be held.
    finished: bool = False


def season_finals(*, season: Season) -> SeasonFinals:
    """The season's finals night and champion (one query; two once there is a night)."""
    event = FinalsEvent.objects.filter(season=season).first()
    if event is None:
        return SeasonFinals(None, None, night_of() > season.last_day)
    final = (
        FinalsTable.objects.filter(event=event, heat__isnull=True).select_related("winner").first()
    )
    return SeasonFinals(event, final.winner if final is not None else None, True)


def seasons_finals(*, seasons: list[Season]) -> dict[int, SeasonFinals]:
    """season_finals for every season given, in two queries however many there are (the
    seasons page)."""
    events = {event.season_id: event for event in FinalsEvent.objects.filter(season__in=seasons)}
    finals = (
        {
            final.event_id: final
            for final in FinalsTable.objects.filter(
                event__in=events.values(), heat__isnull=True
            ).select_related("winner")
        }
        if events
        else {}
    )
    tonight = night_of()
    known = {}
    for season in seasons:
        event = events.get(season.pk)
        if event is None:
            known[season.pk] = SeasonFinals(None, None, tonight > season.last_day)
            continue
        final = finals.get(event.pk)
        known[season.pk] = SeasonFinals(event, final.winner if final is not None else None, True)
    return known


def season_champion(*, season: Season) -> Champion | None:
    """The season's champion once its final is won."""
    finals = season_finals(season=season)
    if finals.event is None or finals.champion is None:
        return None
    return Champion(finals.champion, finals.event)


def venue_champions(*, venue_id: int, night: datetime.date) -> list[Champion]:
    """The champions crowned at this venue's finals night on this night (the venue's TV
    shows them)."""
    finals = (
        FinalsTable.objects.filter(event__venue_id=venue_id, event__night=night, heat__isnull=True)
        .exclude(winner__isnull=True)
        .select_related("winner", "event__season")
    )
    return [Champion(final.winner, final.event) for final in finals if final.winner]
