"""Every write that carries a game rule. Each runs in one transaction that first locks the
table row (then the match row), so two tablets on one table are applied one after the other:
no two players can take the same place and no match can be crowned twice."""

import datetime
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Case, F, Value, When
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import head_to_head, nights, ratings, running_totals, selectors, table_filings, tonight
from .limits import MAX_PLAYERS, MIN_PLAYERS, TABLE_NAME_MAX_LENGTH
from .models import (
    AllTimeTotal,
    DailyTally,
    Match,
    Player,
    Seat,
    StandingsStamp,
    Table,
    Tap,
    clean_name,
    name_key,
)
from .scoring import COUNT_FIELDS, place_counts

TABLE_NAME_EMPTY = _("Give the table a name.")
TABLE_NAME_TOO_LONG = _("A table name is at most %(limit_value)s characters.")
UNKNOWN_MODE = _("Choose a mode: Winner takes all or Ranked (3/2/1).")
TOO_FEW_PLAYERS = _("A table needs at least %(min)s players; %(count)s given.")
TOO_MANY_PLAYERS = _("A table seats at most %(max)s players; %(count)s given.")
DUPLICATE_PLAYER = _("“%(name)s” is listed twice (names ignore upper and lower case).")
PLAYER_NAME_TAKEN = _(
    "Another player is already called “%(name)s” (names ignore upper and lower case); "
    "choose a different name."
)
NOT_YOUR_TABLE = _(
    "Only the host who launched this table, or an admin, can change it; nothing was changed."
)
TABLE_CLOSED = _("This table is closed; nothing was changed.")
MATCH_NOT_FOUND = _("That match does not exist; nothing was changed.")
WRONG_TABLE = _("That match belongs to another table; nothing was changed.")
MATCH_FILED = _("Match %(number)s is already filed; nothing was changed.")
MATCH_DISCARDED = _("Match %(number)s is no longer in play; nothing was changed.")
UNKNOWN_PLAYER = _("That player is not seated in this match; nothing was changed.")
ALREADY_OUT = _("%(name)s is already out; nothing was changed.")
NOTHING_TO_UNDO = _("There is nothing to undo.")
TAP_WAS_UNDONE = _("That tap was already recorded and has since been undone; nothing was changed.")
TAP_NOT_FOUND = _("That tap is not on this table; nothing was changed.")
ALREADY_UNDONE = _("That tap was already undone; nothing was changed.")
NOT_LATEST = _(
    "Only the most recent tap can be undone and the table has moved on since; nothing was changed."
)
MATCH_NOT_OPEN = _("Match %(number)s has not started; nothing was changed.")
TAP_NEVER_RECORDED = _("That tap was never recorded, so there is nothing to undo.")
NOT_LATEST_NAMED = _(
    "%(name)s’s tap is no longer the most recent one on this table, so it was not undone; "
    "nothing was changed."
)
FIRST_HOST_EXISTS = _("A host account already exists: log in with it.")
ROSTER_LOCKED = _("The roster can only change before the first tap of a match.")
MATCH_UNDER_WAY = _(
    "Match %(number)s is under way (out so far: %(names)s). Confirm that it is discarded, or "
    "finish it first; nothing was changed."
)
TABLE_NOT_CLOSED = _("This table is open; nothing was changed.")
UNDO_DROPS_ROSTER = _(
    "Undoing this reopens match %(number)s and removes match %(next)s with its new roster. "
    "Confirm to go ahead; nothing was changed."
)


class RuleError(Exception):
    """A write the rules refuse. Its message is shown to the host as it is; its code is for
    programs (the tablet's tap queue explains a refused tap by it)."""

    def __init__(self, message: str, *, code: str = "refused", **params: object) -> None:
        self.message = str(message) % params if params else str(message)
        self.code = code
        super().__init__(self.message)


