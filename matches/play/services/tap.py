"""The tap: a player out of an open match, and the crowning when one is left standing. A tap
locks its table by moving its version on (tables.bump_table), so two tablets on one table
are applied one after the other: no two players take the same place and no match is crowned
twice. Every tap carries a key; a key already used is answered from what it did."""

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import QuerySet, Subquery
from django.utils import timezone

from matches.core.errors import Refusal, RuleError
from matches.core.stamp import Stamped
from matches.models import Match, Player, Seat, Table, Tap
from matches.play import messages
from matches.play.services import finals, tables
from matches.results import filing

A = TypeVar("A")


@dataclass(frozen=True)
class MatchRef:
    """The match a tap names: its id (the page, and a tablet that saw it), else the crowning
    whose next match the tablet predicted (after_key, the key of that crowning), else its
    number on this table (scripts and the page without JavaScript). A number given with an
    id or an after_key must agree with it."""

    match_id: int | None = None
    number: int | None = None
    after_key: uuid.UUID | None = None


@dataclass(frozen=True)
class TapOutcome(Generic[A]):
    """What a tap did."""

    tap: Tap
    match: Match
    # Set when this tap left one player standing: the winner, and the match it opened.
    winner: Player | None
    next_match: Match | None
    # True when the same request (same idempotency key) had already been applied.
    replayed: bool = False
    # The table with the version this tap wrote, and the seats it left (its match's, places
    # set, players loaded; after a crowning, the next match's too) as its transaction holds
    # them. None and empty for a replay: nothing was written.
    written: Stamped | None = None
    seats: list[Seat] = field(default_factory=list)
    next_seats: list[Seat] = field(default_factory=list)
    # What the caller's step (match_eliminate's then) read in the tap's transaction.
    answer: A | None = None


def match_eliminate(
    *,
    table_id: int,
    player_id: int,
    key: uuid.UUID,
    by: User,
    match_id: int | None = None,
    match_number: int | None = None,
    after_key: uuid.UUID | None = None,
    queued_by: User | None = None,
    then: Callable[[TapOutcome[Any]], A] | None = None,
) -> TapOutcome[A]:
    """Put a player out of an open match; the tap that leaves one standing crowns and files.

    The match is named by its id, by the key of the crowning that opened it (after_key), or
    by its number on this table: a tablet that played on offline taps in a match whose id it
    never saw, and its tap applies once that crowning has opened the match. A key already
    used is answered from what it did, before any other refusal: a replay, or a refusal when
    it named another tap. queued_by is the host whose tablet queued the tap, kept when it is
    not the sender. then, when given, runs in the tap's transaction once it has written
    (never for a replay): the caller's read of the state the tap leaves, returned as the
    outcome's answer, names the very version the tap commits."""
    if match_id is None and match_number is None and after_key is None:
        raise ValueError("name the match by match_id, after_key or match_number")
    ref = MatchRef(match_id=match_id, number=match_number, after_key=after_key)
    try:
        return _match_eliminate(
            table_id=table_id,
            ref=ref,
            player_id=player_id,
            key=key,
            by=by,
            queued_by=queued_by,
            then=then,
        )
    except _Retried as retried:
        return _replay(retried.tap)
    except IntegrityError:
        # The key is already used, yet nothing was refused (its player is standing: the tap
        # it names was undone, or is another player's, or on another table, or arrived there
        # under that table's lock at this very moment). Its transaction is rolled back; say
        # which, as if the key had been looked up first.
        earlier = _known_tap(key)
        if earlier is None:
            raise
        _check_known(earlier, table_id=table_id, ref=ref, player_id=player_id)
        return _replay(earlier)


def _known_tap(key: uuid.UUID) -> Tap | None:
    return Tap.objects.select_related("match", "player").filter(key=key).first()


def _opened_after(table_id: int, after_key: uuid.UUID, *, live: bool) -> Subquery:
    """The id of the match the crowning with key after_key opened: the table's first match
    after the crowning's (a close and reopen makes another match with the same number, so
    the number alone cannot say). live: only while that crowning stands."""
    crownings = Tap.objects.filter(key=after_key, match__table_id=table_id, place=2)
    if live:
        crownings = crownings.filter(undone_at__isnull=True)
    return Subquery(
        Match.objects.filter(table_id=table_id, pk__gt=Subquery(crownings.values("match_id")[:1]))
        .order_by("pk")
        .values("pk")[:1]
    )


