"""The ratings replayer: a loop of the replay's steps (steps.py) in a process of its own,
`manage.py ratings_worker`, which each serving process starts and watches (supervisor.py).
Rating is CPU-bound Python: in the serving process it would hold the interpreter that
answers requests and feeds the streams.

It runs the steps back to back while a replay is pending, then waits until its parent
writes a byte to its stdin (a write there scheduled a replay) or POLL_SECONDS pass: a
replay that another process scheduled (a management command, another app server) or left
(it crashed, it was restarted) is picked up once its lease lapses. One process replays at a
time, under the lease; the others find it busy. When the parent closes the pipe (it stopped,
or died) the worker ends after the step under way."""

import logging
import os
import select
import uuid

from django.db import connection

from matches.ratings.steps import Step, replay_step

logger = logging.getLogger(__name__)

POLL_SECONDS = 10.0
BUSY_SECONDS = 5.0
ERROR_SECONDS = 2.0


def owner_name() -> str:
    """This process's name on the replay's lease."""
    return f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _wait(wakes: int | None, seconds: float) -> bool:
    """Wait up to seconds for a wake on the pipe wakes (None: just wait); False once the
    pipe has closed (the parent has gone)."""
    if wakes is None:
        select.select([], [], [], seconds)
        return True
    ready, _, _ = select.select([wakes], [], [], seconds)
    # Whatever wakes are queued count as one: read them all, up to the end of the pipe.
    return not ready or os.read(wakes, 4096) != b""


def run(*, wakes: int | None) -> None:
    """Replay whenever a replay is pending, until the pipe wakes (a file descriptor) closes;
    with None, until the process is stopped."""
    owner = owner_name()
    while True:
        try:
            outcome, _ = replay_step(owner=owner)
        except Exception:  # a locked or lost database: log, wait, try again
            logger.exception("The ratings replay's step failed; it will be tried again")
            connection.close()
            if not _wait(wakes, ERROR_SECONDS):
                return
            continue
        if outcome in (Step.STEPPED, Step.MOVED):
            # No pause: a step holds the write lock only for its writes. Only a look at the
            # pipe, so that a stop does not wait for the whole replay.
            if not _wait(wakes, 0):
                return
            continue
        connection.close()  # idle: no connection held open between replays
        if not _wait(wakes, BUSY_SECONDS if outcome is Step.BUSY else POLL_SECONDS):
            return
