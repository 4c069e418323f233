"""Who hears that a table or the league changed: the screens following them (the stream hub,
brag_tables/streams.py). Every version move (core.stamp) calls changed() inside the write's
transaction, and the news goes out only when that transaction commits:
- in this process, to the listeners added here (on_commit, in the writer's thread);
- on PostgreSQL, to every app server on the database: a NOTIFY sent in the write's own
  transaction, which PostgreSQL delivers at commit to each LISTENing connection (listen())
  and drops with a rolled-back write;
- on SQLite, other processes (another worker, a `manage.py` command) are found by reading
  versions() now and then: one small read for every table a process follows."""

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from django.db import DEFAULT_DB_ALIAS, connections, transaction

log = logging.getLogger(__name__)

CHANNEL = "brag_changes"
# A NOTIFY payload must stay under 8,000 bytes: a change naming more tables than fit (a
# rename of a player who sat at hundreds) is sent as "everything".
_PAYLOAD_MAX = 7000


@dataclass(frozen=True, slots=True)
class Change:
    """What one committed write moved: these tables' versions, the league's, or (a restore,
    a payload too long to name) everything. venues: venues whose tables moved, as a read of
    versions finds them (a write names its tables only; a venue's board maps them)."""

    tables: frozenset[int] = frozenset()
    league: bool = False
    everything: bool = False
    venues: frozenset[int] = frozenset()

    def touches(self, table_id: int | None) -> bool:
        """Whether a page following table_id (None: a league page) may show something new."""
        if self.everything or self.league:
            return True
        return table_id is not None and table_id in self.tables

    def encode(self) -> str:
        if self.everything:
            return "*"
        text = ",".join(str(pk) for pk in sorted(self.tables))
        if self.league:
            text += ";l"
        return text if len(text) <= _PAYLOAD_MAX else "*"

    @classmethod
    def decode(cls, payload: str) -> "Change":
        if payload == "*":
            return cls(everything=True)
        tables, _, league = payload.partition(";")
        try:
            ids = frozenset(int(pk) for pk in tables.split(",") if pk)
        except ValueError:  # not ours: take it as news of everything, never as none
            return cls(everything=True)
        return cls(ids, league == "l")


Listener = Callable[[Change], None]
_listeners: list[Listener] = []


def add_listener(listener: Listener) -> None:
    """Call listener(change) after every write of this process commits (in its thread)."""
    _listeners.append(listener)


def remove_listener(listener: Listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def payload(*, table_ids: Iterable[int] = (), league: bool = False) -> str:
    """The NOTIFY payload naming these tables (and the league): for a write that sends it in
    a statement of its own (pg_notify(CHANNEL, payload) in its RETURNING) and then calls
    changed(..., notified=True)."""
    return Change(frozenset(table_ids), league).encode()


def changed(*, table_ids: Iterable[int] = (), league: bool = False, notified: bool = False) -> None:
    """Tell everyone following them that these tables (and the league) changed, when the
    current transaction commits; at once outside one. notified: the write's own statement
    already sent the NOTIFY (one round trip fewer for a tap)."""
    change = Change(frozenset(table_ids), league)
    if not change.tables and not league:
        return
    connection = connections[DEFAULT_DB_ALIAS]
    if listens() and not notified:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, change.encode()])
    if _listeners:
        transaction.on_commit(lambda: _tell(change))


def everything_changed() -> None:
    """After a restore: every page shows another state."""
    if listens():
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, "*"])
    if _listeners:
        transaction.on_commit(lambda: _tell(Change(everything=True)))


def _tell(change: Change) -> None:
    for listener in list(_listeners):
        try:
            listener(change)
        except Exception:  # one listener's failure must not undo the write's answer
            log.exception("A change listener failed")


@dataclass(frozen=True, slots=True)
class Versions:
    """The league's stamp (restore epoch and version), the version of each table asked
    for that exists, and of each venue asked for its tables' count and summed versions
    (versions only grow, so the pair moves with any write at the venue and with a table
    launched there): two of these differ exactly where something changed."""

    epoch: str
    league: int
    tables: dict[int, int]
    venues: dict[int, tuple[int, int]] = field(default_factory=dict)

    def changes_since(self, before: "Versions") -> Change:
        if self.epoch != before.epoch:
            return Change(everything=True)
        moved = {pk for pk, version in self.tables.items() if before.tables.get(pk) != version}
        moved |= before.tables.keys() - self.tables.keys()
        venues = {pk for pk, state in self.venues.items() if before.venues.get(pk) != state}
        venues |= before.venues.keys() - self.venues.keys()
        return Change(frozenset(moved), self.league != before.league, venues=frozenset(venues))


