"""Every write of play that carries a game rule: launch, tap, crown, undo, roster, close and
reopen. Each write on a table runs in one transaction that first locks the table row (a tap
and an undo by moving its version on, core.stamp.table_bump_returning; roster, close and
reopen with SELECT … FOR UPDATE, and roster and close then the match row), so two tablets on
one table are applied one after the other: no two players can take the same place and no
match can be crowned twice."""

import datetime
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Subquery
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.core import autobackup
from matches.core.errors import Refusal, RuleError
from matches.core.stamp import Stamped, standings_changed, table_bump, table_bump_returning
from matches.models import Match, Player, Seat, Table, Tap
from matches.org.hosts import may_change_table
from matches.play import filings, selectors, tonight
from matches.results import filing
from matches.results.players.services import player_name_clean, players_resolve
from matches.rules.limits import MAX_PLAYERS, MIN_PLAYERS, TABLE_NAME_MAX_LENGTH
from matches.rules.names import clean_typed_name, name_key

TABLE_NAME_EMPTY = _("Give the table a name.")
TABLE_NAME_TOO_LONG = _("A table name is at most %(limit_value)s characters.")
UNKNOWN_MODE = _("Choose a mode: Winner takes all or Ranked (3/2/1).")
TOO_FEW_PLAYERS = _("A table needs at least %(min)s players; %(count)s given.")
TOO_MANY_PLAYERS = _("A table seats at most %(max)s players; %(count)s given.")
DUPLICATE_PLAYER = _("“%(name)s” is listed twice (names ignore upper and lower case).")
NOT_YOUR_TABLE = _(
    "Only the host who launched this table, or an admin, can change it; nothing was changed."
)
TABLE_CLOSED = _("This table is closed; nothing was changed.")
MATCH_NOT_FOUND = _("That match does not exist; nothing was changed.")
WRONG_TABLE = _("That match belongs to another table; nothing was changed.")
MATCH_FILED = _("Match %(number)s is already filed; nothing was changed.")
MATCH_DISCARDED = _("Match %(number)s is no longer in play; nothing was changed.")
TAP_MATCH_DISCARDED = _(
    "%(name)s’s tap was for match %(number)s, which is no longer in play; nothing was changed."
)
NOT_THAT_NUMBER = _("That match is not match %(number)s; nothing was changed.")
CROWNED_OTHERWISE = _(
    "%(name)s’s tap was not recorded: match %(number)s did not open as this tablet expected; "
    "nothing was changed."
)
CROWNED_OTHERWISE_UNNUMBERED = _(
    "%(name)s’s tap was not recorded: its match did not open as this tablet expected; "
    "nothing was changed."
)
KEY_REUSED = _(
    "That key was already used for %(name)s’s tap in match %(number)s; nothing was changed."
)
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
    # the table with the version it wrote (stamped): the tap's answer and its tag name one
    # state. None for a replay (nothing was written; the view reads the board afresh).
    board: "selectors.Board | None" = None
    stamped: Stamped | None = None
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
    # As TapResult's, for the undo of a plain tap: the board it leaves, built from the rows
    # its transaction holds, and the table with the version it wrote. None otherwise (a
    # crowning undone, a replay): the view reads the board afresh.
    board: "selectors.Board | None" = None
    stamped: Stamped | None = None
    tonight: "list[tonight.TonightRow] | None" = None
    tonight_at: datetime.datetime | None = None


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


def _lock_open_table(table_id: int, by: User) -> Table:
    table = Table.objects.select_for_update().get(pk=table_id)
    _check_may_change(table, by)
    return table


def _check_may_change(table: Table, by: User) -> None:
    if not may_change_table(by, table):
        raise RuleError(NOT_YOUR_TABLE, code=Refusal.NOT_YOUR_TABLE)
    if not table.is_open:
        raise RuleError(TABLE_CLOSED, code=Refusal.TABLE_CLOSED)


