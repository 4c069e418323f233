"""The host's tile grid and the board's state as data, for the tap queue (tap-queue.js)."""

import uuid

from django import template
from django.utils.html import json_script

from matches.web import tap_queue

register = template.Library()


@register.simple_tag
def seat_tiles(board) -> list[tuple]:
    """Every seat of the open match in seating order, standing or out, each standing one with
    a fresh idempotency key: a tapped player keeps their tile, so nothing reflows."""
    seats = sorted(board.standing + board.out, key=lambda seat: seat.position)
    return [(seat, uuid.uuid4() if seat.place is None else None) for seat in seats]


# A word longer than this gets a smaller type on its tile. The tap queue reads the verdict
# from the board's state (each seat's "long"), so the rule lives here only.
LONG_WORD = 9


@register.filter
def long_word(name: str) -> bool:
    """Whether a name has a word too long for a tile at full size."""
    return any(len(word) > LONG_WORD for word in name.split())


@register.simple_tag(takes_context=True)
def board_state(context, board, table, is_host: bool) -> str:
    """The board as a JSON data island (<script type="application/json" id="board-state">),
    with the viewer from the request in the context."""
    request = context.get("request")
    user = getattr(request, "user", None)
    state = tap_queue.board_state(board=board, table=table, is_host=is_host, user=user)
    result = state["result"]
    for seat in [*state["seats"], *(result["seats"] if result else [])]:
        seat["long"] = long_word(seat["name"])
    return json_script(state, "board-state")
