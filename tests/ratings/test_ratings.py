"""Skill ratings against an independent computation with openskill: random mixed-mode leagues
played through the real services, undos of older crownings after other tables filed, re-filing,
the API's exact numbers, the rebuild command and the integrity check."""

import datetime
import re
from dataclasses import dataclass, field
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from hypothesis import given, settings
from openskill.models import PlackettLuce

from matches.models import Match, PlayerRating, RatingChange, Table
from matches.play.services.undo import table_undo_last
from matches.ratings.audit import rating_problems
from tests.factories import make_table, open_match, tap, tap_standing
from tests.strategies import rating_ops, rating_tables

pytestmark = pytest.mark.django_db


@dataclass
class League:
    """What happened, as the players saw it: the filed matches in the order they were filed,
    each as its mode and (name, place) in seating order."""

    filed: list[tuple[str, list[tuple[str, int]]]] = field(default_factory=list)

    def expected(self) -> dict[str, tuple[float, float, int]]:
        """Every player's (mu, sigma, matches), computed straight from openskill."""
        model = PlackettLuce()
        ratings, counts = {}, {}
        for mode, seating in self.filed:
            teams = [[ratings.get(name, model.rating())] for name, _ in seating]
            if mode == "ranked":
                ranks = [place for _, place in seating]
            else:
                ranks = [1 if place == 1 else 2 for _, place in seating]
            for (name, _), team in zip(seating, model.rate(teams, ranks=ranks), strict=True):
                ratings[name] = team[0]
                counts[name] = counts.get(name, 0) + 1
        return {n: (r.mu, r.sigma, counts[n]) for n, r in ratings.items()}

    def expected_rows(self) -> list[dict]:
        rows = sorted(
            self.expected().items(),
            key=lambda item: (-(item[1][0] - 3 * item[1][1]), item[0].casefold()),
        )
        return [
            {
                "rank": rank,
                "player": name,
                "matches": n,
                "mu": mu,
                "sigma": sigma,
                "ordinal": PlackettLuce().rating(mu, sigma).ordinal(),
                "provisional": n < 5,
            }
            for rank, (name, (mu, sigma, n)) in enumerate(rows, 1)
        ]


def seating(match: Match) -> list[tuple[str, int]]:
    return [(s.player.name, s.place) for s in match.seats.select_related("player")]


def api_rows(client) -> list[dict]:
    payload = client.get(reverse("matches:api_ratings")).json()
    assert payload["model"] == "PlackettLuce"
    return [{k: v for k, v in row.items() if k != "id"} for row in payload["rows"]]


def play_out(table: Table, order: list[str], league: League) -> Match:
    """Tap players out in this order until one is crowned; record the filing."""
    match = open_match(table)
    for name in order:
        result = tap(table, name)
    assert result.winner is not None
    match.refresh_from_db()
    league.filed.append((table.mode, seating(match)))
    return match


