"""Correcting filed matches ends exactly where filing them right from the start would: random
leagues at three tables of both modes over a few nights, random corrections (and corrections
back), then every aggregate the league shows (standings over all time, per mode, per table,
per night and per season, the season podiums, head-to-head, players' nights, running totals,
each table's filed matches) and the settled ratings of /api/ratings/, compared with a league
that filed the corrected orders in the first place. Run on SQLite and on PostgreSQL
(DATABASE_URL)."""

import datetime
import random
from dataclasses import dataclass, field
from io import StringIO
from unittest import mock

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import transaction
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from hypothesis import given, settings

from matches.core import kept
from matches.core.errors import Refusal, RuleError
from matches.integrity import integrity_problems
from matches.models import (
    DailyTally,
    HeadToHead,
    Player,
    PlayerNight,
    RunningTotal,
    Season,
    Table,
)
from matches.play import corrections
from matches.play.services.tables import table_launch
from matches.ratings.audit import rating_problems
from matches.ratings.steps import ratings_settle
from matches.results import seasons
from matches.rules.nights import night_of
from tests.clients import FormClient
from tests.factories import open_match, tap, the_organiser
from tests.ratings.test_ratings import api_rows
from tests.strategies import correction_ops, correction_tables

pytestmark = pytest.mark.django_db

START = timezone.make_aware(datetime.datetime(2026, 3, 2, 20, 0))
FIRST_NIGHT = START.date()


@dataclass
class Filed:
    table: int  # index of the table
    number: int
    at: datetime.datetime
    orders: list[list[str]] = field(default_factory=list)  # as filed, then each correction


@dataclass
class Script:
    """What the league did: the tables, then each match as filed and every correction."""

    tables: list[tuple[str, list[str]]]
    filed: list[Filed] = field(default_factory=list)


def launch(host, tables: list[tuple[str, list[str]]]) -> list:
    seasons.season_save(
        season_id=None,
        name="Early",
        first_day=FIRST_NIGHT,
        last_day=FIRST_NIGHT + datetime.timedelta(1),
        by=the_organiser(),  # seasons are the organiser's
    )
    seasons.season_save(
        season_id=None,
        name="Late",
        first_day=FIRST_NIGHT + datetime.timedelta(2),
        last_day=FIRST_NIGHT + datetime.timedelta(30),
        by=the_organiser(),
    )
    with mock.patch.object(timezone, "now", return_value=START):
        return [
            table_launch(name=f"T{i}", player_names=players, mode=mode, by=host)
            for i, (mode, players) in enumerate(tables)
        ]


def file(table, order: list[str], at: datetime.datetime) -> None:
    """Tap the players out in this order (the last one left is crowned), at that time."""
    with mock.patch.object(timezone, "now", return_value=at):
        for name in order[:-1]:
            tap(table, name)


def correct(host, table, filed: Filed, order: list[str], at: datetime.datetime) -> bool:
    """Correct a filed match as a host does, confirming a night that is over only once asked:
    whether it was applied."""
    with mock.patch.object(timezone, "now", return_value=at):
        closed = night_of(filed.at) != night_of(at)
        try:
            corrections.match_correct(table_id=table.pk, number=filed.number, names=order, by=host)
        except RuleError as error:
            if error.code == Refusal.ORDER_UNCHANGED:
                assert order == filed.orders[-1]
                return False
            assert error.code == Refusal.NIGHT_CLOSED and closed, error
            corrections.match_correct(
                table_id=table.pk, number=filed.number, names=order, by=host, confirmed=True
            )
        else:
            assert not closed
    return True