# One statement for the stamp and the tables (a row each, the stamp's with no table id):
# a hub runs it every second, so plain SQL, not two ORM queries. Names as the models declare.
_VERSIONS_SQL = (
    'SELECT NULL, "epoch", "version" FROM "matches_standingsstamp" WHERE "id" = 1'
    ' UNION ALL SELECT "id", NULL, "version" FROM "matches_table" WHERE "id" IN ({ids})'
)


# A venue's tables: how many, and their versions summed (a venue's board follows them all).
_VENUE_VERSIONS_SQL = (
    'SELECT "venue_id", COUNT(*), SUM("version") FROM "matches_table"'
    ' WHERE "venue_id" IN ({ids}) GROUP BY "venue_id"'
)


def versions(table_ids: Iterable[int], venue_ids: Iterable[int] = ()) -> Versions:
    """One read (two with venues): the stamp, the versions of these tables and the state of
    these venues' tables (a closed connection is opened; the reads autocommit)."""
    ids = sorted({int(pk) for pk in table_ids}) or [0]
    venue_list = sorted({int(pk) for pk in venue_ids})
    epoch, league, tables, venues = "0", 0, {}, {}
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(_VERSIONS_SQL.format(ids=", ".join(["%s"] * len(ids))), ids)
        for table_id, stamp_epoch, version in cursor.fetchall():
            if table_id is None:
                epoch, league = str(stamp_epoch), version
            else:
                tables[table_id] = version
        if venue_list:
            marks = ", ".join(["%s"] * len(venue_list))
            cursor.execute(_VENUE_VERSIONS_SQL.format(ids=marks), venue_list)
            venues = {pk: (count, int(total)) for pk, count, total in cursor.fetchall()}
    return Versions(epoch, league, tables, venues)


def table_venues(table_ids: Iterable[int]) -> dict[int, int]:
    """The venue of each of these tables that exists (a table's venue never changes)."""
    ids = sorted({int(pk) for pk in table_ids})
    if not ids:
        return {}
    marks = ", ".join(["%s"] * len(ids))
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(f'SELECT "id", "venue_id" FROM "matches_table" WHERE "id" IN ({marks})', ids)  # noqa: S608
        return dict(cursor.fetchall())


def venue_id(slug: str) -> int | None:
    """The id of the venue with this slug, if there is one."""
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute('SELECT "id" FROM "matches_venue" WHERE "slug" = %s', [slug])
        row = cursor.fetchone()
    return None if row is None else row[0]


def listens() -> bool:
    """Whether this database delivers other servers' changes (NOTIFY, listen() below): the
    backend the settings name, PostgreSQL."""
    return connections[DEFAULT_DB_ALIAS].settings_dict["ENGINE"] == _POSTGRESQL


_POSTGRESQL = "django.db.backends.postgresql"


async def listen(
    on_change: Callable[[Change], None], on_connected: Callable[[], Awaitable[None]]
) -> None:
    """PostgreSQL: hear every committed change of every app server, for ever; on_connected
    runs after each (re)connection, which may have missed changes meanwhile. A lost
    connection is opened again after a pause."""
    import psycopg  # only PostgreSQL needs it

    settings = connections[DEFAULT_DB_ALIAS].settings_dict
    params = {
        "dbname": settings["NAME"],
        "user": settings["USER"] or None,
        "password": settings["PASSWORD"] or None,
        "host": settings["HOST"] or None,
        "port": settings["PORT"] or None,
        **{k: v for k, v in settings["OPTIONS"].items() if k in _LIBPQ_OPTIONS},
    }
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(
                autocommit=True, **{k: v for k, v in params.items() if v is not None}
            )
            async with conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                await on_connected()
                async for notice in conn.notifies():
                    on_change(Change.decode(notice.payload))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("Lost the database's change notices; listening again in 1 s")
            await asyncio.sleep(1)


# What of OPTIONS libpq reads as a connection parameter (the rest is Django's own).
_LIBPQ_OPTIONS = {
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "connect_timeout",
    "application_name",
    "options",
    "service",
    "passfile",
    "target_session_attrs",
}
