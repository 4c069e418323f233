"""The versions every cached answer is keyed on, and the reads that pair a page with one.

- A table's version (Table.version) moves with every write on the table, in the write's own
  transaction; table_bump (a locked table), table_bump_returning (the tap, locking with the
  bump) and tables_bump (the tables showing a renamed player or an admin edit) are the only
  ways to move it.
- The standings stamp (StandingsStamp.version) moves with everything the standings show;
  standings_changed is the only way to move it, and its row lock orders league-wide writes.
- The restore epoch (StandingsStamp.epoch) changes only on `manage.py restore`, which sets
  every version back to the backup's: a tag names the epoch too.

A Stamped is a table row read together with the epoch and the league's version in one
statement; a Snapshot is what a read returned from one version of a table."""

import uuid
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import F

from matches.core import changes
from matches.models import Seat, StandingsStamp, Table


@dataclass(frozen=True)
class Stamped:
    """A table row with the restore epoch (as hex, "0" before any stamp exists) and the
    league's version read in the same statement: every tag built from it names one state."""

    table: Table
    epoch: str
    league: int
    # Whether the writing account holds a role at the table's venue (None: not asked).
    hosted: bool | None = None

    @property
    def pk(self) -> int:
        return self.table.pk

    @property
    def version(self) -> int:
        return self.table.version


def _hex(epoch: object) -> str:
    # As stored: a UUID from PostgreSQL, its hex from SQLite, None without a stamp row.
    return epoch.hex if isinstance(epoch, uuid.UUID) else str(epoch or "0")


def standings_changed() -> None:
    """Move the standings stamp on, so cached standings pages and their ETags are rebuilt.
    Call it (inside the write's transaction) for anything those pages show: a match filed or
    unfiled, a player renamed or merged, a table launched, renamed or closed.
    The row update also locks the stamp until the transaction ends: writes that must happen
    league-wide in order (filing with its ratings, seasons) take their turn on it."""
    # The row is missing only from a database nothing was ever written to: the update alone
    # is one round trip for every write that moves it (a crowning had two here).
    notifies = changes.listens()
    if notifies:
        # The NOTIFY rides on the update (PostgreSQL sends it at commit): no round trip more.
        with connection.cursor() as cursor:
            cursor.execute(_BUMP_STAMP_PG, [changes.CHANNEL, changes.payload(league=True)])
            moved = cursor.rowcount
    else:
        moved = StandingsStamp.objects.filter(pk=1).update(version=F("version") + 1)
    if not moved:
        StandingsStamp.objects.bulk_create([StandingsStamp(pk=1)], ignore_conflicts=True)
        StandingsStamp.objects.filter(pk=1).update(version=F("version") + 1)
        changes.changed(league=True)
        return
    changes.changed(league=True, notified=notifies)


_BUMP_STAMP_PG = (
    'UPDATE "matches_standingsstamp" SET "version" = "version" + 1 WHERE "id" = 1'
    " RETURNING pg_notify(%s, %s)"
)


def standings_stamp() -> str:
    """Changes whenever any standings change; one read of a one-row table."""
    row = StandingsStamp.objects.values_list("epoch", "version").first()
    return f"{row[0].hex}.{row[1]}" if row else "0"


def table_bump(table: Table, *fields: str) -> None:
    """Move a locked table's version on, saving fields of it in the same statement: pollers'
    ETags are built on the version, so every write on the table calls this (or
    table_bump_returning) in its transaction."""
    table.version += 1
    table.save(update_fields=["version", *fields])
    changes.changed(table_ids=[table.pk])


def tables_bump(*, table_ids: Iterable[int] = (), player_ids: Iterable[int] = ()) -> None:
    """Move on the version of these tables, and of every table these players sat at (their
    names show there), in the database: for writes that hold no table's lock. Tables are
    locked before the standings stamp, in the order a tap takes them (table, then stamp):
    call it before standings_changed, so two writes never wait in a circle."""
    # The tables first, then the update by id: as one statement's subquery, PostgreSQL
    # walked every match of every table, a cost that grows with the whole league.
    players = list(player_ids)
    ids = set(table_ids)
    if players:
        seated_at = Seat.objects.filter(player_id__in=players).values_list("match__table_id")
        # order_by(): the seats' default ordering would join the tables and make every
        # seat distinct, where only the table ids are wanted.
        ids.update(table_id for (table_id,) in seated_at.order_by().distinct())
    if not ids:
        return
    notifies = changes.listens()
    if notifies:
        with connection.cursor() as cursor:
            cursor.execute(
                _BUMP_TABLES_PG, [sorted(ids), changes.CHANNEL, changes.payload(table_ids=ids)]
            )
    else:
        Table.objects.filter(pk__in=sorted(ids)).update(version=F("version") + 1)
    changes.changed(table_ids=ids, notified=notifies)