@dataclass(frozen=True)
class TapResult:
    tap: Tap
    match: Match
    # Set when this tap left one player standing: the winner, and the match it opened.
    winner: Player | None
    next_match: Match | None
    # True when the same request (same idempotency key) had already been applied.
    replayed: bool = False
    # The board as this tap left it, read inside its transaction under the table lock, and
    # the table with the version it wrote: the tap's answer and its tag name one state.
    # None for a replay (nothing was written; the view reads the board afresh).
    board: "selectors.Board | None" = None
    tonight: "list[tonight.TonightRow] | None" = None
    # When tonight's totals were read: the answer's tag names that night, not the one at the
    # moment the tag is built (a tap answered across noon would otherwise tag last night's
    # totals as tonight's, and the polls would keep them with a 304).
    tonight_at: datetime.datetime | None = None


@dataclass(frozen=True)
class UndoResult:
    tap: Tap
    match: Match
    # True when the undone tap was a crowning: the match is open again.
    reopened: bool
    # True when the undo named its tap by key and that tap had already been undone: a
    # resent undo from the tablet's queue, answered without changing anything.
    replayed: bool = False


def player_name_clean(name: str) -> str:
    """A name as stored (see models.clean_name), or a RuleError saying what is wrong."""
    try:
        return clean_name(name)
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None


def player_name_available(*, name: str, player_id: int | None = None) -> str:
    """A name as stored for this player (None: a new one), or a RuleError when it is not a
    clean name or another player already has it."""
    name = player_name_clean(name)
    holder = Player.objects.filter(key=name_key(name)).exclude(pk=player_id).first()
    if holder is not None:
        raise RuleError(PLAYER_NAME_TAKEN, name=holder.name)
    return name


def clean_player_names(names: Sequence[str]) -> list[str]:
    """Names as stored, in seating order, or a RuleError naming the first problem."""
    cleaned = [player_name_clean(name) for name in names]
    seen: set[str] = set()
    for name in cleaned:
        if name_key(name) in seen:
            raise RuleError(DUPLICATE_PLAYER, name=name)
        seen.add(name_key(name))
    if len(cleaned) < MIN_PLAYERS:
        raise RuleError(TOO_FEW_PLAYERS, min=MIN_PLAYERS, count=len(cleaned))
    if len(cleaned) > MAX_PLAYERS:
        raise RuleError(TOO_MANY_PLAYERS, max=MAX_PLAYERS, count=len(cleaned))
    return cleaned


def players_resolve(*, names: Sequence[str]) -> list[Player]:
    """The league's players for these names (created as first written), in the same order."""
    wanted = {name_key(name): name for name in names}

    def existing() -> dict[str, Player]:
        return {player.key: player for player in Player.objects.filter(key__in=wanted)}

    found = existing()
    missing = [Player(name=name, key=key) for key, name in wanted.items() if key not in found]
    if missing:
        # Another table may create the same new player at this moment: let the unique
        # index pick one row and read it back instead of failing.
        Player.objects.bulk_create(missing, ignore_conflicts=True)
        found = existing()
    return [found[name_key(name)] for name in names]


def _lock_open_table(table_id: int, by: AbstractBaseUser) -> Table:
    table = Table.objects.select_for_update().get(pk=table_id)
    if not table.can_be_changed_by(by):
        raise RuleError(NOT_YOUR_TABLE, code="not_your_table")
    if not table.is_open:
        raise RuleError(TABLE_CLOSED, code="table_closed")
    return table


def _check_open(match: Match) -> Match:
    if match.status == Match.Status.FILED:
        raise RuleError(MATCH_FILED, code="match_filed", number=match.number)
    if match.status == Match.Status.DISCARDED:
        raise RuleError(MATCH_DISCARDED, code="match_discarded", number=match.number)
    return match


def _lock_match(table: Table, match_id: int) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise RuleError(MATCH_NOT_FOUND, code="match_not_found")
    if match.table_id != table.pk:
        raise RuleError(WRONG_TABLE, code="wrong_table")
    return _check_open(match)


