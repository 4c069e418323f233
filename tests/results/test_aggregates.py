"""The per-player aggregates the services keep (head-to-head pairs, the career on every rating
change and the summary on the rating) against an independent count of the filed matches,
after random filings, undos and merges of both modes; the undo's selective replay; the TV's
league panel."""

import contextlib
import datetime
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from hypothesis import given, settings

from matches.core import errors
from matches.models import (
    HeadToHead,
    Match,
    Player,
    PlayerNight,
    PlayerRating,
    RatingChange,
    Seat,
)
from matches.play.services.undo import table_undo_last
from matches.ratings.audit import rating_problems
from matches.results.head_to_head import pair_problems
from matches.results.player_nights import night_problems
from matches.results.players import services as player_records
from matches.rules.nights import night_of
from tests.factories import make_table, tap, tap_standing, the_organiser
from tests.ratings.test_ratings import League, api_rows, play_out
from tests.strategies import aggregate_ops, aggregate_tables

pytestmark = pytest.mark.django_db


def counted() -> tuple[dict, dict, dict]:
    """Pairs, careers and nights counted straight from the filed matches' seats, in filing order."""
    pairs: dict[tuple[int, int], list[int]] = {}
    careers: dict[int, list[tuple[int, int, bool]]] = {}
    nights: dict[tuple[int, datetime.date], list[int]] = {}
    for match in (
        Match.objects.filed().order_by("filed_at", "pk").select_related("table")
        .prefetch_related("seats")
    ):  # fmt: skip
        ranked = match.table.mode == "ranked"
        seats = [(s.player_id, s.place) for s in match.seats.all()]
        day = night_of(match.filed_at)
        for me, mine in seats:
            careers.setdefault(me, []).append((match.pk, mine, ranked))
            night = nights.setdefault((me, day), [0, 0, 0])
            night[0] += 1
            night[1] += mine == 1
            night[2] += {1: 3, 2: 2, 3: 1}.get(mine, 0) if ranked else 0
            for other, theirs in seats:
                if me == other:
                    continue
                row = pairs.setdefault((me, other), [0, 0, 0])
                row[0] += 1
                row[1] += mine == 1 or (ranked and mine < theirs)
                row[2] += theirs == 1 or (ranked and theirs < mine)
    return (
        {k: tuple(v) for k, v in pairs.items()},
        careers,
        {k: tuple(v) for k, v in nights.items()},
    )


def longest_run(places: list[int]) -> int:
    best = run = 0
    for place in places:
        run = run + 1 if place == 1 else 0
        best = max(best, run)
    return best


def assert_aggregates_add_up() -> None:
    pairs, careers, nights = counted()
    kept = {
        (p, o): (m, a, b)
        for p, o, m, a, b in HeadToHead.objects.values_list(
            "player_id", "opponent_id", "matches", "ahead", "behind"
        )
    }
    assert kept == pairs
    for player, career in careers.items():
        changes = list(
            RatingChange.objects.filter(player_id=player)
            .order_by("number")
            .values_list("number", "match_id", "place", "ranked")
        )
        assert changes == [(n, m, p, r) for n, (m, p, r) in enumerate(career, 1)]
        rating = PlayerRating.objects.get(player_id=player)
        places = [place for _, place, _ in career]
        assert rating.matches == len(career)
        assert rating.longest_run == longest_run(places)
        assert rating.best_place == min((p for _, p, r in career if r), default=None)
    assert set(PlayerRating.objects.values_list("player_id", flat=True)) == set(careers)
    kept_nights = {
        (p, d): (n, w, s)
        for p, d, n, w, s in PlayerNight.objects.values_list(
            "player_id", "day", "played", "wins", "points"
        )
    }
    assert kept_nights == nights
    assert pair_problems() == [] and rating_problems() == [] and night_problems() == []


def _mergeable(pick: int) -> tuple[Player, Player] | None:
    """Two records that never sat in one match (a merge refuses others), chosen by pick."""
    players = list(Player.objects.order_by("pk"))
    pairs = [
        (keep, drop)
        for keep in players
        for drop in players
        if keep != drop and not Seat.objects.filter(player=drop, match__seats__player=keep).exists()
    ]
    return pairs[pick % len(pairs)] if pairs else None


@settings(max_examples=30)
@given(setup=aggregate_tables, ops=aggregate_ops)
def test_random_leagues_keep_aggregates_equal_to_a_count(host, setup, ops):
    """ "play" taps a match out to its crowning, "tap" one player out, "undo" the table's
    latest tap, "merge" two records that never met."""
    with transaction.atomic():
        live = [
            make_table(host=host, players=names, mode=mode, name=f"T{n}")
            for n, (mode, names) in enumerate(setup)
        ]
        for kind, index, pick in ops:
            table = live[index]
            if kind == "undo":
                with contextlib.suppress(errors.RuleError):  # nothing to undo here yet
                    table_undo_last(table_id=table.pk, tap_id=None, by=host)
                continue
            if kind == "merge":
                chosen = _mergeable(pick)
                if chosen:
                    keep, drop = chosen
                    player_records.player_merge(
                        keep_id=keep.pk, other_name=drop.name, by=the_organiser()
                    )
                continue
            while True:
                result = tap_standing(table, pick, host=host)
                if kind == "tap" or result.winner is not None:
                    break
        assert_aggregates_add_up()
        transaction.set_rollback(True)