# PostgreSQL sends one notice for equal payloads of one transaction: a row each is one.
_BUMP_TABLES_PG = (
    'UPDATE "matches_table" SET "version" = "version" + 1 WHERE "id" = ANY(%s)'
    " RETURNING pg_notify(%s, %s)"
)


# Standard SQL (SQLite 3.35+, PostgreSQL): quoted names, as both spell them. The restore
# epoch and the standings stamp's version come back with the row (as stamped_table reads
# them): the tag of the state this write leaves needs no read of its own, and a plain tap
# finds what the table has filed as this process last read it (play.filings).
# On PostgreSQL the subqueries read the statement's snapshot: an UPDATE that waited for the
# row's lock (a rename or a crowning at this table ahead of it) returns the row as that
# write left it but the stamp as it was before. "seen" (the version in that snapshot, one
# less than the row's; SQLite's subqueries see the row as updated) tells: if the row moved
# meanwhile, the stamp is read again.
_BUMP_TABLE = (
    'UPDATE "matches_table" SET "version" = "version" + 1 WHERE "id" = %s RETURNING *,'
    ' (SELECT s."epoch" FROM "matches_standingsstamp" s WHERE s."id" = 1) AS "epoch",'
    ' (SELECT s."version" FROM "matches_standingsstamp" s WHERE s."id" = 1) AS "league",'
    ' (SELECT v."version" FROM "matches_table" v WHERE v."id" = %s) AS "seen"'
)
# Whether an account holds a role at the table's venue: the write's right to the table, read
# by the bump itself rather than by a statement of its own.
_HOSTED_COLUMN = (
    ', EXISTS (SELECT 1 FROM "matches_venuerole" r WHERE r."user_id" = %s'
    ' AND r."venue_id" = "matches_table"."venue_id") AS "hosted"'
)
# PostgreSQL: the NOTIFY for the screens rides on the bump (delivered at commit).
_NOTIFY_COLUMN = ', pg_notify(%s, %s) AS "notified"'
_STAMP_SQL = 'SELECT "epoch", "version" FROM "matches_standingsstamp" WHERE "id" = 1'


def table_bump_returning(*, table_id: int, user_id: int | None = None) -> Stamped | None:
    """Lock a table by moving its version on, in one statement that returns the row with the
    epoch and the league's version (the lock and the state the write leaves, without a
    second round trip), and whether user_id holds a role at its venue (when given); None
    when there is no such table. A write refused after this raises inside its transaction,
    so the bump is rolled back with it."""
    postgres = changes.listens()
    sql, params = _BUMP_TABLE, list[object]([table_id, table_id])
    if user_id is not None:
        sql, params = sql + _HOSTED_COLUMN, [*params, user_id]
    if postgres:
        sql += _NOTIFY_COLUMN
        params += [changes.CHANNEL, changes.payload(table_ids=[table_id])]
    row = next(iter(Table.objects.raw(sql, params)), None)
    if row is None:
        return None
    changes.changed(table_ids=[table_id], notified=postgres)
    # raw() sets the extra columns of the SQL as attributes the model does not declare.
    extra = cast(Any, row)
    epoch, league, seen = extra.epoch, extra.league, extra.seen
    del extra.epoch, extra.league, extra.seen  # the Stamped carries them, not the model
    hosted = None
    if user_id is not None:
        hosted = bool(extra.hosted)
        del extra.hosted
    if postgres:
        del extra.notified
    if seen < row.version - 1:
        # The bump waited behind another write to the table (never on SQLite, whose writes
        # take turns whole), which may have moved the stamp after the bump's snapshot.
        with connection.cursor() as cursor:
            cursor.execute(_STAMP_SQL)
            stamp = cursor.fetchone()
        epoch, league = stamp if stamp is not None else (None, None)
    return Stamped(row, _hex(epoch), league or 0, hosted)


# Plain SQL for the two reads that are a poll's whole work: building the ORM query cost more
# than running it. Table names as the models declare them (Meta.db_table's default).
_VERSION_SQL = "SELECT version FROM matches_table WHERE id = %s"
# The restore epoch and the league's version come with the row: a table's version goes back
# to the backup's on a restore, so a tag names the epoch too; the TV shows league ratings,
# which filings at other tables change.
_STAMPED_SQL = (
    "SELECT {columns}, s.epoch AS epoch, s.version AS league"
    " FROM matches_table t LEFT JOIN matches_standingsstamp s ON s.id = 1 WHERE t.id = %s"
)


