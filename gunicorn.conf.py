"""gunicorn's settings for every way we run it (it reads ./gunicorn.conf.py on its own; flags
on the command line, such as --bind and --workers, still win). docs/operating.md says why
these workers."""

import contextlib
import errno
import functools
import gc
import logging
import os
import re
import selectors
import socket
import sys
import time
from collections import OrderedDict
from concurrent import futures
from datetime import datetime

from gunicorn.http import wsgi as gunicorn_wsgi
from gunicorn.workers.gthread import TConn, ThreadWorker

# One process per worker, a few threads each, and connections kept alive: a spectator's page
# polls every 3 s over the connection it already has (browsers keep them for minutes, and a
# reverse proxy keeps its own to us), instead of the sync worker's new TCP connection per
# poll. The worker's main thread reads every request whole and answers spectators' polls
# itself (DeadlineThreadWorker below); the pool threads run Django for the rest and overlap
# its database round trips. Two: the GIL keeps the CPU work one core's worth, so more threads
# only take the GIL from the main thread more often (in the spectator load test one worker
# held 5,000 with four, 6,000 with two).
threads = 2
# Longer than the 3 s poll, so the next poll finds its connection still open.
keepalive = 5
# Open connections one worker holds (idle kept-alive ones cost a file descriptor, no thread).
worker_connections = 10000

# How long a client has to send a whole request (its line, headers and body) once its first
# byte arrived. The worker's main loop gathers a request until it is whole and closes the
# connection when it is late; a body too big to gather is read on a pool thread, whose reads
# stop at the same deadline (gthread's own reads have none, and gunicorn's `timeout` below is
# the worker's heartbeat: it never ends a request). An honest request on the pub's wifi takes
# well under a second; its body is at most 64 KiB (RequestBodyLimitMiddleware refuses more
# from the headers).
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
        peer = sock.getpeername()
    except OSError:
        return "a client"
    # An address and port; a Unix socket's peer has no name ("").
    return str(peer[0]) if isinstance(peer, tuple) else "a client"


def _init_with_deadline(conn, init) -> None:
    # gthread calls the connection's init() before reading each request on it (a kept-alive
    # connection's next request too): the deadline starts there, unless the worker's loop
    # gathered the request's start and set it from its first byte. HTTP/2 (TLS only) has no
    # unreader here; gunicorn bounds its streams with `timeout`.
    init()
    deadline = vars(conn).pop("deadline", None)
    unreader = getattr(conn.parser, "unreader", None)
    if unreader is None or not hasattr(unreader, "sock"):
        return
    if not isinstance(unreader.sock, _Deadline):
        unreader.sock = _Deadline(unreader.sock)
    unreader.sock.restart()
    if deadline is not None:
        unreader.sock.deadline = deadline


# A request is gathered by the worker's main thread until it is whole: its head up to this
# size and a body up to the app's REQUEST_BODY_MAX_BYTES (it refuses more from the headers).
# Bigger ones go to a pool thread as they are, which reads the rest within the deadline.
_HEAD_LIMIT = 65536
_READ_BYTES = 65536
# What one worker holds of unfinished requests at once; past it, a request waits on a pool
# thread as gthread would (many clients trickling big requests cost memory, not the worker).
GATHER_BUDGET = 64 * 1024 * 1024
# A poll on the main thread waits for the GIL while a pool thread renders: at most this long
# each time, instead of Python's 5 ms.
SWITCH_INTERVAL = 0.0005
# Header names after which a request is not a spectator's plain GET (a body, an upgrade).
_NOT_PLAIN = (b"\ncontent-length:", b"\ntransfer-encoding:", b"\nexpect:", b"\nupgrade:")
_CONTENT_LENGTH = re.compile(rb"\ncontent-length:[ \t]*(\d{1,12})[ \t]*(?:\r|$)")


class _Gathered:
    """What a connection sent of its next request so far. The head's end is looked for only
    in what is new, and the head read once: a request trickled in tiny pieces costs the
    loop no more than one sent whole."""

    def __init__(self, body_limit: int) -> None:
        self.body_limit = body_limit
        self.data = bytearray()
        self.head_end = -1
        self.head = b""  # lowercased, once it is in
        self.size: int | None = None  # the whole request's, once the head is in

    def add(self, data: bytes) -> bool:
        """Add what came; whether the request is whole, or as much as is gathered here."""
        start = max(0, len(self.data) - 3)
        self.data += data
        if self.head_end < 0:
            self.head_end = self.data.find(b"\r\n\r\n", start)
            if self.head_end < 0:
                return len(self.data) >= _HEAD_LIMIT
            self.head = bytes(self.data[: self.head_end]).lower()
            self.size = _request_size(self.head, self.body_limit)
            if self.size is not None:
                self.size += self.head_end + 4
        return self.size is None or len(self.data) >= self.size

    @property
    def plain_get(self) -> bool:
        """Whether the bytes are exactly one whole GET with no body."""
        return (
            self.data.startswith(b"GET ")
            and len(self.data) == self.head_end + 4
            and not any(name in self.head for name in _NOT_PLAIN)
        )


