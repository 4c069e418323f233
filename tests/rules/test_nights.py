"""One night, one rule: a moment's night by its evening's date, in Python and in SQL, across
noon, midnight and both clock changes of the league's time zone."""

import datetime
import zoneinfo

import pytest
from django.db.models import DateTimeField, Value
from django.utils import timezone

from matches.models import Player
from matches.rules.nights import night_of, night_of_field, night_start

pytestmark = pytest.mark.django_db

LONDON = zoneinfo.ZoneInfo("Europe/London")


def at(day: datetime.date, hour: int, minute: int = 0, second: int = 0) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(hour, minute, second), LONDON)


def in_sql(moment: datetime.datetime) -> datetime.date:
    return (
        Player.objects.annotate(at=Value(moment, output_field=DateTimeField()))
        .annotate(night=night_of_field("at"))
        .values_list("night", flat=True)
        .get()
    )


class TestNightOf:
    def test_noon_starts_a_night_and_the_small_hours_end_the_last(self):
        friday, saturday = datetime.date(2026, 11, 6), datetime.date(2026, 11, 7)
        assert night_of(at(friday, 12)) == friday
        assert night_of(at(friday, 23, 59, 59)) == friday
        assert night_of(at(saturday, 0)) == friday
        assert night_of(at(saturday, 11, 59, 59)) == friday
        assert night_of(at(saturday, 12)) == saturday
        assert night_start(at(saturday, 1, 30)) == at(friday, 12)

    @pytest.mark.parametrize(
        "evening",
        [datetime.date(2026, 3, 28), datetime.date(2026, 10, 24), datetime.date(2026, 11, 6)],
        ids=["clocks-forward", "clocks-back", "plain"],
    )
    def test_sql_agrees_with_python_every_ten_minutes_of_a_day_and_a_half(self, evening):
        next_day = evening + datetime.timedelta(1)
        with timezone.override(LONDON):
            Player.objects.create(name="Ann", key="ann")
            # In UTC steps (what the database stores), through the evening, the clock
            # change overnight (its missing or repeated hour) and the next noon.
            moment = at(evening, 6).astimezone(datetime.UTC)
            while moment < at(next_day, 18):
                if moment < at(evening, 12):
                    expected = evening - datetime.timedelta(1)
                elif moment < at(next_day, 12):
                    expected = evening
                else:
                    expected = next_day
                assert night_of(moment) == expected, moment
                assert in_sql(moment) == expected, moment
                moment += datetime.timedelta(minutes=10)
