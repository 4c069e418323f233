"""The last heat's crowning opens the final in a number of queries that does not grow with
the heats: it holds the finals night's lock meanwhile."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import make_organiser
from tests.finals_factories import create, ended_season, final_table, heat_table, play_out

pytestmark = pytest.mark.django_db


def last_crowning_queries(organiser, *, season, count, heats):
    event = create(organiser, season=season, count=count, heats=heats, runners_up=1)
    for number in range(1, heats):
        play_out(heat_table(event, number), organiser)
    with CaptureQueriesContext(connection) as captured:
        play_out(heat_table(event, heats), organiser)
    assert final_table(event) is not None
    return len(captured)


def test_the_final_opens_in_queries_flat_in_the_heats(db):
    organiser = make_organiser()
    two = last_crowning_queries(organiser, season=ended_season("A"), count=6, heats=2)
    five = last_crowning_queries(organiser, season=ended_season("B"), count=15, heats=5)
    assert five == two
