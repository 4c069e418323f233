"""Server-rendered SVG charts: plain coordinates and labels for the templates, no chart
library. The player chart has two panels over the same x axis (the player's matches, oldest
left): the rating, on an axis around the player's own values, with its recent trend; and the
place of each match."""

import math
from dataclasses import dataclass

from django.utils.formats import date_format
from django.utils.html import format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.ratings.engine import MODEL, shown_rating
from matches.results.profile import Finish, PlayerProfile
from matches.rules import scoring
from matches.rules.nights import night_of

WIDTH = 720
LEFT, RIGHT = 72, 16  # room for the y labels
RATING_TOP, RATING_BOTTOM = 40, 220
PLACES_TOP, PLACES_BOTTOM = 270, 400
AXIS_LABEL_Y = 440
HEIGHT = 460
# The recent trend: a straight line fitted to the rating over the latest matches, and a
# sentence saying how far it moved over them.
TREND_MATCHES = 10


@dataclass(frozen=True)
class Tick:
    at: float  # pixel position along its axis
    label: str

    @property
    def pos(self) -> str:
        # Formatted here, not with floatformat: SVG coordinates take a dot in every language.
        return f"{self.at:.1f}"


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    kind: str  # "win", "place" (a ranked place below 1st) or "out" (winner takes all)
    label: str  # read by screen readers and shown on hover


@dataclass(frozen=True)
class PlayerChart:
    width: int
    height: int
    left: int
    right: int
    rating_top: int
    rating_bottom: int
    places_top: int
    places_bottom: int
    axis_label_y: int
    rating_line: str  # polyline points: the rating shown after each match
    trend_line: str  # line points: the trend over the latest matches ("" with fewer than 2)
    trend: str  # the trend in words
    rating_marks: list[tuple[float, float]]
    rating_ticks: list[Tick]
    place_ticks: list[Tick]
    x_ticks: list[Tick]
    dots: list[Dot]
    summary: str  # the text alternative

    # The repeated shapes as one string each: a hundred template loop passes cost more than
    # the rest of the player page.
    @property
    def marks_svg(self) -> str:
        return format_html_join(
            "", '<circle class="rating-mark" cx="{}" cy="{}" r="3"></circle>',
            ((f"{x:.1f}", f"{y:.1f}") for x, y in self.rating_marks),
        )  # fmt: skip

    @property
    def dots_svg(self) -> str:
        return format_html_join(
            "",
            '<circle class="place-dot place-{}" cx="{}" cy="{}" r="5"><title>{}</title></circle>',
            ((dot.kind, f"{dot.x:.1f}", f"{dot.y:.1f}", dot.label) for dot in self.dots),
        )


def _shown(finish: Finish) -> int:
    """The rating shown after a match of the chart (profile.chart reads each with its rating)."""
    assert finish.mu is not None and finish.sigma is not None
    return shown_rating(finish.mu, finish.sigma)


def _nice_step(span: float, count: int = 5) -> float:
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)


def _x_positions(count: int) -> list[float]:
    inner = WIDTH - LEFT - RIGHT
    if count == 1:
        return [LEFT + inner / 2]
    return [LEFT + inner * i / (count - 1) for i in range(count)]


def _x_ticks(finishes: list[Finish], xs: list[float]) -> list[Tick]:
    step = max(1, math.ceil(len(finishes) / 6))
    chosen = sorted({*range(0, len(finishes), step), len(finishes) - 1})
    return [Tick(at=xs[i], label=str(finishes[i].number)) for i in chosen]


def _rating_panel(finishes: list[Finish], xs: list[float]):
    shown = [_shown(f) for f in finishes]
    # The axis hugs the player's own ratings (not the uncertainty, whose upper edge would
    # flatten the line at the bottom of a band hundreds of points tall), with a little room.
    low, high = min(shown), max(shown)
    step = _nice_step(max(high - low, 40))
    bottom = math.floor((low - step / 4) / step) * step
    top = math.ceil((high + step / 4) / step) * step

    def y(value: float) -> float:
        return RATING_BOTTOM - (RATING_BOTTOM - RATING_TOP) * (value - bottom) / (top - bottom)

    line = " ".join(f"{x:.1f},{y(v):.1f}" for x, v in zip(xs, shown, strict=True))
    marks = [(x, y(v)) for x, v in zip(xs, shown, strict=True)]
    ticks = []
    value = bottom
    while value <= top:
        ticks.append(Tick(at=y(value), label=str(int(value))))
        value += step
    return line, _trend_line(xs, shown, y), marks, ticks