class TestRatingsFollowFiling:
    def test_the_api_equals_openskill_exactly_for_both_modes(self, client, host):
        league = League()
        ranked = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"])
        wta = make_table(host=host, players=["Cy", "Dee", "Eve"], mode="winner_takes_all")
        play_out(ranked, ["Dee", "Bob", "Ann"], league)
        play_out(wta, ["Eve", "Cy"], league)
        play_out(ranked, ["Ann", "Cy", "Bob"], league)
        assert api_rows(client) == league.expected_rows()
        assert rating_problems() == []

    def test_a_winner_takes_all_match_ranks_every_non_winner_equal(self, client, host):
        league = League()
        table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"], mode="winner_takes_all")
        play_out(table, ["Bob", "Cy", "Dee"], league)
        rows = {row["player"]: row for row in api_rows(client)}
        # Bob went out first and Dee last, but the mode names only the winner.
        assert rows["Bob"]["mu"] == rows["Cy"]["mu"] == rows["Dee"]["mu"] < rows["Ann"]["mu"]
        assert api_rows(client) == league.expected_rows()

    def test_rows_carry_id_rank_and_provisional_below_five_matches(self, client, host):
        league = League()
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        for _ in range(5):
            play_out(table, ["Cy", "Bob"], league)
        make_table(host=host, players=["Ann", "Dee", "Eve"], name="Side")
        play_out(Table.objects.get(name="Side"), ["Eve", "Dee"], league)
        payload = client.get(reverse("matches:api_ratings")).json()
        by_name = {row["player"]: row for row in payload["rows"]}
        assert set(payload["rows"][0]) == {
            "rank", "id", "player", "matches", "mu", "sigma", "ordinal", "provisional"
        }  # fmt: skip
        assert by_name["Ann"]["matches"] == 6 and by_name["Ann"]["provisional"] is False
        assert by_name["Dee"]["matches"] == 1 and by_name["Dee"]["provisional"] is True
        assert by_name["Ann"]["id"] == PlayerRating.objects.get(player__name="Ann").player_id
        assert [row["rank"] for row in payload["rows"]] == [1, 2, 3, 4, 5]
        assert api_rows(client) == league.expected_rows()

    def test_no_filed_match_means_an_empty_list(self, client, host):
        make_table(host=host)
        assert client.get(reverse("matches:api_ratings")).json() == {
            "model": "PlackettLuce",
            "updating": False,
            "rows": [],
        }


