"""How the app is served for the night: `make run` starts gunicorn with the project's
config, and clients trickling a request are shed before they hold every thread."""

import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
ROOT = Path(__file__).resolve().parents[1]


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


class TestMakeRunServesWithGunicorn:
    """`make run` once served with Django's development server, which says "Do not use it
    in a production setting" to a host told it is enough for the night."""

    def test_run_starts_gunicorn_with_its_config_on_host_and_port(self):
        output = dry_run("run", "HOST=0.0.0.0", "PORT=8123")
        line = server_line(output)
        assert "runserver" not in output
        assert re.search(r"\.venv/bin/gunicorn brag_tables\.wsgi\b", line)
        assert "--bind 0.0.0.0:8123" in line
        assert "--config" not in line  # gunicorn.conf.py is read on its own
        assert "BRAG_BIND_HOST=0.0.0.0" in line and "DJANGO_HTTPS" in line
        # Static files are collected for WhiteNoise, and the address and QR code printed.
        assert "collectstatic" in output
        assert "lan_address --host 0.0.0.0 --port 8123" in output

    def test_the_defaults_serve_this_machine_only(self):
        assert "--bind 127.0.0.1:8000" in server_line(dry_run("run"))

    def test_an_ipv6_address_is_bound_in_brackets(self):
        assert "--bind [::1]:8000" in server_line(dry_run("run", "HOST=::1"))

    def test_dev_keeps_the_autoreloading_development_server(self):
        line = server_line(dry_run("dev", "PORT=8123"))
        assert "manage.py runserver 127.0.0.1:8123" in line


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ask(port: int, path: str, timeout: float) -> bytes:
    """A plain GET on its own connection: the status line, or b"" if none came in time."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
        )
        try:
            return conn.recv(64).split(b"\r\n")[0]
        except TimeoutError:
            return b""


def closed_by_server(conn: socket.socket) -> bool:
    """Whether the server has closed this connection (anything it said before is read)."""
    try:
        while data := conn.recv(4096):
            del data
        return True
    except BlockingIOError:
        return False
    except ConnectionError:
        return True


class TestSlowBodiesAreShed:
    """Sockets trickling a byte every 5 s once held gunicorn's threads (gthread reads a
    request with no time limit), and spectators' polls hung behind them."""

    LIMIT = 2  # BRAG_REQUEST_TIMEOUT for this server, in seconds

    @pytest.fixture
    def server(self, tmp_path):
        port = free_port()
        env = {
            **os.environ,
            "BRAG_REQUEST_TIMEOUT": str(self.LIMIT),
            "DJANGO_DEBUG": "1",  # no collected static files needed
            "DJANGO_HTTPS": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            # Nothing below reads the database: the trickles never finish a request, and the
            # manifest is open before the first host exists.
            "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        }
        gunicorn = Path(sys.executable).parent / "gunicorn"
        # The project's gunicorn.conf.py (read from ROOT); one worker, so its threads are all.
        process = subprocess.Popen(
            [str(gunicorn), "brag_tables.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while not ask_quietly(port):
                assert process.poll() is None and time.monotonic() < deadline, "no gunicorn"
                time.sleep(0.2)
            yield port
        finally:
            process.terminate()
            process.wait(timeout=30)

    def test_trickling_clients_are_closed_and_polls_still_answer(self, server):
        threads = 4  # gunicorn.conf.py's then, each held by one trickle before this fix
        trickles = []
        for index in range(threads):
            conn = socket.create_connection(("127.0.0.1", server))
            if index % 2:  # a body that never ends (the CSRF check reads it)
                conn.sendall(
                    b"POST /setup/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Cookie: csrftoken=" + b"a" * 32 + b"\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\n"
                    b"Content-Length: 1000\r\n\r\nx"
                )
            else:  # headers that never end
                conn.sendall(b"GET /rules/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: x")
            conn.setblocking(False)
            trickles.append(conn)
        started = time.monotonic()
        time.sleep(0.5)  # every thread is reading a trickle now
        shut: dict[int, float] = {}
        poll = {}
        poller = threading.Thread(
            target=lambda: poll.update(line=ask(server, "/manifest.webmanifest", 10))
        )
        poller.start()
        while len(shut) < threads and time.monotonic() - started < self.LIMIT + 4:
            for index, conn in enumerate(trickles):
                if index in shut:
                    continue
                try:
                    conn.send(b"x")  # a byte every half second, forever
                except OSError:
                    shut[index] = time.monotonic() - started
                    continue
                if closed_by_server(conn):
                    shut[index] = time.monotonic() - started
            time.sleep(0.5)
        poller.join()
        waited = time.monotonic() - started
        for conn in trickles:
            conn.close()
        assert poll["line"] == b"HTTP/1.1 200 OK"
        assert waited < self.LIMIT + 4
        assert sorted(shut) == list(range(threads))
        assert max(shut.values()) < self.LIMIT + 2


def ask_quietly(port: int) -> bool:
    try:
        return ask(port, "/manifest.webmanifest", 2) == b"HTTP/1.1 200 OK"
    except OSError:
        return False
