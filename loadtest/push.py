"""make loadtest's push mode: N subscribers hold server-sent-event streams (GET /events<page
path>) while a host taps one table every 3 s; how long each tap takes to reach the last
subscriber, what the server spends per delivery, idle and per open stream.

    python loadtest/run.py --push [--subscribers 1000] [--taps 20] [--short]
                           [--database-url URL] [--client-processes K]
    python loadtest/run.py --push --two-servers --database-url postgres://…/brag_push

The subscribers are spread evenly over five pages: the tapped table's page and its TV board,
each in English and in Portuguese (Accept-Language: pt), and the home page (half of them in
Portuguese). Each is a raw asyncio connection in one of K client processes (this file run
with --client; a process holds many thousands), reading the stream as a browser's
EventSource does (retry, id, event and data lines) and noting each event's receipt time and
id. The table is ranked with six players, so most taps are not the crowning; a crowning opens
the next match on its own.

For each tap: the time from the host's answer (its response read to the end) to the last
subscriber's receipt of an event carrying that tap's table version (the stream's id and the
answer's X-Board-ETag both contain `.v<version>.`), and the median over subscribers. A
subscriber that never got version k but got a later one "slipped"; one that got neither is
"missing". The server's CPU (utime + stime from /proc) over the taps, per delivered event;
over a quiet spell with every stream open, as a share of one core; its VmRSS before any
stream and with N open, per stream. With --two-servers (PostgreSQL) the host taps on the
first server and every subscriber listens on the second.

--short (CI) checks correctness only: every subscriber connected and got every tap's
version, none slipped, no errors. Timing figures are printed beside their targets for the
notes, never checked: the machine is shared. Traffic goes to 127.0.0.1 only; every wait is
bounded.
"""

import asyncio
import contextlib
import http.client
import json
import math
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TAP_SECONDS = 3.0
QUIET_SECONDS, SHORT_QUIET_SECONDS = 20.0, 5.0  # 20 s: one heartbeat per stream (default 20 s)
BARE_TAPS = 5  # taps with no stream open, to time the host's own requests
SETTLE_SECONDS = 5.0  # after the last tap, how long the stragglers may take
CONNECT_SECONDS = 240.0  # every subscriber must have its first event within this
OPENING = 200  # subscribers connecting at once, per client process (uvicorn's backlog: 2048)
SUBSCRIBERS_PER_CLIENT = 2500
PLAYERS = ["Ana", "Ben", "Cara", "Dev", "Eve", "Finn"]
# (page, language): the table page and its TV board in English and Portuguese, and the home
# page (None: every other home subscriber in Portuguese). Subscriber n follows PAGES[n % 5].
PAGES = [("table", "en"), ("table", "pt"), ("tv", "en"), ("tv", "pt"), ("home", None)]
VARIANTS = [
    ("table", "en"),
    ("table", "pt"),
    ("tv", "en"),
    ("tv", "pt"),
    ("home", "en"),
    ("home", "pt"),
]
# p95 from the host's answer to the last subscriber, by number of subscribers (issue 34).
LATENCY_TARGETS_MS = [(1000, 150), (5000, 300), (10000, 600)]
TWO_SERVERS_TARGET_MS = 300  # at 1,000 subscribers
CPU_TARGET_US = 30  # per delivery
MEMORY_TARGET_KB = 15  # per open stream
IDLE_TARGET = 0.01  # of one core, at 10,000 streams
VERSION = re.compile(r"\.v(\d+)\.")


def stream_path(page: str, table_id: int) -> str:
    return {
        "table": f"/events/tables/{table_id}/",
        "tv": f"/events/tables/{table_id}/board/",
        "home": "/events/",
    }[page]


# --- The client processes ------------------------------------------------------------------

SSE_FIELD = re.compile(rb"^(event|id|retry):? ?(.*)$", re.M)