def _mark_changed(table: Table) -> None:
    """Bump the table's change counter: pollers' ETags are built on it."""
    table.version += 1
    table.save(update_fields=["version"])


def standings_changed() -> None:
    """Move the standings stamp on, so cached standings pages and their ETags are rebuilt.
    Call it (inside the write's transaction) for anything those pages show: a match filed or
    unfiled, a player renamed or merged, a table launched, renamed, closed or reopened.
    The row update also locks the stamp until the transaction ends: writes that must happen
    league-wide in order (filing with its ratings, seasons) take their turn on it."""
    StandingsStamp.objects.bulk_create([StandingsStamp(pk=1)], ignore_conflicts=True)
    StandingsStamp.objects.filter(pk=1).update(version=F("version") + 1)


def _add_to_standings(*, table: Table, match: Match, seats: Sequence[Seat], sign: int) -> None:
    """Add a filed match to the standings counts (sign 1), or take it back (sign -1): the
    day's tally, the all-time total and the running totals that date ranges read. What
    each place is worth is scoring's to say."""
    worth = {seat.player_id: place_counts(table.mode, seat.place) for seat in seats}
    changes = {
        field: F(field)
        + Case(
            *[
                When(player_id=player_id, then=Value(sign * getattr(counts, field)))
                for player_id, counts in worth.items()
            ],
            default=Value(0),
        )
        for field in COUNT_FIELDS
        if any(getattr(counts, field) for counts in worth.values())
    }
    standings_changed()
    day = timezone.localdate(match.filed_at)
    running_totals.running_file(day=day, mode=table.mode, seats=seats, sign=sign)
    for model, where in (
        (DailyTally, {"day": day}),
        (AllTimeTotal, {}),
    ):
        if sign > 0:
            model.objects.bulk_create(
                [model(player_id=seat.player_id, table=table, **where) for seat in seats],
                ignore_conflicts=True,
            )
        model.objects.filter(table=table, player_id__in=worth, **where).update(**changes)


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


def _open_match(*, table: Table, number: int, players: Sequence[Player]) -> Match:
    match = Match.objects.create(
        table=table,
        number=number,
        first_dealer=_first_dealer(table=table, number=number, players=players),
    )
    # Kept on the match: a crowning's answer shows the new match without reading it back.
    match.seats_opened = Seat.objects.bulk_create(
        Seat(match=match, player=player, position=position)
        for position, player in enumerate(players)
    )
    return match


@transaction.atomic
def table_launch(
    *, name: str, player_names: Sequence[str], mode: str, by: AbstractBaseUser
) -> Table:
    """Launch a table and open its first match with every player standing."""
    name = name.strip()
    if not name:
        raise RuleError(TABLE_NAME_EMPTY)
    if len(name) > TABLE_NAME_MAX_LENGTH:
        raise RuleError(TABLE_NAME_TOO_LONG, limit_value=TABLE_NAME_MAX_LENGTH)
    if mode not in Table.Mode.values:
        raise RuleError(UNKNOWN_MODE)
    players = players_resolve(names=clean_player_names(player_names))
    table = Table.objects.create(name=name, mode=mode, created_by=by)
    _open_match(table=table, number=1, players=players)
    standings_changed()  # the standings' table filter lists it
    return table


