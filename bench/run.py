"""make bench: seed a fresh database with a realistic league, then time the pages that matter
against floors on the same server, each floor timed beside its row. Server time is measured
in-process with Django's test client (no network), so the figures are the app's own cost.

    python bench/run.py [--matches 100000] [--players 200] [--tables 50] [--venues 1]
                        [--repeat 40]
                        [--database-url postgres://postgres@127.0.0.1:5432/brag_bench]
                        [--only "tap"]       (the floors and the rows whose name has this)
    python bench/run.py --browser [--matches 2000]   (Chromium's tap round trip, uvicorn)
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

# A tap's aim, in times the tap floor (its own writes, with the session and user loaded):
# PostgreSQL's round trips make that floor a larger share of the tap than SQLite's do.
TAP_AIM = {"sqlite": 4, "postgresql": 3}


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument(
        "--venues",
        type=int,
        default=1,
        help="pubs the tables are spread over; the venue rows read the first one's standings",
    )
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--database-url", default="")
    parser.add_argument(
        "--browser",
        action="store_true",
        help="only the real-browser row: Chromium's tap round trip on uvicorn (bench/browser.py)",
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


# Every row is timed beside its floor: a floor call and the row's call alternate (which
# goes first alternates too), repeat pairs in all. The machine's load (other processes, the
# CPU's clock) changes over seconds, so a floor timed once at the start skews every ratio
# after a load change; a floor and its row timed a few milliseconds apart see the same load.
# A row's ratio is the median of its pairs' ratios: a spike that hit one side of one pair
# is dropped with that pair, where a ratio of two medians could pair a calm floor with a
# loaded row. The medians of each side are shown too.


def _ms(call):
    started = time.perf_counter()
    response = call()
    return (time.perf_counter() - started) * 1000, response


def _queries(call) -> tuple[int, object]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = call()
    return len(queries), response


def _row(times: list[float], floors: list[float], queries: int, response) -> dict:
    return {
        "median": statistics.median(times),
        "p95": statistics.quantiles(times, n=20)[-1] if len(times) >= 2 else times[0],
        "floor": statistics.median(floors),
        "ratio": statistics.median(t / f for t, f in zip(times, floors, strict=True)),
        "queries": queries,
        "bytes": len(response.content) if response is not None else 0,
        "status": response.status_code if response is not None else 200,
    }


def paired(prepare, floor, repeat: int, statuses=(200, 304)) -> dict:
    """Time prepare()'s call and floor() alternately, repeat pairs (after 3 of each to warm
    up). prepare() runs untimed and returns the call to time: a tap needs a standing player
    and a new key each time; a page returns the same call."""
    for _ in range(3):
        floor()
        prepare()()
    times: list[float] = []
    floors: list[float] = []
    for index in range(repeat):
        call = prepare()
        if index % 2:
            floors.append(_ms(floor)[0])
            took, response = _ms(call)
        else:
            took, response = _ms(call)
            floors.append(_ms(floor)[0])
        assert response.status_code in statuses, response.status_code
        times.append(took)
    queries, response = _queries(prepare())
    assert response.status_code in statuses, response.status_code
    return _row(times, floors, queries, response)


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
    """The tap that crowns the table's open match (the others tapped out first, untimed)."""
    _tap_out(tablet, table, leave=2)
    return _next_tap(tablet, table)


def _next_tap(tablet, table):
    """A tap on the open match's first standing player."""
    from matches.models import Match

    match = Match.objects.open().get(table=table)
    seat = match.seats.filter(place__isnull=True).first()
    data = {"match": match.pk, "player": seat.player_id, "key": str(uuid.uuid4())}
    return lambda: tablet.post(f"/tables/{table.pk}/tap/", data, HTTP_HX_REQUEST="true")