class Subscriber(asyncio.Protocol):
    """One EventSource: sends the GET, reads the answer's head, then the body (chunked or
    not) as an event stream; keeps (receipt time, id index) of each swap event."""

    def __init__(self, request: bytes, ids: dict[str, int]) -> None:
        self.request, self.ids = request, ids
        self.head = b""
        self.status = 0
        self.in_body = False
        self.chunked = False
        self.chunk_left = -1  # > 0: data bytes left in this chunk; -1: a size line; -2: CRLF
        self.raw = bytearray()
        self.text = bytearray()
        self.last_id = ""
        self.swaps: list[tuple[float, int]] = []
        self.pings = 0
        self.others = 0
        self.retry: int | None = None
        self.error: str | None = None
        self.transport: asyncio.Transport | None = None
        self.first = asyncio.get_running_loop().create_future()
        self.quitting = False

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(self.request)

    def fail(self, error: str) -> None:
        if self.error is None:
            self.error = error
        if not self.first.done():
            self.first.set_result(False)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc) -> None:
        if not self.quitting:
            self.fail(f"closed by the server ({exc!r})" if exc else "closed by the server")

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        if not self.in_body:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            head, data = self.head[:end].lower(), self.head[end + 4 :]
            self.status = int(head[9:12]) if head[:5] == b"http/" else 0
            self.in_body = True
            if self.status != 200:
                self.fail(f"HTTP {self.status}")
                return
            if b"content-type: text/event-stream" not in head:
                self.fail("not text/event-stream")
                return
            self.chunked = b"transfer-encoding: chunked" in head
        if self.chunked:
            data = self.dechunk(data)
        self.text += data
        if b"\r" in data:  # CRLF line ends are allowed too
            self.text = bytearray(bytes(self.text).replace(b"\r\n", b"\n"))
        self.parse(now)

    def dechunk(self, data: bytes) -> bytes:
        self.raw += data
        out = bytearray()
        while self.raw:
            if self.chunk_left > 0:
                take = min(self.chunk_left, len(self.raw))
                out += self.raw[:take]
                del self.raw[:take]
                self.chunk_left -= take
                if not self.chunk_left:
                    self.chunk_left = -2
            elif self.chunk_left == -2:
                if len(self.raw) < 2:
                    break
                del self.raw[:2]
                self.chunk_left = -1
            else:
                end = self.raw.find(b"\r\n")
                if end < 0:
                    break
                size = int(bytes(self.raw[:end]).split(b";")[0], 16)
                del self.raw[: end + 2]
                if not size:
                    self.fail("the stream ended")
                    break
                self.chunk_left = size
        return bytes(out)

    def parse(self, now: float) -> None:
        while (end := self.text.find(b"\n\n")) >= 0:
            block = bytes(self.text[:end])
            del self.text[: end + 2]
            event, has_data = b"message", b"\ndata" in b"\n" + block
            for match in SSE_FIELD.finditer(block):
                name, value = match.groups()
                if name == b"event":
                    event = value
                elif name == b"id":
                    self.last_id = value.decode()
                elif name == b"retry" and value.isdigit():
                    self.retry = int(value)
            if not has_data:
                continue  # a retry or id alone dispatches nothing (the SSE spec)
            if event == b"swap":
                index = self.ids.setdefault(self.last_id, len(self.ids))
                self.swaps.append((now, index))
                if not self.first.done():
                    self.first.set_result(True)
            elif event == b"ping":
                self.pings += 1
            else:
                self.others += 1

    def close(self) -> None:
        self.quitting = True
        if self.transport is not None:
            self.transport.close()


def raise_open_files() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = 20_000 if hard == resource.RLIM_INFINITY else hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