def match_eliminate(
    *,
    table_id: int,
    player_id: int,
    key: uuid.UUID,
    by: AbstractBaseUser,
    match_id: int | None = None,
    match_number: int | None = None,
) -> TapResult:
    """Put a player out of an open match; the tap that leaves one standing crowns and files.

    The match is named by its id, or by its number on this table (exactly one of the two):
    a tablet that played on offline taps in a match whose id it never saw, and its tap
    applies once the crowning before it has opened that match."""
    if (match_id is None) == (match_number is None):
        raise ValueError("name the match by exactly one of match_id and match_number")
    try:
        return _match_eliminate(
            table_id=table_id,
            match_id=match_id,
            match_number=match_number,
            player_id=player_id,
            key=key,
            by=by,
        )
    except _Retried as retried:
        return _replay(retried.tap)
    except IntegrityError:
        # The key is already used, yet the tap it names is not what was refused: it was
        # undone, or it is on another table (or arrived there under that table's lock at this
        # very moment). Its transaction is rolled back; say which.
        earlier = Tap.objects.select_related("match").filter(key=key).first()
        if earlier is None or earlier.match.table_id != table_id:
            raise RuleError(WRONG_TABLE, code="wrong_table") from None
        if earlier.is_undone:
            raise RuleError(TAP_WAS_UNDONE, code="tap_was_undone") from None
        return _replay(Tap.objects.select_related("match", "player").get(pk=earlier.pk))


# Standard SQL (SQLite 3.35+, PostgreSQL): quoted names, as both spell them. The restore
# epoch and the standings stamp's version come back with the row (as selectors.stamped_table
# reads them): the tag of the state this write leaves needs no read of its own, and a plain
# tap finds what the table has filed as this process last read it (table_filings).
# On PostgreSQL the subqueries read the statement's snapshot: an UPDATE that waited for the
# row's lock (a rename or a crowning at this table ahead of it) returns the row as that
# write left it but the stamp as it was before. "seen" (the version in that snapshot, one
# less than the row's; SQLite's subqueries see the row as updated) tells: if the row moved
# meanwhile, the stamp is read again (_stamp_after_wait).
_BUMP_TABLE = (
    'UPDATE "matches_table" SET "version" = "version" + 1 WHERE "id" = %s RETURNING *,'
    ' (SELECT s."epoch" FROM "matches_standingsstamp" s WHERE s."id" = 1) AS "epoch",'
    ' (SELECT s."version" FROM "matches_standingsstamp" s WHERE s."id" = 1) AS "league",'
    ' (SELECT v."version" FROM "matches_table" v WHERE v."id" = %s) AS "seen"'
)
_STAMP_SQL = 'SELECT "epoch", "version" FROM "matches_standingsstamp" WHERE "id" = 1'


def _stamp_after_wait(table: Table) -> None:
    """The stamp as it is now, if the bump waited behind another write to the table: that
    write (every one bumps the version) may have moved it after the bump's snapshot. Never
    on SQLite, whose writes take turns whole."""
    if table.seen >= table.version - 1:
        return
    with connection.cursor() as cursor:
        cursor.execute(_STAMP_SQL)
        row = cursor.fetchone()
    table.epoch, table.league = row if row is not None else (None, None)


class _Retried(Exception):
    """A tap whose key was already applied: raised to roll back the version bump."""

    def __init__(self, tap: Tap) -> None:
        self.tap = tap
        super().__init__(tap.pk)


def _bump_open_table(table_id: int, by: AbstractBaseUser) -> Table:
    """Lock the table by bumping its change counter, in one statement that returns the row
    (the lock and the version the write leaves, without a second round trip). A refused
    write raises inside its transaction, so the bump is rolled back with it."""
    table = next(iter(Table.objects.raw(_BUMP_TABLE, [table_id, table_id])), None)
    if table is None:
        raise Table.DoesNotExist
    _stamp_after_wait(table)
    if not table.can_be_changed_by(by):
        raise RuleError(NOT_YOUR_TABLE, code="not_your_table")
    if not table.is_open:
        raise RuleError(TABLE_CLOSED, code="table_closed")
    return table


