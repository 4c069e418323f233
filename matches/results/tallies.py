"""The standings' own counts of filed results: each player's daily tally per table (what
date ranges and seasons are summed from) and all-time total per table (what standings
without dates read). What each place is worth is scoring's to say."""

import datetime
from collections.abc import Iterable, Sequence
from typing import Any, cast

from django.db.models import Case, F, Sum, Value, When

from matches.models import AllTimeTotal, Counts, DailyTally, Match, Seat, Table
from matches.rules.nights import night_of_field
from matches.rules.scoring import COUNT_FIELDS, count_sum, finished_place, place_counts


def tallies_file(*, table: Table, day: datetime.date, seats: Sequence[Seat], sign: int) -> None:
    """Add a filed match's places to the day's tally and the all-time total (sign 1), or
    take them back (sign -1)."""
    worth = {seat.player_id: place_counts(table.mode, finished_place(seat.place)) for seat in seats}
    changes = {
        field: F(field)
        + Case(
            *[
                When(player_id=player_id, then=Value(sign * getattr(counts, field)))
                for player_id, counts in worth.items()
            ],
            default=Value(0),
        )
        for field in COUNT_FIELDS
        if any(getattr(counts, field) for counts in worth.values())
    }
    counters: tuple[tuple[type[Counts], dict[str, datetime.date]], ...] = (
        (DailyTally, {"day": day}),
        (AllTimeTotal, {}),
    )
    for model, where in counters:
        if sign > 0:
            model._default_manager.bulk_create(
                [model(player_id=seat.player_id, table=table, **where) for seat in seats],
                ignore_conflicts=True,
            )
        model._default_manager.filter(table=table, player_id__in=worth, **where).update(**changes)


def _kept(model, *keys: str) -> dict[tuple, tuple[int, ...]]:
    """What a counts model holds per player and table (and keys), summed over its rows."""
    return {
        (r["player_id"], r["table_id"], *(r[k] for k in keys)): tuple(
            r[f"{f}_sum"] for f in COUNT_FIELDS
        )
        for r in model.objects.values("player_id", "table_id", *keys)
        .annotate(**{f"{field}_sum": Sum(field) for field in COUNT_FIELDS})
        .filter(played_sum__gt=0)
    }


def _filed(*keys: str) -> dict[tuple, tuple[int, ...]]:
    """The filed results per player and table (and keys), counted from the seats."""
    seats = Seat.objects.filter(match__status=Match.Status.FILED)
    if "night" in keys:
        seats = seats.annotate(night=night_of_field("match__filed_at"))
    rows = (
        seats.values("player_id", "match__table_id", *keys)
        .annotate(**{field: count_sum(field) for field in COUNT_FIELDS})
        .order_by()
    )
    # The sums are named at run time (annotate(**...)): the stubs' row type lacks them.
    return {
        (r["player_id"], r["match__table_id"], *(r[k] for k in keys)): tuple(
            r[f] for f in COUNT_FIELDS
        )
        for r in cast("Iterable[dict[str, Any]]", rows)
    }


def tally_problems() -> list[str]:
    """Players whose daily tallies (each night's, night_of) or the all-time totals that
    standings without dates read differ from their filed results."""
    problems = []
    checks = (
        ("all-time totals", _kept(AllTimeTotal), _filed()),
        ("tallies", _kept(DailyTally, "day"), _filed("night")),
    )
    for kind, kept, actual in checks:
        for key in sorted(set(actual) | set(kept)):
            if actual.get(key) != kept.get(key):
                player, table, *night = key
                on = f" on the night of {night[0]}" if night else ""
                problems.append(
                    f"Player #{player} at table #{table}{on}: {kind} say {kept.get(key)}, "
                    f"filed results say {actual.get(key)}"
                )
    return problems
