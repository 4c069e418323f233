"""The bounded-writes mode: in a league of N filed matches, an undo of the oldest
crowning and a merge of two long careers answer at once while taps at other tables keep
answering; the ratings then settle, in the serving processes' ratings workers, to
exactly a full recompute.

    python loadtest/run.py --replay [--league-matches 100000] [--short] [--database-url URL]
                                [--tap-pause 0.25]

Setup, in this process: seed_league's bulk league (matches/play/seed.py); one table, Old, whose only match is
filed at the very start of the league's history (so its crowning is that table's latest tap
and every later rating depends on it); and the longest career split in two records that
never met (their merge joins them back). The seeding's full rating replay is timed.

Then uvicorn (brag_tables/serving.py's options, three workers) serves it on 127.0.0.1: four host
clients tap at other tables throughout, each reading its table and tapping every quarter of a
second (--tap-pause; 16 taps a second in all, about ten times a 30-table pub's busiest
minute; 0 taps flat out, which leaves the replay only what CPU the taps do not take), the undo goes in, the ratings are polled until they
have settled, the merge goes in, and again. Targets: each answer under 1 s, taps at other
tables never over 1 s and never a 5xx, settled within 30 s on SQLite and 45 s on PostgreSQL,
check_integrity clean.
"""

import datetime
import json
import random
import statistics
import threading
import time
import uuid
from unittest import mock
from urllib.parse import urlencode

from loadtest.run import (
    Browser,
    Server,
    Stats,
    host_cookies,
    host_loop,
    integrity,
    launch_tables,
)

ANSWER_AIM_S = 1.0
TAP_MAX_AIM_MS = 1000.0  # no answer anywhere over a second
SETTLE_AIM_S = {"sqlite": 30.0, "postgresql": 45.0}


