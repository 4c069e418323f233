"""One night, one rule: a pub night runs from the afternoon into the small hours, so a night
starts at noon local time rather than at midnight."""

import datetime

from django.utils import timezone

NIGHT_STARTS = datetime.time(12)


def night_start(now: datetime.datetime | None = None) -> datetime.datetime:
    """When tonight began: noon today, or noon yesterday before noon (local time)."""
    local = timezone.localtime(now)
    day = local.date() if local.time() >= NIGHT_STARTS else local.date() - datetime.timedelta(1)
    return timezone.make_aware(datetime.datetime.combine(day, NIGHT_STARTS))
