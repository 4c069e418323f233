"""make loadtest's spectator mode: how many spectators, each polling every 3 s as htmx and
our script do (conditional GETs with If-None-Match), one uvicorn worker process holds with
p95 under 50 ms, while a host taps the table every few seconds. Polling is the live pages'
fallback (a browser without server-sent events, a stream refused past its cap).

    python loadtest/run.py --spectator-capacity [--short] [--database-url URL]
                           [--close-connections]

The worker runs as brag_tables/serving.py says (connections kept alive 5 s), and each
spectator keeps its connection between polls as a browser does (and sends a GET again on a
new one if the server closed the kept one just then); --close-connections instead opens a
new connection per poll and asks the server to close it.

Spectators mix the board fragment of the table page, the TV board's fragment and the JSON,
one in five in Portuguese. The load rises in steps (each spectator polls every 3 s, starting
at a random moment) until p95 passes 50 ms or a step fails; the last step under is the
figure. The client is one asyncio process with no work but sending and timing (its own lag
behind schedule is reported: a late client would understate the load). Traffic goes to
127.0.0.1 only, on a port in 8200-8299; every step is bounded in time.
"""

import asyncio
import http.client
import os
import random
import re
import socket
import statistics
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field

POLL_SECONDS = 3.0
P95_LIMIT_MS = 50.0
TAP_SECONDS = 3.0  # the host taps the table this often: the spectators' 304s turn to 200s
PORTS = range(8200, 8300)
LEVELS = [500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 5000, 6000, 8000]
SHORT_LEVELS = [500, 1000, 1500]


def free_port_in_range() -> int:
    for port in PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 8200-8299")


@dataclass
class Step:
    spectators: int
    latencies: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)  # how late the client sent, ms
    statuses: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def p95(self, values: list[float] | None = None) -> float:
        values = self.latencies if values is None else values
        return statistics.quantiles(values, n=20)[18] if len(values) >= 20 else float("inf")

    @property
    def held(self) -> bool:
        return not self.errors and self.p95() < P95_LIMIT_MS


class Spectator:
    """What one viewer's page polls, the tag it holds and, as a browser does, the connection
    it keeps open between polls (browsers keep an HTTP/1.1 connection for minutes; uvicorn
    keeps it for serving.py's keep-alive, longer than the poll). With keep_alive False
    every poll opens a new connection and asks the server to close it."""

    def __init__(self, table_id: int, rng: random.Random, keep_alive: bool = True) -> None:
        kind = rng.choices(["board", "tv", "json"], weights=[5, 2, 3])[0]
        path = {
            "board": f"/tables/{table_id}/",
            "tv": f"/tables/{table_id}/board/",
            "json": f"/api/tables/{table_id}/",
        }[kind]
        self.head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n"
        if kind != "json":
            self.head += "HX-Request: true\r\n"
        if rng.random() < 0.2:
            self.head += "Accept-Language: pt-PT,pt;q=0.9\r\n"
        self.keep_alive = keep_alive
        self.tag = ""
        self.busy = False
        self.connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    def request(self) -> bytes:
        extra = f"If-None-Match: {self.tag}\r\n" if self.tag else ""
        close = "" if self.keep_alive else "Connection: close\r\n"
        return (self.head + extra + close + "\r\n").encode()

    def close(self) -> None:
        if self.connection is not None:
            self.connection[1].close()
            self.connection = None


ETAG = re.compile(rb"\r\nETag: ([^\r\n]+)", re.I)
CONTENT_LENGTH = re.compile(rb"\r\nContent-Length: *(\d+)", re.I)
CONNECTION_CLOSE = re.compile(rb"\r\nConnection: *close", re.I)


async def exchange(port: int, spectator: Spectator) -> bytes:
    """One request and its whole answer (head and body), over the spectator's connection."""
    if spectator.busy:
        # The last poll is still waiting for its answer: a browser opens a second connection.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            return await _answer(reader, writer, spectator.request())
        finally:
            writer.close()
    if spectator.connection is None:
        spectator.connection = await asyncio.open_connection("127.0.0.1", port)
    spectator.busy = True
    try:
        data = await _answer(*spectator.connection, spectator.request())
    finally:
        spectator.busy = False
    if not spectator.keep_alive or CONNECTION_CLOSE.search(data) or not CONTENT_LENGTH.search(data):
        spectator.close()
    return data