def play(host, tables_spec, ops) -> Script:
    """League one: filed as it happened, corrected afterwards."""
    script = Script(tables_spec)
    tables = launch(host, tables_spec)
    clock = START
    for kind, pick, seed in ops:
        clock += datetime.timedelta(minutes=3)
        if kind == "night":
            clock += datetime.timedelta(days=1)
        elif kind == "play":
            table = tables[pick]
            players = [s.player.name for s in open_match(table).seats.select_related("player")]
            order = random.Random(seed).sample(players, len(players))
            number = open_match(table).number
            file(table, order, clock)
            script.filed.append(Filed(pick, number, clock, [order]))
        elif script.filed:
            filed = script.filed[pick % len(script.filed)]
            if kind == "correct":
                order = random.Random(seed).sample(filed.orders[-1], len(filed.orders[-1]))
            elif len(filed.orders) > 1:
                order = filed.orders[-2]
            else:
                continue
            if correct(host, tables[filed.table], filed, order, clock):
                filed.orders.append(order)
    return script


def play_corrected(host, script: Script) -> None:
    """League two: every match filed in its final order from the start, at the same times."""
    tables = launch(host, script.tables)
    for filed in script.filed:
        file(tables[filed.table], filed.orders[-1], filed.at)


def seen(client) -> dict:
    """Everything the league shows, by names (ids differ between the two leagues)."""
    ratings_settle()
    kept.forget_all()
    cache.clear()
    days = [FIRST_NIGHT + datetime.timedelta(n) for n in range(4)]
    queries = [{}, {"mode": "ranked"}, {"mode": "winner_takes_all"}]
    queries += [{"from": day.isoformat(), "to": day.isoformat()} for day in days]
    queries += [{"season": s.pk} for s in Season.objects.order_by("first_day")]
    tables = list(Table.objects.order_by("name"))
    queries += [{"table": t.pk} for t in tables]
    standings = [
        client.get(reverse("matches:api_standings"), query).json()["rows"] for query in queries
    ]
    matches = []
    for t in tables:
        document = client.get(reverse("matches:api_table_matches", args=[t.pk])).json()
        matches.append(document["matches"])
    players = {
        p.name: {
            k: v
            for k, v in client.get(reverse("matches:api_player", args=[p.pk])).json().items()
            if k != "id"
        }
        for p in Player.objects.all()
    }
    for document in players.values():
        for rival in document["head_to_head"]:
            del rival["opponent_id"]
    podiums = [
        (s.season.name, s.status, [(r.rank, r.player, r.points, r.wins) for r in s.podium])
        for s in seasons.seasons_overview(today=FIRST_NIGHT + datetime.timedelta(2))
    ]
    rows = {
        "pairs": sorted(
            HeadToHead.objects.values_list(
                "player__name", "opponent__name", "matches", "ahead", "behind"
            )
        ),
        "nights": sorted(
            PlayerNight.objects.values_list("player__name", "day", "played", "wins", "points")
        ),
        "running": sorted(
            RunningTotal.objects.values_list(
                "player__name",
                Coalesce("venue__name", Value("")),
                "mode",
                "day",
                "played",
                "wins",
                "seconds",
                "thirds",
                "points",
            )
        ),
        "tallies": sorted(
            DailyTally.objects.values_list(
                "table__name",
                "player__name",
                "day",
                "played",
                "wins",
                "seconds",
                "thirds",
                "points",
            )
        ),
    }
    return {
        "standings": standings,
        "matches": matches,
        "players": players,
        "podiums": podiums,
        "rows": rows,
        "ratings": api_rows(client),
    }


@settings(max_examples=15)
@given(tables=correction_tables, ops=correction_ops)
def test_corrections_end_where_filing_right_from_the_start_does(host, tables, ops):
    client = FormClient()
    with transaction.atomic():
        script = play(host, tables, ops)
        call_command("check_integrity", stdout=StringIO())  # raises on any problem
        corrected = seen(client)
        transaction.set_rollback(True)
    with transaction.atomic():
        play_corrected(host, script)
        assert integrity_problems() == []
        assert rating_problems() == []
        assert seen(client) == corrected
        transaction.set_rollback(True)
