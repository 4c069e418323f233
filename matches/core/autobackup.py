"""The league backs itself up with nothing to start: after each table closes and once a night
(the first request or close after noon, the night's start), a copy checked as restore checks
it goes into BACKUP_DIR, in a thread of its own so no request waits for it. A file lock in
the folder keeps two copies from being written at once, across uvicorn's worker processes too.

Names say what a copy is: brag-<night>-nightly.<ext> and
brag-<night>-close-<HHMMSS>-table<id>.<ext>, the night being the date its noon began.
Kept: the 14 latest nightly copies, the first nightly copy of every month, and the
after-close copies of the two latest nights that have any."""

import contextlib
import datetime
import fcntl
import logging
import re
import shutil
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connections
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.core import kept
from matches.core.backups import BackupError, backup_suffix, backup_write
from matches.rules.nights import NIGHT_STARTS, night_start

logger = logging.getLogger(__name__)

NIGHTLY_KEPT = 14
CLOSE_NIGHTS_KEPT = 2
# A close's copy waits this long for another copy to finish before giving up (logged).
LOCK_WAIT_SECONDS = 300.0
# A request that found no nightly copy and could not make one looks again this much later.
RETRY_SECONDS = 60.0

NAME = re.compile(
    r"^brag-(?P<night>\d{4}-\d{2}-\d{2})-"
    r"(?:(?P<nightly>nightly)|close-(?P<at>\d{6})-table(?P<table>\d+))"
    r"\.(?:sqlite3|dump)$"
)
PARTIAL_PREFIX = ".auto-"
LOCK_NAME = ".lock"
FAILURE_NAME = ".last-failure"


@dataclass(frozen=True)
class Backup:
    path: Path
    night: datetime.date
    nightly: bool
    size: int
    written: datetime.datetime

    @property
    def name(self) -> str:
        return self.path.name


def backup_folder() -> Path:
    return Path(settings.BACKUP_DIR)


def backups_list(folder: Path | None = None) -> list[Backup]:
    """The automatic copies in the folder, newest first; other files are not ours."""
    folder = folder or backup_folder()
    found = []
    with contextlib.suppress(FileNotFoundError):
        for path in folder.iterdir():
            match = NAME.match(path.name)
            if match is None or not path.is_file():
                continue
            stat = path.stat()
            found.append(
                Backup(
                    path=path,
                    night=datetime.date.fromisoformat(match["night"]),
                    nightly=bool(match["nightly"]),
                    size=stat.st_size,
                    written=datetime.datetime.fromtimestamp(stat.st_mtime, tz=datetime.UTC),
                )
            )
    return sorted(found, key=lambda backup: (backup.written, backup.name), reverse=True)


def backups_to_keep(backups: Iterable[Backup]) -> set[Path]:
    """The retention rule: the 14 latest nightly copies, the first nightly copy of each
    month, and every after-close copy of the two latest nights with after-close copies."""
    backups = list(backups)
    nightly = sorted((b for b in backups if b.nightly), key=lambda b: b.night, reverse=True)
    keep = {b.path for b in nightly[:NIGHTLY_KEPT]}
    first_of_month: dict[tuple[int, int], Backup] = {}
    for backup in nightly:  # latest first: each month ends with its earliest night
        first_of_month[(backup.night.year, backup.night.month)] = backup
    keep |= {b.path for b in first_of_month.values()}
    closes = [b for b in backups if not b.nightly]
    nights = sorted({b.night for b in closes}, reverse=True)[:CLOSE_NIGHTS_KEPT]
    keep |= {b.path for b in closes if b.night in nights}
    return keep


def backups_prune(folder: Path | None = None) -> list[Path]:
    """Delete the copies the retention rule does not keep; returns them."""
    backups = backups_list(folder)
    keep = backups_to_keep(backups)
    gone = [b.path for b in backups if b.path not in keep]
    for path in gone:
        path.unlink(missing_ok=True)
    return gone


def automatic_backups_off() -> str | None:
    """Why no automatic copy is made, in the reader's language, or None when they are on."""
    if not settings.BACKUP_AUTO:
        return _("Automatic backups are off (BRAG_BACKUP_AUTO=0).")
    vendor = connections["default"].vendor
    if vendor == "postgresql":
        for tool in ("pg_dump", "pg_restore"):
            if shutil.which(tool) is None:
                return _(
                    "%(tool)s is not installed: automatic backups are off. Install "
                    "PostgreSQL's client tools (Debian: apt-get install postgresql-client)."
                ) % {"tool": tool}
    elif vendor != "sqlite":
        return _("No backup method for %(vendor)s: automatic backups are off.") % {"vendor": vendor}
    return None


def last_failure(folder: Path | None = None) -> str | None:
    """What the last automatic copy that failed said, until one succeeds again."""
    try:
        return ((folder or backup_folder()) / FAILURE_NAME).read_text().strip() or None
    except OSError:
        return None


