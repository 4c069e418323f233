"""Real threads on a real database (SQLite in WAL with IMMEDIATE transactions, or
PostgreSQL with row locks): every tap is applied exactly once, whatever the interleaving."""

import uuid
from collections import Counter

import pytest

from matches.core import errors
from matches.integrity import integrity_problems
from matches.models import Match, Tap
from matches.play.messages import NOT_LATEST
from matches.play.services.tap import TapOutcome, match_eliminate
from matches.play.services.undo import table_undo_last
from tests.factories import make_host, make_table, open_match, places, seat_of, tap
from tests.races import run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


def eliminate(table, match, name, key=None):
    player_id = seat_of(match, name).player_id
    return lambda: match_eliminate(
        table_id=table.pk,
        match_id=match.pk,
        player_id=player_id,
        key=key or uuid.uuid4(),
        by=table.created_by,
    )


def messages(results) -> Counter:
    return Counter(r.message if isinstance(r, errors.RuleError) else "ok" for r in results)


def test_the_last_two_tapped_at_once_200_rounds():
    host = make_host()
    for round_ in range(200):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"], name=f"R{round_}")
        tap(table, "Ann")
        match = open_match(table)
        results = run_at_once(eliminate(table, match, "Bob"), eliminate(table, match, "Cy"))

        assert messages(results) == {"ok": 1, "Match 1 is already filed; nothing was changed.": 1}
        won = next(r for r in results if isinstance(r, TapOutcome))
        final = places(Match.objects.get(pk=match.pk))
        assert final["Ann"] == 3
        assert final[won.tap.player.name] == 2 and final[won.winner.name] == 1
        assert table.matches.filter(status="open").count() == 1
    assert integrity_problems() == []


def test_twenty_taps_on_one_player():
    table = make_table(players=["Ann", "Bob", "Cy", "Dee", "Eve"])
    match = open_match(table)
    results = run_at_once(*[eliminate(table, match, "Cy") for _ in range(20)])
    assert messages(results) == {"ok": 1, "Cy is already out; nothing was changed.": 19}
    assert Tap.objects.count() == 1
    assert places(match)["Cy"] == 5


def test_twenty_copies_of_one_request():
    table = make_table(players=["Ann", "Bob", "Cy", "Dee", "Eve"])
    match = open_match(table)
    key = uuid.uuid4()
    results = run_at_once(*[eliminate(table, match, "Cy", key=key) for _ in range(20)])
    assert messages(results) == {"ok": 20}
    assert sum(not r.replayed for r in results) == 1
    assert Tap.objects.count() == 1


def test_undo_racing_a_tap_100_rounds():
    host = make_host()
    outcomes = Counter()
    for round_ in range(100):
        table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"], name=f"U{round_}")
        first = tap(table, "Bob").tap
        match = open_match(table)
        undo = lambda t=table, f=first: table_undo_last(  # noqa: E731
            table_id=t.pk, tap_id=f.pk, by=host
        )
        results = run_at_once(undo, eliminate(table, match, "Ann"))
        final = places(Match.objects.get(pk=match.pk))
        if all(not isinstance(r, Exception) for r in results):
            # The undo came first: Bob is back and Ann went out with four standing.
            assert final == {"Ann": 4, "Bob": None, "Cy": None, "Dee": None}
            outcomes["undo first"] += 1
        else:
            # The tap came first: the undo names a tap that is no longer the latest.
            assert isinstance(results[0], errors.RuleError)
            assert results[0].message == NOT_LATEST
            assert final == {"Ann": 3, "Bob": 4, "Cy": None, "Dee": None}
            outcomes["tap first"] += 1
    assert sum(outcomes.values()) == 100
    assert integrity_problems() == []


def test_taps_on_many_tables_at_once_never_lock_the_database():
    host = make_host()
    tables = [make_table(host=host, players=["A", "B", "C", "D"], name=f"T{i}") for i in range(8)]
    calls = [eliminate(t, open_match(t), name) for t in tables for name in ("A", "B")]
    results = run_at_once(*calls)
    assert messages(results) == {"ok": 16}
    assert sorted(Tap.objects.values_list("place", flat=True)) == [3] * 8 + [4] * 8
    assert integrity_problems() == []
