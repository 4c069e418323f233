"""A table's life outside the taps: launch, roster, close and reopen, and the steps every write
on a table shares (who may change it, its lock, opening and discarding a match). Roster,
close and reopen lock the table row with SELECT … FOR UPDATE (roster and close then the
match row); a tap and an undo lock it by moving its version on (bump_table)."""

import random
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from matches.core import autobackup
from matches.core.errors import Refusal, RuleError
from matches.core.stamp import Stamped, standings_changed, table_bump, table_bump_returning
from matches.models import FinalsTable, Match, Player, Seat, Table, Venue
from matches.org.roles import (
    hosted_venues,
    may_change_table,
    may_host_at,
    remember_right,
    rights_asker,
)
from matches.play import messages
from matches.results.players.services import player_name_clean, players_resolve
from matches.rules.limits import MAX_PLAYERS, MIN_PLAYERS, TABLE_NAME_MAX_LENGTH
from matches.rules.names import clean_typed_name, name_key


def clean_player_names(names: Sequence[str]) -> list[str]:
    """Names as stored, in seating order, or a RuleError naming the first problem."""
    cleaned = [player_name_clean(name) for name in names]
    seen: set[str] = set()
    for name in cleaned:
        if name_key(name) in seen:
            raise RuleError(messages.DUPLICATE_PLAYER, name=name)
        seen.add(name_key(name))
    if len(cleaned) < MIN_PLAYERS:
        raise RuleError(messages.TOO_FEW_PLAYERS, min=MIN_PLAYERS, count=len(cleaned))
    if len(cleaned) > MAX_PLAYERS:
        raise RuleError(messages.TOO_MANY_PLAYERS, max=MAX_PLAYERS, count=len(cleaned))
    return cleaned


def table_name_clean(name: str) -> str:
    """A table's name as stored (the player names' rules, rules.names), or a RuleError."""
    try:
        return clean_typed_name(
            name,
            max_length=TABLE_NAME_MAX_LENGTH,
            empty=messages.TABLE_NAME_EMPTY,
            too_long=messages.TABLE_NAME_TOO_LONG,
        )
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None


def not_your_table(table: Table) -> RuleError:
    """The refusal of a write by someone who does not host at the table's venue."""
    return RuleError(messages.NOT_YOUR_TABLE, code=Refusal.NOT_YOUR_TABLE, venue=table.venue.name)


def check_may_change(table: Table, by: User, *, undo: bool = False) -> None:
    """Refuse unless by may change the table and it is open (for an undo, a finals table
    closed by its crowning counts as open: that crowning may be taken back)."""
    if not may_change_table(by, table):
        raise not_your_table(table)
    if not table.is_open and not (undo and table.finals):
        raise RuleError(messages.TABLE_CLOSED, code=Refusal.TABLE_CLOSED)


def check_open(match: Match) -> Match:
    """The match, refused unless it is open (neither filed nor discarded)."""
    if match.status == Match.Status.FILED:
        raise RuleError(messages.MATCH_FILED, code=Refusal.MATCH_FILED, number=match.number)
    if match.status == Match.Status.DISCARDED:
        raise RuleError(messages.MATCH_DISCARDED, code=Refusal.MATCH_DISCARDED, number=match.number)
    return match


def bump_table(table_id: int, by: User | None = None) -> Stamped:
    """Lock the table by moving its version on (core.stamp.table_bump_returning: the lock,
    the version the write leaves, the stamp and by's role at its venue, in one statement)."""
    asker = rights_asker(by) if by is not None else None
    stamped = table_bump_returning(table_id=table_id, user_id=asker)
    if stamped is None:
        raise Table.DoesNotExist
    if by is not None:
        remember_right(by, stamped.table.venue_id, stamped.hosted)
    return stamped


def queued_by_other(queued_by: User | None, by: User) -> User | None:
    """Who queued an entry, kept only when another host sent it (NULL: the same one)."""
    return queued_by if queued_by is not None and queued_by.pk != by.pk else None


def _lock_open_table(table_id: int, by: User) -> Table:
    table = Table.objects.select_for_update().get(pk=table_id)
    check_may_change(table, by)
    check_not_finals(table)
    return table


def check_not_finals(table: Table) -> None:
    """Refuse the writes a finals table does not take (a roster, a close, a reopen): its
    players are the draw's, and its crowning closes it. A finals table whose finals night
    went with its season is an ordinary table again: it may be closed like any other."""
    if table.finals and FinalsTable.objects.filter(table_id=table.pk).exists():
        raise RuleError(messages.FINALS_TABLE_FIXED)


def _lock_match(table: Table, match_id: int) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise RuleError(messages.MATCH_NOT_FOUND, code=Refusal.MATCH_NOT_FOUND)
    if match.table_id != table.pk:
        raise RuleError(messages.WRONG_TABLE, code=Refusal.WRONG_TABLE)
    return check_open(match)


def choose_first_dealer(players: Sequence[Player]) -> Player:
    """The rules pick the first dealer of every game at random."""
    return random.choice(list(players))


def _first_dealer(*, table: Table, number: int, players: Sequence[Player]) -> Player:
    """A match number opened again (its crowning undone and redone, or the table closed and
    reopened) keeps the first dealer it had if that player is still seated: the deal the
    table already started must not move."""
    earlier = (
        table.matches.filter(number=number, status=Match.Status.DISCARDED)
        .order_by("-id")
        .values_list("first_dealer_id", flat=True)
        .first()
    )
    seated = next((player for player in players if player.pk == earlier), None)
    return seated or choose_first_dealer(players)


