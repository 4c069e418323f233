"""Erasing a player takes its locks in the order an undo of a merge into that player takes
them (the merge record, then the player: docs/architecture.md), so the two never wait on
each other in a circle on PostgreSQL."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.results import public_names
from matches.results.players import services as player_records
from tests.factories import make_table


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


def _first(queries: list[str], table: str) -> int:
    return next(i for i, sql in enumerate(queries) if f'FROM "{table}"' in sql)


class TestPlayerEraseLockOrder:
    def test_the_merge_records_are_locked_before_the_player(self, host):
        make_table(players=["Zoë", "Ben", "Cara"])
        make_table(players=["Zed", "Ben", "Cara"], name="Back bar")
        zoe = player_records.players_resolve(names=["Zoë"])[0]
        player_records.player_merge(keep_id=zoe.pk, other_name="Zed", by=host)
        boss = get_user_model().objects.create_superuser(username="boss", password="x-long-1")

        with CaptureQueriesContext(connection) as captured:
            public_names.player_erase(player_id=zoe.pk, by=boss)

        queries = [query["sql"] for query in captured.captured_queries]
        # The same order as player_merge_undo: PlayerMerge, then the kept Player.
        assert _first(queries, "matches_playermerge") < _first(queries, "matches_player")


class TestPlayerMergeLockOrder:
    def test_both_records_are_locked_at_once_in_id_order(self, host):
        """Two merges of one pair in opposite directions take the rows in the same order."""
        make_table(players=["Zoë", "Ben", "Cara"])
        make_table(players=["Zed", "Ben", "Cara"], name="Back bar")
        (zed,) = player_records.players_resolve(names=["Zed"])

        with CaptureQueriesContext(connection) as captured:
            player_records.player_merge(keep_id=zed.pk, other_name="Zoë", by=host)

        first = captured.captured_queries[_first_of(captured, "matches_player")]["sql"]
        assert f'"matches_player"."id" = {zed.pk}' in first
        assert '"matches_player"."key" = ' in first
        assert first.rstrip().split(" FOR ")[0].endswith('ORDER BY "matches_player"."id" ASC')


def _first_of(captured: CaptureQueriesContext, table: str) -> int:
    return _first([query["sql"] for query in captured.captured_queries], table)
