"""The league's management commands: rebuild_ratings counts every aggregate afresh from
the seats, and seed_league makes a made-up league whose every count adds up."""

import os
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.urls import reverse

from matches.models import (
    AllTimeTotal,
    DailyTally,
    Match,
    Player,
    RunningTotal,
    Seat,
    Table,
)
from tests.factories import everything_kept, filed_league, make_table

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def standings_points(client) -> list[tuple[str, int, int, int]]:
    cache.clear()
    rows = client.get(reverse("matches:api_standings")).json()["rows"]
    return [(row["player"], row["played"], row["wins"], row["points"]) for row in rows]


def integrity_report() -> str:
    err = StringIO()
    try:
        call_command("check_integrity", stdout=StringIO(), stderr=err)
    except CommandError:
        return err.getvalue()
    return ""


class TestRebuildRepairsEveryAggregate:
    """rebuild_ratings once rebuilt nights and running totals from the daily tallies,
    so tallies damaged by a raw edit stayed damaged. It now counts every aggregate
    from the seats up."""

    def test_a_match_deleted_behind_the_apps_back_is_counted_out(self, client, host):
        table = filed_league(host)
        assert standings_points(client) == [
            ("Ann", 2, 1, 5), ("Dee", 2, 1, 3), ("Bob", 2, 0, 2), ("Cy", 2, 0, 2)
        ]  # fmt: skip
        table.matches.get(number=1).delete()  # what the admin's delete did
        assert "tallies say" in integrity_report()
        call_command("rebuild_ratings", stdout=StringIO())
        assert integrity_report() == ""
        # Match 2 alone: Dee won, Ann second, Cy third, Bob out first.
        assert standings_points(client) == [
            ("Dee", 1, 1, 3), ("Ann", 1, 0, 2), ("Cy", 1, 0, 1), ("Bob", 1, 0, 0)
        ]  # fmt: skip

    def test_damaged_tallies_totals_and_running_totals_are_counted_afresh(self, client, host):
        filed_league(host)
        expected = standings_points(client)
        dee = Player.objects.get(name="Dee")
        DailyTally.objects.filter(player=dee).delete()
        AllTimeTotal.objects.filter(player__name="Ann").update(points=30, wins=2)
        RunningTotal.objects.filter(player__name="Cy").update(points=0)
        table = Table.objects.get()
        DailyTally.objects.create(
            player=dee, table=table, venue=table.venue, day="2020-01-01", played=5
        )
        report = integrity_report()
        for said in ("tallies say", "all-time totals say", "running totals say"):
            assert said in report, said
        out = StringIO()
        call_command("rebuild_ratings", stdout=out)
        assert (
            "4 daily tallies and 4 all-time totals counted from the seats; ratings rebuilt "
            "from 2 filed matches" in out.getvalue()
        )
        assert integrity_report() == ""
        assert standings_points(client) == expected
        assert not DailyTally.objects.filter(day="2020-01-01").exists()


def seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_league", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


class TestSeedLeague:
    """A fast made-up league for the bench, the load test and a demo: what it asks for, every
    count beside it right, and never on top of a real league unless told."""

    def test_it_seeds_what_it_is_asked_for_and_every_count_adds_up(self, client):
        out = seed("--players", "12", "--tables", "3", "--matches", "60", "--days", "5")
        assert "Seeded 12 players, 3 tables and 60 filed matches over 5 days." in out
        assert Player.objects.count() == 12
        assert Table.objects.count() == 3 and not Table.objects.filter(closed_at=None).exists()
        assert Match.objects.count() == Match.objects.filed().count() == 60
        assert sorted(Table.objects.values_list("matches__number", flat=True))[-1] == 20
        assert integrity_report() == ""
        played = sum(row[1] for row in standings_points(client))
        assert played == Seat.objects.count() > 60 * 3
        # Its host is a new admin account without a password.
        host = get_user_model().objects.get()
        assert (host.username, host.is_superuser, host.has_usable_password()) == (
            "seed",
            True,
            False,
        )

    def test_the_same_seed_makes_the_same_league(self):
        seed("--players", "8", "--tables", "2", "--matches", "20", "--seed", "3")
        first = list(Seat.objects.order_by("pk").values_list("player__name", "place"))
        Table.objects.all().delete()
        seed("--players", "8", "--tables", "2", "--matches", "20", "--seed", "3")
        assert list(Seat.objects.order_by("pk").values_list("player__name", "place")) == first

    def test_a_database_with_tables_is_refused_unless_forced(self, host):
        make_table(host=host)
        before = everything_kept()
        with pytest.raises(CommandError) as refused:
            seed("--players", "8", "--tables", "2", "--matches", "20")
        assert str(refused.value) == (
            "This database already has tables; seed_league fills an empty one. "
            "Add --force to add a made-up league to it."
        )
        assert everything_kept() == before
        seed("--players", "8", "--tables", "2", "--matches", "20", "--force")
        assert Table.objects.count() == 3
        assert Match.objects.filed().count() == 20
        # The existing admin hosts the tables; no account is added.
        assert get_user_model().objects.count() == 1
        assert integrity_report() == ""

    @pytest.mark.django_db(transaction=True)
    def test_the_refusal_is_one_line_and_exit_code_1(self):
        make_table()
        db = connection.settings_dict
        url = (
            f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
            if connection.vendor == "postgresql"
            else f"sqlite:///{db['NAME']}"
        )
        result = subprocess.run(
            [sys.executable, "manage.py", "seed_league", "--matches", "5"],
            cwd=settings.BASE_DIR,
            env={**os.environ, "DJANGO_HTTPS": "0", "DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == [
            "CommandError: This database already has tables; seed_league fills an empty one. "
            "Add --force to add a made-up league to it."
        ]

    @pytest.mark.parametrize("bad", [["--players", "2"], ["--tables", "0"], ["--matches", "-1"]])
    def test_sizes_it_cannot_seed_are_refused(self, bad):
        with pytest.raises(CommandError, match="invalid"):
            seed(*bad)
        assert not Table.objects.exists() and not Player.objects.exists()

    def test_progress_is_shown_on_a_terminal_only(self):
        terminal, log = Terminal(), StringIO()
        call_command(
            "seed_league", "--players", "8", "--tables", "2", "--matches", "20",
            stdout=StringIO(), stderr=terminal,
        )  # fmt: skip
        assert "\rseeding matches 20/20" in terminal.getvalue()
        assert "\rcounting 5/5: ratings" in terminal.getvalue()
        assert terminal.getvalue().endswith("\n")
        call_command("rebuild_ratings", stdout=StringIO(), stderr=terminal)
        assert "\rrebuilding 1/5: tallies" in terminal.getvalue()
        call_command("rebuild_ratings", stdout=StringIO(), stderr=log)
        assert log.getvalue() == ""


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True
