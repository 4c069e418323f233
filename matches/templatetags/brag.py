from django import template

from ..models import points_for

register = template.Library()


@register.filter
def points(place: int | None, mode: str) -> int | None:
    """Points a place carries at a table of this mode."""
    return points_for(mode, place)
