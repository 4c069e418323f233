"""make bench: seed a fresh database with a realistic league, then time the pages that matter
against two floors on the same server. Server time is measured in-process with Django's test
client (no network), so the figures are the app's own cost.

    python bench/run.py [--matches 100000] [--players 200] [--tables 50] [--repeat 40]
                        [--database-url postgres://postgres@127.0.0.1:5432/brag_bench]
                        [--only "tap"]       (the floors and the rows whose name has this)
    python bench/run.py --browser [--matches 2000]   (Chromium's tap round trip, gunicorn)
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--database-url", default="")
    parser.add_argument(
        "--browser",
        action="store_true",
        help="only the real-browser row: Chromium's tap round trip on gunicorn (bench/browser.py)",
    )
    parser.add_argument(
        "--only", default="", help="time only the rows whose name contains this (and the floors)"
    )
    return parser.parse_args()


def fresh_database(url: str, workdir: str) -> str:
    if not url:
        return f"sqlite:///{workdir}/bench.sqlite3"
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url


def measure(call, repeat: int) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):
        call()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = call()
        times.append((time.perf_counter() - started) * 1000)
    with CaptureQueriesContext(connection) as queries:
        response = call()
    assert response.status_code in (200, 304), response.status_code
    return {
        "median": statistics.median(times),
        "p95": statistics.quantiles(times, n=20)[-1] if len(times) >= 2 else times[0],
        "queries": len(queries),
        "bytes": len(response.content),
        "status": response.status_code,
    }


def measure_prepared(prepare, repeat: int) -> dict:
    """Like measure, for a request that needs fresh data each time (a tap names a standing
    player and a new key): prepare() runs untimed and returns the call to time."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):
        prepare()()
    times: list[float] = []
    for _ in range(repeat):
        call = prepare()
        response = _timed(times, call)
    call = prepare()
    with CaptureQueriesContext(connection) as queries:
        response = call()
    assert response.status_code == 200, response.status_code
    return {**_summary(times), "queries": len(queries), "bytes": len(response.content)}


def _timed(times: list[float], call):
    started = time.perf_counter()
    response = call()
    times.append((time.perf_counter() - started) * 1000)
    assert response.status_code in (200, 302), response.status_code
    return response


def _summary(times: list[float]) -> dict:
    return {
        "median": statistics.median(times),
        "p95": statistics.quantiles(times, n=20)[-1] if len(times) >= 2 else times[0],
        "queries": -1,
        "bytes": 0,
        "status": 200,
    }


def _tap_out(tablet, table, *, leave: int) -> None:
    """Tap the table's open match down to `leave` players standing (not timed)."""
    from matches.models import Match

    while True:
        match = Match.objects.open().get(table=table)
        standing = list(match.seats.filter(place__isnull=True))
        if len(standing) <= leave:
            return
        data = {"match": match.pk, "player": standing[0].player_id, "key": str(uuid.uuid4())}
        tablet.post(f"/tables/{table.pk}/tap/", data, HTTP_HX_REQUEST="true")


def _crown(tablet, table):
    from matches.models import Match

    _tap_out(tablet, table, leave=2)
    match = Match.objects.open().get(table=table)
    seat = match.seats.filter(place__isnull=True).first()
    data = {"match": match.pk, "player": seat.player_id, "key": str(uuid.uuid4())}
    return lambda: tablet.post(f"/tables/{table.pk}/tap/", data, HTTP_HX_REQUEST="true")


def crowning_taps(tablet, live, repeat: int) -> dict:
    """The tap that files a match: standings, its rating update, the next match."""
    times: list[float] = []
    for _ in range(repeat):
        _timed(times, _crown(tablet, live))
    return _summary(times)


def undo_after_later_matches(tablet, live, host, people, repeat: int) -> dict:
    """Undo the live table's crowning after 100 matches were filed at other tables by some
    of the same players: the undo replays the ratings of every match it affects."""
    from matches.play import services

    others = [
        services.table_launch(
            name=f"Other {n}", player_names=[p.name for p in people[n : n + 9 : 2]],
            mode=("ranked", "winner_takes_all")[n % 2], by=host,
        )
        for n in range(4)
    ]  # fmt: skip
    times: list[float] = []
    for _ in range(repeat):
        _crown(tablet, live)()
        for index in range(100):
            _crown(tablet, others[index % len(others)])()
        _timed(times, lambda: tablet.post(f"/tables/{live.pk}/undo/", {}, HTTP_HX_REQUEST="true"))
        _crown(tablet, live)()  # file it again for the next round
    return _summary(times)


