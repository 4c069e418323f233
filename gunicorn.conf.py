"""gunicorn's settings for every way we run it (it reads ./gunicorn.conf.py on its own; flags
on the command line, such as --bind and --workers, still win). docs/operating.md says why
these workers."""

import contextlib
import errno
import functools
import logging
import os
import socket
import time

from gunicorn.workers.gthread import ThreadWorker

# One process per worker, a few threads each, and connections kept alive: a spectator's page
# polls every 3 s over the connection it already has (browsers keep them for minutes, and a
# reverse proxy keeps its own to us), instead of the sync worker's new TCP connection per
# poll. The threads share the process's kept renderings and overlap the database's round
# trips; the GIL keeps the CPU work one core's worth, so a "worker" is still one process.
# (worker_class is set below: gthread, with a deadline for reading a request.)
threads = 4
# Longer than the 3 s poll, so the next poll finds its connection still open.
keepalive = 5
# Open connections one worker holds (idle kept-alive ones cost a file descriptor, no thread).
worker_connections = 10000

# How long a client has to send a whole request (its line, headers and body) once its first
# byte arrived. gthread reads a request on one of the worker's threads with a blocking socket
# and no limit of its own, so a client trickling a byte every few seconds held that thread
# for as long as it liked (gunicorn's `timeout` below is the worker's heartbeat: it never
# ends a request). An honest request on the pub's wifi takes well under a second; its
# body is at most 64 KiB (RequestBodyLimitMiddleware refuses more from the headers).
REQUEST_TIMEOUT = float(os.environ.get("BRAG_REQUEST_TIMEOUT", "10"))


class RequestTooSlow(TimeoutError):
    """The client did not send its request within REQUEST_TIMEOUT. Its errno tells gunicorn
    to close the connection as it does one the client reset: no traceback in the log (a
    client trickling on purpose would fill it), our warning instead."""

    def __init__(self) -> None:
        super().__init__(errno.ECONNRESET, f"request not received within {REQUEST_TIMEOUT:g} s")


class _Deadline:
    """The client's socket as the request parser reads it: every read waits only until the
    request's deadline. Writes (the answer) use the socket itself and are not limited."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.deadline = 0.0

    def restart(self) -> None:
        self.deadline = time.monotonic() + REQUEST_TIMEOUT

    def recv(self, size: int) -> bytes:
        remaining = self.deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise TimeoutError
            self.sock.settimeout(remaining)
            return self.sock.recv(size)
        except TimeoutError:
            logging.getLogger("gunicorn.error").warning(
                "Closed a connection from %s: no whole request within %g s",
                _peer(self.sock),
                REQUEST_TIMEOUT,
            )
            # No more reading from it: gthread closes a connection gracefully, on its main
            # thread, reading what the client still sends for up to 2 s, which a trickle
            # would fill (every connection of the worker waiting meanwhile).
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RD)
            raise RequestTooSlow() from None
        finally:
            with contextlib.suppress(OSError):
                self.sock.settimeout(None)  # blocking again, as gthread expects

    def __getattr__(self, name: str):
        return getattr(self.sock, name)


def _peer(sock: socket.socket) -> str:
    try:
        return str(sock.getpeername()[0])
    except OSError:
        return "a client"


def _init_with_deadline(conn, init) -> None:
    # gthread calls the connection's init() before reading each request on it (a kept-alive
    # connection's next request too): the deadline starts there. HTTP/2 (TLS only) has no
    # unreader here; gunicorn bounds its streams with `timeout`.
    init()
    unreader = getattr(conn.parser, "unreader", None)
    if unreader is None or not hasattr(unreader, "sock"):
        return
    if not isinstance(unreader.sock, _Deadline):
        unreader.sock = _Deadline(unreader.sock)
    unreader.sock.restart()


class DeadlineThreadWorker(ThreadWorker):
    """gunicorn's gthread worker, with a deadline for reading each request."""

    def handle(self, conn):
        if "init" not in vars(conn):
            conn.init = functools.partial(_init_with_deadline, conn, conn.init)
        return super().handle(conn)


worker_class = DeadlineThreadWorker
# The worker's heartbeat: a worker silent this long (stuck, not merely busy) is restarted.
timeout = 30
# On a restart (a deployment), requests under way get this long to finish.
graceful_timeout = 15
