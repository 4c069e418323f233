"""Server-sent events: every page that follows live state holds a stream at
/events<the page's path> (the table page, the TV, tonight, the standings, home), answered
here on the event loop, beside Django: a stream through Django's handler would hold a thread
for its whole life (docs/architecture.md, "Push").

One hub per process. A page variant (path, language, host, scheme) is a Channel; each change
is rendered once per channel by Django itself (an anonymous htmx request of the page, sent
in-process with the ETag last sent, so an unchanged page costs a 304) and the same bytes are
written to every subscriber. Changes arrive from matches.core.changes: at once for this
process's writes, by LISTEN on PostgreSQL for every server's, and by reading the followed
versions once a second on SQLite (other processes, `manage.py` commands)."""

import asyncio
import contextlib
import contextvars
import hashlib
import io
import itertools
import logging
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.urls import Resolver404, resolve
from django.utils import translation

from matches.core import changes

log = logging.getLogger(__name__)

PREFIX = settings.BRAG_STREAM_PREFIX
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# What each followed page shows, by route name: its table's state (the table id from the
# URL), a venue's tables (the venue's slug from the URL: every table there, and a table
# launched there, which moves the league), whether the league's changes move it too, or
# (home) every change anywhere.
TABLE, VENUE, LEAGUE, ANY = "table", "venue", "league", "any"
FOLLOWED = {
    "matches:venue_board": (VENUE, True),
    # A finals night's heats and final: any table may be one, so every change wakes it (a
    # 304 when none of its tables moved).
    "matches:finals_board": (ANY, True),
    "matches:table": (TABLE, False),
    "matches:tv": (TABLE, True),
    "matches:tonight": (TABLE, True),
    "matches:table_standings": (TABLE, True),
    "matches:standings": (LEAGUE, True),
    "matches:home": (ANY, True),
}

# Pages re-rendered this often even with no change (each costs a 304 when nothing moved):
# the night turns at noon with no write, and a long replay's ratings land quietly.
REFRESH_SECONDS = 60
# SQLite: how often the followed versions are read for other processes' writes; PostgreSQL,
# whose notices are the news, reads them only as a safety net (a notice lost with its
# connection is caught up on reconnecting as well).
READ_SECONDS_SQLITE = 1.0
READ_SECONDS_POSTGRES = 15.0
# Renders at once (each is a thread of Django's handler for a few milliseconds).
RENDERS = 2
# Page variants one process follows; past it a new one polls.
CHANNELS_MAX = 2000
# Tables whose venue this process remembers (a table's venue never changes); past it the
# memory starts afresh.
VENUES_KNOWN_MAX = 100_000


def follows(path: str) -> bool:
    return path == PREFIX or path.startswith(PREFIX + "/")