def match_open(*, table: Table, number: int, players: Sequence[Player]) -> tuple[Match, list[Seat]]:
    """Open a match with its seats, inside a write's transaction: a crowning's answer shows
    them without reading them back."""
    match = Match.objects.create(
        table=table,
        number=number,
        first_dealer=_first_dealer(table=table, number=number, players=players),
    )
    return match, _seat(match, players)


def discard_open(table: Table, reason: "Match.DiscardReason") -> None:
    """Discard the table's open match, saying why: its number may be used again, and the
    audit page shows the discarded game apart, with this reason."""
    table.matches.open().update(
        status=Match.Status.DISCARDED, discard_reason=reason, discarded_at=timezone.now()
    )


def _seat(match: Match, players: Sequence[Player]) -> list[Seat]:
    """Seat the players in a match, clockwise in the order given."""
    return Seat.objects.bulk_create(
        Seat(match=match, player=player, position=position)
        for position, player in enumerate(players)
    )


def _seating(match: Match) -> list[int]:
    return list(match.seats.order_by("position").values_list("player_id", flat=True))


def roster_changed(filed: Match, following: Match) -> bool:
    """Whether the match that opened after `filed` was given another roster (players or
    seats) before its first tap."""
    return _seating(filed) != _seating(following)


def launch_venue(venue_id: int | None, by: User) -> Venue:
    """The venue a table is launched at: the one asked for if by hosts there, else by's only
    venue (a single pub never asks); or a RuleError."""
    if venue_id is None:
        hosted = list(hosted_venues(by)[:2])
        if not hosted:
            raise RuleError(messages.NO_VENUE, code=Refusal.NOT_YOUR_VENUE)
        if len(hosted) != 1:
            raise RuleError(messages.CHOOSE_VENUE)
        return hosted[0]
    venue = Venue.objects.filter(pk=venue_id).first()
    if venue is None:
        raise RuleError(messages.CHOOSE_VENUE)
    if not may_host_at(by, venue.pk):
        raise RuleError(messages.NOT_YOUR_VENUE, code=Refusal.NOT_YOUR_VENUE, venue=venue.name)
    return venue


@transaction.atomic
def table_launch(
    *, name: str, player_names: Sequence[str], mode: str, by: User, venue_id: int | None = None
) -> Table:
    """Launch a table at a venue by hosts (see launch_venue) and open its first match with
    every player standing."""
    name = table_name_clean(name)
    if mode not in Table.Mode.values:
        raise RuleError(messages.UNKNOWN_MODE)
    venue = launch_venue(venue_id, by)
    players = players_resolve(names=clean_player_names(player_names))
    table = Table.objects.create(name=name, mode=mode, venue=venue, created_by=by)
    match_open(table=table, number=1, players=players)
    standings_changed()  # the standings' table filter lists it
    return table


@transaction.atomic
def match_set_roster(
    *, table_id: int, match_id: int, player_names: Sequence[str], by: User
) -> Match:
    """Replace the seating of an open match before its first tap (3 to 10 players)."""
    table = _lock_open_table(table_id, by)
    match = _lock_match(table, match_id)
    if match.taps.filter(undone_at__isnull=True).exists():
        raise RuleError(messages.ROSTER_LOCKED, code=Refusal.ROSTER_LOCKED)
    players = players_resolve(names=clean_player_names(player_names))
    match.seats.all().delete()
    _seat(match, players)
    if match.first_dealer_id not in {player.pk for player in players}:
        match.first_dealer = choose_first_dealer(players)
        match.save(update_fields=["first_dealer"])
    table_bump(table)
    return match


@transaction.atomic
def table_close(*, table_id: int, by: User, discard_match_id: int | None = None) -> Table:
    """Close a table for the night: no further match opens and the open one is discarded.

    A match with taps is never discarded silently: the host confirms by naming it
    (discard_match_id), after being told who is already out."""
    table = _lock_open_table(table_id, by)
    match = table.matches.select_for_update().open().first()
    if match is not None and match.pk != discard_match_id:
        # Who is out, first out first, by the seats' places: a correction of the match,
        # reopened since, may have put others in its taps' places than those tapped.
        out = match.seats.filter(place__isnull=False).select_related("player")
        names = [seat.player for seat in out.order_by("-place")]
        if names:
            raise RuleError(
                messages.MATCH_UNDER_WAY,
                code=Refusal.MATCH_UNDER_WAY,
                number=match.number,
                names=names,
            )
    discard_open(table, Match.DiscardReason.CLOSED)
    table.closed_at = timezone.now()
    table_bump(table, "closed_at")
    standings_changed()
    # A copy holding the close, once it is committed, written outside the request; robust: a
    # backup that cannot even start is logged, never an error for a close already saved (a
    # lambda, not a partial: Django logs a robust callback's failure by its __qualname__).
    table_id = table.pk
    transaction.on_commit(lambda: autobackup.backup_after_close(table_id=table_id), robust=True)
    return table


@transaction.atomic
def table_reopen(*, table_id: int, by: User) -> Match:
    """Reopen a closed table: the next match opens with the latest roster, and numbering
    continues after the last filed match."""
    table = Table.objects.select_for_update().get(pk=table_id)
    if not may_change_table(by, table):
        raise not_your_table(table)
    check_not_finals(table)
    if table.is_open:
        raise RuleError(messages.TABLE_NOT_CLOSED, code=Refusal.TABLE_NOT_CLOSED)
    # The latest seating, including a roster change made on the match the close discarded.
    latest = table.matches.latest("id")  # a table opens with its first match
    players = [seat.player for seat in latest.seats.select_related("player").order_by("position")]
    filed = table.matches.filed().order_by("-number").values_list("number", flat=True).first()
    match, _ = match_open(table=table, number=(filed or 0) + 1, players=players)
    table.closed_at = None
    table_bump(table, "closed_at")
    return match
