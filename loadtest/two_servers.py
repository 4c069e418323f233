"""Two app servers, one database: two uvicorn instances on two ports of
127.0.0.1 against one database, the hosts' taps and the spectators' reads spread at random
across both, as a load balancer would. Then: every acknowledged tap is in the database
exactly once, check_integrity is clean, and the standings (page and JSON, all time and one
month) are the same from either server and the same as the database's own, also right
after a match is filed through one server while both have the standings cached.

    python loadtest/run.py --two-servers [--short] --database-url postgres://…/brag_two
    python loadtest/two_servers.py [--short] [--database-url URL] [--ports 8310,8311]

What each process keeps in memory, and why that is safe with several: see docs/operating.md
("Several app servers").
"""

import datetime
import json
import random
import re
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadtest.run import (  # noqa: E402
    Browser,
    Server,
    Stats,
    fresh_database,
    host_cookies,
    host_loop,
    integrity,
    launch_tables,
    prepare,
    report,
    seeded_taps,
    spectator_loop,
)

DEFAULT_PORTS = (8310, 8311)  # this test's own ports (the servers bind 127.0.0.1 only)


class Spread:
    """A client whose every request goes to one of the servers, picked at random."""

    def __init__(self, browsers: list[Browser], rng: random.Random) -> None:
        self.browsers, self.rng, self.stats = browsers, rng, browsers[0].stats

    def request(self, *args, **kwargs):
        return self.rng.choice(self.browsers).request(*args, **kwargs)


def spread(servers: list[Server], stats: Stats, rng: random.Random, cookies="", csrf="") -> Spread:
    return Spread([Browser(s.port, stats, cookies, csrf) for s in servers], rng)


# Per-visitor bits of an HTML page (the CSRF token of a form, if any): everything else must
# be byte for byte the same from either server.
PER_VISITOR = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*|("x-csrftoken": ")[^"]*')


def standings_answers(server: Server, month: dict[str, str]) -> dict[str, str]:
    """The standings as one server gives them: JSON all time and one month, and the page."""
    browser = Browser(server.port, Stats())
    query = "&".join(f"{k}={v}" for k, v in month.items())
    answers = {}
    for path in ("/api/standings/", f"/api/standings/?{query}", "/standings/"):
        response, body = browser.request("GET", path)
        answers[path] = f"{response.status} " + PER_VISITOR.sub(r"\1\2", body)
    return answers


def database_standings(month: dict[str, str]) -> dict[str, list[dict]]:
    """The standings computed here, straight from the database: what both must show."""
    from matches.results import standings as league_standings
    from matches.results.standings import StandingsQuery

    first, last = (datetime.date.fromisoformat(month[k]) for k in ("from", "to"))
    return {
        "/api/standings/": [row.as_json() for row in league_standings.standings()],
        "/api/standings/?" + "&".join(f"{k}={v}" for k, v in month.items()): [
            row.as_json()
            for row in league_standings.standings(StandingsQuery(date_from=first, date_to=last))
        ],
    }


def compare(servers: list[Server], month: dict[str, str], when: str) -> list[str]:
    """Failures, if the two servers disagree with each other or with the database."""
    failures = []
    first, second = (standings_answers(server, month) for server in servers)
    truth = database_standings(month)
    for path, answer in first.items():
        if answer != second[path]:
            failures.append(f"{when}: {path} differs between the two servers")
        if not answer.startswith("200 "):
            failures.append(f"{when}: {path} answered {answer[:3]}")
        elif path in truth and json.loads(answer[4:])["rows"] != truth[path]:
            failures.append(f"{when}: {path} differs from the database's standings")
    same = not failures
    print(f"  standings {when}: page, JSON and one month identical from both servers and "
          f"equal to the database's: {same}")  # fmt: skip
    return failures


