"""A season just ended and its finalists, for the finals night's tests (the qualifiers'
rules live apart: these tests name the finalists themselves)."""

import datetime
import uuid
from dataclasses import dataclass

from matches.models import FinalsTable, Match, Season, Table
from matches.play.services.finals import finals_create
from matches.play.services.tap import match_eliminate
from matches.results.players.services import players_resolve
from matches.rules.nights import night_of
from tests.factories import first_venue


@dataclass(frozen=True)
class Seed:
    """A finalist as results.qualifiers.Finalist names one."""

    player_id: int
    name: str
    venue_id: int
    venue_name: str
    season_rank: int


NAMES = [
    "Ana", "Bea", "Cid", "Dora", "Edu", "Fay", "Gus", "Hana", "Ivo", "Jan", "Kai", "Lia",
    "Mia", "Noe", "Ola", "Pia", "Quim", "Rui", "Sol", "Tom",
]  # fmt: skip


def ended_season(name: str = "Autumn") -> Season:
    """A season whose last night was two nights ago: its finals may be held tonight, and a
    season may start the night before them. Counted from tonight, not today: before noon
    tonight is still yesterday's night."""
    tonight = night_of()
    return Season.objects.create(
        name=name,
        first_day=tonight - datetime.timedelta(days=60),
        last_day=tonight - datetime.timedelta(days=2),
    )


def seeds(count: int) -> list[Seed]:
    venue = first_venue()
    players = players_resolve(names=NAMES[:count])
    return [
        Seed(player.pk, player.name, venue.pk, venue.name, rank)
        for rank, player in enumerate(players, start=1)
    ]


def create(organiser, *, count=9, heats=3, runners_up=1, seeding="spread", mode="ranked", **kw):
    season = kw.pop("season", None) or ended_season()
    return finals_create(
        season_id=season.pk,
        finalists=seeds(count),
        heats=heats,
        runners_up=runners_up,
        seeding=seeding,
        mode=mode,
        venue_id=first_venue().pk,
        by=organiser,
        **kw,
    )


def heat_table(event, number: int) -> Table:
    return FinalsTable.objects.get(event=event, heat=number).table


def final_table(event) -> Table | None:
    stage = FinalsTable.objects.filter(event=event, heat__isnull=True).first()
    return stage.table if stage else None


def knock_out(table: Table, by, name: str):
    match = table.matches.open().get()
    seat = match.seats.get(player__name=name)
    return match_eliminate(
        table_id=table.pk, match_id=match.pk, player_id=seat.player_id, key=uuid.uuid4(), by=by
    )


def play_out(table: Table, by, order: list[str] | None = None):
    """Knock out the open match's players in order (default: seating order, last seat
    first) until one stands: the last name left wins."""
    match: Match = table.matches.open().get()
    names = order or [s.player.name for s in match.seats.select_related("player")][::-1]
    outcome = None
    for name in names[:-1]:
        outcome = knock_out(table, by, name)
    return outcome


def seated(table: Table) -> list[str]:
    match = table.matches.exclude(status="discarded").order_by("-id").first()
    return [s.player.name for s in match.seats.select_related("player").order_by("position")]