def crowning_beside_a_tap(tablet, table, repeat: int) -> dict:
    """The tap that files a match (standings, its rating update, the next match), timed
    right after the plain tap before it in the same match: its floor is that tap."""

    def one_round():
        _tap_out(tablet, table, leave=3)
        took, response = _ms(_next_tap(tablet, table))  # three stand: it leaves two
        assert response.status_code == 200, response.status_code
        return took, _crown(tablet, table)

    times: list[float] = []
    taps: list[float] = []
    for index in range(repeat + 3):
        took, crown = one_round()
        crowned, response = _ms(crown)
        assert response.status_code == 200, response.status_code
        if index >= 3:  # warm-up rounds
            taps.append(took)
            times.append(crowned)
    queries, response = _queries(one_round()[1])
    return _row(times, taps, queries, response)


def undo_beside_its_tap(tablet, table, plain_tap, repeat: int) -> dict:
    """Undo a plain tap, with the page's button (naming the tap), timed right after that
    tap: its floor is the tap it takes back."""
    from matches.models import Tap

    url = f"/tables/{table.pk}/undo/"

    def one_round():
        took, response = _ms(plain_tap())
        assert response.status_code == 200, response.status_code
        latest = Tap.objects.filter(match__table=table, undone_at__isnull=True).latest("id")
        return took, lambda: tablet.post(url, {"tap": latest.pk}, HTTP_HX_REQUEST="true")

    times: list[float] = []
    taps: list[float] = []
    for index in range(repeat + 3):
        took, undo = one_round()
        undone, response = _ms(undo)
        assert response.status_code == 200, response.status_code
        if index >= 3:
            taps.append(took)
            times.append(undone)
    queries, response = _queries(one_round()[1])
    return _row(times, taps, queries, response)