def _seats_with_match(
    table: Table, match_id: int | None, match_number: int | None
) -> tuple[Match, list[Seat]]:
    """The match and its seats (with players), in one read, checked as _lock_match does.
    The table's lock already serialises every write on its matches. A match named by its
    number (a tablet that played on offline never saw its id) is the one filed or open
    under that number."""
    seats = Seat.objects.select_related("player", "match__first_dealer").order_by("position")
    if match_id is not None:
        seats = list(seats.filter(match_id=match_id))
    else:
        seats = list(
            seats.filter(match__table=table, match__number=match_number).exclude(
                match__status=Match.Status.DISCARDED
            )
        )
        if not seats:
            # A number past the open match: its crowning has not happened (or was undone).
            raise RuleError(MATCH_NOT_OPEN, code="match_not_open", number=match_number)
    if not seats:
        # Every match is seated (at least MIN_PLAYERS), so no seats means no such match.
        raise RuleError(MATCH_NOT_FOUND, code="match_not_found")
    match = seats[0].match
    for seat in seats:
        seat.match = match  # one instance: the board reads the status this tap sets
    if match.table_id != table.pk:
        raise RuleError(WRONG_TABLE, code="wrong_table")
    match.table = table
    return _check_open(match), seats


def _target(
    table: Table, match_id: int | None, match_number: int | None, player_id: int
) -> tuple[Match, list[Seat], Seat]:
    match, seats = _seats_with_match(table, match_id, match_number)
    seat = next((s for s in seats if s.player_id == player_id), None)
    if seat is None:
        raise RuleError(UNKNOWN_PLAYER, code="not_seated")
    if seat.place is not None:
        raise RuleError(ALREADY_OUT, code="already_out", name=seat.player.name)
    return match, seats, seat


@transaction.atomic
def _match_eliminate(
    *,
    table_id: int,
    match_id: int | None,
    match_number: int | None,
    player_id: int,
    key: uuid.UUID,
    by: AbstractBaseUser,
) -> TapResult:
    table = _bump_open_table(table_id, by)
    try:
        match, seats, seat = _target(table, match_id, match_number, player_id)
    except RuleError:
        # A retried tap is refused as if new (its player is out, its match filed): only
        # then is the key looked up, under the table lock, so a retry racing its original
        # sees it committed. A fresh tap never pays for the look-up; a key reused on a
        # standing player is caught by the unique index (see match_eliminate).
        earlier = Tap.objects.select_related("match", "player").filter(key=key).first()
        if earlier is None:
            raise
        if earlier.match.table_id != table.pk:
            raise RuleError(WRONG_TABLE, code="wrong_table") from None
        if earlier.is_undone:
            raise RuleError(TAP_WAS_UNDONE, code="tap_was_undone") from None
        raise _Retried(earlier) from None

    standing = [s for s in seats if s.place is None]
    seat.place = len(standing)
    seat.save(update_fields=["place"])
    tap = Tap.objects.create(
        match=match, player=seat.player, place=seat.place, key=key, tapped_by=by
    )

    winner = next_match = None
    if seat.place == 2:
        survivor = next(s for s in standing if s is not seat)
        survivor.place = 1
        survivor.save(update_fields=["place"])
        winner = survivor.player
        match.status = Match.Status.FILED
        match.winner = winner
        match.filed_at = timezone.now()
        match.save(update_fields=["status", "winner", "filed_at"])
        _add_to_standings(table=table, match=match, seats=seats, sign=1)
        ratings.ratings_file(match=match, mode=table.mode, seats=seats)
        head_to_head.pairs_file(mode=table.mode, seats=seats, sign=1)
        nights.nights_file(
            day=timezone.localdate(match.filed_at), mode=table.mode, seats=seats, sign=1
        )
        next_match = _open_match(
            table=table, number=match.number + 1, players=[s.player for s in seats]
        )
    now = timezone.now()
    # A crowning has just changed what the table filed (and moved the stamp): read afresh.
    filed = table_filings.filed(table=table, now=now, kept_ok=next_match is None)
    board = selectors.board_after_tap(
        table=table,
        tap=tap,
        seats=seats,
        recent=filed.recent,
        next_match=next_match,
        next_seats=next_match.seats_opened if next_match else None,
    )
    return TapResult(
        tap=tap,
        match=match,
        winner=winner,
        next_match=next_match,
        board=board,
        tonight=filed.tonight,
        tonight_at=now,
    )