def _request_size(head: bytes, body_limit: int) -> int | None:
    """The body's size the head declares, if it is one to gather (None: a chunked body, an
    Expect, or a body too big, which a pool thread reads)."""
    if b"\ntransfer-encoding:" in head or b"\nexpect:" in head:
        return None
    length = _CONTENT_LENGTH.search(head)
    if length is None:
        return 0
    return int(length.group(1)) if int(length.group(1)) <= body_limit else None


class _Collected:
    """What gunicorn's Response writes, kept as bytes to send without blocking."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.parts.append(bytes(data))


class _AlreadyRead:
    """A connection's parser for one call of gthread's handle(): it yields the request the
    main thread already read (or raises what reading it raised), then is the parser again."""

    def __init__(self, conn, request, error: BaseException | None) -> None:
        self.conn, self.parser, self.request, self.error = conn, conn.parser, request, error

    def __next__(self):
        self.conn.parser = self.parser
        if self.error is not None:
            raise self.error
        return self.request

    def __getattr__(self, name: str):
        return getattr(self.parser, name)


class _Connections:
    """gthread's queue of waiting connections (kept-alive or new), oldest first, with the
    deque operations it uses. A deque's remove() scans it: 40 us for every request with
    4,000 viewers' connections kept; here it is one step."""

    def __init__(self) -> None:
        self.conns: OrderedDict = OrderedDict()

    def append(self, conn) -> None:
        self.conns[conn] = None

    def remove(self, conn) -> None:
        del self.conns[conn]

    def popleft(self):
        return self.conns.popitem(last=False)[0]

    def __getitem__(self, index: int):
        if index != 0:
            raise IndexError(index)
        return next(iter(self.conns))

    def __len__(self) -> int:
        return len(self.conns)

    def __iter__(self):
        return iter(list(self.conns))


