"""A serving process's ratings worker: `manage.py ratings_worker` (worker.py) as a child
process, started when the server starts (brag_tables.asgi's lifespan), woken when a write
here schedules a replay (replay_scheduled), started again if it dies, and stopped with the
server. Nothing more for a host to start than the server itself.

The child's stdin is a pipe from here: a byte on it wakes the child, and its end (this
process stopped or died) stops it, so no worker outlives its server."""

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from django.conf import settings
from django.db import connection

from matches.ratings.schedule import replay_scheduled

logger = logging.getLogger(__name__)

# A worker that dies is started again after this long, doubled each time it dies again
# soon after its start (a database that does not answer, say), up to the longest.
RESTART_SECONDS = 1.0
RESTART_LONGEST_SECONDS = 30.0
# A worker running this long before it died had been working: start it again at once.
HEALTHY_SECONDS = 60.0
# The pipe's end stops a worker after its step under way, well under a second.
STOP_SECONDS = 10.0


class Supervisor:
    """One serving process's ratings worker, kept running until stop()."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._watch: threading.Thread | None = None
        self.starts = 0

    @property
    def pid(self) -> int | None:
        process = self._process
        return None if process is None else process.pid

    def start(self) -> None:
        """Start the worker and the thread that starts it again whenever it dies."""
        # The database this process uses: the settings' own, or the test database a test
        # switched to (settings.py reads BRAG_DATABASE_NAME for this alone).
        env = {**os.environ, "BRAG_DATABASE_NAME": str(connection.settings_dict["NAME"])}
        self._spawn(env)
        self._watch = threading.Thread(
            target=self._keep, args=(env,), name="ratings-worker-watch", daemon=True
        )
        self._watch.start()

    def _spawn(self, env: dict[str, str]) -> None:
        manage = Path(settings.BASE_DIR) / "manage.py"
        with self._lock:
            if self._stopping.is_set():
                return
            try:
                process = subprocess.Popen(  # noqa: S603 (this Python, our own command)
                    [sys.executable, str(manage), "ratings_worker", "--supervised"],
                    stdin=subprocess.PIPE,
                    bufsize=0,
                    env=env,
                    cwd=settings.BASE_DIR,
                )
            except OSError:  # the server serves all the same; ratings wait for a restart
                logger.exception("The ratings worker could not be started")
                return
            if process.stdin is not None:
                # A wake never blocks a request: a full pipe already holds one.
                os.set_blocking(process.stdin.fileno(), False)
            self._process = process
            self.starts += 1

    def _keep(self, env: dict[str, str]) -> None:
        """Wait on the worker; start it again when it ends, unless stopping."""
        pause = RESTART_SECONDS
        while not self._stopping.is_set():
            process = self._process
            if process is None:
                return
            started = time.monotonic()
            code = process.wait()
            if self._stopping.is_set():
                return
            logger.warning("The ratings worker (pid %s) ended with %s; starting it again",
                           process.pid, code)  # fmt: skip
            pause = RESTART_SECONDS if time.monotonic() - started > HEALTHY_SECONDS else pause
            if self._stopping.wait(pause):
                return
            pause = min(pause * 2, RESTART_LONGEST_SECONDS)
            self._spawn(env)

    def wake(self) -> None:
        """Have the worker step now: a write here scheduled a replay."""
        with self._lock:
            process = self._process
            if process is None or process.stdin is None or process.poll() is not None:
                return
            # BrokenPipeError, ValueError: it is ending, and the watcher starts it again.
            with contextlib.suppress(BrokenPipeError, ValueError):
                process.stdin.write(b"\n")

    def stop(self) -> None:
        """Stop the worker and wait for it: the end of its pipe ends it after its step
        under way; a worker that does not end by then is killed."""
        self._stopping.set()
        with self._lock:
            process = self._process
            if process is not None and process.stdin is not None:
                process.stdin.close()
        if process is not None:
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGKILL)
                process.wait()
        if self._watch is not None:
            self._watch.join(timeout=STOP_SECONDS)
        with _running_lock:
            _running.discard(self)


_running: set[Supervisor] = set()
_running_lock = threading.Lock()


def supervisor_start() -> Supervisor | None:
    """Start this serving process's ratings worker, if the replay runs in the background
    (settings.RATINGS_REPLAY); the supervisor to stop at shutdown."""
    if settings.RATINGS_REPLAY != "background":
        return None
    supervisor = Supervisor()
    supervisor.start()
    with _running_lock:
        _running.add(supervisor)
    return supervisor


def wake(**_kwargs: object) -> None:
    """A write in this process moved the replay back: its worker steps now."""
    with _running_lock:
        running = list(_running)
    for supervisor in running:
        supervisor.wake()


def connect() -> None:
    """Called once from the app's ready(): wake the workers on a write."""
    replay_scheduled.connect(wake, dispatch_uid="ratings-replay-wake")