class TestSelectiveReplay:
    def test_undo_replays_only_matches_linked_to_the_undone_players(self, client, host):
        """Front's crowning is undone. Later: Side seats Ann (from Front) with Dee, so it is
        replayed and Dee moves; Back, after it, seats Dee, so it is replayed too. Far (Eve,
        Fay, Gus) shares no player with any of them and keeps its stored rows."""
        league = League()
        front = make_table(host=host, players=["Ann", "Bob", "Cy"], name="Front")
        side = make_table(host=host, players=["Ann", "Dee", "Hal"], name="Side")
        back = make_table(host=host, players=["Dee", "Ivy", "Jo"], name="Back")
        far = make_table(host=host, players=["Eve", "Fay", "Gus"], name="Far")
        play_out(front, ["Cy", "Bob"], league)
        untouched = [play_out(far, ["Gus", "Fay"], league)]
        replayed = [play_out(side, ["Hal", "Ann"], league)]
        untouched.append(play_out(far, ["Eve", "Gus"], league))
        replayed.append(play_out(back, ["Jo", "Dee"], league))

        def rows(matches):
            return list(
                RatingChange.objects.filter(match__in=matches)
                .order_by("pk")
                .values_list("pk", "mu", "sigma", "number", "run", "longest_run")
            )

        kept, moved = rows(untouched), rows(replayed)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)
        assert rows(untouched) == kept
        assert rows(replayed) != moved
        # Ann's Side match is now her first: numbered 1, her run starts there.
        ann = RatingChange.objects.get(match=replayed[0], player__name="Ann")
        assert (ann.number, ann.run, ann.mu_before) == (1, 0, None)
        assert api_rows(client) == league.expected_rows()
        assert_aggregates_add_up()


class TestHeadToHeadPairs:
    def test_undo_takes_a_match_back_out_of_the_pairs(self, host):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"], mode="winner_takes_all")
        for order in (["Ben", "Cy"], ["Ann", "Ben"]):  # Ann wins, then Cy wins
            for name in order:
                tap(table, name)
        ann, ben = Player.objects.get(name="Ann"), Player.objects.get(name="Ben")
        assert HeadToHead.objects.filter(player=ann, opponent=ben).values_list(
            "matches", "ahead", "behind"
        ).get() == (2, 1, 0)  # Cy's win puts neither Ann nor Ben above the other
        table_undo_last(table_id=table.pk, tap_id=None, by=host)
        assert HeadToHead.objects.filter(player=ann, opponent=ben).values_list(
            "matches", "ahead", "behind"
        ).get() == (1, 1, 0)
        table_undo_last(table_id=table.pk, tap_id=None, by=host)  # Ben's tap
        table_undo_last(table_id=table.pk, tap_id=None, by=host)  # Ann's crowning
        assert not HeadToHead.objects.exists()
        assert_aggregates_add_up()

    def test_a_merge_moves_the_pairs_and_rebuild_recounts_them(self, host):
        front = make_table(host=host, players=["Ann", "Ben", "Cy"], name="Front")
        back = make_table(host=host, players=["Annie", "Ben", "Dee"], name="Back")
        for table, order in ((front, ["Cy", "Ben"]), (back, ["Dee", "Ben"])):
            for name in order:
                tap(table, name)
        ann = Player.objects.get(name="Ann")
        player_records.player_merge(keep_id=ann.pk, other_name="Annie", by=the_organiser())
        ben = Player.objects.get(name="Ben")
        assert HeadToHead.objects.filter(player=ben, opponent=ann).values_list(
            "matches", "ahead", "behind"
        ).get() == (2, 0, 2)
        assert_aggregates_add_up()
        HeadToHead.objects.all().delete()
        PlayerNight.objects.update(wins=0)
        RatingChange.objects.update(number=99)
        out = StringIO()
        call_command("rebuild_ratings", stdout=out)
        assert (
            "2 filed matches; 10 head-to-head pairs, 4 players' nights and 16 running totals"
            in out.getvalue()
        )
        assert_aggregates_add_up()


class TestTvLeagueRating:
    def test_the_tv_s_tonight_table_shows_points_and_no_league_rating(
        self, client, host, django_assert_num_queries
    ):
        """A "League rating 687?" meant nothing to patrons across a pub; the rating
        is the standings page's, and the TV reads none."""
        table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"])
        other = make_table(host=host, players=["Ann", "Eve", "Fay"], name="Other")
        for _ in range(4):
            play_out(other, ["Fay", "Eve"], League())  # Ann: rated before tonight's match
        play_out(table, ["Dee", "Cy", "Bob"], League())
        url = reverse("matches:tv", args=[table.pk])
        with django_assert_num_queries(8):  # no query for the ratings
            html = client.get(url).content.decode()
        tonight = re.search(r'<table class="tonight-table">.*?</table>', html, re.S)
        assert "rating" not in html.lower()
        cells = re.findall(
            r'<tr[^>]*><th scope="row">(?:<span class="crown"[^>]*>♛</span> )?([^<]+)</th>'
            r'<td class="num">(\d+)</td></tr>',
            tonight.group(),
        )
        assert cells == [("Ann", "3"), ("Bob", "2"), ("Cy", "1"), ("Dee", "0")]

    def test_no_rating_column_before_a_match_is_filed_tonight(
        self, client, host, django_assert_num_queries
    ):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        with django_assert_num_queries(7):  # no ratings read before a filing tonight
            html = client.get(reverse("matches:tv", args=[table.pk])).content.decode()
        assert "League rating" not in html

    def test_the_table_page_s_tonight_table_is_unchanged(self, client, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        play_out(table, ["Cy", "Bob"], League())
        html = client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert '<table class="tonight-table">' in html and "League rating" not in html
