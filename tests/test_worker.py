"""gunicorn.conf.py's worker, as `make run` serves the night: its main thread reads each
request whole before a pool thread sees it, and answers spectators' polls itself from what
the whole stack answered them (matches.web.polls). These tests run it (one worker, its own
SQLite database, a table of four) and speak HTTP/1.1 to it over 127.0.0.1 only."""

import contextlib
import os
import re
import runpy
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 2  # BRAG_REQUEST_TIMEOUT for this server, in seconds
THREADS = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["threads"]  # per worker

SEED = """
from django.contrib.auth import get_user_model
from matches.play.services.tables import table_launch
host = get_user_model().objects.create_user("host", password="a long enough secret")
table = table_launch(
    name="Corner", player_names=["Ann", "Ben", "Cy", "Di"], mode="ranked", by=host
)
print(table.pk)
"""

TAP = """
import os, uuid
from django.contrib.auth import get_user_model
from matches.models import Table
from matches.play.services.tap import match_eliminate
table = Table.objects.get(pk=int(os.environ["TAPPED_TABLE"]))
match = table.matches.open().get()
seat = match.seats.filter(place__isnull=True).order_by("pk").first()
match_eliminate(
    table_id=table.pk, match_id=match.pk, player_id=seat.player_id, key=uuid.uuid4(),
    by=get_user_model().objects.get(username="host"),
)
"""


class Served:
    def __init__(self, port: int, table_id: int, env: dict, process: subprocess.Popen) -> None:
        self.port, self.table_id, self.env, self.process = port, table_id, env, process

    @property
    def json(self) -> str:
        return f"/api/tables/{self.table_id}/"

    @property
    def board(self) -> str:
        return f"/tables/{self.table_id}/"

    def tap(self) -> None:
        """A host's tap, written by another process (as another worker would)."""
        manage({**self.env, "TAPPED_TABLE": str(self.table_id)}, "shell", "-c", TAP)


def manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("served")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'night.sqlite3'}",
        "DJANGO_DEBUG": "1",  # no collected static files needed
        "DJANGO_HTTPS": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "BRAG_REQUEST_TIMEOUT": str(LIMIT),
        "BRAG_BACKUP_DIR": str(folder / "backups"),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)  # the project's own (manage.py, wsgi.py)
    manage(env, "migrate", "--noinput")
    table_id = int(manage(env, "shell", "-c", SEED).split()[-1])
    port = free_port()
    with gunicorn(env, folder / "gunicorn.log", f"127.0.0.1:{port}") as process:
        yield Served(port, table_id, env, process)
    assert "Traceback" not in (folder / "gunicorn.log").read_text()


@contextlib.contextmanager
def gunicorn(env: dict, log_path: Path, bind: str, *options: str):
    """One worker, as gunicorn.conf.py sets it up, serving once it answers."""
    log = open(log_path, "w")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "brag_tables.wsgi", "--bind", bind,
         "--workers", "1", *options],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "gunicorn ended"
            try:
                with Connection(bind) as conn:
                    if conn.get("/manifest.webmanifest").status == 200:
                        break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not answer"
                time.sleep(0.2)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


class Reply:
    def __init__(self, head: bytes, body: bytes) -> None:
        lines = head.decode("latin-1").split("\r\n")
        self.status_line = lines[0]
        self.status = int(lines[0].split()[1])
        self.headers = [tuple(line.split(": ", 1)) for line in lines[1:] if line]
        self.body = body

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def without_date(self) -> tuple:
        return self.status_line, [h for h in self.headers if h[0] != "Date"], self.body


class Connection:
    """One kept-alive HTTP/1.1 connection, as a spectator's browser holds it."""

    def __init__(self, where: int | str, timeout: float = 10) -> None:
        """where: a port on 127.0.0.1, "127.0.0.1:port", or "unix:path"."""
        if isinstance(where, str) and where.startswith("unix:"):
            self.sock = socket.socket(socket.AF_UNIX)
            self.sock.settimeout(timeout)
            self.sock.connect(where.removeprefix("unix:"))
        else:
            port = where if isinstance(where, int) else int(where.rsplit(":", 1)[1])
            self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buffer = b""

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def get(self, path: str, tag: str | None = None, extra: str = "") -> Reply:
        condition = f"If-None-Match: {tag}\r\n" if tag else ""
        self.send(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{condition}{extra}\r\n".encode("latin-1")
        )
        return self.reply()

    def reply(self) -> Reply:
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = re.search(rb"\r\ncontent-length: *(\d+)", head, re.I)
        size = int(length.group(1)) if length and not head.startswith(b"HTTP/1.1 304") else 0
        while len(self.buffer) < size:
            self.buffer += self._recv()
        body, self.buffer = self.buffer[:size], self.buffer[size:]
        return Reply(head, body)

    def _recv(self) -> bytes:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("closed by the server")
        return data

    def closed_by_server(self) -> bool:
        self.sock.setblocking(False)
        try:
            while self.sock.recv(4096):
                pass
            return True
        except BlockingIOError:
            return False
        except ConnectionError:
            return True
        finally:
            self.sock.setblocking(True)


