"""A serving process warms itself before it takes requests (matches.core.warm, called by
the ASGI application's lifespan startup): its first requests after
a start import nothing, compile no template and ask the database nothing a second request
would not ask. Once, 24 to 27 requests took 2 to 7 s each for about 5 s after every start of
a 20,000-match league, each paying for some of that at once."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.urls import reverse

from matches.core import kept
from matches.core import warm as warm_module
from matches.core.warm import warm
from matches.org import hosts
from tests.factories import make_table, tap

ROOT = Path(__file__).resolve().parents[1]

# Run in a fresh process, as a server's worker runs: the WSGI application loaded (Django set
# up), warm(), then each path asked twice. What the first requests imported, which templates
# they read from disk, and how many queries each first and second request made.
FRESH_PROCESS = r"""
import json, sys, wsgiref.util

from brag_tables.wsgi import application
from django.db import connection
from django.template.loaders import filesystem
from django.test.utils import CaptureQueriesContext

from matches.core.warm import warm

warm()
read = []
real_read = filesystem.Loader.get_contents  # the app directories' loader's too


def get_contents(self, origin):
    read.append(origin.template_name)
    return real_read(self, origin)


filesystem.Loader.get_contents = get_contents
imported_before = set(sys.modules)


def get(path):
    environ = {"PATH_INFO": path, "REQUEST_METHOD": "GET", "HTTP_HOST": "127.0.0.1"}
    wsgiref.util.setup_testing_defaults(environ)
    status = []
    body = application(environ, lambda line, headers, exc_info=None: status.append(line))
    b"".join(body)
    body.close()
    return int(status[0].split()[0])


answers = {}
for path in json.loads(sys.argv[1]):
    counts = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as captured:
            code = get(path)
        counts.append(len(captured))
    answers[path] = [code, *counts]
imported = sorted(set(sys.modules) - imported_before)
print(json.dumps({"answers": answers, "imported": imported, "read": read}))
"""


def _database_url() -> str:
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user, host, port = settings["USER"], settings["HOST"], settings["PORT"]
    return f"postgres://{user}@{host}:{port or 5432}/{settings['NAME']}"


def _fresh_process(paths: list[str]) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_SETTINGS_MODULE": "brag_tables.settings",
        "DJANGO_DEBUG": "1",  # no collected static files needed
        "DJANGO_HTTPS": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "BRAG_RATINGS_REPLAY": "manual",
        "BRAG_BACKUP_AUTO": "0",
    }
    result = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS, json.dumps(paths)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.django_db(transaction=True)
class TestAFreshProcessAfterWarm:
    def test_its_first_requests_import_and_compile_nothing(self, host):
        table = make_table(host=host, players=["Zoë", "Ben", "Cara"])
        tap(table, "Cara")
        zoe = table.matches.get().seats.get(player__name="Zoë").player_id
        paths = [
            reverse("matches:home"),
            reverse("matches:table", args=[table.pk]),
            reverse("matches:tv", args=[table.pk]),
            reverse("matches:api_table", args=[table.pk]),
            reverse("matches:standings"),
            reverse("matches:player", args=[zoe]),
            reverse("matches:players"),
            reverse("matches:seasons"),
            reverse("matches:rules"),
            reverse("matches:showdown"),
            reverse("login"),
        ]

        found = _fresh_process(paths)

        assert all(code in (200, 302) for code, _, _ in found["answers"].values()), found
        assert found["imported"] == [], " ".join(found["imported"])
        assert found["read"] == [], found["read"]
        # What the process keeps from settings or the database alone (the host flag, the
        # policies) was kept before the first request: pages kept per state aside (a table's
        # version, the standings stamp), the first request asks what the second asks.
        for path in [reverse("matches:home"), reverse("matches:rules"), reverse("login")]:
            _, first, second = found["answers"][path]
            assert first == second, (path, found["answers"][path])


class TestWarmFillsWhatAProcessKeeps:
    def test_the_host_flag_is_known_before_the_first_request(self, host):
        kept.forget_all()  # as a new process
        assert not hosts.host_known()
        warm()
        assert hosts.host_known()

    def test_a_step_that_fails_is_logged_and_the_rest_still_warm(self, host, monkeypatch, caplog):
        def unreachable() -> None:
            raise ConnectionError("the database is not up yet")

        monkeypatch.setattr(warm_module, "_warmers", [unreachable, *warm_module._warmers])
        kept.forget_all()
        warm()
        assert hosts.host_known()
        assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
            "Warming unreachable failed: ConnectionError: the database is not up yet"
        ]


@pytest.mark.django_db(transaction=True)
def test_warm_leaves_no_connection_open_in_its_thread(host):
    """Django's ASGI handler runs each request in a thread of its own: the connection warm()
    opened in the startup's thread would only sit idle."""
    kept.forget_all()
    warm()
    assert hosts.host_known()  # it did ask the database
    assert connection.connection is None