async def client(config: dict) -> dict:
    """Open every subscriber of config, say so on stdout, hold them until stdin says stop;
    everything they received."""
    loop = asyncio.get_running_loop()
    ids: dict[str, int] = {}
    gate = asyncio.Semaphore(OPENING)
    subscribers: list[Subscriber] = []
    lags: list[tuple[float, float]] = []

    async def open_one(path: str, language: str) -> None:
        request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            f"Cache-Control: no-cache\r\n"
            f"Accept-Language: {language}\r\n\r\n"
        ).encode()
        subscriber = Subscriber(request, ids)
        subscribers.append(subscriber)
        async with gate:
            try:
                await loop.create_connection(lambda: subscriber, "127.0.0.1", config["port"])
                await asyncio.wait_for(asyncio.shield(subscriber.first), 60)
            except (OSError, TimeoutError) as error:
                subscriber.fail(f"no first event: {error!r}")

    async def watch_lag() -> None:
        while True:
            started = loop.time()
            await asyncio.sleep(0.05)
            lags.append((time.monotonic(), (loop.time() - started - 0.05) * 1000))

    started = time.monotonic()
    opening = [asyncio.create_task(open_one(*each)) for each in config["subscribers"]]
    _, late = await asyncio.wait(opening, timeout=CONNECT_SECONDS)
    for task in late:
        task.cancel()
    for subscriber in subscribers:
        if not subscriber.first.done():
            subscriber.fail(f"no first event within {CONNECT_SECONDS:.0f} s")
    connected = sum(1 for s in subscribers if s.error is None)
    print(json.dumps({"ready": connected, "seconds": time.monotonic() - started}), flush=True)
    cpu_ready = resource.getrusage(resource.RUSAGE_SELF)
    lag_task = asyncio.create_task(watch_lag())
    await loop.run_in_executor(None, sys.stdin.readline)  # the parent's "stop"
    lag_task.cancel()
    cpu_done = resource.getrusage(resource.RUSAGE_SELF)
    for subscriber in subscribers:
        subscriber.close()
    return {
        "ids": sorted(ids, key=ids.get),
        "subscribers": [
            {
                "status": s.status,
                "error": s.error,
                "retry": s.retry,
                "pings": s.pings,
                "others": s.others,
                "swaps": s.swaps,
            }
            for s in subscribers
        ],
        "lags": lags,
        "cpu": (cpu_done.ru_utime + cpu_done.ru_stime) - (cpu_ready.ru_utime + cpu_ready.ru_stime),
    }


def client_main() -> int:
    config = json.loads(sys.stdin.readline())
    raise_open_files()
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    result = asyncio.run(client(config))
    with open(config["results"], "w") as file:
        json.dump(result, file)
    print(json.dumps({"done": True}), flush=True)
    return 0


