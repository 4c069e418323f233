"""Each serving process's replayer: a daemon thread that runs the ratings replay's steps
(steps.py) after the answers, so nothing extra has to be started beside uvicorn or
`make run`.

It starts with the process's first request, runs the steps back to back while a replay is
pending and then sleeps until a write in this process schedules more (replay_scheduled) or
a minute passes: a replay another process left (it crashed, it was restarted) is picked up
once its lease lapses. One process replays at a time; the others find it busy."""

import logging
import os
import threading
import time
import uuid

from django.conf import settings
from django.db import connection

from matches.core import warm
from matches.ratings.schedule import replay_scheduled
from matches.ratings.steps import Step, replay_step

logger = logging.getLogger(__name__)

IDLE_SECONDS = 60.0
BUSY_SECONDS = 5.0
ERROR_SECONDS = 2.0

_wake = threading.Event()
_stopping = threading.Event()
_start_lock = threading.Lock()
_thread: threading.Thread | None = None


def _owner() -> str:
    return f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _run() -> None:
    owner = _owner()
    while not _stopping.is_set():
        _wake.clear()
        try:
            outcome, _ = replay_step(owner=owner)
        except Exception:  # a locked or lost database: log, wait, try again
            logger.exception("The ratings replay's step failed; it will be tried again")
            connection.close()
            _wake.wait(ERROR_SECONDS)
            continue
        if outcome in (Step.STEPPED, Step.MOVED):
            # No pause: a step holds the write lock only for its writes, so taps at other
            # tables get it while the next step reads and rates (outside any transaction).
            # A pause after each step slowed a replay under load a great deal: the thread
            # waited again for the GIL behind the request threads each time it woke.
            time.sleep(0)  # let a waiting request thread have the GIL
            continue
        connection.close()  # idle: no connection held open between replays
        _wake.wait(BUSY_SECONDS if outcome is Step.BUSY else IDLE_SECONDS)
    connection.close()


def stop() -> None:
    """Stop this process's replayer and wait for it (tests: its connection must close
    before the test database goes)."""
    global _thread
    thread = _thread
    if thread is None:
        return
    _stopping.set()
    _wake.set()
    thread.join(timeout=30)
    _thread = None
    _stopping.clear()


def ensure_started(**_kwargs) -> None:
    """Start this process's replayer if it is not running (a forked worker inherits no
    thread). Cheap enough for every request."""
    global _thread
    if settings.RATINGS_REPLAY != "background":
        return
    if _thread is not None and _thread.is_alive():
        return
    with _start_lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_run, name="ratings-replay", daemon=True)
            _thread.start()


# Started before the first request: a replay a restart interrupted resumes at once.
warm.register(ensure_started)


def wake(**_kwargs) -> None:
    """A write in this process moved the replay back: step now, not at the next check."""
    ensure_started()
    _wake.set()


def connect() -> None:
    """Called once from the app's ready(): start with the first request, wake on a write."""
    from django.core.signals import request_started

    request_started.connect(ensure_started, dispatch_uid="ratings-replay-start")
    replay_scheduled.connect(wake, dispatch_uid="ratings-replay-wake")
