"""What a table has filed, as its board shows it: tonight's totals and the latest filed
matches. Only a crowning, an undo of one, a rename or a merge changes them, and every one of
those moves the standings stamp in its transaction; so a plain tap (most taps) answers from
what this process read at the same stamp, table and night instead of reading them again.

Per process, and safe with any number of processes: the key names the state in the
database (the restore epoch, the stamp's version) and the night, never "the latest"."""

import datetime
from dataclasses import dataclass

from matches.core.kept import Kept
from matches.core.stamp import Stamped
from matches.models import Match
from matches.play import selectors, tonight
from matches.rules.nights import night_start

KEPT_TABLES = 256
kept = Kept(KEPT_TABLES)


@dataclass(frozen=True)
class Filed:
    tonight: list[tonight.TonightRow]
    recent: list[Match]


def filed(*, stamped: Stamped, now: datetime.datetime, kept_ok: bool = True) -> Filed:
    """The table's filed results for its board at now. stamped carries the restore epoch and
    the stamp's version the table was read or written with (core.stamp). With kept_ok False
    (a crowning in this transaction has just filed a match and moved the stamp), they are
    read afresh and not kept."""
    table = stamped.table
    key = (table.pk, stamped.epoch, stamped.league, night_start(now))
    found = kept.get(key) if kept_ok else None
    if found is None:
        found = Filed(
            tonight=tonight.table_tonight(table=table, now=now),
            recent=selectors.recent_filed(table=table),
        )
        if kept_ok:
            kept.put(key, found)
    return found