def _check_open(match: Match) -> Match:
    if match.status == Match.Status.FILED:
        raise RuleError(MATCH_FILED, code=Refusal.MATCH_FILED, number=match.number)
    if match.status == Match.Status.DISCARDED:
        raise RuleError(MATCH_DISCARDED, code=Refusal.MATCH_DISCARDED, number=match.number)
    return match


def _lock_match(table: Table, match_id: int) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise RuleError(MATCH_NOT_FOUND, code=Refusal.MATCH_NOT_FOUND)
    if match.table_id != table.pk:
        raise RuleError(WRONG_TABLE, code=Refusal.WRONG_TABLE)
    return _check_open(match)


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


def _open_match(
    *, table: Table, number: int, players: Sequence[Player]
) -> tuple[Match, list[Seat]]:
    """The new match and its seats: a crowning's answer shows it without reading it back."""
    match = Match.objects.create(
        table=table,
        number=number,
        first_dealer=_first_dealer(table=table, number=number, players=players),
    )
    return match, _seat(match, players)


def _discard_open(table: Table, reason: "Match.DiscardReason") -> None:
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


def table_name_clean(name: str) -> str:
    """A table's name as stored (the player names' rules, rules.names), or a RuleError."""
    try:
        return clean_typed_name(
            name,
            max_length=TABLE_NAME_MAX_LENGTH,
            empty=TABLE_NAME_EMPTY,
            too_long=TABLE_NAME_TOO_LONG,
        )
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None


@transaction.atomic
def table_launch(*, name: str, player_names: Sequence[str], mode: str, by: User) -> Table:
    """Launch a table and open its first match with every player standing."""
    name = table_name_clean(name)
    if mode not in Table.Mode.values:
        raise RuleError(UNKNOWN_MODE)
    players = players_resolve(names=clean_player_names(player_names))
    table = Table.objects.create(name=name, mode=mode, created_by=by)
    _open_match(table=table, number=1, players=players)
    standings_changed()  # the standings' table filter lists it
    return table