@contextlib.contextmanager
def _folder_lock(folder: Path, *, wait: float) -> Iterator[bool]:
    """Holds the folder's lock (yields True) or, after waiting up to wait seconds, yields
    False. flock: released by the kernel if the process dies, across processes."""
    with open(folder / LOCK_NAME, "a") as handle:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.2)
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _now() -> datetime.datetime:
    # The one clock here, so a test can move it to another night.
    return timezone.now()


def _night(now: datetime.datetime) -> datetime.date:
    return night_start(now).date()


def _nightly_name(night: datetime.date) -> str:
    return f"brag-{night.isoformat()}-nightly{backup_suffix()}"


def _nightly_exists(folder: Path, night: datetime.date) -> bool:
    # A folder that cannot be read has none: the copy then fails, and says why.
    try:
        return (folder / _nightly_name(night)).is_file()
    except OSError:
        return False


def backup_run(*, table_id: int | None = None, wait: float = 0.0) -> Path | None:
    """Under the folder's lock: tonight's nightly copy if there is none yet, else (after a
    close, table_id) the close's own copy; then the retention rule. Returns the new copy, or
    None when nothing was due, the lock stayed held or the copy failed (logged)."""
    if automatic_backups_off() is not None:
        return None
    folder = backup_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with _folder_lock(folder, wait=wait) as held:
            if not held:
                if table_id is not None:
                    logger.error("No copy after table %s closed: another copy held on.", table_id)
                return None
            # Only the lock's holder writes partial files: any left are from a killed run.
            for stale in folder.glob(f"{PARTIAL_PREFIX}*"):
                stale.unlink(missing_ok=True)
            return _write_due(folder, table_id)
    except OSError as error:
        _failed(folder, f"Cannot use the backup folder {folder}: {error.strerror}.")
        return None


def _write_due(folder: Path, table_id: int | None) -> Path | None:
    now = _now()
    night = _night(now)
    if not _nightly_exists(folder, night):
        name = _nightly_name(night)
    elif table_id is not None:
        at = timezone.localtime(now).strftime("%H%M%S")
        name = f"brag-{night.isoformat()}-close-{at}-table{table_id}{backup_suffix()}"
    else:
        return None
    path = folder / name
    try:
        backup_write(path, partial_prefix=PARTIAL_PREFIX)
    except BackupError as error:
        _failed(folder, str(error))
        return None
    (folder / FAILURE_NAME).unlink(missing_ok=True)
    backups_prune(folder)
    return path


def _failed(folder: Path, message: str) -> None:
    logger.error("Automatic backup failed: %s", message)
    stamp = timezone.localtime(_now()).strftime("%Y-%m-%d %H:%M")
    with contextlib.suppress(OSError):
        (folder / FAILURE_NAME).write_text(f"{stamp} {message}\n")


def _start(**kwargs) -> None:
    if not settings.BACKUP_IN_BACKGROUND:
        backup_run(**kwargs)
        return
    thread = threading.Thread(target=_in_thread, kwargs=kwargs, name="brag-backup", daemon=True)
    try:
        thread.start()
    except RuntimeError:  # out of threads: the request it follows must still be answered
        logger.exception("Automatic backup not started")


def _in_thread(**kwargs) -> None:
    try:
        backup_run(**kwargs)
    except Exception:
        logger.exception("Automatic backup failed")
    finally:
        # The thread's own connections: nothing else closes them.
        connections.close_all()


def backup_after_close(*, table_id: int) -> None:
    """After a close commits: a copy holding it (tonight's nightly one if none is made yet),
    written by a thread of its own. It waits for a copy under way rather than skip."""
    if settings.BACKUP_AUTO:
        _start(table_id=table_id, wait=LOCK_WAIT_SECONDS)


class _Looked:
    """When this process next looks for tonight's nightly copy (a timestamp): on every
    request before that it costs one comparison."""

    next_look = 0.0
    lock = threading.Lock()

    @classmethod
    def forget(cls) -> None:
        cls.next_look = 0.0


kept.register(_Looked.forget)


def backup_nightly_if_due() -> None:
    """On each request: starts tonight's nightly copy when there is none yet."""
    moment = _now()
    now = moment.timestamp()
    if now < _Looked.next_look or not settings.BACKUP_AUTO:
        return
    with _Looked.lock:
        if now < _Looked.next_look:
            return
        night = _night(moment)
        if _nightly_exists(backup_folder(), night):
            noon = datetime.datetime.combine(night + datetime.timedelta(1), NIGHT_STARTS)
            _Looked.next_look = timezone.make_aware(noon).timestamp()
            return
        # Looked at again a little later: by then the copy started here (or in another
        # process, holding the lock) is there, or this one failed and is tried again.
        _Looked.next_look = now + RETRY_SECONDS
    _start()
