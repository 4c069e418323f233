"""The writes on the league's players: a typed name is cleaned and matched to the player who
has it (or a new one), a host renames a player, or merges two records of the same person into
one and may undo that. Every seat, tap, tally and rating follows, and every cached page that
shows names (standings, ratings, table pages, the TV) is refreshed at once."""

import json
import re
from collections.abc import Iterable, Sequence
from typing import cast

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.core import serializers
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import BigIntegerField, Case, F, Field, Model, ProtectedError, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.core.errors import Refusal, RuleError
from matches.core.stamp import standings_changed, tables_bump
from matches.models import (
    AllTimeTotal,
    Match,
    Player,
    PlayerMerge,
    RatingChange,
    Seat,
    Tap,
)
from matches.org.hosts import User
from matches.org.roles import PLAYERS_ARE_THE_ORGANISERS, require_organiser
from matches.ratings import schedule
from matches.results import tallies
from matches.results.filing import players_merged, players_recount
from matches.results.players.selectors import (
    MERGE_SHOWS_HIDDEN,
    PLAYER_NOT_FOUND,
    merge_shows_hidden,
    players_to_merge,
)
from matches.rules.names import NAME_POSES_AS_A_RECORD, clean_name, name_key, reads_as_a_record

PLAYER_NAME_TAKEN = _(
    "Another player is already called “%(name)s” (names ignore upper and lower case); "
    "choose a different name."
)
MERGE_NOT_FOUND = _("That merge does not exist; nothing was changed.")
# A finals night names its finalists and winners by record: the one merged away goes.
MERGE_DROPS_FINALIST = _(
    "%(name)s is in a season’s finals night: merge %(keep)s into %(name)s instead; nothing "
    "was changed."
)
MERGE_ALREADY_UNDONE = _("This merge was already undone; nothing was changed.")
UNDO_KEPT_GONE = _(
    "“%(name)s” was merged into a record that has itself been merged since: undo that "
    "later merge first; nothing was changed."
)
UNDO_NAME_TAKEN = _(
    "Another player is called “%(name)s” now, so “%(absorbed)s” cannot come back: rename "
    "that player first; nothing was changed."
)


# How the admin's history of the changes made here names a player: with the record's id, so
# an erasure finds every name a record has had (names_logged), whatever it is called now.
LOGGED_NAME = re.compile(r"“([^”]*)” \(#([0-9]+)\)")


def logged_name(name: str, player_id: int) -> str:
    return f"“{name}” (#{player_id})"


def names_logged(message: str, player_ids: Iterable[int]) -> list[str]:
    """The names a history line written here gave any of these records."""
    wanted = {str(pk) for pk in player_ids}
    return [name for name, pk in LOGGED_NAME.findall(message) if pk in wanted and name]


def player_lock(player_id: int) -> Player:
    """The player's row, claimed for a write in this transaction, or a RuleError."""
    # FOR NO KEY UPDATE (docs/architecture.md, "How a write locks"): a claim that lets other
    # writes go on naming the player (each seat, tap, tally or rating change they insert
    # checks its player at commit with a key-share lock). FOR UPDATE blocked those checks,
    # so a ratings step or a crowning holding the stamp waited for this write, which then
    # waited for the stamp: a deadlock. The key changes, or the row goes, only once the
    # write holds the stamp.
    player = Player.objects.select_for_update(no_key=True).filter(pk=player_id).first()
    if player is None:
        raise RuleError(PLAYER_NOT_FOUND)
    return player


def player_pages_refresh(player_ids: list[int]) -> None:
    """Move on every table these players sat at, and the standings stamp, for their names."""
    # Names appear on cached standings and on every page of the tables they sat at: their
    # versions move, so no kept rendering or 304 answers for them, and so does the standings
    # stamp (standings, ratings, player pages, seasons).
    tables_bump(table_ids=players_tables(player_ids))
    standings_changed()


