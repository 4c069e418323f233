"""The night tags name. Tonight's totals start afresh at noon with no write on the table, so
a page showing them has a tag that moves at noon too."""

import dataclasses
import datetime

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import timezone

from matches.core import kept as kept_stores
from matches.rules.nights import night_start


@dataclasses.dataclass(frozen=True)
class Night:
    """One night in one time zone: from its start to the next night's, and its name in tags."""

    zone: datetime.tzinfo
    start: datetime.datetime
    end: datetime.datetime
    name: str

    @classmethod
    def at(cls, now: datetime.datetime) -> "Night":
        """The night now is in, in the active time zone."""
        start = night_start(now)
        # Noon the next day, local time, whatever a clock change did in between.
        end = night_start(start + datetime.timedelta(hours=36))
        return cls(timezone.get_current_timezone(), start, end, start.strftime("n%Y%m%d"))

    def holds(self, now: datetime.datetime) -> bool:
        return self.start <= now < self.end


class NightClock:
    """The night now, kept until the next one starts (checked against now on every ask): a
    poll asks up to three times, and working out local noon each time is a real part of a
    304's cost. Each kept night is one immutable value, swapped whole, so threads asking at
    once read either the old night or the new one."""

    def __init__(self) -> None:
        self.forget()

    def forget(self) -> None:
        """Work the nights out afresh: a new process, or another TIME_ZONE setting."""
        self._active: Night | None = None
        self._league: Night | None = None

    def tonight(self, now: datetime.datetime | None = None) -> str:
        """The name of the night the present moment (or now, when given) falls in, in the
        active time zone."""
        now = now or timezone.now()
        night = self._active
        if (
            night is None
            or night.zone is not timezone.get_current_timezone()
            or not night.holds(now)
        ):
            night = self._active = Night.at(now)
        return night.name

    def league_tonight(self) -> str:
        """The night now in the league's time zone (settings.TIME_ZONE), without asking which
        time zone is active (a thread-local lookup, dear on a poll answered before Django):
        nothing in the app activates another, so it is the night tags name."""
        now = timezone.now()
        night = self._league
        if night is None or not night.holds(now):
            with timezone.override(timezone.get_default_timezone()):
                night = self._league = Night.at(now)
        return night.name


clock = NightClock()
kept_stores.register(clock.forget)


@receiver(setting_changed)
def _forget_night_of_old_zone(*, setting: str, **kwargs: object) -> None:
    if setting == "TIME_ZONE":
        clock.forget()