def _same_match(match: Match, ref: MatchRef) -> bool:
    if ref.number is not None and match.number != ref.number:
        return False
    if ref.match_id is not None:
        return match.pk == ref.match_id
    if ref.after_key is not None:
        opened = _opened_after(match.table_id, ref.after_key, live=False)
        return Match.objects.filter(pk=opened).filter(pk=match.pk).exists()
    return True  # the number, checked above


def _check_known(earlier: Tap, *, table_id: int, ref: MatchRef, player_id: int) -> None:
    """Refuse unless the tap holding the key is the one this request asks for (then it is
    a replay): a key names one tap, never silently another."""
    same = (
        earlier.match.table_id == table_id
        and earlier.player_id == player_id
        and _same_match(earlier.match, ref)
    )
    if not same:
        raise RuleError(
            messages.KEY_REUSED,
            code=Refusal.KEY_REUSED,
            name=earlier.player,
            number=earlier.match.number,
        )
    if earlier.is_undone:
        raise RuleError(messages.TAP_WAS_UNDONE, code=Refusal.TAP_WAS_UNDONE)


class _Retried(Exception):
    """A tap whose key was already applied: raised to roll back the version bump."""

    def __init__(self, tap: Tap) -> None:
        self.tap = tap
        super().__init__(tap.pk)


def _name_of(seats: Sequence[Seat], player_id: int) -> Player:
    """The tapped player, for a refusal naming them; an unknown player is not seated."""
    seat = next((s for s in seats if s.player_id == player_id), None)
    if seat is not None:
        return seat.player
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise RuleError(messages.UNKNOWN_PLAYER, code=Refusal.NOT_SEATED)
    return player


def _seats() -> QuerySet[Seat]:
    return Seat.objects.select_related("player", "match").order_by("position")


def _seats_by_id(match_id: int) -> list[Seat]:
    """The seats of the match with that id (the page, and a tablet that saw the match)."""
    return list(_seats().filter(match_id=match_id))


def _seats_after_crowning(
    table: Table, after_key: uuid.UUID, number: int | None, player_id: int
) -> list[Seat]:
    """The seats of the match the crowning with key after_key opened, whatever its number,
    or a refusal when the match this tablet predicted never opened."""
    seats = list(_seats().filter(match_id=_opened_after(table.pk, after_key, live=True)))
    if not seats or (number is not None and seats[0].match.number != number):
        # That crowning is unknown here, undone, not a crowning, or opened another number.
        name = _name_of(seats, player_id)
        if number is None:
            raise RuleError(
                messages.CROWNED_OTHERWISE_UNNUMBERED, code=Refusal.CROWNED_OTHERWISE, name=name
            )
        raise RuleError(
            messages.CROWNED_OTHERWISE, code=Refusal.CROWNED_OTHERWISE, name=name, number=number
        )
    return seats


def _seats_by_number(table: Table, number: int) -> list[Seat]:
    """The seats of the match filed or open under that number on the table (a tablet that
    played on offline never saw its id), or a refusal when that match has not opened."""
    seats = list(
        _seats()
        .filter(match__table=table, match__number=number)
        .exclude(match__status=Match.Status.DISCARDED)
    )
    if not seats:
        # A number past the open match: its crowning has not happened (or was undone).
        raise RuleError(messages.MATCH_NOT_OPEN, code=Refusal.MATCH_NOT_OPEN, number=number)
    return seats


def _seats_with_match(table: Table, ref: MatchRef, player_id: int) -> tuple[Match, list[Seat]]:
    """The match and its seats (with players), in one read, checked as a roster's lock
    checks its match. The table's lock already serialises every write on its matches."""
    if ref.match_id is not None:
        seats = _seats_by_id(ref.match_id)
    elif ref.after_key is not None:
        seats = _seats_after_crowning(table, ref.after_key, ref.number, player_id)
    elif ref.number is not None:
        seats = _seats_by_number(table, ref.number)
    else:
        raise ValueError("name the match by match_id, after_key or match_number")
    if not seats:
        # Every match is seated (at least MIN_PLAYERS), so no seats means no such match.
        raise RuleError(messages.MATCH_NOT_FOUND, code=Refusal.MATCH_NOT_FOUND)
    match = seats[0].match
    for seat in seats:
        seat.match = match  # one instance: the board reads the status this tap sets
        if seat.player_id == match.first_dealer_id:
            # The first dealer is seated: their row came with the seats (a join the less).
            match.first_dealer = seat.player
    if match.table_id != table.pk:
        raise RuleError(messages.WRONG_TABLE, code=Refusal.WRONG_TABLE)
    if ref.number is not None and match.number != ref.number:
        raise RuleError(messages.NOT_THAT_NUMBER, code=Refusal.MATCH_NOT_FOUND, number=ref.number)
    match.table = table
    if match.status == Match.Status.DISCARDED:
        # Named by id or by its crowning: the tablet meant that very match, not whichever
        # opened later under its number.
        raise RuleError(
            messages.TAP_MATCH_DISCARDED,
            code=Refusal.MATCH_DISCARDED,
            name=_name_of(seats, player_id),
            number=match.number,
        )
    if match.status == Match.Status.FILED:
        # Won on another tablet meanwhile: say how it ended for this player.
        raise RuleError(
            messages.MATCH_FILED,
            code=Refusal.MATCH_FILED,
            number=match.number,
            instead=_filed_instead(seats, player_id),
        )
    return tables.check_open(match), seats