def table_version(*, table_id: int) -> int | None:
    """The table's change counter, or None when there is no such table."""
    with connection.cursor() as cursor:
        cursor.execute(_VERSION_SQL, [table_id])
        row = cursor.fetchone()
    return None if row is None else row[0]


@dataclass(frozen=True)
class _RowReader:
    """The stamped read's SQL and the table fields' converters, worked out once per database
    connection: Table.objects.raw() did it on every call, which cost four times the query
    (every spectator poll runs this read)."""

    sql: str
    attnames: list[str]
    converters: list[tuple[int, Any, list]]  # (position, column, converters), as the ORM's

    @classmethod
    def build(cls, wrapper: Any) -> "_RowReader":
        fields = Table._meta.concrete_fields
        columns = ", ".join(f"t.{wrapper.ops.quote_name(f.column)}" for f in fields)
        converters = []
        for position, model_field in enumerate(fields):
            column = model_field.get_col("t")
            found = wrapper.ops.get_db_converters(column) + model_field.get_db_converters(wrapper)
            if found:
                converters.append((position, column, found))
        return cls(_STAMPED_SQL.format(columns=columns), [f.attname for f in fields], converters)

    def stamped(self, wrapper: Any, row: tuple) -> Stamped:
        values = list(row[: len(self.attnames)])
        for position, column, converters in self.converters:
            for convert in converters:
                values[position] = convert(values[position], column, wrapper)
        table = Table.from_db(wrapper.alias, self.attnames, values)
        epoch, league = row[len(self.attnames) :]
        return Stamped(table, _hex(epoch), league or 0)


_row_readers: "weakref.WeakKeyDictionary[Any, _RowReader]" = weakref.WeakKeyDictionary()


def stamped_table(*, table_id: int, lock: bool = False) -> Stamped | None:
    """The table row with the restore epoch and the league's version, in one indexed read;
    with lock, locked until the transaction ends (PostgreSQL; SQLite's IMMEDIATE
    transaction already holds the write lock). The row comes as the ORM would build it
    (Table.from_db, its converters)."""
    row = stamped_row(table_id=table_id, lock=lock)
    return None if row is None else stamped_from_row(row)


def stamped_row(*, table_id: int, lock: bool = False) -> tuple | None:
    """stamped_table's read as the database returns it, before any conversion: the same
    row means the same Stamped (stamped_from_row), which a poll need not build again."""
    wrapper = connections[DEFAULT_DB_ALIAS]  # this thread's own connection
    sql = _row_reader(wrapper).sql
    if lock and wrapper.features.has_select_for_update:
        sql += " FOR UPDATE OF t"
    with wrapper.cursor() as cursor:
        cursor.execute(sql, [table_id])
        row = cursor.fetchone()
    return None if row is None else tuple(row)


def stamped_from_row(row: tuple) -> Stamped:
    """The Stamped a row of stamped_row() reads as."""
    wrapper = connections[DEFAULT_DB_ALIAS]
    return _row_reader(wrapper).stamped(wrapper, row)


def _row_reader(wrapper: Any) -> _RowReader:
    reader = _row_readers.get(wrapper)
    if reader is None:
        reader = _row_readers[wrapper] = _RowReader.build(wrapper)
    return reader


T = TypeVar("T")
SNAPSHOT_TRIES = 3


@dataclass(frozen=True)
class Snapshot(Generic[T]):
    """What read(table) returned, all of it from the state at stamped.version. tries counts
    the reads (1: the first was clean; SNAPSHOT_TRIES + 1: it took the locked read)."""

    stamped: Stamped
    content: T
    tries: int

    @property
    def table(self) -> Table:
        return self.stamped.table


def table_snapshot(
    *, table_id: int, read: Callable[[Table], T], first: Stamped | None = None
) -> Snapshot[T] | None:
    """read(table) from one consistent state of the table, or None: no such table.

    Every write bumps the table's version in the transaction that makes the change
    (table_bump), so when the version read after read() equals the one read with the row
    before it, no write committed in between and every query in read() saw the same state.
    Otherwise read again (a tap landed mid-read); after SNAPSHOT_TRIES, read under the
    table's row lock, which every write on the table takes first. first is the row (from
    stamped_table) when the caller already read it for the ETag."""
    stamped = first or stamped_table(table_id=table_id)
    for tries in range(1, SNAPSHOT_TRIES + 1):
        if stamped is None:
            return None
        content = read(stamped.table)
        if table_version(table_id=table_id) == stamped.version:
            return Snapshot(stamped, content, tries)
        stamped = stamped_table(table_id=table_id)
    with transaction.atomic():
        stamped = stamped_table(table_id=table_id, lock=True)
        if stamped is None:
            return None
        return Snapshot(stamped, read(stamped.table), SNAPSHOT_TRIES + 1)
