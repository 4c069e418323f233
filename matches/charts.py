"""Server-rendered SVG charts: plain coordinates for the templates, no chart library."""

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .scoring import shown_place
from .selectors import PlayerHistory

WIDTH, HEIGHT, PAD = 640, 220, 36


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    points_line: str  # polyline points for cumulative points
    points_max: int
    place_dots: list[tuple[float, float, int]]  # x, y, place
    max_place: int
    summary: str  # the text alternative


def _x(index: int, count: int) -> float:
    span = WIDTH - 2 * PAD
    return PAD + (span * index / (count - 1) if count > 1 else span / 2)


def player_chart(history: PlayerHistory) -> Chart | None:
    """Cumulative points by day and finishing places of the latest matches, oldest first."""
    if not history.matches:
        return None
    days = history.points_by_day
    top = max((points for _, points in days), default=0) or 1
    inner = HEIGHT - 2 * PAD
    line = " ".join(
        f"{_x(i, len(days)):.1f},{HEIGHT - PAD - inner * points / top:.1f}"
        for i, (_, points) in enumerate(days)
    )
    # Places that a table names: every place at a ranked table, only wins at the others.
    shown = [
        seat
        for seat in reversed(history.matches)
        if shown_place(seat.match.table.mode, seat.place) is not None
    ]
    max_place = max((seat.place for seat in shown), default=1)
    dots = [
        (
            _x(i, len(shown)),
            PAD + (inner * (seat.place - 1) / (max_place - 1) if max_place > 1 else 0),
            seat.place,
        )
        for i, seat in enumerate(shown)
    ]
    wins = sum(1 for seat in shown if seat.place == 1)
    summary = " ".join(
        [
            ngettext(
                "Cumulative points rose to %(points)s over %(days)s day.",
                "Cumulative points rose to %(points)s over %(days)s days.",
                len(days),
            )
            % {"points": days[-1][1] if days else 0, "days": len(days)},
            _(
                "Of the latest %(count)s placed finishes, %(wins)s were wins; best place %(best)s, worst %(worst)s."
            )
            % {
                "count": len(shown),
                "wins": wins,
                "best": min((s.place for s in shown), default="–"),
                "worst": max_place if shown else "–",
            },
        ]
    )
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        points_line=line,
        points_max=top,
        place_dots=dots,
        max_place=max_place,
        summary=summary,
    )