class Clients:
    """The client processes: each is given its share of the subscribers, says when all of
    them have their first event, and writes what they received to a file when stopped."""

    def __init__(self, port: int, subscribers: list[tuple[str, str]], processes: int) -> None:
        self.folder = tempfile.mkdtemp(prefix="brag-push-")
        self.processes: list[subprocess.Popen] = []
        self.shares = [subscribers[n::processes] for n in range(processes)]
        for n, share in enumerate(self.shares):
            process = subprocess.Popen(
                [sys.executable, __file__, "--client"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
            config = {"port": port, "subscribers": share, "results": self.result_path(n)}
            process.stdin.write(json.dumps(config) + "\n")
            process.stdin.flush()
            self.processes.append(process)

    def result_path(self, n: int) -> str:
        return os.path.join(self.folder, f"client{n}.json")

    def wait_ready(self) -> tuple[int, float]:
        """How many subscribers have their first event, and the slowest process's seconds."""
        ready, seconds = 0, 0.0
        for process in self.processes:
            line = process.stdout.readline()  # each process's connect phase is bounded
            if not line:
                raise RuntimeError("a client process died while connecting")
            said = json.loads(line)
            ready += said["ready"]
            seconds = max(seconds, said["seconds"])
        return ready, seconds

    def stop(self) -> list[dict]:
        for process in self.processes:
            process.stdin.write("stop\n")
            process.stdin.flush()
        results = []
        for n, process in enumerate(self.processes):
            process.stdout.readline()
            process.wait(timeout=120)
            with open(self.result_path(n)) as file:
                results.append(json.load(file))
        return results

    def kill(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()


# --- The server under test -----------------------------------------------------------------


def start_server(env: dict, streams: int):
    """One uvicorn process serving the app as the night does (brag_tables/serving.py) on a free
    port of 127.0.0.1, allowed `streams` streams from this one address; its output to a log
    file, read for errors at the end."""
    from brag_tables import serving
    from loadtest.run import Server

    class Logged(Server):
        def start(self) -> None:
            self.log = os.path.join(tempfile.mkdtemp(prefix="brag-push-"), "uvicorn.log")
            command = serving.command(
                host="127.0.0.1", port=self.port, workers=self.workers, log_level="warning"
            )
            with open(self.log, "wb") as log:
                self.process = subprocess.Popen(
                    command, cwd=ROOT, env=self.env, start_new_session=True, stdout=log, stderr=log
                )
            Server.running.append(self)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    with open(self.log, errors="replace") as log:
                        raise RuntimeError(f"uvicorn exited while starting:\n{log.read()}")
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                with contextlib.suppress(OSError), contextlib.closing(conn):
                    conn.request("GET", "/")
                    conn.getresponse().read()
                    return
                time.sleep(0.1)
            raise RuntimeError("uvicorn did not start")

    limit = streams + 100
    allowed = {"BRAG_STREAMS_PER_ADDRESS": str(limit), "BRAG_STREAMS_MAX": str(max(20_000, limit))}
    server = Logged({**env, **allowed}, workers=1)
    server.start()
    return server


class Replaying:
    """--during-replay: a full ratings replay, scheduled again each time the server's ratings
    worker has settled the last one, so that the taps reach the subscribers while the worker
    replays beside the server."""

    def __init__(self) -> None:
        self.scheduled = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> float:
        """Schedule the first and wait for the worker to take it (its idle look at the
        replay's row); how long that took."""
        from matches.models import RatingsReplay
        from matches.ratings.schedule import ratings_rebuild_schedule

        began = time.monotonic()
        ratings_rebuild_schedule()
        self.scheduled = 1
        while not RatingsReplay.objects.filter(pk=1).exclude(lease_owner="").exists():
            if time.monotonic() - began > 30:
                raise RuntimeError("the server's ratings worker did not take the replay")
            time.sleep(0.1)
        self.thread.start()
        return time.monotonic() - began

    def _run(self) -> None:
        from django.db import connection

        from matches.ratings.schedule import ratings_rebuild_schedule, ratings_updating

        try:
            while not self.stopping.wait(0.5):
                if not ratings_updating():
                    ratings_rebuild_schedule()
                    self.scheduled += 1
        finally:
            connection.close()

    def stop(self) -> int:
        """Stop scheduling; how many replays were scheduled."""
        self.stopping.set()
        self.thread.join(timeout=10)
        return self.scheduled


def server_errors(server) -> list[str]:
    """What the server logged as failing: each traceback's last line, each ERROR line."""
    with open(server.log, errors="replace") as log:
        lines = log.read().splitlines()
    errors = []
    for n, line in enumerate(lines):
        if line.startswith("Traceback"):
            end = next(
                (m for m in range(n + 1, len(lines)) if not lines[m].startswith((" ", "\t"))),
                len(lines) - 1,
            )
            errors.append(lines[min(end, len(lines) - 1)])
        elif line.startswith(("ERROR", "CRITICAL")):
            errors.append(line)
    return errors


def server_pids(pid: int) -> list[int]:
    """The server's process and its children (a launcher may supervise workers), less the
    ratings workers they start: the replay's CPU is not the streams'."""
    pids = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError), open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                    with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                        if b"ratings_worker" not in cmdline.read():
                            pids.append(int(entry))
    return pids


def server_cpu(pid: int) -> float:
    """CPU seconds (utime + stime) the server's processes have used."""
    total = 0.0
    for each in server_pids(pid):
        with contextlib.suppress(OSError):
            with open(f"/proc/{each}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def server_rss_kb(pid: int) -> int:
    total = 0
    for each in server_pids(pid):
        with contextlib.suppress(OSError), open(f"/proc/{each}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


# --- The host and the run ------------------------------------------------------------------


def seed_table() -> int:
    """The tapped table: ranked, six players, its first match open."""
    from django.contrib.auth import get_user_model

    from matches.play.services.tables import table_launch

    host = get_user_model().objects.get(username="loadhost")
    return table_launch(name="Pushed", player_names=PLAYERS, mode="ranked", by=host).pk


class Host:
    """The host's tablet: reads the board, taps a standing player, and notes when the answer
    was read to its end and which version its X-Board-ETag names."""

    def __init__(self, port: int, table_id: int, cookies: str, csrf: str, seed: int) -> None:
        self.port, self.table_id, self.cookies, self.csrf = port, table_id, cookies, csrf
        self.rng = random.Random(seed)
        self.taps: list[tuple[float, int]] = []  # (answer read, version)
        self.errors: list[str] = []

    def tap(self) -> None:
        from loadtest.run import BoardReader

        headers = {"Cookie": self.cookies, "HX-Request": "true"}
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            conn.request("GET", f"/tables/{self.table_id}/", headers=headers)
            forms = [
                f
                for f in BoardReader(conn.getresponse().read().decode()).tap_forms
                if {"match", "player"} <= set(f)
            ]
            if not forms:
                self.errors.append("no tap form on the board")
                return
            form = {**self.rng.choice(forms), "key": str(uuid.uuid4())}
            body = "&".join(f"{name}={form[name]}" for name in ("match", "player", "key"))
            conn.request(
                "POST",
                f"/tables/{self.table_id}/tap/",
                body=body,
                headers={
                    **headers,
                    "X-CSRFToken": self.csrf,
                    "Content-Type": "application/x-www-form-urlencoded",
                },
            )
            response = conn.getresponse()
            response.read()
            answered = time.monotonic()
            conn.close()
        except (OSError, http.client.HTTPException) as error:
            self.errors.append(f"tap: {error!r}")
            return
        version = VERSION.search(response.getheader("X-Board-ETag") or "")
        if response.status != 200 or version is None:
            self.errors.append(f"tap answered {response.status} without a version")
            return
        self.taps.append((answered, int(version.group(1))))


def warm(port: int, table_id: int) -> None:
    """Every page the subscribers follow, once each way, and one stream of each kind read to
    its first event: imports, templates and the hub's own start are not a stream's cost."""
    for page, language in VARIANTS:
        path = stream_path(page, table_id).removeprefix("/events")
        for extra in ({}, {"HX-Request": "true"}):
            with contextlib.closing(http.client.HTTPConnection("127.0.0.1", port, timeout=30)) as c:
                c.request("GET", path, headers={"Accept-Language": language, **extra})
                c.getresponse().read()
    subscribers = [(stream_path(page, table_id), language) for page, language in VARIANTS]
    asyncio.run(_warm_streams(port, subscribers))


async def _warm_streams(port: int, subscribers: list[tuple[str, str]]) -> None:
    loop = asyncio.get_running_loop()
    opened = []
    for path, language in subscribers:
        request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            f"Accept-Language: {language}\r\n\r\n"
        ).encode()
        subscriber = Subscriber(request, {})
        with contextlib.suppress(OSError):
            await loop.create_connection(lambda s=subscriber: s, "127.0.0.1", port)
        opened.append(subscriber)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(s.first for s in opened)), 30)
    for subscriber in opened:
        subscriber.close()
    await asyncio.sleep(0.5)


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: the smallest value with at least share of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] if ordered else float("nan")


