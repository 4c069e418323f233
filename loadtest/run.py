"""make loadtest: uvicorn with several workers on 127.0.0.1, host clients playing K tables
to completion as fast as they can (with duplicate and retried taps mixed in), M spectators
polling tables and standings; then check_integrity and a count of every acknowledged tap.
A second phase kills the server with SIGKILL mid-run, restarts it, and checks that every tap
acknowledged before the kill is there.

    python loadtest/run.py [--database-url URL] [--tables 8] [--matches 3] [--spectators 8]
                           [--workers 3] [--short] [--league 10000]
    python loadtest/run.py --spectator-capacity [--short] [--database-url URL]
    python loadtest/run.py --replay [--league-matches 100000] [--short] [--database-url URL]
    python loadtest/run.py --push [--subscribers 1000] [--short] [--two-servers] [--database-url URL]

--league seeds that many filed matches first (manage.py seed_league), so the load meets a
database with history; the checks count only the load's own taps.

The second form is the spectator mode (loadtest/spectators.py): how many spectators polling
every 3 s one uvicorn worker holds with p95 under 50 ms. The --push mode (loadtest/push.py):
how fast a tap reaches N subscribers of the server-sent-event streams.

Traffic goes to 127.0.0.1 only; every loop is bounded in count and time.
"""

import argparse
import atexit
import contextlib
import http.client
import json
import os
import random
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable
ACKNOWLEDGED_LEVELS = {"success", "info"}  # a tap's reply; a refusal is "error"
DEADLINE_SECONDS = 240  # no phase runs longer than this, whatever happens


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BoardReader(HTMLParser):
    """The stable hooks of the board fragment: each tap form's fields by name (any markup
    around them), the level of each message (its data-level attribute) and whether a
    crowning's result card is shown (its data-result attribute)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tap_forms: list[dict[str, str]] = []
        self.message_levels: list[str] = []
        self.result_card = False
        self._form: dict[str, str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = dict(attrs)
        if tag == "form" and (attrs.get("action") or "").endswith("/tap/"):
            self._form = {}
            self.tap_forms.append(self._form)
        elif tag == "input" and self._form is not None and attrs.get("name"):
            self._form[attrs["name"]] = attrs.get("value") or ""
        if attrs.get("data-level"):
            self.message_levels.append(attrs["data-level"])
        if attrs.get("data-result"):
            self.result_card = True

    def acknowledged(self) -> bool:
        """The write was applied: a message at an acknowledging level, or (a crowning says
        it with its result card alone) no message and the card."""
        if self.message_levels:
            return self.message_levels[0] in ACKNOWLEDGED_LEVELS
        return self.result_card

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    acknowledged: set[str] = field(default_factory=set)  # keys of taps the server confirmed
    replays: int = 0
    refused: int = 0
    blind: list[str] = field(default_factory=list)  # boards where no tap form could be found

    def record(self, ms: float, error: str | None = None) -> None:
        with self.lock:
            self.latencies.append(ms)
            if error:
                self.errors.append(error)


class Browser:
    """One keep-alive connection with the cookies of a host or a spectator."""

    def __init__(self, port: int, stats: Stats, cookies: str = "", csrf: str = "") -> None:
        self.port, self.stats, self.cookies, self.csrf = port, stats, cookies, csrf
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method: str, path: str, body: str = "", headers: dict | None = None):
        headers = {"Cookie": self.cookies, **(headers or {})}
        if method == "POST":
            headers |= {
                "Content-Type": "application/x-www-form-urlencoded",
                "X-CSRFToken": self.csrf,
            }
        started = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers)
            response = self.conn.getresponse()
            data = response.read().decode()
        except (OSError, http.client.HTTPException) as error:
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.stats.record((time.perf_counter() - started) * 1000, f"{method} {path}: {error!r}")
            raise
        bad = f"{method} {path}: HTTP {response.status}" if response.status >= 500 else None
        self.stats.record((time.perf_counter() - started) * 1000, bad)
        return response, data


def host_loop(
    browser: Browser,
    table_id: int,
    matches: int,
    stop: threading.Event,
    rng: random.Random,
    pause: float = 0.0,
) -> None:
    """Play a table until `matches` are filed: progress from the JSON API, taps through the
    tap forms' fields, outcomes from the messages' levels (no markup or wording guessed).
    pause: seconds between one tap's answer and the next read (0: flat out)."""
    board, api = f"/tables/{table_id}/", f"/api/tables/{table_id}/"
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            _, document = browser.request("GET", api)
            table = json.loads(document)
            if len(table["matches"]) >= matches or table["current_match"] is None:
                return
            _, html = browser.request("GET", board, headers={"HX-Request": "true"})
            forms = [f for f in BoardReader(html).tap_forms if {"match", "player", "key"} <= set(f)]
            if not forms:
                with browser.stats.lock:
                    browser.stats.blind.append(f"{board}: an open match but no tap form found")
                return
            form = rng.choice(forms)
            body = "&".join(f"{name}={form[name]}" for name in ("match", "player", "key"))
            sends = 2 if rng.random() < 0.25 else 1  # a double tap or a retried request
            for _ in range(sends):
                response, reply = browser.request(
                    "POST", f"{board}tap/", body, {"HX-Request": "true"}
                )
                answer = BoardReader(reply)
                with browser.stats.lock:
                    if response.status != 200 or not answer.acknowledged():
                        browser.stats.refused += 1
                    elif form["key"] in browser.stats.acknowledged:
                        browser.stats.replays += 1
                    else:
                        browser.stats.acknowledged.add(form["key"])
            if pause:
                stop.wait(pause)
        except (OSError, http.client.HTTPException, ValueError, KeyError):
            if stop.is_set():
                return
            time.sleep(0.05)


