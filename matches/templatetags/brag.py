from django import template

from .. import scoring

register = template.Library()


@register.filter
def points(place: int | None, mode: str) -> int | None:
    """Points a place carries at a table of this mode (None: the mode keeps no points)."""
    return scoring.points_for(mode, place)


@register.filter
def shown_place(place: int | None, mode: str) -> int | None:
    """The place a table of this mode names, or None ("out")."""
    return scoring.shown_place(mode, place)


@register.filter
def place_label(place: int, mode: str) -> str:
    """A finished place in words: "4th" at a ranked table; "winner" or "out" otherwise."""
    return scoring.place_label(mode, place)
