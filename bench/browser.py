"""Make bench's real-browser row: from Chromium, the round trip of a tap (the htmx
POST's fetch, its answer read) against a one-row write on the same uvicorn, both from the
table page, alternating, so network stack, middleware and session cost the same.

    python bench/run.py --browser [--matches 2000] [--repeat 40]
"""

import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PORT = 8320  # this bench's own port, on 127.0.0.1 only

# In the page: alternate a write-floor POST and a tap on the first standing player, read from
# The previous answer's tap forms (as the page itself would); crownings are not timed.
ROUND_TRIPS = """async (repeat) => {
  const csrf = JSON.parse(document.body.getAttribute("hx-headers"))["x-csrftoken"];
  let html = document.getElementById("live").innerHTML;
  const floor = [], tap = [];
  for (let i = 0; i < repeat; i++) {
    let started = performance.now();
    await (await fetch("/bench/write/", {method: "POST", headers: {"X-CSRFToken": csrf}})).text();
    floor.push(performance.now() - started);
    const board = new DOMParser().parseFromString(html, "text/html");
    const forms = [...board.querySelectorAll('form[action$="/tap/"]')];
    const body = new URLSearchParams(new FormData(forms[0]));
    started = performance.now();
    const answer = await fetch(forms[0].getAttribute("action"), {
      method: "POST", body, headers: {"HX-Request": "true", "X-CSRFToken": csrf},
    });
    html = await answer.text();
    if (forms.length > 2 && answer.ok) tap.push(performance.now() - started);
  }
  return {floor, tap};
}"""


def _wait_for(port: int) -> None:
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("uvicorn did not start")


def main(*, matches: int, repeat: int) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tempfile.mkdtemp(prefix='brag-bench-browser-')}/b.sqlite3",
        "DJANGO_HTTPS": "0",
        "DJANGO_DEBUG": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_SETTINGS_MODULE": "brag_tables.settings",
    }
    os.environ.update(env)
    python = sys.executable
    for command in (["migrate", "--noinput", "-v", "0"], ["collectstatic", "--noinput", "-v", "0"]):
        subprocess.run([python, "manage.py", *command], cwd=ROOT, env=env, check=True)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command
    from django.db import connection
    from playwright.sync_api import sync_playwright

    from matches.models import Player
    from matches.play.services.tables import table_launch
    from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS

    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_floor (id integer PRIMARY KEY, n integer)")
    call_command("seed_league", players=200, tables=50, matches=matches, stdout=sys.stderr)
    host = get_user_model().objects.get(username="seed")
    people = list(Player.objects.order_by("pk"))
    live = table_launch(
        name="Live", player_names=[p.name for p in people[:10]], mode="ranked", by=host
    )
    session = SessionStore()
    session["_auth_user_id"] = str(host.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = host.get_session_auth_hash()
    session.create()
    connection.close()  # uvicorn's worker writes from here on

    from brag_tables import serving

    command = serving.command(
        host="127.0.0.1",
        port=PORT,
        workers=1,
        log_level="warning",
        application="bench.asgi:application",
    )
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    try:
        _wait_for(PORT)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context()
            context.add_cookies(
                [
                    {
                        "name": "sessionid",
                        "value": session.session_key,
                        "url": f"http://127.0.0.1:{PORT}",
                    }
                ]
            )
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{PORT}/tables/{live.pk}/")
            page.evaluate(ROUND_TRIPS, 5)  # warm up: connections, caches
            times = page.evaluate(ROUND_TRIPS, repeat)
            browser.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    floor, tap = statistics.median(times["floor"]), statistics.median(times["tap"])
    print(f"\nReal browser (Chromium fetch, uvicorn 1 worker, SQLite, {matches:,} filed matches)")
    print(f"{'what':38} {'median ms':>10} {'samples':>8}")
    print(f"{'write floor (1 row, 1 transaction)':38} {floor:10.2f} {len(times['floor']):8d}")
    print(f"{'tap round trip (htmx POST + fragment)':38} {tap:10.2f} {len(times['tap']):8d}")
    ratio = tap / floor
    verdict = "within aim" if ratio <= 2 else "OVER aim"
    print(f"\n{'tap round trip':38} {ratio:5.1f}x the write floor (aim 2x): {verdict}")