def _replay(tap: Tap) -> TapResult:
    match = tap.match
    crowned = tap.place == 2
    return TapResult(
        tap=tap,
        match=match,
        winner=match.winner if crowned else None,
        next_match=match.table.matches.open().first() if crowned else None,
        replayed=True,
    )


def _seating(match: Match) -> list[int]:
    return list(match.seats.order_by("position").values_list("player_id", flat=True))


def roster_changed(filed: Match, following: Match) -> bool:
    """Whether the match that opened after `filed` was given another roster (players or
    seats) before its first tap."""
    return _seating(filed) != _seating(following)


@transaction.atomic
def table_undo_last(
    *,
    table_id: int,
    tap_id: int | None,
    by: AbstractBaseUser,
    drop_roster: bool = False,
    tap_key: uuid.UUID | None = None,
) -> UndoResult:
    """Take back the table's most recent tap, however far back; a crowning reopens its match.

    tap_id (the page's button) or tap_key (the tablet's queue) names the tap the host saw as
    the most recent: a repeated or late undo then refuses instead of taking back an older tap
    the host never meant; an undo by key of a tap already undone is answered as a replay.
    Undoing a crowning removes the match that opened after it; if that match was given a new
    roster, the host must confirm (drop_roster) that the change goes with it."""
    table = _lock_open_table(table_id, by)
    named = None
    if tap_key is not None:
        named = Tap.objects.select_related("player", "match").filter(key=tap_key).first()
        if named is None:
            raise RuleError(TAP_NEVER_RECORDED, code="tap_unknown")
        if named.match.table_id != table.pk:
            raise RuleError(TAP_NOT_FOUND, code="tap_not_found")
        if named.is_undone:
            return UndoResult(tap=named, match=named.match, reopened=False, replayed=True)
    elif tap_id is not None:
        named = Tap.objects.filter(pk=tap_id, match__table=table).first()
        if named is None:
            raise RuleError(TAP_NOT_FOUND, code="tap_not_found")
        if named.is_undone:
            raise RuleError(ALREADY_UNDONE, code="already_undone")
    latest = (
        Tap.objects.select_related("player")
        .filter(match__table=table, undone_at__isnull=True)
        .order_by("-id")
        .first()
    )
    if latest is None:
        raise RuleError(NOTHING_TO_UNDO, code="nothing_to_undo")
    if named is not None and latest.pk != named.pk:
        if tap_key is not None:
            raise RuleError(NOT_LATEST_NAMED, code="not_latest", name=named.player.name)
        raise RuleError(NOT_LATEST, code="not_latest")

    match = Match.objects.select_for_update().get(pk=latest.match_id)
    reopened = match.status == Match.Status.FILED
    if reopened:
        # The match that opened on its own after the crowning has no live taps (this one
        # is the latest), so it goes; its rows stay for the audit trail.
        following = table.matches.open().first()
        if following is not None and not drop_roster and roster_changed(match, following):
            raise RuleError(
                UNDO_DROPS_ROSTER,
                code="undo_drops_roster",
                number=match.number,
                next=following.number,
            )
        table.matches.open().update(status=Match.Status.DISCARDED)
        seats = list(match.seats.all())
        _add_to_standings(table=table, match=match, seats=seats, sign=-1)
        ratings.ratings_unfile(match=match)
        head_to_head.pairs_file(mode=table.mode, seats=seats, sign=-1)
        nights.nights_file(
            day=timezone.localdate(match.filed_at), mode=table.mode, seats=seats, sign=-1
        )
        match.seats.filter(place=1).update(place=None)
        match.status = Match.Status.OPEN
        match.winner = None
        match.filed_at = None
        match.save(update_fields=["status", "winner", "filed_at"])
    match.seats.filter(player_id=latest.player_id).update(place=None)
    latest.undone_at = timezone.now()
    latest.undone_by = by
    latest.save(update_fields=["undone_at", "undone_by"])
    _mark_changed(table)
    return UndoResult(tap=latest, match=match, reopened=reopened)


