"""What a table has filed, as its board shows it: tonight's totals and the latest filed
matches. Only a crowning, an undo of one, a rename or a merge changes them, and every one of
those moves the standings stamp in its transaction; so a plain tap (most taps) answers from
what this process read at the same stamp, table and night instead of reading them again.

Per process, and safe with any number of processes: the key names the state in the
database (the restore epoch, the stamp's version) and the night, never "the latest"."""

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from matches.core.kept import Kept
from matches.core.stamp import Stamped
from matches.models import Match, Seat, Table
from matches.play import selectors, tonight
from matches.rules.nights import night_start

KEPT_TABLES = 256
kept = Kept(KEPT_TABLES)


@dataclass(frozen=True)
class Filed:
    tonight: list[tonight.TonightRow]
    recent: list[Match]


def _key(stamped: Stamped, now: datetime.datetime) -> tuple:
    return (stamped.table.pk, stamped.epoch, stamped.league, night_start(now))


def _read(table: Table, now: datetime.datetime) -> Filed:
    return Filed(
        tonight=tonight.table_tonight(table=table, now=now),
        recent=selectors.recent_filed(table=table),
    )


def filed(*, stamped: Stamped, now: datetime.datetime) -> Filed:
    """The table's filed results for its board at now. stamped carries the restore epoch and
    the stamp's version the table was read or written with (core.stamp)."""
    key = _key(stamped, now)
    found = kept.get(key)
    if found is None:
        found = _read(stamped.table, now)
        kept.put(key, found)
    return found


def filed_with(
    *, stamped: Stamped, now: datetime.datetime, match: Match, seats: Sequence[Seat]
) -> Filed:
    """A crowning's answer, in its transaction: the table's filed results with match, which
    it has just filed (winner set; seats: its seats, places set, players loaded). From what
    this process kept at the stamp the crowning locked the table at (usually the tap before
    it read them), plus the match: the same rows as reading them again, which happens when
    nothing was kept. Not kept itself: the crowning moved the stamp on."""
    before = kept.get(_key(stamped, now))
    if before is None or match.filed_at is None or match.filed_at < night_start(now):
        # (A crowning filed just before noon would count tonight on the night just ended.)
        return _read(stamped.table, now)
    return Filed(
        tonight=tonight.tonight_with(
            mode=stamped.table.mode, rows=before.tonight, match=match, seats=seats
        ),
        recent=selectors.recent_with(before.recent, match),
    )