def _trend_line(xs: list[float], shown: list[int], y) -> str:
    """A least-squares line through the latest TREND_MATCHES ratings, as SVG line points."""
    xs, values = xs[-TREND_MATCHES:], shown[-TREND_MATCHES:]
    if len(xs) < 2:
        return ""
    mean_x, mean_v = sum(xs) / len(xs), sum(values) / len(values)
    slope = sum((x - mean_x) * (v - mean_v) for x, v in zip(xs, values, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    ends = [(x, mean_v + slope * (x - mean_x)) for x in (xs[0], xs[-1])]
    return " ".join(f"{x:.1f},{y(v):.1f}" for x, v in ends)


def _trend(finishes: list[Finish]) -> str:
    """How far the rating moved over the latest TREND_MATCHES matches, in words."""
    window = finishes[-TREND_MATCHES:]
    if len(finishes) > len(window):
        before = finishes[-len(window) - 1]
        start = _shown(before)
    else:
        start = shown_rating(*_before_first(finishes[0]))
    end = _shown(window[-1])
    values = {"count": len(window), "start": start, "end": end, "change": abs(end - start)}
    if end > start:
        return (
            ngettext(
                "Trend: up %(change)s over the last match, from %(start)s to %(end)s.",
                "Trend: up %(change)s over the last %(count)s matches, from %(start)s to %(end)s.",
                len(window),
            )
            % values
        )
    if end < start:
        return (
            ngettext(
                "Trend: down %(change)s over the last match, from %(start)s to %(end)s.",
                "Trend: down %(change)s over the last %(count)s matches, from %(start)s to %(end)s.",
                len(window),
            )
            % values
        )
    return (
        ngettext(
            "Trend: unchanged over the last match, at %(end)s.",
            "Trend: unchanged over the last %(count)s matches, at %(end)s.",
            len(window),
        )
        % values
    )


def _places_panel(finishes: list[Finish], xs: list[float]):
    deepest = max((f.place for f in finishes if scoring.is_ranked(f.mode)), default=1)
    any_out = any(f.shown_place is None for f in finishes)
    rows = deepest + int(any_out)  # an "out" row below the places when needed

    def y(row: int) -> float:
        if rows == 1:
            return (PLACES_TOP + PLACES_BOTTOM) / 2
        return PLACES_TOP + (PLACES_BOTTOM - PLACES_TOP) * (row - 1) / (rows - 1)

    ticks = [
        Tick(at=y(place), label=scoring.place_label(scoring.RANKED, place))
        for place in range(1, deepest + 1)
    ]
    if any_out:
        ticks.append(Tick(at=y(rows), label=_("out")))
    dots = []
    template = _("Match %(number)s, %(day)s: %(result)s")
    # A hundred dots share a few results and days: each worded once.
    results = {key: scoring.place_label(*key) for key in {(f.mode, f.place) for f in finishes}}
    days: dict = {}
    for x, finish in zip(xs, finishes, strict=True):
        place = finish.shown_place
        kind = "win" if place == 1 else "place" if place else "out"
        day = night_of(finish.filed_at)
        if day not in days:
            days[day] = date_format(day)
        label = template % {
            "number": finish.number,
            "day": days[day],
            "result": results[(finish.mode, finish.place)],
        }
        dots.append(Dot(x=x, y=y(place or rows), kind=kind, label=label))
    return ticks, dots


def _summary(finishes: list[Finish]) -> str:
    first, last = finishes[0], finishes[-1]
    wins = sum(1 for f in finishes if f.place == 1)
    return " ".join(
        [
            ngettext(
                "The chart shows %(count)s match, number %(first)s.",
                "The chart shows %(count)s matches, numbers %(first)s to %(last)s.",
                len(finishes),
            )
            % {"count": len(finishes), "first": first.number, "last": last.number},
            _("The rating went from %(start)s to %(end)s.")
            % {
                "start": shown_rating(*_before_first(first)),
                "end": _shown(last),
            },
            ngettext("%(wins)s of them was a win.", "%(wins)s of them were wins.", wins)
            % {"wins": wins},
        ]
    )


def _before_first(first: Finish) -> tuple[float, float]:
    # A chart that starts at the first match starts from the newcomer's rating.
    if first.number == 1:
        return MODEL.mu, MODEL.sigma
    return first.mu, first.sigma


def player_chart(profile: PlayerProfile) -> PlayerChart | None:
    """The latest matches' ratings and places, oldest left; None before any filed match."""
    finishes = profile.chart
    if not finishes:
        return None
    xs = _x_positions(len(finishes))
    line, trend_line, marks, rating_ticks = _rating_panel(finishes, xs)
    place_ticks, dots = _places_panel(finishes, xs)
    return PlayerChart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=WIDTH - RIGHT,
        rating_top=RATING_TOP,
        rating_bottom=RATING_BOTTOM,
        places_top=PLACES_TOP,
        places_bottom=PLACES_BOTTOM,
        axis_label_y=AXIS_LABEL_Y,
        rating_line=line,
        trend_line=trend_line,
        trend=_trend(finishes),
        rating_marks=marks,
        rating_ticks=rating_ticks,
        place_ticks=place_ticks,
        x_ticks=_x_ticks(finishes, xs),
        dots=dots,
        summary=_summary(finishes),
    )
