"""The night tags name: kept until the next one starts, and worked out afresh with another
time zone or in a new process."""

import datetime

from django.test import override_settings
from django.utils import timezone

from matches.core import kept as kept_stores
from matches.rules import nights as night_rules
from matches.web.caching.night import clock


class TestNightClock:
    def test_the_kept_night_changes_at_noon_and_with_the_time_zone(self, monkeypatch):
        noon = timezone.make_aware(
            datetime.datetime.combine(datetime.date(2026, 3, 28), night_rules.NIGHT_STARTS)
        )
        before, after = noon - datetime.timedelta(seconds=1), noon
        assert clock.tonight(before) == "n20260327"
        assert clock.tonight(after) == "n20260328"
        assert clock.tonight(before) == "n20260327"  # a clock set back: asked again
        # The next night starts at noon local time across the clocks going forward (29 March).
        assert clock.tonight(noon + datetime.timedelta(hours=23, minutes=59)) == "n20260328"
        assert clock.tonight(noon + datetime.timedelta(hours=24)) == "n20260329"
        with timezone.override("America/New_York"):
            assert clock.tonight(after) == "n20260327"  # 08:00 in New York

    def test_the_leagues_night_follows_the_time_zone_setting(self, monkeypatch):
        # 10:00 in London is last night's; the same moment in Tokyo, 19:00, is tonight's.
        moment = datetime.datetime(2026, 3, 10, 10, tzinfo=datetime.UTC)
        monkeypatch.setattr(timezone, "now", lambda: moment)
        assert clock.league_tonight() == "n20260309"
        with override_settings(TIME_ZONE="Asia/Tokyo"):
            assert clock.league_tonight() == "n20260310"
        assert clock.league_tonight() == "n20260309"

    def test_a_new_process_works_the_night_out_afresh(self, monkeypatch):
        moment = datetime.datetime(2026, 3, 10, 10, tzinfo=datetime.UTC)
        monkeypatch.setattr(timezone, "now", lambda: moment)
        assert clock.league_tonight() == "n20260309"
        kept_stores.forget_all()
        assert clock._league is None and clock._active is None