@dataclass(frozen=True)
class _Named:
    """The match a tap names: its id (the page, and a tablet that saw it), else the crowning
    whose next match the tablet predicted (after, the key of that crowning), else its number
    on this table (scripts and the page without JavaScript). A number given with an id or
    an after must agree with it."""

    match_id: int | None
    number: int | None
    after_key: uuid.UUID | None


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
) -> TapResult:
    """Put a player out of an open match; the tap that leaves one standing crowns and files.

    The match is named by its id, by the key of the crowning that opened it (after_key), or
    by its number on this table: a tablet that played on offline taps in a match whose id it
    never saw, and its tap applies once that crowning has opened the match. A key already
    used is answered from what it did, before any other refusal: a replay, or a refusal when
    it named another tap. queued_by is the host whose tablet queued the tap, kept when it is
    not the sender."""
    if match_id is None and match_number is None and after_key is None:
        raise ValueError("name the match by match_id, after_key or match_number")
    named = _Named(match_id=match_id, number=match_number, after_key=after_key)
    try:
        return _match_eliminate(
            table_id=table_id,
            named=named,
            player_id=player_id,
            key=key,
            by=by,
            queued_by=queued_by,
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
        _check_known(earlier, table_id=table_id, named=named, player_id=player_id)
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


def _same_match(match: Match, named: _Named) -> bool:
    if named.number is not None and match.number != named.number:
        return False
    if named.match_id is not None:
        return match.pk == named.match_id
    if named.after_key is not None:
        opened = _opened_after(match.table_id, named.after_key, live=False)
        return Match.objects.filter(pk=opened).filter(pk=match.pk).exists()
    return True  # the number, checked above


def _check_known(earlier: Tap, *, table_id: int, named: _Named, player_id: int) -> None:
    """Refuse unless the tap holding the key is the one this request asks for (then it is
    a replay): a key names one tap, never silently another."""
    same = (
        earlier.match.table_id == table_id
        and earlier.player_id == player_id
        and _same_match(earlier.match, named)
    )
    if not same:
        raise RuleError(
            KEY_REUSED,
            code=Refusal.KEY_REUSED,
            name=earlier.player.name,
            number=earlier.match.number,
        )
    if earlier.is_undone:
        raise RuleError(TAP_WAS_UNDONE, code=Refusal.TAP_WAS_UNDONE)


class _Retried(Exception):
    """A tap whose key was already applied: raised to roll back the version bump."""

    def __init__(self, tap: Tap) -> None:
        self.tap = tap
        super().__init__(tap.pk)


def _bump_table(table_id: int) -> Stamped:
    """Lock the table by moving its version on (core.stamp.table_bump_returning: the lock,
    the version the write leaves and the stamp, in one statement)."""
    stamped = table_bump_returning(table_id=table_id)
    if stamped is None:
        raise Table.DoesNotExist
    return stamped


def _name_of(seats: Sequence[Seat], player_id: int) -> str:
    """The tapped player's name for a refusal naming them; an unknown player is not seated."""
    seat = next((s for s in seats if s.player_id == player_id), None)
    if seat is not None:
        return seat.player.name
    name = Player.objects.filter(pk=player_id).values_list("name", flat=True).first()
    if name is None:
        raise RuleError(UNKNOWN_PLAYER, code=Refusal.NOT_SEATED)
    return name


def _seats_with_match(table: Table, named: _Named, player_id: int) -> tuple[Match, list[Seat]]:
    """The match and its seats (with players), in one read, checked as _lock_match does.
    The table's lock already serialises every write on its matches. A match named by its
    number (a tablet that played on offline never saw its id) is the one filed or open
    under that number; one named by the crowning before it is the match that crowning
    opened, whatever its number."""
    query = Seat.objects.select_related("player", "match").order_by("position")
    if named.match_id is not None:
        seats = list(query.filter(match_id=named.match_id))
    elif named.after_key is not None:
        seats = list(query.filter(match_id=_opened_after(table.pk, named.after_key, live=True)))
        if not seats or (named.number is not None and seats[0].match.number != named.number):
            # That crowning is unknown here, undone, not a crowning, or opened another
            # number: the match this tablet predicted never opened.
            name = _name_of(seats, player_id)
            if named.number is None:
                raise RuleError(
                    CROWNED_OTHERWISE_UNNUMBERED, code=Refusal.CROWNED_OTHERWISE, name=name
                )
            raise RuleError(
                CROWNED_OTHERWISE, code=Refusal.CROWNED_OTHERWISE, name=name, number=named.number
            )
    elif named.number is not None:
        seats = list(
            query.filter(match__table=table, match__number=named.number).exclude(
                match__status=Match.Status.DISCARDED
            )
        )
        if not seats:
            # A number past the open match: its crowning has not happened (or was undone).
            raise RuleError(MATCH_NOT_OPEN, code=Refusal.MATCH_NOT_OPEN, number=named.number)
    else:
        raise ValueError("name the match by match_id, after_key or match_number")
    if not seats:
        # Every match is seated (at least MIN_PLAYERS), so no seats means no such match.
        raise RuleError(MATCH_NOT_FOUND, code=Refusal.MATCH_NOT_FOUND)
    match = seats[0].match
    for seat in seats:
        seat.match = match  # one instance: the board reads the status this tap sets
        if seat.player_id == match.first_dealer_id:
            # The first dealer is seated: their row came with the seats (a join the less).
            match.first_dealer = seat.player
    if match.table_id != table.pk:
        raise RuleError(WRONG_TABLE, code=Refusal.WRONG_TABLE)
    if named.number is not None and match.number != named.number:
        raise RuleError(NOT_THAT_NUMBER, code=Refusal.MATCH_NOT_FOUND, number=named.number)
    match.table = table
    if match.status == Match.Status.DISCARDED:
        # Named by id or by its crowning: the tablet meant that very match, not whichever
        # opened later under its number.
        raise RuleError(
            TAP_MATCH_DISCARDED,
            code=Refusal.MATCH_DISCARDED,
            name=_name_of(seats, player_id),
            number=match.number,
        )
    return _check_open(match), seats


def _target(table: Table, named: _Named, player_id: int) -> tuple[Match, list[Seat], Seat]:
    match, seats = _seats_with_match(table, named, player_id)
    seat = next((s for s in seats if s.player_id == player_id), None)
    if seat is None:
        raise RuleError(UNKNOWN_PLAYER, code=Refusal.NOT_SEATED)
    if seat.place is not None:
        raise RuleError(ALREADY_OUT, code=Refusal.ALREADY_OUT, name=seat.player.name)
    return match, seats, seat


@transaction.atomic
def _match_eliminate(
    *,
    table_id: int,
    named: _Named,
    player_id: int,
    key: uuid.UUID,
    by: User,
    queued_by: User | None,
) -> TapResult:
    stamped = _bump_table(table_id)
    table = stamped.table
    try:
        _check_may_change(table, by)
        match, seats, seat = _target(table, named, player_id)
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
        _check_known(earlier, table_id=table.pk, named=named, player_id=player_id)
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
        queued_by=_queued_by(queued_by, by),
    )

    winner = next_match = None
    next_seats: list[Seat] | None = None
    if seat.place == 2:
        survivor = next(s for s in standing if s is not seat)
        survivor.place = 1
        survivor.save(update_fields=["place"])
        winner = survivor.player
        match.status = Match.Status.FILED
        match.winner = winner
        match.filed_at = timezone.now()
        match.save(update_fields=["status", "winner", "filed_at"])
        filing.match_file(table=table, match=match, seats=seats)
        next_match, next_seats = _open_match(
            table=table, number=match.number + 1, players=[s.player for s in seats]
        )
    now = timezone.now()
    if next_match is None:
        filed = filings.filed(stamped=stamped, now=now)
    else:  # a crowning has just filed the match (and moved the stamp)
        filed = filings.filed_with(stamped=stamped, now=now, match=match, seats=seats)
    board = selectors.board_after_tap(
        table=table,
        tap=tap,
        seats=seats,
        recent=filed.recent,
        next_match=next_match,
        next_seats=next_seats,
    )
    return TapResult(
        tap=tap,
        match=match,
        winner=winner,
        next_match=next_match,
        board=board,
        stamped=stamped,
        tonight=filed.tonight,
        tonight_at=now,
    )