HTMX = "HX-Request: true\r\n"
# A body too big to gather in the loop, begun and never finished: a pool thread reads it
# (the app refuses it from its headers, and gunicorn drains it until the deadline).
BIG_BODY_BEGUN = (
    b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: 100000\r\n\r\nx"
)


@contextlib.contextmanager
def every_pool_thread_held(port: int):
    held = [Connection(port) for _ in range(THREADS)]
    try:
        for conn in held:
            conn.send(BIG_BODY_BEGUN)
        time.sleep(0.3)  # each has a pool thread now
        yield
    finally:
        for conn in held:
            conn.sock.close()


class TestPolls:
    def test_a_poll_answered_from_what_was_learnt_is_the_stacks_answer_to_the_byte(self, served):
        with Connection(served.port) as conn:
            taught = conn.get(served.board, extra=HTMX)  # a pool thread: Django's first
            again = conn.get(served.board, extra=HTMX)  # the main thread, from memory
            current = conn.get(served.board, tag=again.header("ETag"), extra=HTMX)
        assert taught.status == again.status == 200
        assert again.without_date() == taught.without_date()
        assert b"Ann" in again.body
        assert current.status == 304
        assert current.header("ETag") == again.header("ETag")
        assert current.body == b""

    def test_a_poll_after_a_tap_gets_the_new_state(self, served):
        with Connection(served.port) as conn:
            before = conn.get(served.json)
            conn.get(served.json, tag=before.header("ETag"))
            served.tap()
            after = conn.get(served.json, tag=before.header("ETag"))
            again = conn.get(served.json, tag=before.header("ETag"))
        assert after.status == 200
        assert after.header("ETag") != before.header("ETag")
        assert after.body != before.body
        assert again.without_date() == after.without_date()

    def test_pipelined_polls_are_answered_in_order(self, served):
        with Connection(served.port) as conn:
            tag = conn.get(served.json).header("ETag")
            request = f"GET {served.json} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            conn.send((request + f"If-None-Match: {tag}\r\n\r\n" + request + "\r\n").encode())
            first, second = conn.reply(), conn.reply()
        assert (first.status, second.status) == (304, 200)
        assert second.header("ETag") == tag

    def test_a_reader_that_falls_behind_gets_every_answer_whole(self, served):
        """Polls answered faster than the client reads them fill the server's buffer for
        the socket: the rest of an answer is sent by a pool thread as the reader catches
        up (within the request deadline)."""
        with Connection(served.port) as conn:
            expected = conn.get(served.board)  # the whole page
            conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            count = 8 * 1024 * 1024 // len(expected.body) + 1  # beyond what a buffer holds
            request = f"GET {served.board} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()

            def send() -> None:
                for _ in range(count):
                    conn.send(request)
                    time.sleep(0.001)  # one at a time, as polls come

            sender = threading.Thread(target=send)
            sender.start()
            time.sleep(LIMIT / 4)  # reading late
            answers = [conn.reply().without_date() for _ in range(count)]
            sender.join()
            assert conn.get(served.json).status == 200  # the connection is still good
        assert answers == [expected.without_date()] * count

    def test_a_request_split_across_packets_is_answered(self, served):
        with Connection(served.port) as conn:
            request = f"GET {served.json} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
            for part in (request[:5], request[5:20], request[20:]):
                conn.send(part)
                time.sleep(0.1)
            assert conn.reply().status == 200

    def test_a_malformed_request_gets_gunicorns_400(self, served):
        with Connection(served.port) as conn:
            conn.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n")
            assert conn.reply().status == 400

    def test_a_small_body_sent_in_pieces_reaches_the_app(self, served):
        with Connection(served.port) as conn:
            conn.send(
                b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 20\r\n\r\n"
                b"username=x"
            )
            time.sleep(0.3)
            conn.send(b"&password")
            conn.send(b"=")
            # No CSRF cookie: Django's own refusal, once the whole body came.
            assert conn.reply().status == 403

    def test_a_client_gone_mid_request_leaves_the_worker_serving(self, served):
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", served.port)) as conn:
                conn.sendall(f"GET {served.json} HTTP/1.1\r\nHost: 127".encode())
        with Connection(served.port) as conn:
            assert conn.get(served.json).status == 200


