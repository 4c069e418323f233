"""Every write takes its locks in one order (docs/architecture.md, "How a write locks"), so on
PostgreSQL none waits on another in a circle: merges, undos of merges, renames, public names
and erasures run against a ratings replay that is stepping, each thread on its own
connection, and every one of them goes through.

The step under way is held at its writes (it has the standings stamp) until the other write
is seen waiting for a lock, so the two meet in the order that deadlocked: the write holding
player rows and waiting for the stamp, the step holding the stamp and then checking its
rating changes' players. On SQLite, whose writes take turns whole, the same tests hold
trivially."""

import threading
import time
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from matches.integrity import integrity_problems
from matches.models import Player, PlayerMerge, RatingChange
from matches.ratings import schedule, steps
from matches.ratings.audit import rating_problems
from matches.ratings.steps import ratings_settle
from matches.results import public_names
from matches.results.players.services import player_merge, player_merge_undo, player_rename
from tests.factories import make_table
from tests.ratings.test_ratings import League, play_out

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


def _someone_waits_for_a_lock(timeout: float = 5.0) -> None:
    """Until another connection waits for a row lock (PostgreSQL), or a moment (SQLite)."""
    if connection.vendor != "postgresql":
        time.sleep(0.2)
        return
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)


def _run_together(*calls: Callable[[], object]) -> list[object]:
    """Run each call in a thread of its own (its own connection); each one's result or error."""
    results: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            results[index] = call()
        except Exception as error:  # the outcome under test: a deadlock is an error
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return results


@pytest.fixture
def league(settings, host, monkeypatch):
    """Ann at table One and Annie at table Two, never in one match, six matches each, filed
    turn about: every step of two matches rates both of them. Replayed by hand."""
    settings.RATINGS_REPLAY = "manual"
    steps._kept.clear()
    monkeypatch.setattr(steps, "STEP_MATCHES", 2)
    filed = League()
    one = make_table(host=host, players=["Ann", "Bob", "Cy"], name="One")
    two = make_table(host=host, players=["Annie", "Dee", "Eve"], name="Two")
    for _ in range(6):
        play_out(one, ["Cy", "Bob"], filed)
        play_out(two, ["Eve", "Dee"], filed)
    yield
    steps._kept.clear()


def _step_held_until_someone_waits(monkeypatch) -> threading.Event:
    """The first replay step to write waits, holding the stamp, until another connection
    waits for a lock; the event is set once it holds the stamp."""
    holding = threading.Event()
    write = steps._Rerated.write

    def held_write(self) -> None:
        if not holding.is_set():
            holding.set()
            _someone_waits_for_a_lock()
        write(self)

    monkeypatch.setattr(steps._Rerated, "write", held_write)
    return holding


def _after(event: threading.Event, call: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        assert event.wait(30), "the replay step never reached its writes"
        return call()

    return run


def _settled_and_whole() -> None:
    ratings_settle()
    assert rating_problems() == []
    assert integrity_problems() == []


def _pid(name: str) -> int:
    return Player.objects.get(name=name).pk


def _merge(host) -> Callable[[], object]:
    return lambda: player_merge(keep_id=_pid("Ann"), other_name="Annie", by=host)


def _undo_merge(host) -> Callable[[], object]:
    player_merge(keep_id=_pid("Ann"), other_name="Annie", by=host)
    ratings_settle()
    merge = PlayerMerge.objects.get()
    return lambda: player_merge_undo(merge_id=merge.pk, by=host)


def _rename(host) -> Callable[[], object]:
    return lambda: player_rename(player_id=_pid("Ann"), name="Anna", by=host)


def _public_name(host) -> Callable[[], object]:
    return lambda: public_names.player_set_public_name(
        player_id=_pid("Ann"), public_name="A.", hidden=False, by=host
    )


def _erase(host) -> Callable[[], object]:
    boss = get_user_model().objects.create_superuser(username="boss", password="x-long-pass-1")
    return lambda: public_names.player_erase(player_id=_pid("Ann"), by=boss)


class TestWritesAgainstAReplayStep:
    @pytest.mark.parametrize(
        "write", [_merge, _undo_merge, _rename, _public_name, _erase], ids=lambda w: w.__name__
    )
    def test_the_write_and_the_step_both_go_through(self, league, host, monkeypatch, write):
        call = write(host)
        # The replay writes every rating change anew, as after a merge: each insert checks
        # its player (a key-share lock on the player's row, at commit).
        RatingChange.objects.all().delete()
        holding = _step_held_until_someone_waits(monkeypatch)

        replay, written = _run_together(schedule.ratings_rebuild, _after(holding, call))

        assert not isinstance(replay, Exception), replay
        assert not isinstance(written, Exception), written
        _settled_and_whole()


class TestMergesAgainstARunningReplay:
    def test_ten_rounds_of_a_merge_and_its_undo_while_the_replay_runs(self, league, host):
        """As the hostile test did: each merge and each undo starts a replay of its own, and
        the next write comes while it steps."""
        stop = threading.Event()

        def replay() -> int:
            done = 0
            while not stop.is_set():
                done += ratings_settle(owner="replayer")
                time.sleep(0.005)
            return done

        def merges() -> list[object]:
            try:
                outcomes: list[object] = []
                for _ in range(10):
                    merge = player_merge(keep_id=_pid("Ann"), other_name="Annie", by=host)
                    outcomes.append(merge)
                    outcomes.append(player_merge_undo(merge_id=merge.pk, by=host))
                return outcomes
            finally:
                stop.set()

        replayed, outcomes = _run_together(replay, merges)

        assert not isinstance(replayed, Exception), replayed
        assert not isinstance(outcomes, Exception), outcomes
        assert len(outcomes) == 20
        assert PlayerMerge.objects.filter(undone_at__isnull=False).count() == 10
        _settled_and_whole()