def _queued_by(queued_by: User | None, by: User) -> User | None:
    """Who queued an entry, kept only when another host sent it (NULL: the same one)."""
    return queued_by if queued_by is not None and queued_by.pk != by.pk else None


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


class _UndoReplayed(Exception):
    """An undo by key of a tap already undone: raised to roll back the version bump."""

    def __init__(self, tap: Tap) -> None:
        self.tap = tap
        super().__init__(tap.pk)


def table_undo_last(
    *,
    table_id: int,
    tap_id: int | None,
    by: User,
    drop_roster: bool = False,
    tap_key: uuid.UUID | None = None,
    queued_by: User | None = None,
) -> UndoResult:
    """Take back the table's most recent tap, however far back; a crowning reopens its match.

    tap_id (the page's button) or tap_key (the tablet's queue) names the tap the host saw as
    the most recent: a repeated or late undo then refuses instead of taking back an older tap
    the host never meant; an undo by key of a tap already undone is answered as a replay,
    even once the table is closed or no longer this host's to change. Undoing a crowning
    removes the match that opened after it; if that match was given a new roster, the host
    must confirm (drop_roster) that the change goes with it. queued_by is the host whose
    tablet queued the undo, kept when it is not the sender."""
    try:
        return _table_undo_last(
            table_id=table_id,
            tap_id=tap_id,
            by=by,
            drop_roster=drop_roster,
            tap_key=tap_key,
            queued_by=queued_by,
        )
    except _UndoReplayed as replayed:
        tap = replayed.tap
        return UndoResult(tap=tap, match=tap.match, reopened=False, replayed=True)