class TestSlowClientsHoldNoThread:
    """Trickling clients wait in the main loop, so the pool threads stay free for hosts and
    the polls are answered meanwhile; each is closed once its request is REQUEST_TIMEOUT
    late."""

    def test_trickles_of_headers_and_bodies_hold_no_thread(self, served):
        trickles = []
        for index in range(THREADS * 4):
            conn = Connection(served.port)
            if index % 2:  # a body that never ends
                conn.send(
                    b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\n"
                    b"Content-Length: 1000\r\n\r\nx"
                )
            else:  # headers that never end
                conn.send(b"GET /rules/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: x")
            trickles.append(conn)
        started = time.monotonic()
        time.sleep(0.3)
        # A page only Django answers (a pool thread) and a poll: both at once.
        with Connection(served.port, timeout=LIMIT / 2) as page:
            assert page.get("/rules/").status == 200
        with Connection(served.port, timeout=LIMIT / 2) as poll:
            assert poll.get(served.json).status == 200
        assert time.monotonic() - started < LIMIT
        shut: dict[int, float] = {}
        while len(shut) < len(trickles) and time.monotonic() - started < LIMIT + 4:
            for index, conn in enumerate(trickles):
                if index in shut:
                    continue
                try:
                    conn.send(b"x")
                except OSError:
                    shut[index] = time.monotonic() - started
                    continue
                if conn.closed_by_server():
                    shut[index] = time.monotonic() - started
            time.sleep(0.25)
        for conn in trickles:
            conn.sock.close()
        assert sorted(shut) == list(range(len(trickles)))
        assert min(shut.values()) > LIMIT - 0.5
        assert max(shut.values()) < LIMIT + 2

    def test_polls_are_answered_while_every_pool_thread_is_busy(self, served):
        with Connection(served.port) as conn:
            tag = conn.get(served.json).header("ETag")  # the poll is learnt
        with every_pool_thread_held(served.port):
            started = time.monotonic()
            with Connection(served.port, timeout=LIMIT / 2) as poll:
                current, fetched = poll.get(served.json, tag=tag), poll.get(served.json)
            assert time.monotonic() - started < LIMIT / 2
        assert (current.status, fetched.status) == (304, 200)

    def test_a_poll_of_a_new_state_is_answered_while_every_pool_thread_is_busy(self, served):
        with Connection(served.port) as conn:
            old = conn.get(served.json)  # the poll is learnt
        served.tap()
        with every_pool_thread_held(served.port):
            started = time.monotonic()
            with Connection(served.port, timeout=LIMIT / 2) as poll:
                new = poll.get(served.json, tag=old.header("ETag"))
            assert time.monotonic() - started < LIMIT / 2
        assert new.status == 200 and new.header("ETag") != old.header("ETag")

    def test_a_big_body_trickled_is_cut_at_the_deadline(self, served):
        # Over the body the loop gathers: a pool thread reads it, within the deadline.
        with Connection(served.port) as conn:
            conn.send(BIG_BODY_BEGUN)
            started = time.monotonic()
            while time.monotonic() - started < LIMIT + 4:
                try:
                    conn.send(b"x")
                except OSError:
                    break
                if conn.closed_by_server():
                    break
                time.sleep(0.25)
            assert time.monotonic() - started < LIMIT + 2


def test_many_spectators_polling_at_once_all_get_the_same_answer(served):
    with Connection(served.port) as first:
        expected = first.get(served.json)
    answers: list = []

    def poll() -> None:
        with Connection(served.port) as conn:
            for _ in range(5):
                answers.append(conn.get(served.json).without_date())

    threads = [threading.Thread(target=poll) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert answers == [expected.without_date()] * 100


@pytest.mark.parametrize(
    "options",
    [pytest.param(("--keep-alive", "0"), id="no keepalive"), pytest.param((), id="unix socket")],
)
def test_other_ways_to_serve_answer_and_survive_a_late_client(served, tmp_path, options):
    """gunicorn's flags win over gunicorn.conf.py: with keep-alive off every answer closes its
    connection; a Unix socket's clients have no address to log."""
    bind = f"unix:{tmp_path / 'brag.sock'}" if not options else f"127.0.0.1:{free_port()}"
    log = tmp_path / "gunicorn.log"
    with gunicorn(served.env, log, bind, *options) as process:
        late = Connection(bind)
        late.send(b"GET /rules/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        for _ in range(2):
            with Connection(bind) as conn:
                assert conn.get(served.json).status == 200
        time.sleep(LIMIT + 1.5)  # the late one is closed meanwhile
        assert late.closed_by_server()
        with Connection(bind) as conn:
            assert conn.get(served.json).status == 200
        assert process.poll() is None
    assert "Traceback" not in log.read_text()
    assert "no whole request within" in log.read_text()
