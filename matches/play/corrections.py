"""Correcting a filed match: the order its players went out in is rewritten, and everything
kept beside the filed matches ends as if it had been filed that way, while every later match
stays as it was. The match's taps are rewritten with it (each keeps its place, and names the
player now out in that place), so an undo of the table's latest tap and the integrity check
read the corrected order; the correction row keeps what was tapped before."""

import copy
import datetime
from collections.abc import Iterable, Sequence
from typing import cast

from django.contrib.auth import models as auth
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.core.errors import Refusal, RuleError
from matches.core.stamp import table_bump_returning
from matches.models import Match, MatchCorrection, Seat, Table, Tap
from matches.org.hosts import User, may_change_table
from matches.results import filing
from matches.rules.names import name_key
from matches.rules.nights import night_of

NOT_YOURS = _(
    "Only the host who launched this table, or an admin, can correct its matches; "
    "nothing was changed."
)
NO_SUCH_MATCH = _("That match does not exist; nothing was changed.")
IN_PLAY = _(
    "Match %(number)s is still in play: only a filed match can be corrected; nothing was changed."
)
NOT_THE_SEATED = _(
    "List exactly the players who sat in match %(number)s, each once: %(names)s. "
    "Who sat is a roster matter; nothing was changed."
)
UNCHANGED = _("That is the order already filed; nothing was changed.")
NIGHT_CLOSED = _("Match %(number)s was played on a night that is over; confirm to correct it.")


def went_out(seats: Iterable[Seat]) -> list[Seat]:
    """A filed match's seats in the order their players went out, the winner last."""
    return sorted(seats, key=lambda seat: -(seat.place or 0))


def night_closed(*, match: Match, now: datetime.datetime | None = None) -> bool:
    """Whether a filed match belongs to a night other than tonight (the noon rule)."""
    return night_of(match.filed_at) != night_of(now)


def _ordered(seats: list[Seat], names: Sequence[str], number: int) -> list[Seat]:
    """The seats in the order the names give, or a refusal: the names must be exactly the
    seated players, each once (names ignore case and spacing, as everywhere)."""
    by_key = {name_key(seat.player.name): seat for seat in seats}
    wanted = [name_key(name) for name in names if name.strip()]
    if len(wanted) != len(seats) or set(wanted) != set(by_key):
        seated = ", ".join(seat.player.name for seat in seats)
        raise RuleError(NOT_THE_SEATED, code=Refusal.NOT_THE_SEATED, number=number, names=seated)
    return [by_key[key] for key in wanted]


@transaction.atomic
def match_correct(
    *,
    table_id: int,
    number: int,
    names: Sequence[str],
    by: User,
    confirmed: bool = False,
) -> MatchCorrection:
    """Rewrite the order a filed match's players went out in (names: out first, the winner
    last): its places, points and winner, every aggregate and, by the replay scheduled from
    its position, every rating after it. A match of a night that is over needs confirmed."""
    stamped = table_bump_returning(table_id=table_id)  # the table's lock, as a tap takes it
    if stamped is None:
        raise Table.DoesNotExist
    table = stamped.table
    if not may_change_table(by, table):
        raise RuleError(NOT_YOURS, code=Refusal.NOT_YOUR_TABLE)
    match = table.matches.live().filter(number=number).first()
    if match is None:
        raise RuleError(NO_SUCH_MATCH, code=Refusal.MATCH_NOT_FOUND)
    if match.status != Match.Status.FILED:
        raise RuleError(IN_PLAY, code=Refusal.MATCH_IN_PLAY, number=number)
    seats = list(match.seats.select_related("player").order_by("position"))
    order = _ordered(seats, names, number)
    before = went_out(seats)
    if order == before:
        raise RuleError(UNCHANGED, code=Refusal.ORDER_UNCHANGED)
    now = timezone.now()
    if not confirmed and night_closed(match=match, now=now):
        raise RuleError(NIGHT_CLOSED, code=Refusal.NIGHT_CLOSED, number=number)

    was = [copy.copy(seat) for seat in seats]
    # Places are unique within a match, checked row by row: clear them, then set them all.
    Seat.objects.filter(match=match).update(place=None)
    for place, seat in zip(range(len(order), 0, -1), order, strict=True):
        seat.place = place
    Seat.objects.bulk_update(seats, ["place"])
    _retap(match, {seat.place: seat.player_id for seat in seats}, by=by, now=now)
    match.winner = order[-1].player
    match.save(update_fields=["winner"])
    filing.match_refile(table=table, match=match, before=was, after=seats)
    return MatchCorrection.objects.create(
        match=match,
        corrected_by=cast("auth.User", by),  # may_change_table: a host's account
        before=[seat.player.name for seat in before],
        after=[seat.player.name for seat in order],
    )


def _retap(
    match: Match, player_at: dict[int | None, int], *, by: User, now: datetime.datetime
) -> None:
    """Each live tap of the match names the player now out in its place. A live tap's player
    is unique within the match, checked row by row: the taps leave the live set for the
    statement that gives them their players back, then return to it."""
    taps = list(match.taps.filter(undone_at__isnull=True))
    if not taps:
        return
    Tap.objects.filter(pk__in=[tap.pk for tap in taps]).update(undone_at=now, undone_by=by)
    for tap in taps:
        tap.player_id = player_at[tap.place]
        tap.undone_at = tap.undone_by = None
    Tap.objects.bulk_update(taps, ["player", "undone_at", "undone_by"])