def _names_latest(latest: Tap, *, tap_id: int | None, tap_key: uuid.UUID | None) -> bool:
    """Whether the undo names the table's latest live tap (by key, else by id)."""
    if tap_key is not None:
        return latest.key == tap_key
    return tap_id is not None and latest.pk == tap_id


def _check_undo_named(
    *, table: Table, tap_id: int | None, tap_key: uuid.UUID | None, by: User
) -> Tap | None:
    """The tap the undo names, checked as the tap that may be taken back (or a replay
    raised), before the latest is compared with it; None when it names none."""
    named = None
    if tap_key is not None:
        named = Tap.objects.select_related("player", "match").filter(key=tap_key).first()
        if named is not None and named.match.table_id == table.pk and named.is_undone:
            # A resent undo: answered from what it did, before any refusal of the table.
            raise _UndoReplayed(named)
    _check_may_change(table, by)
    if tap_key is not None:
        if named is None:
            raise RuleError(TAP_NEVER_RECORDED, code=Refusal.TAP_UNKNOWN)
        if named.match.table_id != table.pk:
            raise RuleError(TAP_NOT_FOUND, code=Refusal.TAP_NOT_FOUND)
    elif tap_id is not None:
        named = Tap.objects.filter(pk=tap_id, match__table=table).first()
        if named is None:
            raise RuleError(TAP_NOT_FOUND, code=Refusal.TAP_NOT_FOUND)
        if named.is_undone:
            raise RuleError(ALREADY_UNDONE, code=Refusal.ALREADY_UNDONE)
    return named


@transaction.atomic
def _table_undo_last(
    *,
    table_id: int,
    tap_id: int | None,
    by: User,
    drop_roster: bool,
    tap_key: uuid.UUID | None,
    queued_by: User | None,
) -> UndoResult:
    # Locked as a tap locks it, by moving its version on: the undo writes, or raises and
    # rolls the bump back.
    stamped = _bump_table(table_id)
    table = stamped.table
    # The latest live tap and the one before it (the latest once this one is undone: the
    # board's Undo button names it), with their matches, in one read.
    taps = list(
        Tap.objects.select_related("player", "match__first_dealer")
        .filter(match__table=table, undone_at__isnull=True)
        .order_by("-id")[:2]
    )
    latest, before = (taps[0], taps[1:]) if taps else (None, [])
    if latest is None or not _names_latest(latest, tap_id=tap_id, tap_key=tap_key):
        named = _check_undo_named(table=table, tap_id=tap_id, tap_key=tap_key, by=by)
        if latest is None:
            raise RuleError(NOTHING_TO_UNDO, code=Refusal.NOTHING_TO_UNDO)
        if named is not None and latest.pk != named.pk:
            if tap_key is not None:
                raise RuleError(NOT_LATEST_NAMED, code=Refusal.NOT_LATEST, name=named.player.name)
            raise RuleError(NOT_LATEST, code=Refusal.NOT_LATEST)
    else:
        # The host named the latest tap (the usual undo): nothing more to look up about it.
        _check_may_change(table, by)

    # The table's lock serialises every write on its matches, as for a tap.
    match = latest.match
    match.table = table
    undone_at = timezone.now()
    if match.status == Match.Status.OPEN:
        return _undo_plain(
            stamped=stamped, latest=latest, before=before, by=by, queued_by=queued_by, at=undone_at
        )
    reopened = match.status == Match.Status.FILED
    if reopened:
        # The match that opened on its own after the crowning has no live taps (this one
        # is the latest), so it goes; its rows stay for the audit trail.
        following = table.matches.open().first()
        if following is not None and not drop_roster and roster_changed(match, following):
            raise RuleError(
                UNDO_DROPS_ROSTER,
                code=Refusal.UNDO_DROPS_ROSTER,
                number=match.number,
                next=following.number,
            )
        _discard_open(table, Match.DiscardReason.UNDONE)
        seats = list(match.seats.all())
        filing.match_unfile(table=table, match=match, seats=seats)
        match.seats.filter(place=1).update(place=None)
        match.status = Match.Status.OPEN
        match.winner = None
        match.filed_at = None
        match.save(update_fields=["status", "winner", "filed_at"])
    match.seats.filter(player_id=latest.player_id).update(place=None)
    _mark_undone(latest, by=by, queued_by=queued_by, at=undone_at)
    return UndoResult(tap=latest, match=match, reopened=reopened)


