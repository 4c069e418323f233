"""The app as uvicorn serves it, in a thread of the test's own process (so it shares the test
database and hears the test's writes), and a client that reads its server-sent events."""

import http.client
import threading
import time
from dataclasses import dataclass, field

import uvicorn
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

from brag_tables import asgi


class ServedApp:
    """brag_tables.asgi's application, with a hub of its own, on 127.0.0.1 and a free port."""

    def __init__(self) -> None:
        # Static files from the apps' folders, as the browser tests' live server serves them
        # (no collectstatic in the tests).
        self.application = asgi.build(ASGIStaticFilesHandler(get_asgi_application()))
        config = uvicorn.Config(
            self.application, host="127.0.0.1", port=0, lifespan="on", log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    @property
    def hub(self):  # type: ignore[no-untyped-def]
        return self.application.hub

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


@dataclass
class Event:
    name: str
    id: str | None
    data: str
    at: float


@dataclass
class EventStream:
    """One subscriber: GET /events<path>, then the events as they come."""

    port: int
    path: str
    headers: dict = field(default_factory=dict)
    status: int = 0
    response_headers: dict = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    retry: int | None = None

    def __post_init__(self) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        self.connection.request("GET", "/events" + self.path, headers=self.headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.response_headers = {k.lower(): v for k, v in self.response.getheaders()}
        self.body = b"" if self.status == 200 else self.response.read()

    def next(self, timeout: float = 10.0, name: str | None = None) -> Event:
        """The next event (named name, skipping others), or AssertionError after timeout."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {name or ''} event within {timeout} s")
            event = self._read(left)
            if event is not None and (name is None or event.name == name):
                return event

    def swaps(self, timeout: float) -> list[Event]:
        """Every swap event within timeout seconds (for asserting that none came)."""
        found = []
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = self._read(left)
            except TimeoutError:
                break
            if event is not None and event.name == "swap":
                found.append(event)
        return found

    def _read(self, timeout: float) -> Event | None:
        sock = self.connection.sock
        assert sock is not None
        sock.settimeout(timeout)
        name, event_id, data = "message", None, []
        while True:
            raw = self.response.readline()
            if not raw:
                raise ConnectionError("the stream ended")
            line = raw.decode().rstrip("\n")
            if line == "":
                if data or name != "message":
                    event = Event(name, event_id, "\n".join(data), time.monotonic())
                    self.events.append(event)
                    return event
                continue
            field_name, _, value = line.partition(": ")
            if field_name == "event":
                name = value
            elif field_name == "id":
                event_id = value
            elif field_name == "data":
                data.append(value)
            elif field_name == "retry":
                self.retry = int(value)

    def close(self) -> None:
        self.connection.close()