def frame(event: str, data: str, event_id: str | None = None) -> bytes:
    """One server-sent event: its name, id and data (a `data:` line per line)."""
    lines = [f"event: {event}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.extend(f"data: {line}" for line in data.replace("\r", "").split("\n"))
    return ("\n".join(lines) + "\n\n").encode()


class Subscriber:
    """One open stream: the newest frame it has yet to write, and the wait for it."""

    __slots__ = ("address", "closed", "pending", "waiter")

    def __init__(self, address: str) -> None:
        self.address = address
        self.closed = False
        self.pending: bytes | None = None
        self.waiter: asyncio.Future | None = None

    def push(self, data: bytes, *, newest: bool = True) -> None:
        """Hand over a frame: a change replaces one not yet written (the newest state is
        what matters); a heartbeat waits behind anything pending."""
        if self.pending is not None and not newest:
            return
        self.pending = data
        self._wake()

    def close(self) -> None:
        self.closed = True
        self._wake()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


@dataclass(eq=False)
class Channel:
    """One variant of one followed page and its subscribers; frame is the last change sent
    (the event every new subscriber starts from) and tag its id."""

    key: tuple
    path: str
    query: bytes
    language: str
    host: bytes
    scheme: str
    scope: str
    table_id: int | None
    with_league: bool
    venue_slug: str | None = None
    venue_id: int | None = None  # read on the first stream (None until then, or no venue)
    subscribers: set[Subscriber] = field(default_factory=set)
    frame: bytes | None = None
    tag: str | None = None
    rendering: asyncio.Task | None = None
    dirty: bool = False

    def follows(self, change: changes.Change, venue_of: dict[int, int]) -> bool:
        """Whether change may move this page; venue_of: the venue of each table it names
        (a venue's page asks)."""
        if change.everything or self.scope == ANY:
            return True
        if change.league and self.with_league:
            return True
        if self.scope == VENUE:
            if self.venue_id is None:  # not read yet: any table may be the venue's
                return bool(change.tables or change.venues)
            if self.venue_id in change.venues:
                return True
            return any(venue_of.get(pk) == self.venue_id for pk in change.tables)
        return self.table_id is not None and self.table_id in change.tables


class Hub:
    """This process's streams."""

    def __init__(self, django: ASGIApp) -> None:
        self.django = django
        self.channels: dict[tuple, Channel] = {}
        self.streams = 0
        self.per_address: Counter[str] = Counter()
        self.heartbeats: list[set[Subscriber]] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: list[asyncio.Task] = []
        self.render_slots: asyncio.Semaphore | None = None
        self.reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brag-versions")
        self.last_versions: changes.Versions | None = None
        # The venue of each table a change named, for the venues' boards.
        self.venue_of: dict[int, int] = {}

    # --- The streams -----------------------------------------------------------------

    async def serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one stream request: a refusal, or the stream until the client leaves."""
        self._start()
        admitted = self._admit(scope)
        if isinstance(admitted, Refusal):
            await _plain(send, *admitted)
            return
        # Only what the stream needs stays referenced for its life (memory per stream).
        channel, subscriber, last_id = admitted
        del admitted
        self._join(channel, subscriber)
        try:
            if channel.venue_slug is not None and channel.venue_id is None:
                channel.venue_id = await self._venue_id(channel.venue_slug)
            # A new channel, or a page that saw another state (perhaps a newer one, on
            # another server), is rendered now: never an older state than it had.
            if channel.frame is None or (last_id is not None and last_id != channel.tag):
                await self._render_now(channel)
            if channel.tag is None:  # the page itself answers no page (404, 400...)
                await _plain(send, *NO_STREAM)
                return
            await send(_START)
            if scope["method"] == "HEAD":
                await send({"type": "http.response.body", "body": b""})
                return
            # Reconnections spread over two seconds: a restart does not bring every
            # screen back in the same instant. A ping at once: a page whose stream never
            # delivers (a buffering proxy) learns it within seconds and polls.
            retry = settings.BRAG_STREAM_RETRY_MS + random.randrange(2000)
            opening = f"retry: {retry}\n\n".encode() + _ping()
            await send({"type": "http.response.body", "body": opening, "more_body": True})
            del opening
            subscriber.pending = None  # the render above handed it over: it is sent here
            if last_id != channel.tag and channel.frame is not None:
                await send({"type": "http.response.body", "body": channel.frame, "more_body": True})
            await self._stream(subscriber, receive, send)
        except asyncio.CancelledError:
            # The server stopping ends every stream it waited for (uvicorn's graceful
            # shutdown): the stream is closed properly and the page reconnects to the next
            # server. Nothing went wrong to log.
            with contextlib.suppress(Exception):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._leave(channel, subscriber)

    def _admit(self, scope: Scope) -> "Refusal | tuple[Channel, Subscriber, str | None]":
        """The channel a stream request joins, or the answer refusing it."""
        if scope["method"] not in ("GET", "HEAD"):
            return Refusal(405, b"Method not allowed\n", [(b"allow", b"GET, HEAD")])
        request = ASGIRequest(scope, io.BytesIO())
        try:
            host = request.get_host()
        except DisallowedHost:
            return Refusal(400, b"Bad request\n")
        page = scope["path"][len(PREFIX) :] or "/"
        try:
            match = resolve(page)
        except Resolver404:
            return NO_STREAM
        followed = FOLLOWED.get(match.view_name)
        if followed is None:
            return NO_STREAM
        address = request.META.get("REMOTE_ADDR") or ""
        language = translation.get_language_from_request(request)
        query = scope.get("query_string", b"")
        key = (page, query, language, host, request.scheme)
        channel = self.channels.get(key)
        if (
            self.streams >= settings.BRAG_STREAMS_MAX
            or self.per_address[address] >= settings.BRAG_STREAMS_PER_ADDRESS
            or (channel is None and len(self.channels) >= CHANNELS_MAX)
        ):
            # The SSE spec's "do not reconnect": the page polls instead (static/js/stream.js).
            return Refusal(204, b"")
        if channel is None:
            scope_name, with_league = followed
            table_id = match.kwargs.get("table_id")
            scheme = request.scheme or "http"
            channel = Channel(
                key, page, query, language, host.encode("idna"), scheme, scope_name, table_id,
                with_league, match.kwargs.get("slug") if scope_name == VENUE else None,
            )  # fmt: skip
            self.channels[key] = channel
        return channel, Subscriber(address), request.META.get("HTTP_LAST_EVENT_ID")

    async def _stream(self, subscriber: Subscriber, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        left = asyncio.ensure_future(_disconnected(receive))
        left.add_done_callback(lambda _: subscriber.close())
        try:
            while not subscriber.closed:
                data = subscriber.pending
                if data is None:
                    subscriber.waiter = loop.create_future()
                    await subscriber.waiter
                    continue
                subscriber.pending = None
                await send({"type": "http.response.body", "body": data, "more_body": True})
        finally:
            left.cancel()

    def _join(self, channel: Channel, subscriber: Subscriber) -> None:
        channel.subscribers.add(subscriber)
        self.streams += 1
        self.per_address[subscriber.address] += 1
        random.choice(self.heartbeats).add(subscriber)

    def _leave(self, channel: Channel, subscriber: Subscriber) -> None:
        channel.subscribers.discard(subscriber)
        self.streams -= 1
        self.per_address[subscriber.address] -= 1
        if self.per_address[subscriber.address] <= 0:
            del self.per_address[subscriber.address]
        for bucket in self.heartbeats:
            bucket.discard(subscriber)
        if not channel.subscribers and channel.rendering is None:
            self.channels.pop(channel.key, None)

    # --- Changes ---------------------------------------------------------------------

    def _start(self) -> None:
        """On the first stream, in the server's loop: the heartbeats, the version reads, the
        notices and this process's own writes."""
        if self.loop is not None:
            return
        self.loop = asyncio.get_running_loop()
        self.render_slots = asyncio.Semaphore(RENDERS)
        self.heartbeats = [set() for _ in range(max(1, int(settings.BRAG_STREAM_HEARTBEAT)))]
        changes.add_listener(self._written_here)
        self.tasks = [
            _detached(self._beat()),
            _detached(self._read_versions()),
            _detached(self._refresh_all()),
        ]
        if changes.listens():
            self.tasks.append(_detached(changes.listen(self.changed, self._caught_up)))

    async def close(self) -> None:
        """The server is stopping: end every stream, so it does not wait for them."""
        changes.remove_listener(self._written_here)
        for task in self.tasks:
            task.cancel()
        for channel in list(self.channels.values()):
            for subscriber in list(channel.subscribers):
                subscriber.close()
        self.reader.shutdown(wait=False)

    def _written_here(self, change: changes.Change) -> None:
        # In the writer's thread, at its commit.
        loop = self.loop
        if loop is not None and not loop.is_closed():
            # A fresh context: the writer's (a request's, with its thread-sensitive executor
            # soon gone) must not reach the renders this schedules.
            loop.call_soon_threadsafe(self.changed, change, context=contextvars.Context())

    def changed(self, change: changes.Change) -> None:
        if change.everything or len(self.venue_of) > VENUES_KNOWN_MAX:
            self.venue_of.clear()  # a restore may bring other tables under these ids
        # Tables whose venue is not known yet: the venues' boards wait for one small read.
        unknown = change.tables - self.venue_of.keys()
        deferred = False
        for channel in list(self.channels.values()):
            if channel.scope == VENUE and unknown and not channel.follows(change, {}):
                deferred = True
            elif channel.follows(change, self.venue_of):
                self._render_soon(channel)
        if deferred:
            _detached(self._changed_at_venues(change, unknown))

    async def _changed_at_venues(self, change: changes.Change, unknown: frozenset[int]) -> None:
        """The venues' boards a change moves, once the venues of its tables are read."""
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(self.reader, _table_venues, unknown)
        except Exception:
            log.exception("Could not read the changed tables' venues")
            found = {}
        self.venue_of.update(found)
        lost = len(found) < len(unknown)  # a table not read (gone, or the read failed)
        for channel in list(self.channels.values()):
            if channel.scope == VENUE and (lost or channel.follows(change, self.venue_of)):
                self._render_soon(channel)

    async def _venue_id(self, slug: str) -> int | None:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.reader, _venue_id, slug)
        except Exception:
            log.exception("Could not read the venue of a stream")
            return None

    async def _caught_up(self) -> None:
        self.changed(changes.Change(everything=True))

    async def _read_versions(self) -> None:
        every = READ_SECONDS_POSTGRES if changes.listens() else READ_SECONDS_SQLITE
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(every)
            if not self.channels:
                self.last_versions = None
                continue
            ids = {c.table_id for c in self.channels.values() if c.table_id is not None}
            venues = {c.venue_id for c in self.channels.values() if c.venue_id is not None}
            try:
                now = await loop.run_in_executor(self.reader, _read_versions, ids, venues)
            except Exception:
                log.exception("Could not read the followed versions")
                continue
            # The first read after a page is followed is news of everything it reads: a
            # write may have landed between its first render and this read (a 304 if not).
            before = self.last_versions or changes.Versions(now.epoch, -1, {})
            self.last_versions = now
            change = now.changes_since(before)
            if change.everything or change.league or change.tables or change.venues:
                self.changed(change)

    async def _refresh_all(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            self.changed(changes.Change(everything=True))

    async def _beat(self) -> None:
        """Every second one bucket of subscribers gets its heartbeat: each stream one every
        BRAG_STREAM_HEARTBEAT seconds, spread evenly, keeping NAT and proxies open."""
        for bucket in itertools.cycle(range(len(self.heartbeats))):
            await asyncio.sleep(1)
            ping = _ping()
            for subscriber in self.heartbeats[bucket]:
                subscriber.push(ping, newest=False)

    # --- Rendering -------------------------------------------------------------------

    def _render_soon(self, channel: Channel) -> None:
        if channel.rendering is not None:
            channel.dirty = True  # rendered again once the one under way is done
            return
        assert self.loop is not None
        channel.rendering = _detached(self._render_until_clean(channel))

    async def _render_now(self, channel: Channel) -> None:
        if channel.rendering is not None:
            channel.dirty = True
            await asyncio.shield(channel.rendering)
            if channel.frame is not None:
                return
        channel.rendering = _detached(self._render_until_clean(channel))
        await asyncio.shield(channel.rendering)

    async def _render_until_clean(self, channel: Channel) -> None:
        try:
            while True:
                channel.dirty = False
                assert self.render_slots is not None
                async with self.render_slots:
                    status, tag, body = await self._render(channel)
                if status == 200:
                    # A page with no ETag of its own (home) is named by its bytes.
                    event_id = tag or '"b' + hashlib.blake2s(body, digest_size=8).hexdigest() + '"'
                    if event_id != channel.tag:
                        channel.tag = event_id
                        channel.frame = frame("swap", body.decode(), event_id)
                        for subscriber in channel.subscribers:
                            subscriber.push(channel.frame)
                elif status != 304 and channel.tag is not None:
                    # Not a page any more (a table gone) or not one to share (it set a
                    # cookie): its followers fetch it themselves.
                    channel.tag = None
                    channel.frame = frame("stale", str(status))
                    for subscriber in channel.subscribers:
                        subscriber.push(channel.frame)
                if not channel.dirty:
                    break
        except Exception:
            log.exception("Could not render %s for its stream", channel.path)
        finally:
            channel.rendering = None
            if not channel.subscribers:
                self.channels.pop(channel.key, None)

    async def _render(self, channel: Channel) -> tuple[int, str | None, bytes]:
        """The page as an anonymous htmx poll of this variant gets it, from Django itself."""
        headers = [
            (b"host", channel.host),
            (b"hx-request", b"true"),
            (b"accept-language", channel.language.encode()),
            (b"cookie", f"{settings.LANGUAGE_COOKIE_NAME}={channel.language}".encode()),
        ]
        if channel.tag is not None and channel.tag.startswith('"'):
            headers.append((b"if-none-match", channel.tag.encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": channel.scheme,
            "path": channel.path,
            "raw_path": channel.path.encode(),
            "query_string": channel.query,
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 0),
            "server": None,
        }
        answer: dict[str, Any] = {"status": 500, "headers": [], "body": []}
        sent_body = False

        async def receive() -> dict:
            nonlocal sent_body
            if not sent_body:
                sent_body = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()  # never leaves: Django stops listening when done
            return {"type": "http.disconnect"}

        async def respond(message: dict) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["headers"] = message.get("headers", [])
            elif message["type"] == "http.response.body":
                answer["body"].append(message.get("body", b""))

        await self.django(scope, receive, respond)
        head = {name.lower(): value for name, value in answer["headers"]}
        if b"set-cookie" in head:
            return 0, None, b""
        tag = head.get(b"etag")
        return answer["status"], tag.decode() if tag else None, b"".join(answer["body"])


class Refusal(NamedTuple):
    status: int
    body: bytes
    headers: list = []


NO_STREAM = Refusal(404, b"No stream here\n")
_START = {
    "type": "http.response.start",
    "status": 200,
    "headers": [
        (b"content-type", b"text/event-stream; charset=utf-8"),
        (b"cache-control", b"no-store"),
        (b"x-accel-buffering", b"no"),  # nginx: never hold events back
    ],
}


def _detached(coroutine: Coroutine[Any, Any, None]) -> asyncio.Task:
    """A task of the hub's own, in a context of its own: never one a request set up (Django's
    handler ties a thread-sensitive executor to the request's context, which ends with it:
    a render in it failed with "CurrentThreadExecutor already quit")."""
    return asyncio.get_running_loop().create_task(coroutine, context=contextvars.Context())


def _ping() -> bytes:
    return frame("ping", str(int(time.time() * 1000)))


def _read_versions(ids: set[int], venues: set[int]) -> changes.Versions:
    close_old_connections()  # a connection the database dropped, or past its age
    return changes.versions(ids, venues)


def _table_venues(ids: frozenset[int]) -> dict[int, int]:
    close_old_connections()
    return changes.table_venues(ids)


def _venue_id(slug: str) -> int | None:
    close_old_connections()
    return changes.venue_id(slug)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _plain(send: Send, status: int, body: bytes, headers: list) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"cache-control", b"no-store"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
