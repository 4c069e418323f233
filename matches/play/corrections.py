"""Correcting a filed match: the order its players went out in is rewritten, and everything
kept beside the filed matches ends as if it had been filed that way, while every later match
stays as it was. The taps are the record of what was tapped and are never rewritten: the
correction is a record of its own (MatchCorrection: the orders as the match's seats, and the
taps it covers), which the match page shows after the taps, and from which the integrity
check reads who is out in a covered tap's place. A host sees what a correction will do
(correction_preview) before it is saved (match_correct)."""

import copy
import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from django.contrib.auth import models as auth
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.core.errors import Refusal, RuleError
from matches.core.stamp import table_bump_returning
from matches.models import Match, MatchCorrection, Player, Seat, Table
from matches.org.hosts import User
from matches.org.roles import may_change_table, remember_right, rights_asker
from matches.play.services import finals
from matches.ratings.selectors import matches_rated_after
from matches.results import filing
from matches.rules.names import name_key
from matches.rules.nights import night_of

NOT_YOURS = _(
    "This table is at %(venue)s: only its hosts, its managers and the organiser can correct "
    "its matches; nothing was changed."
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


@dataclass(frozen=True)
class PlaceChange:
    """One player's place in the corrected order, and the place filed before it."""

    player: Player
    place: int
    was: int


@dataclass(frozen=True)
class CorrectionPreview:
    """What a correction would do, read before anything is saved: every player's new place
    (the winner first) with the old one, whether its night is over (the host confirms
    either way), and how many later matches' ratings the correction replays."""

    match: Match
    places: list[PlaceChange]
    names: list[str]
    night_closed: bool
    replayed: int


def _checked(
    *, table: Table, number: int, names: Sequence[str], by: User
) -> tuple[Match, list[Seat], list[Seat], list[Seat]]:
    """The filed match, its seats (by seat, players read), the order as filed and the order
    the names give; or the refusal a correction of it meets."""
    if not may_change_table(by, table):
        raise RuleError(NOT_YOURS, code=Refusal.NOT_YOUR_TABLE, venue=table.venue.name)
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
    return match, seats, before, order


def correction_preview(
    *, table: Table, number: int, names: Sequence[str], by: User
) -> CorrectionPreview:
    """What correcting a filed match to this order (names: out first, the winner last)
    would do, with the refusals match_correct would meet; writes nothing."""
    match, _seats, _before, order = _checked(table=table, number=number, names=names, by=by)
    count = len(order)
    places = [
        PlaceChange(player=seat.player, place=count - index, was=cast("int", seat.place))
        for index, seat in enumerate(order)
    ]
    return CorrectionPreview(
        match=match,
        places=places[::-1],
        names=[seat.player.name for seat in order],
        night_closed=night_closed(match=match),
        replayed=matches_rated_after(match=match),
    )


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
    its position, every rating after it. The taps stay as they were tapped; the correction
    kept says who is out in their places now. A match of a night that is over needs
    confirmed."""
    # The table's lock, as a tap takes it, with by's role at its venue.
    stamped = table_bump_returning(table_id=table_id, user_id=rights_asker(by))
    if stamped is None:
        raise Table.DoesNotExist
    remember_right(by, stamped.table.venue_id, stamped.hosted)
    table = stamped.table
    match, seats, before, order = _checked(table=table, number=number, names=names, by=by)
    now = timezone.now()
    if not confirmed and night_closed(match=match, now=now):
        raise RuleError(NIGHT_CLOSED, code=Refusal.NIGHT_CLOSED, number=number)

    was = [copy.copy(seat) for seat in seats]
    # Places are unique within a match, checked row by row: clear them, then set them all.
    Seat.objects.filter(match=match).update(place=None)
    for place, seat in zip(range(len(order), 0, -1), order, strict=True):
        seat.place = place
    Seat.objects.bulk_update(seats, ["place"])
    match.winner = order[-1].player
    match.save(update_fields=["winner"])
    if table.finals:
        finals.final_lock_first(table)  # tables before the stamp the refiling moves
    filing.match_refile(table=table, match=match, before=was, after=seats)
    if table.finals:
        # A heat's or the final's winner, and who goes through, follow the correction.
        finals.stage_corrected(table=table, match=match)
    return MatchCorrection.objects.create(
        match=match,
        corrected_by=cast("auth.User", by),  # may_change_table: a host's account
        before_seats=[seat.pk for seat in before],
        after_seats=[seat.pk for seat in order],
        # The taps made so far: each one's place is now the corrected order's.
        through_tap=match.taps.order_by("-id").first(),
    )
