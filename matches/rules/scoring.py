"""Each mode's rules, written once: what a finishing place is worth and which places a mode
names. Services' tallies, the integrity scan, the bench seed, selectors, charts, the CSV and
JSON exports and the templates (through the brag filters) all ask here."""

import functools
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import cast

from django.contrib.humanize.templatetags.humanize import ordinal
from django.db.models import Case, IntegerField, Sum, Value, When
from django.utils.translation import get_language, gettext, pgettext

from matches.rules.limits import MAX_PLAYERS

RANKED = "ranked"
WINNER_TAKES_ALL = "winner_takes_all"
RANKED_POINTS = {1: 3, 2: 2, 3: 1}
COUNT_FIELDS = ("played", "wins", "seconds", "thirds", "points")


@dataclass(frozen=True)
class PlaceCounts:
    """What one filed result adds to a player's standings."""

    played: int = 0
    wins: int = 0
    seconds: int = 0
    thirds: int = 0
    points: int = 0


def is_ranked(mode: str) -> bool:
    return mode == RANKED


def place_counts(mode: str, place: int) -> PlaceCounts:
    """A filed place in played/wins/2nds/3rds/points. A winner-takes-all match names no 2nd
    or 3rd and carries no points."""
    if not is_ranked(mode):
        return PlaceCounts(played=1, wins=int(place == 1))
    return PlaceCounts(
        played=1,
        wins=int(place == 1),
        seconds=int(place == 2),
        thirds=int(place == 3),
        points=RANKED_POINTS.get(place, 0),
    )


def win_percent(*, wins: int, played: int) -> Decimal:
    """The share of matches won, in percent, rounded once, half up, to one decimal (3 of 7
    is 42.9, 2 of 3 is 66.7): every page, the CSV and the JSON show this same number
    (number_format alone would cut 42.857… to 42.8)."""
    if not played:
        return Decimal("0.0")
    exact = Decimal(100 * wins) / Decimal(played)
    return exact.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def finished_place(place: int | None) -> int:
    """The place of a seat that is out, as a seat's nullable place column holds it: every
    seat of a filed match has one."""
    if place is None:
        raise ValueError("a seat that is out has a place")
    return place


def shown_place(mode: str, place: int | None) -> int | None:
    """The place a table of this mode names: every place when ranked, only the winner's
    otherwise (everyone else is just "out")."""
    if place is None or (not is_ranked(mode) and place != 1):
        return None
    return place


def points_for(mode: str, place: int | None) -> int | None:
    """Points a place carries at a table of this mode (None: the mode keeps no points)."""
    if not is_ranked(mode):
        return None
    return place_counts(mode, place).points if place is not None else 0


def place_label(mode: str, place: int) -> str:
    """A finished place in words: "4th" at a ranked table; "winner" or "out" otherwise."""
    return _place_label(get_language(), mode, place)


# A board shows a few of these per tap, and humanize's ordinal looks up three translations
# for each: kept per language (the catalogues do not change while a process runs).
@functools.lru_cache(maxsize=512)
def _place_label(language: str | None, mode: str, place: int) -> str:
    shown = shown_place(mode, place)
    if shown is None:
        return gettext("out")
    if not is_ranked(mode):
        # Not the model field's "winner" (vencedor): a finishing place, "vitória" in Portuguese.
        return pgettext("finishing place", "winner")
    # The stubs allow None back (ordinal returns what is not a number as it came); an int
    # always comes back as a string.
    return cast(str, ordinal(shown))


def count_sum(field: str, *, place: str = "place", mode: str = "match__table__mode") -> Sum:
    """The SQL sum of one count (played, wins, seconds, thirds, points) over seats, each
    place worth what place_counts says for its table's mode: the same rule, for queries
    that add up filed seats directly (the integrity scan, tonight's totals)."""
    whens = [
        When(**{mode: table_mode, place: seat_place}, then=Value(amount))
        for table_mode in (RANKED, WINNER_TAKES_ALL)
        for seat_place in range(1, MAX_PLAYERS + 1)
        if (amount := getattr(place_counts(table_mode, seat_place), field))
    ]
    return Sum(Case(*whens, default=Value(0), output_field=IntegerField()))