def _seed(matches: int) -> dict:
    """The league, the Old table and the split career; what was made and how long it took."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.db.models import Count, Min

    from matches.core.rows import statistics_refresh
    from matches.models import Match, Player, Seat, Tap
    from matches.play.seed import league_seed
    from matches.play.services.tables import table_launch
    from matches.play.services.tap import match_eliminate
    from matches.ratings.steps import ratings_settle
    from matches.results.filing import league_recount
    from matches.rules.names import name_key

    host = get_user_model().objects.create_superuser("replayhost", password=uuid.uuid4().hex)
    started = time.perf_counter()
    league_seed(host=host, players=300, tables=30, matches=matches)
    seeded = time.perf_counter() - started
    first = Match.objects.filed().aggregate(first=Min("filed_at"))["first"]
    long_ago = first - datetime.timedelta(minutes=5)
    names = list(Player.objects.order_by("?").values_list("name", flat=True)[:4])
    # The Old table's match is filed "at the start of the history": every service stamps
    # its rows with that moment, so the tallies, nights and totals are bucketed there too.
    with mock.patch("django.utils.timezone.now", return_value=long_ago):
        old = table_launch(name="Old", player_names=names, mode="ranked", by=host)
        match = old.matches.open().get()
        for seat in list(match.seats.order_by("position"))[:-1]:
            match_eliminate(
                table_id=old.pk, match_id=match.pk, player_id=seat.player_id,
                key=uuid.uuid4(), by=host,
            )  # fmt: skip
    # The longest career, split: every other match of it goes to a new record.
    longest = (
        Player.objects.annotate(n=Count("seats")).order_by("-n").values_list("pk", "n").first()
    )
    keep = Player.objects.get(pk=longest[0])
    twin_name = f"{keep.name} II"
    twin = Player.objects.create(name=twin_name, key=name_key(twin_name))
    moved = list(
        Seat.objects.filter(player=keep, match__status=Match.Status.FILED)
        .order_by("match__filed_at", "match_id")
        .values_list("match_id", flat=True)
    )[1::2]
    with transaction.atomic():
        Seat.objects.filter(player=keep, match_id__in=moved).update(player=twin)
        Tap.objects.filter(player=keep, match_id__in=moved).update(player=twin)
        Match.objects.filter(winner=keep, pk__in=moved).update(winner=twin)
        Match.objects.filter(first_dealer=keep, pk__in=moved).update(first_dealer=twin)
    started = time.perf_counter()
    league_recount()  # every aggregate from the seats, the split included
    ratings_settle()
    statistics_refresh()
    replayed = time.perf_counter() - started
    connection.close()
    return {
        "seeded_s": seeded,
        "recount_s": replayed,
        "old": old.pk,
        "keep": keep.pk,
        "twin": twin.name,
        "twin_id": twin.pk,
        "careers": (longest[1] - len(moved), len(moved)),
    }


def _settle(browser: Browser, deadline_s: float) -> float:
    """Seconds until /api/ratings/ says the ratings are no longer updating."""
    started = time.perf_counter()
    while time.perf_counter() - started < deadline_s:
        _, body = browser.request("GET", "/api/ratings/")
        if not json.loads(body)["updating"]:
            return time.perf_counter() - started
        time.sleep(0.25)
    return float("inf")


def _p(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(args, env) -> int:
    import django

    env["BRAG_RATINGS_REPLAY"] = "manual"  # this process seeds; uvicorn's workers replay
    import os

    os.environ["BRAG_RATINGS_REPLAY"] = "manual"
    django.setup()
    from django.db import connection

    matches = 5_000 if args.short else args.league_matches
    settle_aim_s = SETTLE_AIM_S[connection.vendor]
    print(f"Replay load test on {connection.vendor}: {matches:,} filed matches; four hosts "
          f"tapping at other tables, {args.tap_pause:g} s between taps")  # fmt: skip
    made = _seed(matches)
    print(f"  seeded in {made['seeded_s']:.1f} s; every aggregate recounted and the ratings "
          f"replayed from scratch in {made['recount_s']:.1f} s")  # fmt: skip
    print(f"  careers to merge: {made['careers'][0]:,} and {made['careers'][1]:,} matches")

    env["BRAG_RATINGS_REPLAY"] = "background"
    server = Server(env, 3)
    server.start()
    cookies, csrf = host_cookies()
    rng = random.Random(21)
    taps = Stats()
    tables = launch_tables(server.port, taps, cookies, csrf, 4, rng)
    stop = threading.Event()
    players = [
        threading.Thread(
            target=host_loop,
            args=(
                Browser(server.port, taps, cookies, csrf),
                table,
                10_000,
                stop,
                rng,
                args.tap_pause,
            ),
        )
        for table in tables
    ]
    failures = []
    host = Browser(server.port, Stats(), cookies, csrf)
    try:
        for thread in players:
            thread.start()
        time.sleep(2)  # taps under way
        with taps.lock:
            taps.latencies.clear()  # only the taps during the undo, the merge and the replays
        started = time.perf_counter()
        response, _ = host.request(
            "POST", f"/tables/{made['old']}/undo/", "", {"HX-Request": "true"}
        )
        undo_s = time.perf_counter() - started
        undo_settle_s = _settle(host, settle_aim_s * 3)
        started = time.perf_counter()
        # The confirmation's own fields: the record shown beside the kept one, by name and id.
        confirm = urlencode({"other": made["twin"], "other_id": made["twin_id"], "confirm": "1"})
        merged, _ = host.request("POST", f"/players/{made['keep']}/merge/", confirm)
        merge_s = time.perf_counter() - started
        merge_settle_s = _settle(host, settle_aim_s * 3)
        stop.set()
    finally:
        stop.set()
        for thread in players:
            thread.join(timeout=30)
        server.stop()
    with taps.lock:
        during = list(taps.latencies)
        errors = list(taps.errors)
    print(f"  undo of the oldest crowning: HTTP {response.status} in {undo_s * 1000:.0f} ms; "
          f"ratings settled {undo_settle_s:.1f} s later")  # fmt: skip
    print(f"  merge of the two careers: HTTP {merged.status} in {merge_s * 1000:.0f} ms; "
          f"ratings settled {merge_settle_s:.1f} s later")  # fmt: skip
    print(f"  taps and board reads at other tables meanwhile: {len(during)}, "
          f"p50 {statistics.median(during) if during else float('nan'):.0f} ms, "
          f"p99 {_p(during, 0.99):.0f} ms, max {max(during, default=float('nan')):.0f} ms, "
          f"5xx/errors {len(errors)}")  # fmt: skip
    ok, text = integrity()
    print(f"  check_integrity: {text.splitlines()[-1] if text else ''}")
    if response.status != 200:
        failures.append(f"the undo answered {response.status}")
    if merged.status != 302:
        failures.append(f"the merge answered {merged.status}")
    if max(undo_settle_s, merge_settle_s) == float("inf"):
        failures.append("the ratings never settled")
    if errors:
        failures.append(f"errors at other tables: {errors[:3]}")
    # The speed aims hold at full size on a machine of its own; CI's short run on a shared
    # Machine reports them only.
    if not args.short:
        if undo_s > ANSWER_AIM_S or merge_s > ANSWER_AIM_S:
            failures.append("an answer took over 1 s")
        if max(undo_settle_s, merge_settle_s) > settle_aim_s:
            failures.append(f"the ratings took over {settle_aim_s:.0f} s to settle")
        if max(during, default=0.0) > TAP_MAX_AIM_MS:
            failures.append("a tap or board read at another table took over 1 s")
    if not ok:
        failures.append("check_integrity failed")
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0