def players_tables(player_ids: list[int]) -> set[int]:
    """Every table these players sat at: each table of their filed matches has its all-time
    total (one row per player and table, written with every filing), and the matches not
    filed (open or discarded: few) are found by the status index."""
    # Not through every seat: a long career's seats, joined to their matches, made
    # PostgreSQL read every match of the league (tens of ms in a merge).
    tables = set(
        AllTimeTotal.objects.filter(player_id__in=player_ids).values_list("table_id", flat=True)
    )
    # Every status but filed, named: "not filed" reads every match.
    others = [status for status in Match.Status if status != Match.Status.FILED]
    unfiled = Seat.objects.filter(player_id__in=player_ids, match__status__in=others)
    tables.update(unfiled.values_list("match__table_id", flat=True).order_by().distinct())
    return tables


def player_name_clean(name: str) -> str:
    """A name as stored (see rules.names.clean_name), or a RuleError saying what is wrong."""
    try:
        return clean_name(name)
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None


def player_name_available(*, name: str, player_id: int | None = None) -> str:
    """A name as stored for this player (None: a new one), or a RuleError: unclean or taken."""
    name = player_name_clean(name)
    holders = Player.objects.filter(key=name_key(name))
    if player_id is not None:
        holders = holders.exclude(pk=player_id)
    holder = holders.first()
    if holder is not None:
        raise RuleError(PLAYER_NAME_TAKEN, name=holder.name)
    # Nor the name the public reads of another player (results.public_names refuses the
    # same the other way round): the public would take one for the other.
    others = Player.objects.exclude(public_name="")
    if player_id is not None:
        others = others.exclude(pk=player_id)
    key = name_key(name)
    if any(name_key(other) == key for other in others.values_list("public_name", flat=True)):
        raise RuleError(PLAYER_NAME_TAKEN, name=name)
    if reads_as_a_record(name, hidden=False):
        raise RuleError(NAME_POSES_AS_A_RECORD, name=name)
    return name


def players_resolve(*, names: Sequence[str]) -> list[Player]:
    """The league's players for these names (created as first written), in the same order."""
    wanted = {name_key(name): name for name in names}

    def existing() -> dict[str, Player]:
        return {player.key: player for player in Player.objects.filter(key__in=wanted)}

    found = existing()
    missing = [Player(name=name, key=key) for key, name in wanted.items() if key not in found]
    for player in missing:
        # A known player keeps the name; a new one may not read as an erased record.
        if reads_as_a_record(player.name, hidden=False):
            raise RuleError(NAME_POSES_AS_A_RECORD, name=player.name)
    if missing:
        # Another table may create the same new player at this moment: let the unique
        # index pick one row and read it back instead of failing.
        Player.objects.bulk_create(missing, ignore_conflicts=True)
        found = existing()
    return [found[name_key(name)] for name in names]


@transaction.atomic
def player_rename(*, player_id: int, name: str, by: User) -> Player:
    """Give a player a new name; a name another player has (in any case) is refused."""
    require_organiser(by, refusal=PLAYERS_ARE_THE_ORGANISERS)
    player = player_lock(player_id)
    was = player.name
    # The same rules as a new player's name, and no other player may read the same.
    player.name = player_name_available(name=name, player_id=player.pk)
    player_pages_refresh([player.pk])
    # A new key takes the row's strongest lock: only once the stamp is held (player_lock).
    player.save(update_fields=["name", "key"])
    if player.name != was:
        # The admin's history keeps the earlier name, for whoever asks who this was, and
        # for an erasure, which takes every name the record has had.
        _log(by, player, CHANGE, player_renamed_message(was, player))
    return player


def player_renamed_message(was: str, player: Player) -> str:
    """The admin's history line of a rename (the app's or the admin's own)."""
    return f"Renamed {logged_name(was, player.pk)} to {logged_name(player.name, player.pk)}."


# The ids moved back are read this many at a time (databases cap a statement's parameters).
ID_CHUNK = 500