class TestUndoOfACrowning:
    def test_undo_of_an_older_crowning_after_other_tables_filed(self, client, host):
        league = League()
        front = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"], name="Front")
        back = make_table(
            host=host, players=["Ann", "Eve", "Fay"], name="Back", mode="winner_takes_all"
        )
        side = make_table(host=host, players=["Gus", "Eve", "Bob"], name="Side")
        undone = play_out(front, ["Dee", "Cy", "Bob"], league)
        play_out(back, ["Fay", "Eve"], league)  # Ann again: depends on the undone match
        play_out(side, ["Gus", "Eve"], league)  # Bob and Eve: depend on it through Back
        play_out(side, ["Bob", "Eve"], league)
        gus_before = list(
            RatingChange.objects.filter(player__name="Gus").values_list("mu", "sigma")
        )

        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)

        assert api_rows(client) == league.expected_rows()
        assert not RatingChange.objects.filter(match=undone).exists()
        assert not PlayerRating.objects.filter(player__name__in=["Cy", "Dee"]).exists()
        # Gus's matches involved moved players, so they were replayed with new numbers.
        assert gus_before != list(
            RatingChange.objects.filter(player__name="Gus").values_list("mu", "sigma")
        )
        assert rating_problems() == []

    def test_matches_among_unmoved_players_are_not_rewritten(self, host):
        league = League()
        front = make_table(host=host, players=["Ann", "Bob", "Cy"], name="Front")
        other = make_table(host=host, players=["Dee", "Eve", "Fay"], name="Other")
        play_out(front, ["Cy", "Bob"], league)
        kept = play_out(other, ["Fay", "Eve"], league)
        before = list(RatingChange.objects.filter(match=kept).values_list("pk", "mu", "sigma"))
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        after = list(RatingChange.objects.filter(match=kept).values_list("pk", "mu", "sigma"))
        assert after == before

    def test_refiling_rates_the_match_at_its_new_filing_time(self, client, host):
        league = League()
        front = make_table(host=host, players=["Ann", "Bob", "Cy"], name="Front")
        back = make_table(host=host, players=["Ann", "Bob", "Dee"], name="Back")
        play_out(front, ["Cy", "Bob"], league)
        play_out(back, ["Dee", "Ann"], league)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)
        # Crowned again, now with Ann out second: it is rated after Back's match.
        tap(front, "Ann")
        league.filed.append(("ranked", seating(front.matches.filed().get())))
        assert api_rows(client) == league.expected_rows()
        assert rating_problems() == []

    def test_undo_of_a_player_s_only_match_removes_them_from_the_list(self, client, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        play_out(table, ["Cy", "Bob"], League())
        table_undo_last(table_id=table.pk, tap_id=None, by=host)
        assert client.get(reverse("matches:api_ratings")).json()["rows"] == []
        assert not RatingChange.objects.exists()


def test_a_match_filed_earlier_but_rated_later_takes_its_place_in_filing_order(client, host):
    """On PostgreSQL two tables file in parallel: a match whose filing time is earlier may
    reach the ratings after one filed later. It is rated in filing-time order."""
    league = League()
    front = make_table(host=host, players=["Ann", "Bob", "Cy"], name="Front")
    back = make_table(host=host, players=["Ann", "Bob", "Dee"], name="Back")
    tap(front, "Cy")
    play_out(back, ["Dee", "Bob"], league)
    earlier = Match.objects.filed().get().filed_at - datetime.timedelta(seconds=1)
    with mock.patch.object(timezone, "now", return_value=earlier):
        tap(front, "Bob")
    first = front.matches.filed().get()
    assert first.filed_at == earlier
    league.filed.insert(0, ("ranked", seating(first)))
    assert api_rows(client) == league.expected_rows()
    assert rating_problems() == []


class TestRebuild:
    def test_rebuild_recomputes_the_same_numbers(self, client, host):
        league = League()
        table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"], mode="winner_takes_all")
        play_out(table, ["Ann", "Bob", "Cy"], league)
        play_out(table, ["Dee", "Cy", "Bob"], league)
        PlayerRating.objects.all().delete()
        RatingChange.objects.all().delete()
        out = StringIO()
        call_command("rebuild_ratings", stdout=out)
        assert "2 filed matches" in out.getvalue()
        assert api_rows(client) == league.expected_rows()


@settings(max_examples=40)
@given(setup=rating_tables, ops=rating_ops)
def test_random_mixed_mode_leagues_rate_exactly_as_openskill(client, host, setup, ops):
    """ "play" taps a table's match out to its crowning, "tap" puts one player out, "undo"
    takes back the table's latest tap: a crowning, when nothing was tapped since."""
    with transaction.atomic():
        league = League()
        live = [
            make_table(host=host, players=names, mode=mode, name=f"T{n}")
            for n, (mode, names) in enumerate(setup)
        ]
        # Per table, per live tap: the entry its crowning appended to league.filed, or None.
        crowned: dict[int, list[object]] = {t.pk: [] for t in live}
        for kind, index, pick in ops:
            table = live[index]
            if kind == "undo":
                if crowned[table.pk]:
                    result = table_undo_last(table_id=table.pk, tap_id=None, by=host)
                    entry = crowned[table.pk].pop()
                    assert result.reopened == (entry is not None)
                    if entry is not None:
                        # Identity, not equality: two filings can look alike.
                        at = next(i for i, e in enumerate(league.filed) if e is entry)
                        league.filed.pop(at)
                continue
            while True:
                result = tap_standing(table, pick, host=host)
                entry = None
                if result.winner is not None:
                    entry = (table.mode, seating(result.match))
                    league.filed.append(entry)
                crowned[table.pk].append(entry)
                if kind == "tap" or entry is not None:
                    break
        assert api_rows(client) == league.expected_rows()
        assert rating_problems() == []
        transaction.set_rollback(True)


class TestWhereRatingsShow:
    def test_standings_show_ratings_on_the_friendly_scale_marking_provisional_ones(
        self, client, host
    ):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        play_out(table, ["Cy", "Bob"], League())
        html = client.get(reverse("matches:standings")).content.decode()
        ann = PlayerRating.objects.get(player__name="Ann")
        shown = round(1000 + 40 * (ann.mu - 3 * ann.sigma))
        assert re.search(
            rf">Ann</a></td>.*?<td>{shown}<span class=\"provisional\"><span aria-hidden=\"true\">\?</span>",
            html,
        )