def spectator_loop(
    browser: Browser, table_ids: list[int], stop: threading.Event, rng: random.Random
) -> None:
    tags: dict[str, str] = {}
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not stop.is_set() and time.monotonic() < deadline:
        table = rng.choice(table_ids)
        path = rng.choice(
            [
                f"/tables/{table}/",
                f"/api/tables/{table}/",
                "/standings/",
                "/api/standings/",
                f"/tables/{table}/board/",
            ]
        )
        headers = (
            {"HX-Request": "true"} if path.endswith(("/", "board/")) and "api" not in path else {}
        )
        if path in tags:
            headers["If-None-Match"] = tags[path]
        try:
            response, _ = browser.request("GET", path, headers=headers)
            if response.getheader("ETag"):
                tags[path] = response.getheader("ETag")
        except (OSError, http.client.HTTPException):
            time.sleep(0.05)
        time.sleep(0.02)


class Server:
    running: list["Server"] = []

    def __init__(self, env: dict, workers: int) -> None:
        self.env, self.workers, self.port = env, workers, free_port()
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        from brag_tables import serving  # the night's options, with as many workers as asked

        command = serving.command(
            host="127.0.0.1", port=self.port, workers=self.workers, log_level="warning"
        )
        self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, start_new_session=True)
        Server.running.append(self)
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("uvicorn did not start")

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)

    @classmethod
    def kill_all(cls) -> None:
        """Never leave a server behind, whatever went wrong."""
        for server in cls.running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.process.pid, signal.SIGKILL)


atexit.register(Server.kill_all)


def fresh_database(url: str) -> str:
    """An empty database: a new SQLite file, or the PostgreSQL database dropped and made."""
    if not url:
        return f"sqlite:///{tempfile.mkdtemp(prefix='brag-load-')}/load.sqlite3"
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url


def prepare(database_url: str, league: int = 0) -> dict:
    """Migrate and collect static files; with league, seed that many filed matches first
    (manage.py seed_league) so the load meets a database with history."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_HTTPS": "0",
        "DJANGO_DEBUG": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_SETTINGS_MODULE": "brag_tables.settings",
        "DJANGO_LOG_LEVEL": "ERROR",
    }
    os.environ.update(env)
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    subprocess.run(
        [PYTHON, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    if league:
        seed = ["seed_league", "--players", "200", "--tables", "50", "--matches", str(league)]
        subprocess.run([PYTHON, "manage.py", *seed], cwd=ROOT, env=env, check=True)
    return env


def seeded_taps() -> int:
    """The last tap the seed wrote (0 without one): the load's taps come after it."""
    from django.db.models import Max

    from matches.models import Tap

    return Tap.objects.aggregate(last=Max("pk"))["last"] or 0


