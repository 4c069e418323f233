"""The ratings worker as a serving process runs it: `manage.py ratings_worker` in a child
process the server starts, wakes, starts again when it dies and stops with itself. Real
processes against the test database (committed: transaction=True)."""

import os
import signal
import time

import pytest

from matches.management.commands import ratings_worker
from matches.play.services.undo import table_undo_last
from matches.ratings import schedule, steps, supervisor
from matches.ratings.audit import rating_problems
from tests.pushing import ServedApp
from tests.ratings.test_ratings import api_rows
from tests.ratings.test_steps import league_with_an_old_crowning

pytestmark = pytest.mark.django_db(transaction=True)

SETTLE_SECONDS = 60  # a child's start (Django's set-up) on a busy machine, then the replay


def wait_for(condition, what: str, seconds: float = SETTLE_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def ended(pid: int) -> bool:
    """Whether the process pid has ended (reaped, as Popen.wait does)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def league(settings, host):
    """An undoable old crowning, built and committed with nothing replaying."""
    steps._kept.clear()
    settings.RATINGS_REPLAY = "manual"
    built = league_with_an_old_crowning(host, later=3)
    settings.RATINGS_REPLAY = "background"
    return built


@pytest.fixture
def running():
    started: list[supervisor.Supervisor] = []
    yield started
    for each in started:
        each.stop()  # its connections close before the test database is flushed


class TestTheWorker:
    def test_settles_a_replay_a_write_here_scheduled(self, league, host, client, running):
        played, front, _ = league
        running.append(ratings := supervisor.supervisor_start())
        table_undo_last(table_id=front.pk, tap_id=None, by=host)  # commits, wakes
        played.filed.pop(0)
        wait_for(lambda: not schedule.ratings_updating(), "the replay did not settle")
        assert rating_problems() == []
        assert api_rows(client) == played.expected_rows()
        pid = ratings.pid
        ratings.stop()
        assert ended(pid)

    def test_is_started_again_when_it_dies(self, league, host, client, running, monkeypatch):
        monkeypatch.setattr(supervisor, "RESTART_SECONDS", 0.1)
        played, front, _ = league
        running.append(ratings := supervisor.supervisor_start())
        first = ratings.pid
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: ratings.starts == 2, "the worker was not started again", 10)
        assert ratings.pid != first
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        played.filed.pop(0)
        wait_for(lambda: not schedule.ratings_updating(), "the replay did not settle")
        assert api_rows(client) == played.expected_rows()

    def test_yields_the_cpu_to_its_server(self, settings, running):
        settings.RATINGS_REPLAY = "background"
        running.append(ratings := supervisor.supervisor_start())
        server = os.getpriority(os.PRIO_PROCESS, 0)
        lower = min(server + ratings_worker.WORKER_NICENESS, 19)
        wait_for(
            lambda: os.getpriority(os.PRIO_PROCESS, ratings.pid) == lower,
            "the worker ran at its server's priority",
        )

    def test_stops_with_its_server(self, league, running):
        served = ServedApp()  # lifespan on: the startup starts a worker
        try:
            (ratings,) = supervisor._running
            pid = ratings.pid
            assert pid is not None and not ended(pid)
        finally:
            served.stop()
        assert ended(pid)
        assert supervisor._running == set()

    def test_none_unless_the_replay_runs_in_the_background(self, settings):
        settings.RATINGS_REPLAY = "inline"
        assert supervisor.supervisor_start() is None