async def _answer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> bytes:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12]) if head[:5] == b"HTTP/" else 0
    length = CONTENT_LENGTH.search(head)
    if status == 304:
        body = b""
    elif length is not None:
        body = await reader.readexactly(int(length.group(1)))
    else:
        body = await reader.read()  # no length: the body runs to the end of the connection
    return head + body


async def poll(port: int, spectator: Spectator, step: Step, measured: bool) -> None:
    started = time.perf_counter()
    try:
        try:
            data = await exchange(port, spectator)
        except (OSError, asyncio.IncompleteReadError):
            if spectator.connection is None:
                raise
            # The server closed the kept connection as we reused it (its keepalive ran out):
            # a browser sends an idempotent GET again on a new one, and so do we (timed).
            spectator.close()
            data = await exchange(port, spectator)
    except (OSError, asyncio.IncompleteReadError) as error:
        spectator.close()
        step.errors.append(repr(error))
        return
    status = int(data[9:12]) if data[:5] == b"HTTP/" else 0
    if measured:
        step.latencies.append((time.perf_counter() - started) * 1000)
        step.statuses[status] = step.statuses.get(status, 0) + 1
    if status not in (200, 304):
        step.errors.append(f"HTTP {status}")
    elif (tag := ETAG.search(data)) is not None:
        spectator.tag = tag.group(1).decode()


async def run_step(
    port: int, table_id: int, count: int, seconds: float, seed: int, keep_alive: bool = True
) -> Step:
    """count spectators polling every POLL_SECONDS for seconds, each starting at a random
    moment of the first period (as viewers arriving over time). That first poll of each is
    not timed: it fetches the page a viewer then holds the tag of; the steady state is."""
    rng = random.Random(seed)
    step = Step(count)
    viewers = [Spectator(table_id, rng, keep_alive) for _ in range(count)]
    loop = asyncio.get_running_loop()
    start = loop.time() + 0.2
    # Every poll of the step, in time order: (when, viewer).
    schedule = sorted(
        (start + offset + n * POLL_SECONDS, index)
        for index, offset in enumerate(rng.uniform(0, POLL_SECONDS) for _ in range(count))
        for n in range(1 + int(seconds / POLL_SECONDS))
    )
    tasks = set()
    measure_from = start + POLL_SECONDS
    for when, index in schedule:
        delay = when - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        step.lags.append(max(0.0, -delay) * 1000)
        task = asyncio.create_task(poll(port, viewers[index], step, when >= measure_from))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks, timeout=30)
    for spectator in viewers:
        spectator.close()
    return step


class Tapper(threading.Thread):
    """The host: taps a standing player every TAP_SECONDS through the tap form's fields,
    so the spectators' tags keep going stale (a crowning opens the next match)."""

    def __init__(self, port: int, table_id: int, cookies: str, csrf: str) -> None:
        super().__init__(daemon=True)
        self.port, self.table_id, self.cookies, self.csrf = port, table_id, cookies, csrf
        self.stop = threading.Event()
        self.taps = 0

    def run(self) -> None:
        from loadtest.run import BoardReader

        rng = random.Random(3)
        headers = {"Cookie": self.cookies, "HX-Request": "true"}
        while not self.stop.wait(TAP_SECONDS):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                conn.request("GET", f"/tables/{self.table_id}/", headers=headers)
                forms = BoardReader(conn.getresponse().read().decode()).tap_forms
                conn.close()
                if not forms:
                    continue
                form = {**rng.choice(forms), "key": str(uuid.uuid4())}
                body = "&".join(f"{name}={value}" for name, value in form.items())
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
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
                if conn.getresponse().status == 200:
                    self.taps += 1
                conn.close()
            except (OSError, http.client.HTTPException):
                continue


