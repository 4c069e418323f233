"""How the app is served for the night: `make run` starts uvicorn with the options in
brag_tables/serving.py, and hostile clients (issue 34) delay nobody else. The real-server
tests run uvicorn as serving.command() builds it, on a free port of 127.0.0.1 only.

An async server holds no thread for a client: a client that never closes, trickles its
request or sends a broken one costs a socket and what it sent (its head at most
serving.HEAD_MAX_BYTES, its body at most REQUEST_BODY_MAX_BYTES), never another client's
time. The old hand-made worker answered each such client on its main loop, about 2 s per
"Connection: close" client that kept its end open and 10 s for a bare-LF request."""

import contextlib
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from brag_tables import serving

pytestmark = [pytest.mark.usefixtures("english")]
ROOT = Path(__file__).resolve().parents[1]
# What a GET of a small page takes on a loaded 2-core machine, with room: the old worker
# made a GET behind five hostile clients wait about 10 s.
PROMPT = 2.0


def dry_run(*args: str) -> str:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    result = subprocess.run(
        [make, "--no-print-directory", "-n", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def server_line(output: str) -> str:
    """The last command make would run: the one that serves."""
    return [line for line in output.splitlines() if line.strip()][-1]


class TestMakeRunServesWithUvicorn:
    """`make run` once served with Django's development server, which says "Do not use it
    in a production setting" to a host told it is enough for the night."""

    def test_run_starts_uvicorn_with_the_projects_options_on_host_and_port(self):
        output = dry_run("run", "HOST=0.0.0.0", "PORT=8123")
        line = server_line(output)
        assert "runserver" not in output
        assert "gunicorn" not in output
        assert ".venv/bin/python -m brag_tables.serving --host 0.0.0.0 --port 8123" in line
        assert "BRAG_BIND_HOST=0.0.0.0" in line and "DJANGO_HTTPS" in line
        # Static files are collected for WhiteNoise, and the address and QR code printed.
        assert "collectstatic" in output
        assert "lan_address --host 0.0.0.0 --port 8123" in output

    def test_the_defaults_serve_this_machine_only(self):
        assert "--host 127.0.0.1 --port 8000" in server_line(dry_run("run"))

    def test_an_ipv6_address_is_passed_as_it_is(self):
        assert "--host :: --port 8080" in server_line(dry_run("run", "HOST=::", "PORT=8080"))

    def test_dev_keeps_the_autoreloading_development_server(self):
        line = server_line(dry_run("dev", "PORT=8123"))
        assert "manage.py runserver 127.0.0.1:8123" in line


def flags(command: list[str]) -> dict[str, str | None]:
    """uvicorn's options in a command: each --name with its value (None for a switch)."""
    found: dict[str, str | None] = {}
    for index, word in enumerate(command):
        if word.startswith("--"):
            following = command[index + 1] if index + 1 < len(command) else "--"
            found[word] = None if following.startswith("--") else following
    return found


class TestTheServersOptions:
    def test_uvicorn_serves_the_asgi_application_with_the_nights_options(self):
        command = serving.command(host="::", port=8080)
        assert command[1:4] == ["-m", "uvicorn", "brag_tables.asgi:application"]
        assert flags(command) == {
            "--host": "::",
            "--port": "8080",
            "--http": "h11",
            "--h11-max-incomplete-event-size": "65536",
            "--loop": "uvloop",
            "--timeout-keep-alive": "5",  # longer than the 3 s poll
            "--timeout-graceful-shutdown": "3",
            "--no-proxy-headers": None,
            "--no-access-log": None,
            "--no-server-header": None,
        }  # no --workers: uvicorn's own WEB_CONCURRENCY, else one process

    def test_workers_are_asked_for_by_number(self):
        assert flags(serving.command(host="127.0.0.1", port=1, workers=3))["--workers"] == "3"

    def test_forwarded_headers_are_believed_only_behind_the_proxy(self):
        with override_settings(BEHIND_PROXY=True):
            options = flags(serving.command(host="127.0.0.1", port=8000))
        assert "--proxy-headers" in options and "--no-proxy-headers" not in options
        # From the proxy's address only: uvicorn's FORWARDED_ALLOW_IPS, loopback by default.
        assert "--forwarded-allow-ips" not in options


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def status_line(conn: socket.socket) -> bytes:
    """The first line of what the server answers on conn, b"" if it closes first."""
    data = b""
    while b"\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\r\n")[0]


def ask(port: int, path: str = "/manifest.webmanifest", timeout: float = 10) -> bytes:
    """A plain GET on its own connection: the status line."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        return status_line(conn)


def timed_ask(port: int) -> tuple[bytes, float]:
    started = time.monotonic()
    line = ask(port)
    return line, time.monotonic() - started


@contextlib.contextmanager
def uvicorn(application: str, tmp_path: Path) -> Iterator[int]:
    """uvicorn as serving.command() runs it (one worker), serving application once it
    answers. Nothing it is asked reads the database: the manifest and the refusals are open
    before the first host exists."""
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "brag_tables.settings",
        "DJANGO_DEBUG": "1",  # no collected static files needed
        "DJANGO_HTTPS": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        "BRAG_BACKUP_AUTO": "0",
        "BRAG_RATINGS_REPLAY": "manual",
    }
    env.pop("WEB_CONCURRENCY", None)
    log = (tmp_path / "uvicorn.log").open("w")
    process = subprocess.Popen(
        serving.command(host="127.0.0.1", port=port, workers=1, application=application),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError):
                if ask(port, timeout=2) == b"HTTP/1.1 200 OK":
                    break
            assert process.poll() is None and time.monotonic() < deadline, "no uvicorn"
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
        assert "Traceback" not in (tmp_path / "uvicorn.log").read_text()


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[int]:
    with uvicorn(serving.APPLICATION, tmp_path_factory.mktemp("served")) as port:
        yield port


def connect(port: int, data: bytes) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn.sendall(data)
    return conn


GET = b"GET /manifest.webmanifest HTTP/1.1\r\nHost: 127.0.0.1\r\n"


class TestHostileClientsDelayNobody:
    def test_clients_that_never_close_their_end_delay_nobody(self, served):
        """Issue 34: a client that asks the server to close (Connection: close, HTTP/1.0)
        or sends a malformed request, and keeps its own end open, held the old worker's
        loop about 2 s each: five of them made a GET wait 10 s."""
        hostile = [
            GET + b"Connection: close\r\n\r\n",
            GET + b"Connection: close\r\n\r\n",
            b"GET /manifest.webmanifest HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",
            b"GET /manifest.webmanifest HTTP/1.0\r\n\r\n",
            b"NOT HTTP AT ALL\r\n\r\n",
        ]
        started = time.monotonic()
        conns = [connect(served, data) for data in hostile]
        try:
            line, took = timed_ask(served)
            answers = [status_line(conn) for conn in conns]
        finally:
            for conn in conns:
                conn.close()
        assert line == b"HTTP/1.1 200 OK" and took < PROMPT
        assert answers[:2] == [b"HTTP/1.1 200 OK"] * 2
        assert answers[2:4] == [b"HTTP/1.1 200 OK"] * 2  # uvicorn answers 1.0 as 1.1
        assert answers[4] == b"HTTP/1.1 400 Bad Request"
        assert time.monotonic() - started < 2 * PROMPT

    def test_a_request_with_bare_line_feeds_is_answered_at_once(self, served):
        """Issue 34: a request whose lines end in a bare LF waited 10 s for an answer."""
        started = time.monotonic()
        with connect(served, b"GET /manifest.webmanifest HTTP/1.1\nHost: 127.0.0.1\n\n") as conn:
            line = status_line(conn)
        assert line in (b"HTTP/1.1 200 OK", b"HTTP/1.1 400 Bad Request")
        assert time.monotonic() - started < PROMPT

    def test_clients_trickling_requests_delay_nobody(self, served):
        """Five clients sending a byte every 0.2 s (headers that never end, bodies that never
        end) while others ask for pages: every page comes as fast as without them."""
        begun = [
            GET + b"X-Slow: x",
            GET + b"X-Slow: x",
            b"POST /setup/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nx",
            b"POST /setup/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nx",
            b"G",
        ]
        conns = [connect(served, data) for data in begun]
        stop = threading.Event()

        def trickle() -> None:
            while not stop.wait(0.2):
                for conn in conns:
                    with contextlib.suppress(OSError):
                        conn.send(b"x")

        trickler = threading.Thread(target=trickle)
        trickler.start()
        try:
            answers = [timed_ask(served) for _ in range(5)]
        finally:
            stop.set()
            trickler.join()
            for conn in conns:
                conn.close()
        assert [line for line, _ in answers] == [b"HTTP/1.1 200 OK"] * 5
        assert max(took for _, took in answers) < PROMPT


class TestRequestLimits:
    """What the old worker refused still is, now by uvicorn's documented options (the head)
    and the app (the body)."""

    def test_a_head_over_the_bound_is_refused_and_the_connection_closed(self, served):
        """h11 checks the bound while a head is incomplete: one that arrives whole in a
        single read may pass it by that read's size, never by more."""
        for head in (
            GET + b"X-Big: " + b"a" * (4 * serving.HEAD_MAX_BYTES) + b"\r\n\r\n",
            GET + b"X-Many: b\r\n" * (4 * serving.HEAD_MAX_BYTES // 10) + b"\r\n",
        ):
            with socket.create_connection(("127.0.0.1", served), timeout=10) as conn:
                with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                    conn.sendall(head)
                assert status_line(conn) == b"HTTP/1.1 400 Bad Request"
                with contextlib.suppress(ConnectionResetError):
                    while conn.recv(65536):  # until the server closes (a timeout fails)
                        pass

    def test_an_endless_header_is_cut_off_at_the_bound(self, served):
        with socket.create_connection(("127.0.0.1", served), timeout=10) as conn:
            conn.sendall(GET + b"X-Endless: ")
            sent = 0
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                while sent < 50 * serving.HEAD_MAX_BYTES:
                    conn.sendall(b"a" * 8192)
                    sent += 8192
        assert sent < 50 * serving.HEAD_MAX_BYTES  # the server stopped reading it

    def test_a_head_just_under_the_bound_is_served(self, served):
        head = GET + b"X-Big: " + b"a" * (serving.HEAD_MAX_BYTES - 1024) + b"\r\n\r\n"
        with connect(served, head) as conn:
            assert status_line(conn) == b"HTTP/1.1 200 OK"

    @pytest.mark.parametrize(
        ("content_type", "status"),
        [
            (b"application/x-www-form-urlencoded", b"413 Request Entity Too Large"),
            (b"multipart/form-data; boundary=x", b"415 Unsupported Media Type"),
        ],
    )
    def test_a_body_the_app_refuses_by_its_headers_is_refused_unsent(
        self, served, content_type, status
    ):
        """A 300 MB upload declared in its headers is answered at once, before a byte of it
        is sent (Django's ASGI handler alone would wait for all of it first)."""
        started = time.monotonic()
        head = (
            b"POST /setup/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + content_type + b"\r\n"
            b"Content-Length: " + str(300 * 1024 * 1024).encode() + b"\r\n\r\n"
        )
        with connect(served, head) as conn:
            assert status_line(conn) == b"HTTP/1.1 " + status
        assert time.monotonic() - started < PROMPT

    def test_a_chunked_body_over_the_cap_is_refused_at_the_cap(self, served):
        cap = settings.REQUEST_BODY_MAX_BYTES
        chunk = b"a" * 16384
        with connect(
            served,
            b"POST /setup/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n",
        ) as conn:
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                for _ in range(cap // len(chunk) + 1):  # just past the cap, and no end
                    conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            assert status_line(conn) == b"HTTP/1.1 413 Request Entity Too Large"

    def test_a_small_chunked_body_reaches_the_app_whole(self, served):
        """The form is read: CSRF refuses it (403), which it could not without its body
        parsed and its own rules applied, rather than our 413."""
        body = b"csrfmiddlewaretoken=x&username=host"
        with connect(
            served,
            b"POST /setup/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
            b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body),
        ) as conn:
            assert status_line(conn) == b"HTTP/1.1 403 Forbidden"

    def test_a_body_under_the_cap_trickled_holds_nobody_up(self, served):
        with connect(
            served,
            b"POST /setup/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 20\r\n\r\n",
        ) as slow:
            for _ in range(4):
                slow.sendall(b"x=ab")
                line, took = timed_ask(served)
                assert line == b"HTTP/1.1 200 OK" and took < PROMPT
                time.sleep(0.25)
            slow.sendall(b"x=ab")
            assert status_line(slow) == b"HTTP/1.1 403 Forbidden"  # whole, then CSRF's


class TestTheModuleBecomesUvicorn:
    @pytest.fixture
    def became(self, monkeypatch) -> list:
        became: list = []
        monkeypatch.setattr(os, "execv", lambda path, argv: became.append((path, argv)))
        return became

    def test_with_uvicorns_own_options_passed_on(self, became):
        serving.main(["--host", "127.0.0.1", "--port", "8443", "--ssl-certfile", "lan.pem"])
        command = serving.command(host="127.0.0.1", port=8443)
        assert became == [(command[0], [*command, "--ssl-certfile", "lan.pem"])]

    def test_an_ipv6_address_takes_ipv4_clients_too(self, monkeypatch):
        """`make run HOST=::` prints the IPv4 LAN address for the tablets; uvicorn alone
        would bind :: for IPv6 only (asyncio sets IPV6_V6ONLY). The socket is bound, never
        listening: nothing reaches it."""
        port = free_port()
        seen = {}

        def execv(path: str, argv: list[str]) -> None:  # the socket uvicorn would get
            fd = int(flags(argv)["--fd"])
            sock = socket.socket(fileno=os.dup(fd))
            with sock:
                seen.update(
                    argv=argv,
                    inheritable=os.get_inheritable(fd),
                    address=sock.getsockname()[:2],
                    v6only=sock.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY),
                )

        monkeypatch.setattr(os, "execv", execv)
        serving.main(["--host", "::", "--port", str(port)])
        assert "--host" not in seen["argv"] and "--port" not in seen["argv"]
        assert seen["inheritable"] and seen["address"] == ("::", port)
        assert seen["v6only"] == 0