def host_cookies() -> tuple[str, str]:
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    user = get_user_model().objects.filter(username="loadhost").first()
    if user is None:
        user = get_user_model().objects.create_superuser(
            "loadhost", password=secrets.token_urlsafe(16)
        )
    session = SessionStore()
    session["_auth_user_id"] = str(user.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    csrf = secrets.token_hex(16)  # a 32-character secret, sent as cookie and header
    return f"sessionid={session.session_key}; csrftoken={csrf}", csrf


def launch_tables(
    port: int, stats: Stats, cookies: str, csrf: str, count: int, rng: random.Random
) -> dict[int, int]:
    """Launch tables through the form; their ids and how many players each seats."""
    browser = Browser(port, stats, cookies, csrf)
    ids = {}
    for index in range(count):
        seats = rng.randint(4, 7)
        players = "%0A".join(f"P{index}-{n}" for n in range(seats))
        mode = rng.choice(["ranked", "winner_takes_all"])
        response, _ = browser.request(
            "POST", "/tables/new/", f"name=T{index}&players={players}&mode={mode}"
        )
        ids[int(re.search(r"/tables/(\d+)/", response.getheader("Location")).group(1))] = seats
    return ids


def integrity() -> tuple[bool, str]:
    result = subprocess.run(
        [PYTHON, "manage.py", "check_integrity"],
        cwd=ROOT,
        env=os.environ,
        capture_output=True,
        text=True,
    )
    return result.returncode == 0, (result.stdout + result.stderr).strip()


def report(title: str, stats: Stats, seconds: float) -> None:
    lat = sorted(stats.latencies)
    p50 = statistics.median(lat)
    p95 = lat[int(0.95 * (len(lat) - 1))]
    print(f"{title}: {len(lat)} requests in {seconds:.1f} s = {len(lat) / seconds:.0f} req/s; "
          f"p50 {p50:.1f} ms, p95 {p95:.1f} ms; errors {len(stats.errors)}")  # fmt: skip
    print(f"  taps acknowledged {len(stats.acknowledged)}, duplicates answered as replays "
          f"{stats.replays}, refused {stats.refused}")  # fmt: skip
    for error in stats.errors[:5]:
        print(f"  error: {error}")


def run_phase(
    server: Server, args, rng, kill_after: float | None, matches: int
) -> tuple[Stats, float, int]:
    """Returns the stats, the seconds taken and the taps planned (every match of every table
    played to its end: one tap per player but the winner)."""
    stats = Stats()
    cookies, csrf = host_cookies()
    seats = launch_tables(server.port, stats, cookies, csrf, args.tables, rng)
    tables = list(seats)
    planned = sum(matches * (n - 1) for n in seats.values())
    stop = threading.Event()
    hosts = [
        threading.Thread(target=host_loop, args=(Browser(server.port, stats, cookies, csrf), t, matches, stop, random.Random(rng.random())), daemon=True)
        for t in tables
    ]  # fmt: skip
    viewers = [
        threading.Thread(target=spectator_loop, args=(Browser(server.port, stats), tables, stop, random.Random(rng.random())), daemon=True)
        for _ in range(args.spectators)
    ]  # fmt: skip
    started = time.perf_counter()
    for thread in hosts + viewers:
        thread.start()
    if kill_after is not None:
        # Every tap acknowledged up to the kill (a client holds an answer only after the
        # server committed) stays in stats.acknowledged; nothing is acknowledged after it.
        time.sleep(kill_after)
        server.kill()
        stop.set()
    for thread in hosts:
        thread.join(timeout=DEADLINE_SECONDS)
    stop.set()
    for thread in viewers:
        thread.join(timeout=30)
    return stats, time.perf_counter() - started, planned


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", default="")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--spectators", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--short", action="store_true", help="CI size: fewer tables and matches")
    parser.add_argument(
        "--league", type=int, default=0, help="seed this many filed matches first (seed_league)"
    )
    parser.add_argument(
        "--two-servers", action="store_true", help="two uvicorns, one database (two_servers.py)"
    )
    parser.add_argument(
        "--spectator-capacity",
        action="store_true",
        help="instead: how many spectators one worker holds (loadtest/spectators.py)",
    )
    parser.add_argument(
        "--replay",
        action="store_true",
        help="instead: an old crowning's undo and a merge in a big league (loadtest/replay.py)",
    )
    parser.add_argument(
        "--league-matches", type=int, default=100_000, help="the replay mode's league size"
    )
    parser.add_argument(
        "--push",
        action="store_true",
        help="instead: a tap's way to N event-stream subscribers on uvicorn (loadtest/push.py)",
    )
    parser.add_argument(
        "--subscribers", type=int, default=1000, help="the push mode's number of subscribers"
    )
    parser.add_argument("--taps", type=int, default=20, help="the push mode's taps, 3 s apart")
    parser.add_argument(
        "--during-replay",
        action="store_true",
        help="the push mode's taps while the server's ratings worker replays the league "
        "(with --league N)",
    )
    parser.add_argument(
        "--client-processes",
        type=int,
        default=0,
        help="the push mode's client processes (0: one per 2,500 subscribers, at most 4)",
    )
    parser.add_argument(
        "--tap-pause",
        type=float,
        default=0.25,
        help="the replay mode's hosts wait this long between taps (0: flat out)",
    )
    parser.add_argument(
        "--close-connections",
        action="store_true",
        help="spectator mode on the sync worker, a new connection per poll (as before gthread)",
    )
    args = parser.parse_args()
    if args.two_servers and not args.push:
        from loadtest import two_servers

        return two_servers.main([arg for arg in sys.argv[1:] if arg != "--two-servers"])
    if args.short:
        args.tables, args.matches, args.spectators = 4, 4, 4
    rng = random.Random(2026)

    env = prepare(fresh_database(args.database_url), league=args.league)
    if args.spectator_capacity:
        from loadtest import spectators

        return spectators.main(args, env)
    if args.replay:
        from loadtest import replay

        return replay.main(args, env)
    if args.push:
        from loadtest import push

        return push.main(args, env)
    import django

    django.setup()
    from django.db import connection

    from matches.models import Tap

    seeded = seeded_taps()
    print(f"Load test on {connection.vendor}: {args.workers} uvicorn workers, {args.tables} tables "
          f"x {args.matches} matches, {args.spectators} spectators")  # fmt: skip
    failures = []
    server = Server(env, args.workers)

    server.start()
    stats, elapsed, planned = run_phase(server, args, rng, kill_after=None, matches=args.matches)
    server.stop()
    report("load", stats, elapsed)
    load = Tap.objects.filter(pk__gt=seeded)
    live = set(map(str, load.filter(undone_at__isnull=True).values_list("key", flat=True)))
    ok, text = integrity()
    print(f"  check_integrity: {text.splitlines()[-1] if text else ''}")
    print(f"  eliminations in the database {len(live)} = acknowledged taps {len(stats.acknowledged)}: "
          f"{live == stats.acknowledged}")  # fmt: skip
    print(f"  taps planned {planned}, acknowledged {len(stats.acknowledged)}")
    if not stats.acknowledged:
        failures.append("no tap was acknowledged: the load test tapped nothing")
    elif len(stats.acknowledged) < planned:
        failures.append(f"only {len(stats.acknowledged)} of {planned} planned taps acknowledged")
    if stats.blind:
        failures.append(f"no tap form found on an open match's board: {stats.blind[0]}")
    if stats.errors:
        failures.append("server errors under load")
    if not ok:
        failures.append("check_integrity failed after the load")
    if live != stats.acknowledged:
        failures.append("eliminations differ from acknowledged taps")

    print("crash: SIGKILL the server mid-run, restart, check")
    server = Server(env, args.workers)
    server.start()
    before = set(map(str, Tap.objects.values_list("key", flat=True)))
    # Tables that would play on for a long time: the kill lands in the middle of the taps.
    crash_stats, elapsed, _ = run_phase(
        server, args, rng, kill_after=2.0 if args.short else 5.0, matches=10_000
    )
    server = Server(env, args.workers)
    server.start()  # the app comes back on the same database
    probe = Browser(server.port, Stats())
    response, _ = probe.request("GET", "/standings/")
    server.stop()
    kept = set(map(str, Tap.objects.values_list("key", flat=True))) - before
    missing = crash_stats.acknowledged - kept
    ok, text = integrity()
    print(f"  killed after {elapsed:.1f} s with hosts still tapping; "
          f"taps acknowledged before the kill {len(crash_stats.acknowledged)}, all present: {not missing}; "
          f"restarted server answered {response.status}; check_integrity: {text.splitlines()[-1] if text else ''}")  # fmt: skip
    if not crash_stats.acknowledged:
        failures.append("no tap was acknowledged before the kill: the crash test proved nothing")
    if missing:
        failures.append(f"{len(missing)} acknowledged taps lost in the crash")
    if not ok:
        failures.append("check_integrity failed after the crash")
    if response.status != 200:
        failures.append("server did not come back after the crash")
    for failure in failures:
        print(f"FAILED: {failure}")
    print("load test passed" if not failures else "load test FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