def _chunks(ids: Sequence[int]) -> list[list[int]]:
    return [list(ids[i : i + ID_CHUNK]) for i in range(0, len(ids), ID_CHUNK)]


def _players_moved(model: type[Seat | Tap], *, keep_id: int, drop_id: int) -> list[int]:
    """Give keep every seat or tap of drop; their ids, in order (what the merge keeps)."""
    # One statement that says which rows it moved (RETURNING: SQLite 3.35+, PostgreSQL),
    # where reading the ids first read every one of drop's rows twice.
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)
    # Concrete fields always have a column (the stubs allow None for any field).
    player, pk = (
        qn(cast("str", cast("Field", model._meta.get_field(name)).column))
        for name in ("player", "id")
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {player} = %s WHERE {player} = %s RETURNING {pk}",  # noqa: S608 (names from the model, values as parameters)
            [keep_id, drop_id],
        )
        return sorted(pk for (pk,) in cursor.fetchall())


def _swapped(field: str, *, keep: Player, drop: Player) -> Case:
    """A match's player in field, keep where it was drop (for an UPDATE)."""
    return Case(
        When(**{field: drop}, then=Value(keep.pk)), default=F(field), output_field=BigIntegerField()
    )


def _log(by: User, obj: Model, flag: int, message: str) -> None:
    """One line of the admin's history of obj, naming who did it."""
    LogEntry.objects.log_actions(
        user_id=cast("int", by.pk), queryset=[obj], action_flag=flag, change_message=message,
        single_object=True,
    )  # fmt: skip


@transaction.atomic
def player_merge(
    *,
    keep_id: int,
    other_name: str,
    by: User,
    other_id: int | None = None,
    show_hidden: bool = False,
) -> PlayerMerge:
    """Make the record called other_name part of keep; the PlayerMerge says what moved."""
    # Its seats, taps, wins, dealt games, tallies and head-to-head move, its rating history
    # is replayed as keep's, and the record goes. What moved is kept (PlayerMerge) so that
    # player_merge_undo can give it back. other_id: the record the host confirmed, refused
    # if the name is another's by now. show_hidden: the host confirmed that a hidden
    # record's results go public under keep's name; refused without it (checked on the
    # locked rows, so a record hidden since the confirmation page is never published).
    require_organiser(by, refusal=PLAYERS_ARE_THE_ORGANISERS)
    keep, drop = players_to_merge(
        keep_id=keep_id, other_name=other_name, other_id=other_id, lock=True
    )
    if not show_hidden and merge_shows_hidden(keep=keep, drop=drop):
        raise RuleError(
            MERGE_SHOWS_HIDDEN,
            code=Refusal.MERGE_SHOWS_HIDDEN,
            name=drop.name,
            shown=keep.shown_name(real=False),
        )
    player_pages_refresh([keep.pk, drop.pk])
    # The record keeps exactly the seats and taps that moved, for the undo.
    seat_ids = _players_moved(Seat, keep_id=keep.pk, drop_id=drop.pk)
    tap_ids = _players_moved(Tap, keep_id=keep.pk, drop_id=drop.pk)
    record = PlayerMerge.objects.create(
        kept=keep,
        absorbed_id=drop.pk,
        absorbed_name=drop.name,
        absorbed=json.loads(serializers.serialize("json", [drop]))[0]["fields"],
        seat_ids=seat_ids,
        tap_ids=tap_ids,
        merged_by_id=cast("int", by.pk),
    )
    # One statement for both: a match drop won and dealt first is rewritten once.
    Match.objects.filter(Q(winner=drop) | Q(first_dealer=drop)).update(
        winner=_swapped("winner", keep=keep, drop=drop),
        first_dealer=_swapped("first_dealer", keep=keep, drop=drop),
    )
    # Not moved: the replay below writes keep's rating change of every match of the merged
    # career, numbered along it, from its first. Deleting them is cheaper than moving them,
    # which rewrote every row and its index entries.
    RatingChange.objects.filter(player=drop).delete()
    players_merged(keep_id=keep.pk, drop_id=drop.pk)
    schedule.ratings_merged(keep=keep, dropped_id=drop.pk)
    said = (
        f"Merged {logged_name(drop.name, drop.pk)} into {logged_name(keep.name, keep.pk)}, "
        f"merge #{record.pk}."
    )
    _log(by, keep, CHANGE, said)
    _log(by, drop, DELETION, said)
    _log(by, record, ADDITION, said)
    try:
        drop.delete()
    except ProtectedError:
        # Only a finals night's rows still name drop (its finalist, or a heat's winner):
        # the whole merge is rolled back with this refusal.
        raise RuleError(MERGE_DROPS_FINALIST, name=drop.name, keep=keep.name) from None
    return record


