import datetime

from django import template
from django.conf import settings
from django.utils.html import format_html, format_html_join

from matches.models import FinalsTable
from matches.org.hosts import host_name_for
from matches.org.roles import may_change_table
from matches.play import finals_boards
from matches.rules import nights, scoring
from matches.web import feedback
from matches.web.story import signed as signed_change

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


@register.filter
def night_of(moment: datetime.datetime | None) -> datetime.date | None:
    """The night a moment belongs to (rules.nights: a night starts at noon), so a page
    names it as the TV and the night's story do: 01:36 on the 7th is the night of the 6th.
    `{{ table.created_at|night_of|date:"DATE_FORMAT" }}`."""
    return None if moment is None else nights.night_of(moment)


@register.filter
def bdi(name: object) -> str:
    """A name isolated inside a sentence, so a right-to-left name cannot reorder the words
    around it: use it in `{% blocktranslate with name=player.name|bdi %}`."""
    return format_html("<bdi>{}</bdi>", name)


@register.simple_tag(takes_context=True)
def message_text(context, message) -> str:
    """`{% message_text message %}`: a flash message with the players it names by reference
    read as this viewer reads them now (web.feedback.with_names); a board on the page lends
    the players it has read, so a tap's answer reads no name twice."""
    board = context.get("board")
    known = []
    if board is not None:
        seats = [*getattr(board, "standing", []), *getattr(board, "out", [])]
        known = [seat.player for seat in [*seats, *getattr(board, "result_seats", [])]]
    return feedback.with_names(
        getattr(message, "message", message),
        real_names=bool(context.get("real_names")),
        known=known,
    )


@register.filter
def changeable_by(table, user) -> bool:
    """`{% if table|changeable_by:user %}`: the host's actions for this table."""
    return may_change_table(user, table)


@register.filter
def host_name(account, viewer) -> str:
    """`{{ tap.tapped_by|host_name:user }}`: a host as the viewer may see them, the username
    to a logged-in host and the display name (or "host") to the public."""
    return host_name_for(account, viewer=viewer)


@register.filter
def player_name(player, real_names) -> str:
    """`{{ seat.player|player_name:real_names }}`: a player's name as this viewer reads it
    (real_names, from the context processor: a logged-in host; else the public name, or
    "Player N" for a hidden player). Every player name a template shows goes through it."""
    if player is None or player == "":
        return ""
    return player.shown_name(real=bool(real_names))


@register.filter
def rival_items(rivals, players_url: str) -> str:
    """The head-to-head list's items, each linking its opponent: built in one pass, as a
    busy player has a hundred and more of them."""
    return format_html_join(
        "",
        '<li><a href="{}{}/">{}</a></li>',
        ((players_url, rival.opponent_id, rival.text) for rival in rivals),
    )


@register.filter
def signed(change: int | None) -> str:
    """`{{ line.rating_change|signed }}`: +12, -7, 0 (the night's story)."""
    return signed_change(change)


@register.simple_tag(takes_context=True)
def stream_attributes(context: template.Context, mode: str = "swap") -> str:
    """The attributes that make an element follow its page's stream (static/js/stream.js):
    its address (BRAG_STREAM_PREFIX, then the page's own path and query), "swap" (put in the
    state each event carries) or "fetch" (a host's board: fetch its own), and the heartbeat."""
    request = context["request"]
    return format_html(
        'data-stream="{}{}" data-stream-mode="{}" data-stream-heartbeat="{}"',
        settings.BRAG_STREAM_PREFIX,
        request.get_full_path(),
        mode,
        settings.BRAG_STREAM_HEARTBEAT,
    )


@register.simple_tag(takes_context=True)
def season_finals(context: template.Context, season) -> "finals_boards.SeasonFinals":
    """The season's finals night and champion (matches/_season_champion.html):
    `{% season_finals season as finals %}`; read from the page's seasons_finals when it has
    them all (the seasons page: no query per season)."""
    known = context.get("seasons_finals")
    if known is not None and season.pk in known:
        return known[season.pk]
    return finals_boards.season_finals(season=season)


@register.simple_tag
def finals_stage(table) -> "FinalsTable | None":
    """The heat or final a finals table plays (None for any other table: no query)."""
    if not getattr(table, "finals", False):
        return None
    return FinalsTable.objects.select_related("event").filter(table_id=table.pk).first()