def worker_cpu(master: int) -> float:
    """CPU seconds the server process and any worker processes under it have used (from
    /proc): one uvicorn worker is the process itself."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == master or int(fields[1]) == master:  # ppid; utime, stime at 11, 12
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def seed_table(matches: int) -> int:
    """A table of eight with some history (recent matches, tonight's totals to show)."""
    from django.contrib.auth import get_user_model

    from matches.play.services.tables import table_launch
    from matches.play.services.tap import match_eliminate

    host = get_user_model().objects.get(username="loadhost")
    names = ["Ana", "Ben", "Cara", "Dev", "Eve", "Finn", "Gus", "Hana"]
    table = table_launch(name="Spectated", player_names=names, mode="ranked", by=host)
    rng = random.Random(5)
    for _ in range(matches):
        match = table.matches.open().get()
        seats = list(match.seats.all())
        rng.shuffle(seats)
        for seat in seats[:-1]:
            match_eliminate(
                table_id=table.pk,
                match_id=match.pk,
                player_id=seat.player_id,
                key=uuid.uuid4(),
                by=host,
            )
    return table.pk


def main(args, env: dict) -> int:
    """Run the steps on a prepared database (run.py's prepare); 0 when no step failed."""
    import django

    django.setup()
    from django.db import connection

    from loadtest.run import Server, host_cookies

    cookies, csrf = host_cookies()
    table_id = seed_table(matches=20)
    server = Server(env, workers=1)
    server.port = free_port_in_range()
    server.start()
    levels = SHORT_LEVELS if args.short else LEVELS
    seconds = 6.0 if args.short else 15.0
    keep_alive = not args.close_connections
    worker = "one uvicorn worker process (brag_tables/serving.py)" + (
        ", a new connection per poll" if args.close_connections else ", connections kept alive"
    )
    print(
        f"Spectators on {connection.vendor}: {worker} on 127.0.0.1:{server.port}, "
        f"each spectator polls every {POLL_SECONDS:.0f} s (board 50%, TV 20%, JSON 30%), "
        f"a tap every {TAP_SECONDS:.0f} s, {seconds:.0f} s per step"
    )
    tapper = Tapper(server.port, table_id, cookies, csrf)
    tapper.start()
    held, failures, costs = 0, [], []
    print(f"  load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    try:
        # Warm the worker (imports, templates, connections) before timing.
        asyncio.run(run_step(server.port, table_id, 50, POLL_SECONDS * 2, 0, keep_alive))
        for level in levels:
            cpu, served = time.process_time(), worker_cpu(server.process.pid)
            step = asyncio.run(run_step(server.port, table_id, level, seconds, level, keep_alive))
            cpu = (time.process_time() - cpu) / (seconds + POLL_SECONDS)
            served = worker_cpu(server.process.pid) - served
            # Every poll of the step, the untimed first ones included, and the host's requests.
            per_request = served * 1000 / max(1, level * (1 + int(seconds / POLL_SECONDS)))
            costs.append(per_request)
            answers = ", ".join(f"{n}x{status}" for status, n in sorted(step.statuses.items()))
            print(
                f"  {level:5d} spectators: {len(step.latencies) / seconds:6.0f} req/s, "
                f"p50 {statistics.median(step.latencies):5.1f} ms, p95 {step.p95():6.1f} ms, "
                f"max {max(step.latencies):6.1f} ms; {answers}; "
                f"worker CPU {per_request:.2f} ms/request; "
                f"client lag p95 {step.p95(step.lags):4.1f} ms, client CPU {cpu:.0%}"
                + (f"; errors {len(step.errors)}: {step.errors[0]}" if step.errors else "")
            )
            if step.errors:
                failures.append(f"{len(step.errors)} errors at {level} spectators")
            if not step.held:
                break
            held = level
    finally:
        tapper.stop.set()
        tapper.join(timeout=10)
        server.stop()
    print(
        f"  one worker holds {held} spectators polling every {POLL_SECONDS:.0f} s with p95 under "
        f"{P95_LIMIT_MS:.0f} ms (aim 4,000); the host tapped {tapper.taps} times meanwhile"
    )
    if costs:
        cost = statistics.median(costs)
        print(
            f"  the worker spent a median {cost:.2f} ms of CPU per request: a core of its own "
            f"would serve {1000 / cost:.0f} requests/s, {3000 / cost:.0f} spectators"
        )
    if tapper.taps == 0:
        failures.append("the table never changed: the host's taps were all refused")
    for failure in failures:
        print(f"FAILED: {failure}")
    print("spectator load test passed" if not failures else "spectator load test FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit("run it as: python loadtest/run.py --spectator-capacity [--short]")