def _restore(record: PlayerMerge) -> Player:
    """The absorbed row written back as it was, with its id (a raw save: no field is
    recomputed). Fields added to Player since the merge take their defaults."""
    stored = {
        "model": Player._meta.label_lower,
        "pk": record.absorbed_id,
        "fields": record.absorbed,
    }
    (restored,) = serializers.deserialize("python", [stored], ignorenonexistent=True)
    restored.save()
    return cast("Player", restored.object)


@transaction.atomic
def player_merge_undo(*, merge_id: int, by: User) -> PlayerMerge:
    """Take a merge back: the absorbed record comes back as it was, with what moved."""
    # Exactly the seats and taps that moved come back (and the wins and deals of those
    # matches); matches filed since stay with whoever played them. Both players' aggregates
    # are counted afresh and the ratings replayed from the first match given back.
    require_organiser(by, refusal=PLAYERS_ARE_THE_ORGANISERS)
    record = PlayerMerge.objects.select_for_update().filter(pk=merge_id).first()
    if record is None:
        raise RuleError(MERGE_NOT_FOUND)
    if record.undone_at is not None:
        raise RuleError(MERGE_ALREADY_UNDONE, code=Refusal.ALREADY_UNDONE)
    keep = Player.objects.select_for_update(no_key=True).filter(pk=record.kept_id).first()
    if keep is None:
        raise RuleError(UNDO_KEPT_GONE, name=record.absorbed_name)
    holder = Player.objects.filter(
        Q(key=name_key(record.absorbed_name)) | Q(pk=record.absorbed_id)
    ).first()
    if holder is not None:
        raise RuleError(UNDO_NAME_TAKEN, name=holder.name, absorbed=record.absorbed_name)
    player_pages_refresh([keep.pk])
    drop = _restore(record)
    for chunk in _chunks(record.seat_ids):
        Seat.objects.filter(pk__in=chunk, player=keep).update(player=drop)
    for chunk in _chunks(record.tap_ids):
        Tap.objects.filter(pk__in=chunk, player=keep).update(player=drop)
    # What else each match given back says of the player follows its seat.
    given_back = Seat.objects.filter(player=drop).values("match_id")
    Tap.objects.filter(match_id__in=given_back, player=keep).update(player=drop)
    Match.objects.filter(pk__in=given_back, winner=keep).update(winner=drop)
    Match.objects.filter(pk__in=given_back, first_dealer=keep).update(first_dealer=drop)
    # The replay writes the restored player's rating changes (as after the merge).
    RatingChange.objects.filter(match_id__in=given_back, player=keep).delete()
    tallies.tallies_refresh(player_ids=[keep.pk, drop.pk])
    players_recount(player_ids=[keep.pk, drop.pk])
    schedule.ratings_unmerged(restored_id=drop.pk)
    record.undone_at, record.undone_by_id = timezone.now(), by.pk
    record.save(update_fields=["undone_at", "undone_by"])
    said = (
        f"Undid merge #{record.pk}: {logged_name(drop.name, drop.pk)} is a record of its own "
        f"again, apart from {logged_name(keep.name, keep.pk)}."
    )
    _log(by, keep, CHANGE, said)
    _log(by, drop, ADDITION, said)
    _log(by, record, CHANGE, said)
    return record