def main() -> None:
    args = parse()
    if args.browser:
        from bench import browser

        browser.main(matches=args.matches, repeat=args.repeat)
        return
    workdir = tempfile.mkdtemp(prefix="brag-bench-")
    os.environ["DATABASE_URL"] = fresh_database(args.database_url, workdir)
    os.environ.setdefault("DJANGO_HTTPS", "0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.test import override_settings
    from django.utils import timezone

    from matches.models import Match, Player, Season, Seat
    from matches.play import services
    from matches.web import caching
    from tests.clients import FormClient

    static = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    with override_settings(
        ROOT_URLCONF="bench.urls",
        ALLOWED_HOSTS=["testserver"],
        STORAGES={**settings.STORAGES, "staticfiles": static},
    ):
        call_command("migrate", verbosity=0)
        with connection.cursor() as cursor:
            cursor.execute("CREATE TABLE bench_floor (id integer PRIMARY KEY, n integer)")
            if connection.vendor == "postgresql":
                cursor.execute("CREATE SEQUENCE bench_floor_seq OWNED BY bench_floor.id")
                cursor.execute(
                    "ALTER TABLE bench_floor ALTER id SET DEFAULT nextval('bench_floor_seq')"
                )

        started = time.perf_counter()
        call_command(
            "seed_league",
            players=args.players,
            tables=args.tables,
            matches=args.matches,
            stdout=sys.stderr,
        )
        seeded = time.perf_counter() - started
        host = get_user_model().objects.get(username="seed")
        people = list(Player.objects.order_by("pk"))
        # A bulk load leaves the planner's statistics behind; autovacuum (PostgreSQL) or
        # PRAGMA optimize (SQLite) would catch up in a running league, so measure after that.
        # Autovacuum also marks the pages all-visible, which index-only scans (the standings'
        # covering index) need.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")
        live = services.table_launch(
            name="Live", player_names=[p.name for p in people[:10]], mode="ranked", by=host
        )
        busiest = Seat.objects.filter(player=people[0]).count()

        month_end = timezone.localdate().isoformat()
        month_start = (timezone.localdate() - timezone.timedelta(days=30)).isoformat()
        viewer, tablet = FormClient(), FormClient()
        tablet.force_login(host)
        board_url = f"/tables/{live.pk}/board/"

        def board_poll() -> dict:
            """A poll that gets 304: the tag is read just before, as the rows before this
            one may have written to the live table."""
            tag = viewer.get(board_url, HTTP_HX_REQUEST="true")["ETag"]
            row = measure(
                lambda: viewer.get(board_url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=tag),
                args.repeat,
            )
            assert row["status"] == 304, row["status"]
            return row

        def plain_tap():
            """A tap that puts a random standing player out without crowning (the crowning
            has its row below): the match is crowned, untimed, when two stand."""
            match = Match.objects.open().get(table=live)
            standing = list(match.seats.filter(place__isnull=True).order_by("?"))
            if len(standing) <= 2:
                _crown(tablet, live)()
                return plain_tap()
            data = {"match": match.pk, "player": standing[0].player_id, "key": str(uuid.uuid4())}
            return lambda: tablet.post(f"/tables/{live.pk}/tap/", data, HTTP_HX_REQUEST="true")

        def wiped():
            """As a newly started process: no cached standings and no kept rows."""
            cache.clear()
            caching.kept_rows.clear()

        def after_a_filing(call):
            """The call, right after a match is filed (untimed): the standings stamp moved,
            so the cached standings are stale and the page computes them afresh."""

            def prepare():
                _crown(tablet, live)()
                return call

            return prepare

        year_start = (timezone.localdate() - timezone.timedelta(days=365)).isoformat()
        plan = {
            "read floor (1 indexed query)": lambda: measure(lambda: viewer.get(f"/bench/read/{people[0].pk}/"), args.repeat),
            "write floor (1 row, 1 transaction)": lambda: measure(lambda: tablet.post("/bench/write/"), args.repeat),
            "standings page": lambda: measure(lambda: viewer.get("/standings/"), args.repeat),
            "standings JSON": lambda: measure(lambda: viewer.get("/api/standings/"), args.repeat),
            # Right after a filing the first request computes the standings afresh.
            "standings page, cold": lambda: measure(lambda: wiped() or viewer.get("/standings/"), args.repeat),
            "standings JSON, cold": lambda: measure(lambda: cache.clear() or viewer.get("/api/standings/"), args.repeat),
            "standings JSON, one month, cold": lambda: measure(
                lambda: cache.clear() or viewer.get("/api/standings/", {"from": month_start, "to": month_end}), args.repeat
            ),
            "standings page, cold after a filing": lambda: measure_prepared(
                after_a_filing(lambda: viewer.get("/standings/")), args.repeat
            ),
            "standings JSON, one year, cold": lambda: measure(
                lambda: cache.clear() or viewer.get("/api/standings/", {"from": year_start, "to": month_end}), args.repeat
            ),
            f"player page ({busiest} matches)": lambda: measure(lambda: viewer.get(f"/players/{people[0].pk}/"), args.repeat),
            # Right after a filing the first visit renders the page afresh from the aggregates.
            "player page, cold": lambda: measure(
                lambda: cache.clear() or viewer.get(f"/players/{people[0].pk}/"), args.repeat
            ),
            "player page 50 (uncached)": lambda: measure(
                lambda: viewer.get(f"/players/{people[0].pk}/", {"page": 50}), args.repeat
            ),
            "TV board (league ratings)": lambda: measure(lambda: viewer.get(f"/tables/{live.pk}/board/"), args.repeat),
            "board poll (304)": board_poll,
            "tap (htmx POST + fragment)": lambda: measure_prepared(plain_tap, args.repeat),
            "ratings JSON": lambda: measure(lambda: viewer.get("/api/ratings/"), args.repeat),
            f"player JSON, head-to-head ({busiest})": lambda: measure(lambda: viewer.get(f"/api/players/{people[0].pk}/"), args.repeat),
        }  # fmt: skip

        def wanted(name: str) -> bool:
            return "floor" in name or args.only.casefold() in name.casefold()

        rows = {name: run() for name, run in plan.items() if wanted(name)}
        # Seasons exist only from here on, so the standings rows above read all time.
        season = Season.objects.create(
            name="Bench", first_day=timezone.localdate() - timezone.timedelta(days=30),
            last_day=timezone.localdate(),
        )  # fmt: skip
        later = {
            "standings page, season": lambda: measure(
                lambda: viewer.get("/standings/", {"season": season.pk}), args.repeat
            ),
            "standings page, season, cold": lambda: measure(
                lambda: wiped() or viewer.get("/standings/", {"season": season.pk}), args.repeat
            ),
            "crowning tap (files + rates)": lambda: crowning_taps(tablet, live, args.repeat),
            "undo crowning, 100 later elsewhere": lambda: undo_after_later_matches(
                tablet, live, host, people, max(3, args.repeat // 8)
            ),
        }  # fmt: skip
        rows.update({name: run() for name, run in later.items() if wanted(name)})

    print(f"\nBrag Tables benchmark on {connection.vendor} ({connection.Database.__name__})")
    print(
        f"league: {args.players} players, {args.tables} tables, {args.matches:,} filed matches; "
        f"seeded in {seeded:.1f} s\n"
    )
    print(f"{'what':38} {'median ms':>10} {'p95 ms':>9} {'queries':>8} {'bytes':>9}")
    for name, row in rows.items():
        print(
            f"{name:38} {row['median']:10.2f} {row['p95']:9.2f} {row['queries']:8d} {row['bytes']:9d}"
        )
    read = rows["read floor (1 indexed query)"]["median"]
    write = rows["write floor (1 row, 1 transaction)"]["median"]
    print()
    for name, floor, label, aim in [
        ("standings page", read, "read floor", 10),
        ("standings JSON", read, "read floor", 10),
        ("standings page, cold", read, "read floor", 10),
        ("standings JSON, cold", read, "read floor", 10),
        ("board poll (304)", read, "read floor", 2),
        ("tap (htmx POST + fragment)", write, "write floor", 3),
        ("standings page, cold after a filing", read, "read floor", 10),
        ("standings JSON, one month, cold", read, "read floor", 10),
        ("standings JSON, one year, cold", read, "read floor", 10),
        ("ratings JSON", read, "read floor", 10),
        (f"player page ({busiest} matches)", read, "read floor", 10),
        ("player page, cold", read, "read floor", 10),
        ("player page 50 (uncached)", read, "read floor", 10),
        ("TV board (league ratings)", read, "read floor", 10),
        (f"player JSON, head-to-head ({busiest})", read, "read floor", 10),
        ("standings page, season", read, "read floor", 10),
        ("standings page, season, cold", read, "read floor", 10),
        ("crowning tap (files + rates)", write, "write floor", 3),
        ("undo crowning, 100 later elsewhere", write, "write floor", 50),
    ]:
        if name not in rows:
            continue
        ratio = rows[name]["median"] / floor
        verdict = "within aim" if ratio <= aim else "OVER aim"
        print(f"{name:38} {ratio:5.1f}x the {label} (aim {aim}x): {verdict}")


if __name__ == "__main__":
    main()