def latency_target(subscribers: int, two_servers: bool) -> int:
    if two_servers:
        return TWO_SERVERS_TARGET_MS
    for count, target in LATENCY_TARGETS_MS:
        if subscribers <= count:
            return target
    return LATENCY_TARGETS_MS[-1][1]


def met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f}) on {os.cpu_count()} cores"


def analyse(results: list[dict], pages: list[list[tuple[str, str]]], taps, window) -> dict:
    """Per tap: each table or TV subscriber's receipt of the tap's version, relative to the
    host's answer; slips and misses; the deliveries inside the tapping window."""
    followers = []  # (page, [(receipt, version)]) of every table and TV subscriber
    home_last: dict[str, set[str]] = {}
    deliveries, pings, errors, retries = 0, 0, [], set()
    lags = []
    for result, share in zip(results, pages, strict=True):
        ids = result["ids"]
        lags += [lag for when, lag in result["lags"] if window[0] <= when <= window[1]]
        for (path, language), subscriber in zip(share, result["subscribers"], strict=True):
            if subscriber["error"]:
                errors.append(f"{path} ({language}): {subscriber['error']}")
            retries.add(subscriber["retry"])
            pings += subscriber["pings"]
            swaps = subscriber["swaps"]
            deliveries += sum(1 for when, _ in swaps if window[0] <= when <= window[1])
            if path == "/events/":
                if swaps:
                    home_last.setdefault(language, set()).add(ids[swaps[-1][1]])
                continue
            seen = []
            for when, index in swaps:
                version = VERSION.search(ids[index])
                if version is None:
                    errors.append(f"{path}: an id without a table version: {ids[index]}")
                else:
                    seen.append((when, int(version.group(1))))
            followers.append(seen)
    last, middle, slipped, missing = [], [], 0, 0
    for answered, version in taps:
        delays = []
        for seen in followers:
            receipt = next((when for when, v in seen if v == version), None)
            if receipt is not None:
                delays.append((receipt - answered) * 1000)
            elif any(v > version for _, v in seen):
                slipped += 1
            else:
                missing += 1
        if delays:
            last.append(max(delays))
            middle.append(statistics.median(delays))
    return {
        "last": last,
        "middle": middle,
        "slipped": slipped,
        "missing": missing,
        "followers": len(followers),
        "deliveries": deliveries,
        "pings": pings,
        "errors": errors,
        "retries": retries,
        "home_last": home_last,
        "lags": lags,
    }