class DeadlineThreadWorker(ThreadWorker):
    """gunicorn's gthread worker, whose main thread gathers each request whole before a pool
    thread sees it, and answers spectators' polls itself.

    gthread hands every request to a pool thread as soon as its first byte comes, and back
    to the main loop after the answer. For a spectator's poll (every 3 s, from every viewer)
    those hand-offs, two threads waking and the GIL passed between them and the loop, cost
    more than the poll itself. So the main loop reads what each connection sends, without
    blocking, until the request is whole (at most REQUEST_TIMEOUT from its first byte: a
    client trickling bytes holds no thread). One plain GET is asked of matches.web.polls,
    which knows the whole stack's own answer to a poll it has seen in this state (headers
    and body); the loop sends it without blocking, and a pool thread finishes an answer the
    socket takes only in part. A poll it has seen in another state (after a tap, every
    viewer's next one) is rendered through the whole stack right here, which teaches polls
    the answer for the polls behind it: handed to the pool, each of them would take the
    whole stack, and the GIL from this loop, until one had taught it. Anything else goes
    to a pool thread as gthread would, with the bytes already read. A connection stays
    registered with the loop's selector while the loop answers on it: no system calls to
    leave it and come back. TLS and HTTP/2 connections are gthread's alone."""

    polls = None  # matches.web.polls.SpectatorPolls around the application, once loaded

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.keepalived_conns = _Connections()
        self.pending_conns = _Connections()
        self.gathering = _Connections()  # connections part of whose request came
        self.gathered_bytes = 0  # what they sent so far
        self.stamp_rows: dict[int, tuple] = {}

    def init_process(self):
        sys.setswitchinterval(SWITCH_INTERVAL)
        super().init_process()

    def load_wsgi(self):
        super().load_wsgi()
        # Django is set up by now (brag_tables.wsgi). The early answers wrap the application
        # for the pool threads too.
        from django.conf import settings

        from matches.web import polls

        self.polls = self.wsgi = polls.SpectatorPolls(self.wsgi)
        self.body_limit = settings.REQUEST_BODY_MAX_BYTES
        # What the process loaded stays: the collector's full passes need not walk it.
        gc.freeze()

    def handle(self, conn):
        _with_deadline(conn)
        return super().handle(conn)

    def accept(self, listener):
        if self._gthread_only():
            return super().accept(listener)  # the handshake or preface on a pool thread
        try:
            sock, client = listener.accept()
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        conn = TConn(self.cfg, sock, client, listener.getsockname())  # not blocking
        # Its first byte within the deadline (gthread: 5 s on a thread, then keepalive).
        conn.timeout = time.monotonic() + REQUEST_TIMEOUT
        self.pending_conns.append(conn)
        self.poller.register(
            sock, selectors.EVENT_READ, functools.partial(self.on_pending_socket_readable, conn)
        )

    def wait_for_and_dispatch_events(self, timeout):
        # The stamps read for the requests this wait returns with, all begun before them.
        self.stamp_rows: dict[int, tuple] = {}
        super().wait_for_and_dispatch_events(timeout)

    def _gthread_only(self) -> bool:
        return self.cfg.is_ssl or self.cfg.http2_cleartext in ("prior-knowledge", "both")

    def on_pending_socket_readable(self, conn, client):
        conn.data_ready = True
        self._gather_or_close(conn, self.pending_conns)

    def on_client_socket_readable(self, conn, client):
        self._gather_or_close(conn, self.keepalived_conns)

    def on_gathering_readable(self, conn, client):
        self._gather_or_close(conn, None)

    def _gather_or_close(self, conn, waited_in: "_Connections | None") -> None:
        # An error here would end the worker (this is its loop): that connection ends instead.
        try:
            if waited_in is not None:
                waited_in.remove(conn)
            self.gather(conn, waiting=waited_in is None)
        except Exception:
            self.log.exception("Error reading a request from %s", _peer(conn.sock))
            with contextlib.suppress(KeyError):
                self.gathering.remove(conn)
            self._forget_gathered(conn)
            self._unwatch(conn)
            self.nr_conns -= 1
            conn.close()

    def gather(self, conn, waiting: bool = False) -> None:
        """Read what a connection (registered with the selector) sent; once its request is
        whole, answer it here or give it to a pool thread. waiting: it is in gathering."""
        if conn.is_http2 or self._gthread_only():
            self._unwatch(conn)
            self.enqueue_req(conn)
            return
        try:
            data = conn.sock.recv(_READ_BYTES)
        except BlockingIOError:  # woken for nothing: wait in gathering, from now
            data = None
        except OSError:
            data = b""
        if data == b"":  # the client closed it
            if waiting:
                self.gathering.remove(conn)
            self._forget_gathered(conn)
            self._unwatch(conn)
            self.nr_conns -= 1
            conn.close()
            return
        gathered = conn.gathered = getattr(conn, "gathered", None) or _Gathered(self.body_limit)
        if not waiting:
            conn.timeout = time.monotonic() + REQUEST_TIMEOUT  # from its first byte
        whole = gathered.add(data or b"")
        self.gathered_bytes += len(data or b"")
        if not whole and self.gathered_bytes <= GATHER_BUDGET:
            if not waiting:
                self.gathering.append(conn)
                self._watch(conn, self.on_gathering_readable)
            return
        if waiting:
            self.gathering.remove(conn)
        self._forget_gathered(conn)
        request_bytes = bytes(gathered.data)
        TConn.init(conn)  # a new connection's parser
        conn.parser.unreader.unread(request_bytes)
        conn.deadline = conn.timeout  # for a pool thread reading the rest (handle())
        if not whole or not self.alive or not gathered.plain_get:
            self._unwatch(conn)
            self.enqueue_req(conn)
            return
        try:
            request = next(conn.parser)  # from the bytes gathered: no reading
        except Exception as error:  # StopIteration and the parser's refusals: handle()'s
            self._to_pool(conn, None, error)
            return
        self.serve_here(conn, request)

    def serve_here(self, conn, request) -> None:
        """Answer a spectator's poll on this (the main) thread, or give it to a pool thread."""
        poll = _Poll(conn, request)
        try:
            poll.environ = poll.prepare(self.cfg)
            answer, seen = self.polls.look(poll.environ, self.stamp_rows)
            # A poll of a new state is rendered here too: the same polls behind it would
            # otherwise each take a pool thread, and the GIL from this loop, until one of
            # them had taught polls the answer.
            sent = self._answer(poll, answer) if answer is not None or seen else None
        except Exception:  # nothing was sent: the pool thread meets it again, and answers
            sent = None  # as gunicorn does (its 500, logged)
        if sent is None:
            self._to_pool(conn, request, None)
        else:
            self._send(conn, *sent)

    def murder_pending(self):
        super().murder_pending()
        now = time.monotonic()
        while self.gathering and self.gathering[0].timeout <= now:
            conn = self.gathering.popleft()
            self.log.warning(
                "Closed a connection from %s: no whole request within %g s",
                _peer(conn.sock),
                REQUEST_TIMEOUT,
            )
            self._forget_gathered(conn)
            self._unwatch(conn)
            self.nr_conns -= 1
            conn.close()

    def _forget_gathered(self, conn) -> None:
        gathered = getattr(conn, "gathered", None)
        if gathered is not None:
            self.gathered_bytes -= len(gathered.data)
            conn.gathered = None

    def _watch(self, conn, callback) -> None:
        # Registered already, only the callback changes: no system call.
        data = functools.partial(callback, conn)
        try:
            self.poller.modify(conn.sock, selectors.EVENT_READ, data)
        except KeyError:
            self.poller.register(conn.sock, selectors.EVENT_READ, data)

    def _unwatch(self, conn) -> None:
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.poller.unregister(conn.sock)

    def _to_pool(self, conn, request, error: BaseException | None) -> None:
        self._unwatch(conn)
        conn.parser = _AlreadyRead(conn, request, error)
        self.enqueue_req(conn)

    def _answer(self, poll: "_Poll", answer: tuple | None) -> tuple[bytes, bool]:
        # gthread's handle_request, written into bytes: the answer known, or the
        # application's own. Then whether the connection is kept.
        request, response, environ = poll.request, poll.response, poll.environ
        self.cfg.pre_request(self, request)
        started = datetime.now()
        self.nr += 1
        if self.nr >= self.max_requests:
            if self.alive:
                self.log.info("Autorestarting worker after current request.")
                self.alive = False
            response.force_close()
        if (
            not self.alive
            or not self.cfg.keepalive
            or len(self.keepalived_conns) >= self.max_keepalived
        ):
            response.force_close()
        try:
            if answer is None:
                self._run_application(response, environ)
            else:
                status, headers, body = answer
                response.start_response(status, list(headers))
                response.write(body)
                response.close()
        finally:
            self.log.access(response, request, environ, datetime.now() - started)
            try:
                self.cfg.post_request(self, request, environ, response)
            except Exception:
                self.log.exception("Exception in post_request hook")
        return b"".join(poll.collected.parts), not response.should_close()

    def _run_application(self, response, environ: dict) -> None:
        answer = self.wsgi(environ, response.start_response)
        try:
            for part in answer:
                response.write(part)
            response.close()
        finally:
            if hasattr(answer, "close"):
                answer.close()

    def _send(self, conn, data: bytes, keep: bool) -> None:
        try:
            conn.sock.setblocking(False)
            sent = conn.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:  # the client went away
            self._unwatch(conn)
            self.nr_conns -= 1
            conn.close()
            return
        if sent < len(data):
            # The socket's buffer is full (a slow reader): a pool thread waits for it.
            self._unwatch(conn)
            future = self.tpool.submit(self._send_rest, conn, data[sent:], keep)
            future.add_done_callback(
                lambda done: self.method_queue.defer(self.finish_request, conn, done)
            )
        elif keep and self.alive and not conn.parser.unreader.buf.getvalue():
            # gthread's finish_request for a kept connection, staying registered.
            conn.set_timeout()
            self.keepalived_conns.append(conn)
            self._watch(conn, self.on_client_socket_readable)
        else:
            self._unwatch(conn)
            future = futures.Future()
            future.set_result(keep)
            self.finish_request(conn, future)

    def _send_rest(self, conn, data: bytes, keep: bool) -> bool:
        # A client that stops reading its polls' answers gets REQUEST_TIMEOUT to read this
        # one, not the pool thread for ever.
        try:
            conn.sock.settimeout(REQUEST_TIMEOUT)
            conn.sock.sendall(data)
        except OSError:  # TimeoutError too
            return False
        finally:
            with contextlib.suppress(OSError):
                conn.sock.setblocking(True)
        return self._keepalive_after(conn, keep)


class _Poll:
    """A request the main thread read: its connection, and gunicorn's response to it, which
    writes into collected."""

    def __init__(self, conn, request) -> None:
        self.conn, self.request = conn, request
        self.collected = _Collected()
        self.response = None
        self.environ: dict = {}

    def prepare(self, cfg) -> dict:
        self.response, environ = gunicorn_wsgi.create(
            self.request, self.collected, self.conn.client, self.conn.server, cfg
        )
        environ["wsgi.multithread"] = True
        return environ


def _with_deadline(conn) -> None:
    if "init" not in vars(conn):
        conn.init = functools.partial(_init_with_deadline, conn, conn.init)


worker_class = DeadlineThreadWorker
# The worker's heartbeat: a worker silent this long (stuck, not merely busy) is restarted.
timeout = 30
# On a restart (a deployment), requests under way get this long to finish.
graceful_timeout = 15