def _mark_undone(tap: Tap, *, by: User, queued_by: User | None, at: datetime.datetime) -> None:
    tap.undone_at = at
    tap.undone_by = by
    tap.undo_queued_by = _queued_by(queued_by, by)
    tap.save(update_fields=["undone_at", "undone_by", "undo_queued_by"])


def _undo_plain(
    *,
    stamped: Stamped,
    latest: Tap,
    before: list[Tap],
    by: User,
    queued_by: User | None,
    at: datetime.datetime,
) -> UndoResult:
    """Undo a tap of the open match (no crowning): its player stands again. The answer's
    board is built from the rows read here, as a tap's is: the match's seats, the tap before
    this one, and what the table has filed as this process kept it (a plain tap changes
    none of it, and the stamp has not moved)."""
    match = latest.match
    seats = list(
        Seat.objects.filter(match_id=match.pk).select_related("player").order_by("position")
    )
    seat = next(s for s in seats if s.player_id == latest.player_id)
    for each in seats:
        each.match = match
    seat.place = None
    seat.save(update_fields=["place"])
    _mark_undone(latest, by=by, queued_by=queued_by, at=at)
    now = timezone.now()
    filed = filings.filed(stamped=stamped, now=now)
    board = selectors.board_after_undo(
        table=stamped.table,
        match=match,
        seats=seats,
        last_tap=before[0] if before else None,
        recent=filed.recent,
    )
    return UndoResult(
        tap=latest,
        match=match,
        reopened=False,
        board=board,
        stamped=stamped,
        tonight=filed.tonight,
        tonight_at=now,
    )


@transaction.atomic
def match_set_roster(
    *, table_id: int, match_id: int, player_names: Sequence[str], by: User
) -> Match:
    """Replace the seating of an open match before its first tap (3 to 10 players)."""
    table = _lock_open_table(table_id, by)
    match = _lock_match(table, match_id)
    if match.taps.filter(undone_at__isnull=True).exists():
        raise RuleError(ROSTER_LOCKED, code=Refusal.ROSTER_LOCKED)
    players = players_resolve(names=clean_player_names(player_names))
    match.seats.all().delete()
    _seat(match, players)
    if match.first_dealer_id not in {player.pk for player in players}:
        match.first_dealer = choose_first_dealer(players)
        match.save(update_fields=["first_dealer"])
    table_bump(table)
    return match


def live_taps(match: Match) -> list[Tap]:
    """The taps that stand in a match, first first, with their players."""
    return list(match.taps.filter(undone_at__isnull=True).select_related("player").order_by("id"))


@transaction.atomic
def table_close(*, table_id: int, by: User, discard_match_id: int | None = None) -> Table:
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
    _discard_open(table, Match.DiscardReason.CLOSED)
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
        raise RuleError(NOT_YOUR_TABLE)
    if table.is_open:
        raise RuleError(TABLE_NOT_CLOSED)
    # The latest seating, including a roster change made on the match the close discarded.
    latest = table.matches.latest("id")  # a table opens with its first match
    players = [seat.player for seat in latest.seats.select_related("player").order_by("position")]
    filed = table.matches.filed().order_by("-number").values_list("number", flat=True).first()
    match, _ = _open_match(table=table, number=(filed or 0) + 1, players=players)
    table.closed_at = None
    table_bump(table, "closed_at")
    return match