def _filed_instead(seats: Sequence[Seat], player_id: int) -> dict[str, object]:
    """How a filed match ended for the player a refused tap named: their place (None when
    not seated) and the winner's name, from the seats already read."""
    place = next((s.place for s in seats if s.player_id == player_id), None)
    winner = next((s.player for s in seats if s.place == 1), None)
    return {"place": place, "winner": winner.shown_name(real=True) if winner else None}


def _target(table: Table, ref: MatchRef, player_id: int) -> tuple[Match, list[Seat], Seat]:
    match, seats = _seats_with_match(table, ref, player_id)
    seat = next((s for s in seats if s.player_id == player_id), None)
    if seat is None:
        raise RuleError(messages.UNKNOWN_PLAYER, code=Refusal.NOT_SEATED)
    if seat.place is not None:
        raise RuleError(
            messages.ALREADY_OUT,
            code=Refusal.ALREADY_OUT,
            name=seat.player,
            instead={"place": seat.place},
        )
    return match, seats, seat


@transaction.atomic
def _match_eliminate(
    *,
    table_id: int,
    ref: MatchRef,
    player_id: int,
    key: uuid.UUID,
    by: User,
    queued_by: User | None,
    then: Callable[[TapOutcome[Any]], A] | None,
) -> TapOutcome[A]:
    stamped = tables.bump_table(table_id, by)
    table = stamped.table
    try:
        # A finals table closed by its crowning: a tap there is refused by its filed match
        # (_target), which says who won, as at any table, not only that the table closed.
        tables.check_may_change(table, by, undo=table.finals)
        match, seats, seat = _target(table, ref, player_id)
    except RuleError:
        # A retried tap is refused as if new (its player is out, its match filed, or its
        # table closed since by another tablet): only then is the key looked up, under the
        # table lock, so a retry racing its original sees it committed, and it is answered
        # from what that key did before any refusal. A fresh tap never pays for the
        # look-up; a key reused on a standing player is caught by the unique index (see
        # match_eliminate).
        earlier = _known_tap(key)
        if earlier is None:
            raise
        _check_known(earlier, table_id=table.pk, ref=ref, player_id=player_id)
        raise _Retried(earlier) from None

    standing = [s for s in seats if s.place is None]
    seat.place = len(standing)
    seat.save(update_fields=["place"])
    tap = Tap.objects.create(
        match=match,
        player=seat.player,
        place=seat.place,
        key=key,
        tapped_by=by,
        queued_by=tables.queued_by_other(queued_by, by),
    )

    winner = next_match = None
    next_seats: list[Seat] = []
    if seat.place == 2:
        survivor = next(s for s in standing if s is not seat)
        survivor.place = 1
        survivor.save(update_fields=["place"])
        winner = survivor.player
        match.status = Match.Status.FILED
        match.winner = winner
        match.filed_at = timezone.now()
        match.save(update_fields=["status", "winner", "filed_at"])
        if table.finals:
            finals.final_lock_first(table)  # tables before the stamp the filing moves
        filing.match_file(table=table, match=match, seats=seats)
        if table.finals:
            # A heat or the final plays one match: its table closes instead.
            finals.stage_filed(table=table, match=match, seats=seats)
        else:
            next_match, next_seats = tables.match_open(
                table=table, number=match.number + 1, players=[s.player for s in seats]
            )
    outcome: TapOutcome[A] = TapOutcome(
        tap=tap,
        match=match,
        winner=winner,
        next_match=next_match,
        written=stamped,
        seats=seats,
        next_seats=next_seats,
    )
    return outcome if then is None else replace(outcome, answer=then(outcome))


def _replay(tap: Tap) -> TapOutcome[Any]:
    match = tap.match
    crowned = tap.place == 2
    return TapOutcome(
        tap=tap,
        match=match,
        winner=match.winner if crowned else None,
        next_match=match.table.matches.open().first() if crowned else None,
        replayed=True,
    )