@transaction.atomic
def match_set_roster(
    *, table_id: int, match_id: int, player_names: Sequence[str], by: AbstractBaseUser
) -> Match:
    """Replace the seating of an open match before its first tap (3 to 10 players)."""
    table = _lock_open_table(table_id, by)
    match = _lock_match(table, match_id)
    if match.taps.filter(undone_at__isnull=True).exists():
        raise RuleError(ROSTER_LOCKED, code="roster_locked")
    players = players_resolve(names=clean_player_names(player_names))
    match.seats.all().delete()
    Seat.objects.bulk_create(
        Seat(match=match, player=player, position=position)
        for position, player in enumerate(players)
    )
    if match.first_dealer_id not in {player.pk for player in players}:
        match.first_dealer = choose_first_dealer(players)
        match.save(update_fields=["first_dealer"])
    _mark_changed(table)
    return match


def live_taps(match: Match) -> list[Tap]:
    """The taps that stand in a match, first first, with their players."""
    return list(match.taps.filter(undone_at__isnull=True).select_related("player").order_by("id"))


@transaction.atomic
def table_close(
    *, table_id: int, by: AbstractBaseUser, discard_match_id: int | None = None
) -> Table:
    """Close a table for the night: no further match opens and the open one is discarded.

    A match with taps is never discarded silently: the host confirms by naming it
    (discard_match_id), after being told who is already out."""
    table = _lock_open_table(table_id, by)
    match = table.matches.select_for_update().open().first()
    if match is not None and match.pk != discard_match_id:
        taps = live_taps(match)
        if taps:
            names = ", ".join(tap.player.name for tap in taps)
            raise RuleError(MATCH_UNDER_WAY, number=match.number, names=names)
    table.matches.open().update(status=Match.Status.DISCARDED)
    table.closed_at = timezone.now()
    table.version += 1
    table.save(update_fields=["closed_at", "version"])
    standings_changed()
    return table


@transaction.atomic
def first_host_create(*, user: AbstractBaseUser) -> AbstractBaseUser:
    """Save the first host account, an admin; refused once any account exists, however many
    setup requests arrive at once."""
    users = get_user_model()
    connection = transaction.get_connection()
    if connection.vendor == "postgresql":
        # Serialises the check and the insert below; the lock conflicts with itself only.
        with connection.cursor() as cursor:
            table = connection.ops.quote_name(users._meta.db_table)
            cursor.execute(f"LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE")
    # On SQLite the IMMEDIATE transaction already holds the database's one write lock.
    if users.objects.exists():
        raise RuleError(FIRST_HOST_EXISTS)
    user.is_staff = user.is_superuser = True
    user.save()
    return user


@transaction.atomic
def table_reopen(*, table_id: int, by: AbstractBaseUser) -> Match:
    """Reopen a closed table: the next match opens with the latest roster, and numbering
    continues after the last filed match."""
    table = Table.objects.select_for_update().get(pk=table_id)
    if not table.can_be_changed_by(by):
        raise RuleError(NOT_YOUR_TABLE)
    if table.is_open:
        raise RuleError(TABLE_NOT_CLOSED)
    # The latest seating, including a roster change made on the match the close discarded.
    latest = table.matches.order_by("-id").first()
    players = [seat.player for seat in latest.seats.select_related("player").order_by("position")]
    filed = table.matches.filed().order_by("-number").values_list("number", flat=True).first()
    match = _open_match(table=table, number=(filed or 0) + 1, players=players)
    table.closed_at = None
    table.version += 1
    table.save(update_fields=["closed_at", "version"])
    return match