def play(servers: list[Server], args, rng: random.Random) -> tuple[Stats, float, int]:
    """Hosts play every table to `args.matches` filed matches, each request to either
    server; spectators poll boards and standings on both meanwhile (warming both caches)."""
    stats = Stats()
    cookies, csrf = host_cookies()
    seats = launch_tables(servers[0].port, stats, cookies, csrf, args.tables, rng)
    planned = sum(args.matches * (n - 1) for n in seats.values())
    stop = threading.Event()
    hosts = [
        threading.Thread(target=host_loop, args=(spread(servers, stats, random.Random(rng.random()), cookies, csrf), table, args.matches, stop, random.Random(rng.random())), daemon=True)
        for table in seats
    ]  # fmt: skip
    viewers = [
        threading.Thread(target=spectator_loop, args=(spread(servers, stats, random.Random(rng.random())), list(seats), stop, random.Random(rng.random())), daemon=True)
        for _ in range(args.spectators)
    ]  # fmt: skip
    started = time.perf_counter()
    for thread in hosts + viewers:
        thread.start()
    for thread in hosts:
        thread.join()
    stop.set()
    for thread in viewers:
        thread.join(timeout=30)
    return stats, time.perf_counter() - started, planned


def file_one_match_through(server: Server, rng: random.Random) -> Stats:
    """Launch a table and play one match to its crowning, every request to this server."""
    stats = Stats()
    cookies, csrf = host_cookies()
    table = next(iter(launch_tables(server.port, stats, cookies, csrf, 1, rng)))
    host_loop(Browser(server.port, stats, cookies, csrf), table, 1, threading.Event(), rng)
    return stats


def run(args, env: dict) -> int:
    from django.db import connection

    from matches.models import Tap

    seeded = seeded_taps()
    ports = [int(p) for p in args.ports.split(",")] if args.ports else list(DEFAULT_PORTS)
    print(f"Two servers on {connection.vendor}: ports {ports[0]} and {ports[1]}, "
          f"{args.workers} workers each, {args.tables} tables x {args.matches} matches, "
          f"{args.spectators} spectators")  # fmt: skip
    rng = random.Random(2027)
    servers = []
    for port in ports[:2]:
        server = Server(env, args.workers)
        server.port = port
        server.start()
        servers.append(server)
    failures = []
    today = datetime.date.today()
    month = {"from": (today - datetime.timedelta(days=30)).isoformat(), "to": today.isoformat()}
    try:
        stats, elapsed, planned = play(servers, args, rng)
        report("two servers", stats, elapsed)
        load = Tap.objects.filter(pk__gt=seeded)
        live = set(map(str, load.filter(undone_at__isnull=True).values_list("key", flat=True)))
        stored = list(Tap.objects.filter(key__in=stats.acknowledged).values_list("key", flat=True))
        once = len(stored) == len(set(stored)) == len(stats.acknowledged)
        print(f"  acknowledged taps {len(stats.acknowledged)} of {planned} planned, each in the "
              f"database exactly once: {once}; no other elimination: {live == stats.acknowledged}")  # fmt: skip
        if not stats.acknowledged or len(stats.acknowledged) < planned:
            failures.append(f"{len(stats.acknowledged)} of {planned} planned taps acknowledged")
        if not once or live != stats.acknowledged:
            failures.append("eliminations differ from acknowledged taps")
        if stats.errors:
            failures.append("server errors")
        if stats.blind:
            failures.append(f"no tap form found on an open match's board: {stats.blind[0]}")
        failures += compare(servers, month, "after play")
        # Both servers now hold the standings in their caches: a match filed through the
        # First must show at once on the second.
        extra = file_one_match_through(servers[0], rng)
        if not extra.acknowledged:
            failures.append("the extra match through the first server was not played")
        failures += compare(servers, month, "after a filing through one server")
    finally:
        for server in servers:
            server.stop()
    ok, text = integrity()
    print(f"  check_integrity: {text.splitlines()[-1] if text else ''}")
    if not ok:
        failures.append("check_integrity failed")
    for failure in failures:
        print(f"FAILED: {failure}")
    print("two servers passed" if not failures else "two servers FAILED")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--spectators", type=int, default=6)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ports", default="", help="two ports, e.g. 8310,8311")
    parser.add_argument("--short", action="store_true", help="CI size")
    parser.add_argument("--league", type=int, default=0, help="seed this many matches first")
    args = parser.parse_args(argv)
    if args.short:
        args.tables, args.matches, args.spectators = 4, 3, 4
    env = prepare(fresh_database(args.database_url), league=args.league)
    import django

    django.setup()
    return run(args, env)


if __name__ == "__main__":
    sys.exit(main())