def undo_after_later_matches(tablet, live, host, people, floor, repeat: int) -> dict:
    """Undo the live table's crowning after 100 matches were filed at other tables by some
    of the same players: the answer only moves the ratings replay's position; the replay
    itself (its steps, as a serving process's thread runs them) is settled after each
    round, untimed (loadtest/run.py --replay times it under load)."""
    from matches.play.services.tables import table_launch
    from matches.ratings.steps import ratings_settle

    others = [
        table_launch(
            name=f"Other {n}", player_names=[p.name for p in people[n : n + 9 : 2]],
            mode=("ranked", "winner_takes_all")[n % 2], by=host,
        )
        for n in range(4)
    ]  # fmt: skip
    times: list[float] = []
    floors: list[float] = []
    response = None
    for _ in range(repeat):
        _crown(tablet, live)()
        for index in range(100):
            _crown(tablet, others[index % len(others)])()
        floors.append(_ms(floor)[0])
        took, response = _ms(
            lambda: tablet.post(f"/tables/{live.pk}/undo/", {}, HTTP_HX_REQUEST="true")
        )
        times.append(took)
        ratings_settle()
        _crown(tablet, live)()  # file it again for the next round
    return {**_row(times, floors, -1, response), "bytes": 0}


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
    # No ratings worker beside the timed rows: a row that leaves a replay settles it, untimed.
    os.environ["BRAG_RATINGS_REPLAY"] = "manual"
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.test import override_settings
    from django.utils import timezone

    from matches.models import Match, Player, Season, Seat, Venue
    from matches.play.services.tables import table_launch
    from matches.web.caching import renderings
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
            venues=args.venues,
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
        # At the first venue (the one the venue rows read), in a league of one or many.
        first_venue = Venue.objects.order_by("pk").first()
        live = table_launch(
            name="Live", player_names=[p.name for p in people[:10]], mode="ranked", by=host,
            venue_id=first_venue.pk,
        )  # fmt: skip
        busiest = Seat.objects.filter(player=people[0]).count()

        # The tap floor's own table, so its writes never touch the live one.
        floor_table = table_launch(
            name="Floor", player_names=[p.name for p in people[10:14]], mode="ranked", by=host,
            venue_id=first_venue.pk,
        )  # fmt: skip
        floor_seat = Match.objects.open().get(table=floor_table).seats.first()
        floor_tap = {
            "table": floor_table.pk,
            "match": floor_seat.match_id,
            "seat": floor_seat.pk,
            "player": floor_seat.player_id,
        }

        month_end = timezone.localdate().isoformat()
        month_start = (timezone.localdate() - timezone.timedelta(days=30)).isoformat()
        viewer, tablet = FormClient(), FormClient()
        tablet.force_login(host)
        board_url = f"/tables/{live.pk}/board/"
        floors = {
            "read floor": lambda: viewer.get(f"/bench/read/{people[0].pk}/"),
            "write floor": lambda: tablet.post("/bench/write/"),
            "tap floor": lambda: tablet.post("/bench/tap/", floor_tap),
        }

        def page(call, floor: str = "read floor"):
            return lambda: paired(lambda: call, floors[floor], args.repeat)

        def board_poll() -> dict:
            """A poll that gets 304: the tag is read just before, as the rows before this
            one may have written to the live table."""
            tag = viewer.get(board_url, HTTP_HX_REQUEST="true")["ETag"]
            call = lambda: viewer.get(board_url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=tag)  # noqa: E731
            row = paired(lambda: call, floors["read floor"], args.repeat, statuses=(304,))
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
            renderings.kept_rows.clear()

        def after_a_filing(call):
            """The call, right after a match is filed (untimed): the standings stamp moved,
            so the cached standings are stale and the page computes them afresh."""

            def prepare():
                _crown(tablet, live)()
                return call

            return prepare

        year_start = (timezone.localdate() - timezone.timedelta(days=365)).isoformat()
        # The first venue's standings: the live table's, so a filing there moves them.
        pub = {"venue": live.venue.slug}
        pub_month = {**pub, "from": month_start, "to": month_end}
        pub_matches = Match.objects.filed().filter(table__venue=live.venue).count()
        # Each row: how to time it (beside its floor), the floor, and the aim (the most
        # times the floor it may cost).
        plan = {
            # The floors themselves, each beside the read floor (the least a request costs).
            "write floor (1 row, 1 transaction)": (page(floors["write floor"]), "read floor", None),
            "tap floor (auth + the tap's writes)": (page(floors["tap floor"]), "read floor", None),
            "standings page": (page(lambda: viewer.get("/standings/")), "read floor", 10),
            "standings JSON": (page(lambda: viewer.get("/api/standings/")), "read floor", 10),
            # Right after a filing the first request computes the standings afresh.
            "standings page, cold": (page(lambda: wiped() or viewer.get("/standings/")), "read floor", 10),
            "standings JSON, cold": (page(lambda: cache.clear() or viewer.get("/api/standings/")), "read floor", 10),
            "standings JSON, one month, cold": (page(
                lambda: cache.clear() or viewer.get("/api/standings/", {"from": month_start, "to": month_end})
            ), "read floor", 10),
            "standings page, cold after a filing": (lambda: paired(
                after_a_filing(lambda: viewer.get("/standings/")), floors["read floor"], args.repeat
            ), "read floor", 10),
            # A venue's standings read the rows that carry it: warm within 10x, cold 30x.
            f"venue standings page ({pub_matches:,})": (page(lambda: viewer.get("/standings/", pub)), "read floor", 10),
            "venue standings JSON": (page(lambda: viewer.get("/api/standings/", pub)), "read floor", 10),
            "venue standings page, cold": (page(lambda: wiped() or viewer.get("/standings/", pub)), "read floor", 30),
            "venue standings JSON, cold": (page(lambda: cache.clear() or viewer.get("/api/standings/", pub)), "read floor", 30),
            "venue standings JSON, one month, cold": (page(
                lambda: cache.clear() or viewer.get("/api/standings/", pub_month)
            ), "read floor", 30),
            "venue standings page, cold after a filing": (lambda: paired(
                after_a_filing(lambda: viewer.get("/standings/", pub)), floors["read floor"], args.repeat
            ), "read floor", 30),
            "standings JSON, one year, cold": (page(
                lambda: cache.clear() or viewer.get("/api/standings/", {"from": year_start, "to": month_end})
            ), "read floor", 10),
            f"player page ({busiest} matches)": (page(lambda: viewer.get(f"/players/{people[0].pk}/")), "read floor", 10),
            # Right after a filing the first visit renders the page afresh from the aggregates.
            "player page, cold": (page(
                lambda: cache.clear() or viewer.get(f"/players/{people[0].pk}/")
            ), "read floor", 10),
            "player page 50 (uncached)": (page(
                lambda: viewer.get(f"/players/{people[0].pk}/", {"page": 50})
            ), "read floor", 10),
            "TV board (league ratings)": (page(lambda: viewer.get(f"/tables/{live.pk}/board/")), "read floor", 10),
            "board poll (304)": (board_poll, "read floor", 2),
            # A tap cannot cost less than its own writes with the session and user loaded
            # (the tap floor); a one-row write is a quarter of that, so it is no aim for a tap.
            "tap (htmx POST + fragment)": (lambda: paired(plain_tap, floors["tap floor"], args.repeat), "tap floor", TAP_AIM[connection.vendor]),
            "undo a plain tap": (lambda: undo_beside_its_tap(tablet, live, plain_tap, args.repeat), "its tap", 1.5),
            "ratings JSON": (page(lambda: viewer.get("/api/ratings/")), "read floor", 10),
            f"player JSON, head-to-head ({busiest})": (page(lambda: viewer.get(f"/api/players/{people[0].pk}/")), "read floor", 10),
        }  # fmt: skip

        def wanted(name: str) -> bool:
            return "floor" in name or args.only.casefold() in name.casefold()

        rows = {
            name: (run(), floor, aim) for name, (run, floor, aim) in plan.items() if wanted(name)
        }
        # Seasons exist only from here on, so the standings rows above read all time.
        season = Season.objects.create(
            name="Bench", first_day=timezone.localdate() - timezone.timedelta(days=30),
            last_day=timezone.localdate(),
        )  # fmt: skip
        later = {
            "standings page, season": (page(
                lambda: viewer.get("/standings/", {"season": season.pk})
            ), "read floor", 10),
            "standings page, season, cold": (page(
                lambda: wiped() or viewer.get("/standings/", {"season": season.pk})
            ), "read floor", 10),
            "venue standings page, season, cold": (page(
                lambda: wiped() or viewer.get("/standings/", {**pub, "season": season.pk})
            ), "read floor", 30),
            "crowning tap (files + rates)": (lambda: crowning_beside_a_tap(tablet, live, args.repeat), "its plain tap", 3),
            "undo crowning, 100 later elsewhere": (lambda: undo_after_later_matches(
                tablet, live, host, people, floors["write floor"], max(3, args.repeat // 8)
            ), "write floor", 50),
        }  # fmt: skip
        rows.update(
            {name: (run(), floor, aim) for name, (run, floor, aim) in later.items() if wanted(name)}
        )

    print(f"\nBrag Tables benchmark on {connection.vendor} ({connection.Database.__name__})")
    print(
        f"league: {args.players} players, {args.tables} tables at {args.venues} venues, "
        f"{args.matches:,} filed matches; "
        f"seeded in {seeded:.1f} s; {args.repeat} pairs a row (row and floor alternate)\n"
    )
    print(
        f"{'what':38} {'median ms':>9} {'p95 ms':>7} {'queries':>7} {'bytes':>7}   "
        f"{'floor':14} {'floor ms':>8} {'ratio':>6} {'aim':>5}"
    )
    for name, (row, floor, aim) in rows.items():
        verdict = "" if aim is None else ("within aim" if row["ratio"] <= aim else "OVER aim")
        print(
            f"{name:38} {row['median']:9.2f} {row['p95']:7.2f} {row['queries']:7d} "
            f"{row['bytes']:7d}   {floor:14} {row['floor']:8.2f} {row['ratio']:5.1f}x "
            f"{'' if aim is None else f'{aim:g}x':>5} {verdict}"
        )
    print(
        "\nratio: the median over the pairs of row / floor, each pair timed together; "
        "'its tap' and 'its plain tap' are the tap timed just before in the same round."
    )


if __name__ == "__main__":
    main()