def main(args, env: dict) -> int:
    """The push load test on a prepared database (run.py's prepare); 0 when it held."""
    import django

    django.setup()
    from django.db import connection

    from loadtest.run import host_cookies

    count = 200 if args.short else args.subscribers
    taps = 5 if args.short else args.taps
    quiet = SHORT_QUIET_SECONDS if args.short else QUIET_SECONDS
    processes = args.client_processes or max(1, min(4, math.ceil(count / SUBSCRIBERS_PER_CLIENT)))
    raise_open_files()  # the servers and the clients inherit it
    cookies, csrf = host_cookies()
    table_id = seed_table()
    servers = [start_server(env, count)]
    if args.two_servers:
        servers.append(start_server(env, count))
    tapped, streamed = servers[0], servers[-1]
    failures: list[str] = []
    layout = ", ".join(f"{page} {language or 'en/pt'}" for page, language in PAGES)
    where = (
        f"the host on uvicorn :{tapped.port}, the subscribers on uvicorn :{streamed.port}"
        if args.two_servers
        else f"one uvicorn process on 127.0.0.1:{streamed.port}"
    )
    print(
        f"Push on {connection.vendor}: {count} subscribers ({layout}, {count // len(PAGES)} "
        f"each) in {processes} client process(es), {where}; a tap every {TAP_SECONDS:.0f} s "
        f"x {taps}"
    )
    print(f"  before: {load_average()}")
    subscribers = []
    for n in range(count):
        page, language = PAGES[n % len(PAGES)]
        language = language or ("pt" if (n // len(PAGES)) % 2 else "en")
        subscribers.append((stream_path(page, table_id), language))
    clients = None
    try:
        for server in servers:
            warm(server.port, table_id)
        host = Host(tapped.port, table_id, cookies, csrf, seed=count)
        # What the host's own requests cost the server with no stream open: on one server
        # it is part of the tapping phase's CPU, and is shown apart from the deliveries'.
        spent = server_cpu(tapped.process.pid)
        bare = 2 if args.short else BARE_TAPS
        for _ in range(bare):
            host.tap()
            time.sleep(0.3)
        time.sleep(1.0)
        per_tap = (server_cpu(tapped.process.pid) - spent) / bare
        host.taps.clear()
        rss_before = server_rss_kb(streamed.process.pid)
        clients = Clients(streamed.port, subscribers, processes)
        ready, connect_seconds = clients.wait_ready()
        print(
            f"  {ready} of {count} subscribers had their first event after {connect_seconds:.1f} s"
        )
        if ready < count:
            failures.append(f"only {ready} of {count} subscribers connected")
        time.sleep(1.0)
        rss_open = server_rss_kb(streamed.process.pid)
        per_stream = (rss_open - rss_before) / count
        print(
            f"  memory: VmRSS {rss_before / 1024:.1f} MB before any stream, "
            f"{rss_open / 1024:.1f} MB with {count} open: {per_stream:.1f} KB per stream "
            f"(target <= {MEMORY_TARGET_KB} KB: {met(per_stream <= MEMORY_TARGET_KB)})"
        )
        spent = server_cpu(streamed.process.pid)
        time.sleep(quiet)
        idle = (server_cpu(streamed.process.pid) - spent) / quiet
        print(
            f"  idle: {idle:.2%} of a core over {quiet:.0f} s with {count} streams open "
            f"(target < {IDLE_TARGET:.0%} at 10,000: "
            f"{met(idle < IDLE_TARGET) if count >= 10_000 else 'n/a below 10,000'})"
        )
        replaying = Replaying() if args.during_replay else None
        if replaying is not None:
            took = replaying.start()
            print(
                f"  a full ratings replay under way in the server's worker ({took:.1f} s to start)"
            )
        spent = [server_cpu(server.process.pid) for server in servers]
        started = time.monotonic()
        for n in range(taps):
            time.sleep(max(0.0, started + n * TAP_SECONDS - time.monotonic()))
            host.tap()
        time.sleep(SETTLE_SECONDS)
        ended = time.monotonic()
        if replaying is not None:
            print(f"  {replaying.stop()} full ratings replays scheduled, one after another")
        spent = [
            server_cpu(s.process.pid) - before for s, before in zip(servers, spent, strict=True)
        ]
        print(f"  after the taps: {load_average()}")
        for server in servers:
            if (code := server.process.poll()) is not None:
                # Not this test's doing: it stops its servers only after the clients.
                failures.append(f"uvicorn :{server.port} exited during the run (code {code})")
        results = clients.stop()
    finally:
        if clients is not None:
            clients.kill()
        for server in servers:
            with contextlib.suppress(ProcessLookupError, subprocess.TimeoutExpired):
                server.stop()
    shares = clients.shares
    figures = analyse(results, shares, host.taps, (started, ended))
    failures += [f"host: {error}" for error in host.errors[:3]]
    for server in servers:
        if logged := server_errors(server):
            print(f"  uvicorn :{server.port} logged {len(logged)} errors, first: {logged[0]}")
            failures.append(f"the server on :{server.port} logged {len(logged)} errors")
    if len(host.taps) < taps:
        failures.append(f"only {len(host.taps)} of {taps} taps answered with a version")
    target = latency_target(count, args.two_servers)
    if figures["last"]:
        p95 = percentile(figures["last"], 0.95)
        print(
            f"  {len(host.taps)} taps (v{host.taps[0][1]}..v{host.taps[-1][1]}); the host's "
            f"answer to the last of {figures['followers']} table/TV subscribers: "
            f"p50 {percentile(figures['last'], 0.5):.0f} ms, p95 {p95:.0f} ms, "
            f"max {max(figures['last']):.0f} ms (target p95 <= {target} ms: {met(p95 <= target)})"
        )
        print(
            f"  per tap, the median subscriber: p50 {statistics.median(figures['middle']):.0f} ms, "
            f"worst tap {max(figures['middle']):.0f} ms"
        )
    slipped, missing = figures["slipped"], figures["missing"]
    print(
        f"  slipped {slipped} (a later version came, never this one; target none: "
        f"{met(not slipped)}), missing {missing} (no event of the version or later)"
    )
    deliveries = figures["deliveries"]
    cost = spent[-1] * 1e6 / deliveries if deliveries else float("nan")
    print(
        f"  deliveries while tapping: {deliveries} swap events (and {figures['pings']} pings "
        f"over the whole run); the subscribers' server spent {spent[-1]:.2f} s CPU: {cost:.1f} us per "
        f"delivery (target <= {CPU_TARGET_US} us: {met(cost <= CPU_TARGET_US)}), "
        f"{spent[-1] * 1000 / max(1, len(host.taps)):.0f} ms per tap"
        + (f"; the host's server {spent[0]:.2f} s" if args.two_servers else "")
    )
    if not args.two_servers and deliveries:
        net = (spent[0] - per_tap * len(host.taps)) * 1e6 / deliveries
        print(
            f"  the host's own requests cost {per_tap * 1000:.0f} ms CPU per tap with no stream "
            f"open; net of them: {net:.1f} us per delivery"
        )
    lags = figures["lags"]
    client_cpu = sum(result["cpu"] for result in results)
    retries = sorted(r for r in figures["retries"] if r is not None)
    if None in figures["retries"]:
        failures.append("a subscriber's stream began without a retry line")
    print(
        f"  clients: retry {retries[0] if retries else '-'}..{retries[-1] if retries else '-'} ms, "
        f"event-loop lag p95 {percentile(lags, 0.95):.0f} ms, max {max(lags, default=0):.0f} ms, "
        f"CPU {client_cpu:.1f} s from connected to stopped"
    )
    for language, last_ids in figures["home_last"].items():
        if len(last_ids) != 1:
            failures.append(f"home ({language}) subscribers ended on {len(last_ids)} ids")
    if slipped:
        failures.append(f"{slipped} deliveries slipped")
    if missing:
        failures.append(f"{missing} deliveries missing")
    if figures["errors"]:
        failures.append(f"{len(figures['errors'])} stream errors, first: {figures['errors'][0]}")
    for failure in failures:
        print(f"FAILED: {failure}")
    print("push load test passed" if not failures else "push load test FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--client"]:
        sys.exit(client_main())
    sys.exit("run it as: python loadtest/run.py --push [--short]")
