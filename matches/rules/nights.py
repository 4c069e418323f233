"""One night, one rule: a pub night runs from the afternoon into the small hours, so a night
starts at noon local time rather than at midnight, and is named by its evening's date. Every
count kept by day (tallies, players' nights, running totals, seasons, date filters) buckets
a match by night_of, so five wins between 23:10 and 01:30 are one night's five."""

import datetime

from django.db.models import Case, DateField, F, When
from django.db.models.functions import TruncDate
from django.utils import timezone

NIGHT_STARTS = datetime.time(12)


def night_of(moment: datetime.datetime | None = None) -> datetime.date:
    """The night a moment (now by default) belongs to, by its evening's date in the league's
    time zone: 01:30 on the 2nd is the night of the 1st, 12:00 on the 2nd the 2nd's."""
    local = timezone.localtime(moment)
    if local.time() >= NIGHT_STARTS:
        return local.date()
    return local.date() - datetime.timedelta(1)


def night_start(now: datetime.datetime | None = None) -> datetime.datetime:
    """When tonight began: noon today, or noon yesterday before noon (local time)."""
    return timezone.make_aware(datetime.datetime.combine(night_of(now), NIGHT_STARTS))


def night_of_field(field: str) -> Case:
    """night_of as SQL over a datetime column, in the current time zone (both backends)."""
    # Before noon: 18 hours back lands between 06:00 and 18:00 of the day before, local
    # time, whatever a clock change did overnight; its date is the evening's.
    return Case(
        When(**{f"{field}__hour__gte": NIGHT_STARTS.hour}, then=TruncDate(field)),
        default=TruncDate(F(field) - datetime.timedelta(hours=NIGHT_STARTS.hour + 6)),
        output_field=DateField(),
    )
