"""The ratings replay in bounded steps: an undo of an old crowning, a merge or a rebuild only
moves the replay's position in its own transaction; the later matches are re-rated
afterwards, a few at a time, each step its own short transaction, and until the last step
the ratings shown are the last settled ones, said to be updating.

These tests run the replay by hand (RATINGS_REPLAY="manual": nothing steps on its own);
tests/ratings/test_worker.py lets a serving process's worker do it."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.core.rows import unnest_rows
from matches.models import Player, PlayerRating, RatingChange, RatingsReplay
from matches.play.services.undo import table_undo_last
from matches.ratings import schedule, steps, store
from matches.ratings.audit import rating_problems
from matches.ratings.steps import Step, ratings_settle, replay_step
from matches.results.players.services import player_merge
from tests.factories import make_table, the_organiser
from tests.ratings.test_ratings import League, api_rows, play_out

ROSTER = ["Ann", "Bob", "Cy", "Dee"]


def stored_changes() -> list[tuple]:
    return list(
        RatingChange.objects.order_by("match_id", "player_id").values_list(
            "match_id", "player_id", "mu", "sigma", "number"
        )
    )


def stored_ratings() -> list[tuple]:
    return list(PlayerRating.objects.order_by("player_id").values_list("player_id", "mu", "sigma"))


def league_with_an_old_crowning(host, later: int = 3) -> tuple[League, object, object]:
    """Front's last tap is a crowning; then `later` matches are filed at Back with two of
    its players, so their ratings depend on the crowning."""
    league = League()
    front = make_table(host=host, players=ROSTER, name="Front")
    back = make_table(host=host, players=["Ann", "Bob", "Eve"], name="Back")
    undone = play_out(front, ["Dee", "Cy", "Bob"], league)
    for n in range(later):
        play_out(back, ["Eve", "Bob"] if n % 2 else ["Bob", "Eve"], league)
    return league, front, undone


def settle_and_check(client, league: League, owner: str = "settle") -> None:
    """Run the replay to its end: the stored ratings equal a recompute, and the list equals
    openskill's own ratings of what the league filed."""
    ratings_settle(owner=owner)
    assert rating_problems() == []
    assert api_rows(client) == league.expected_rows()


def merge_names(league: League, drop: str, keep: str) -> None:
    """What the league filed, as the players read it after drop's record joined keep's."""
    league.filed = [
        (mode, [(keep if name == drop else name, place) for name, place in seating])
        for mode, seating in league.filed
    ]


class TestSteps:
    def test_each_step_rates_a_bounded_number_of_matches_in_the_same_queries(
        self, manual, host, monkeypatch, django_assert_num_queries
    ):
        monkeypatch.setattr(steps, "STEP_MATCHES", 2)
        league, front, _ = league_with_an_old_crowning(host, later=7)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)
        replay_step(owner="a")  # the first step reads every player's state once
        positions = []
        for _ in range(2):
            # Read the replay row, the next matches, their seats and the career numbers
            # stored for them; then in a savepoint lock the stamp and the row, read the next
            # matches' ids again (nothing undone or filed in their midst), update the rows
            # whose career number stands (one executemany), upsert those whose number moved
            # (the undone match's players') and move the position: however long the
            # league's history.
            with django_assert_num_queries(12):
                outcome, done = replay_step(owner="a")
            assert (outcome, done) == (Step.STEPPED, 2)
            positions.append(RatingsReplay.objects.get().from_match_id)
        assert positions[0] < positions[1]
        assert ratings_settle(owner="a") == 1  # seven: 2 + 2 + 2 + 1
        assert rating_problems() == []

    def test_a_crash_between_steps_resumes_where_the_last_step_committed(
        self, manual, client, host, monkeypatch
    ):
        monkeypatch.setattr(steps, "STEP_MATCHES", 2)
        league, front, _ = league_with_an_old_crowning(host, later=5)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)
        assert replay_step(owner="first")[0] is Step.STEPPED
        position = RatingsReplay.objects.get().from_match_id
        steps._kept.clear()  # the process died; what it remembered is gone
        RatingsReplay.objects.update(lease_until=timezone.now() - datetime.timedelta(seconds=1))
        assert replay_step(owner="second") == (Step.STEPPED, 2)
        assert RatingsReplay.objects.get().from_match_id > position
        settle_and_check(client, league, owner="second")

    def test_another_process_waits_while_the_lease_holds(self, manual, host, monkeypatch):
        monkeypatch.setattr(steps, "STEP_MATCHES", 1)
        _, front, _ = league_with_an_old_crowning(host, later=3)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        assert replay_step(owner="first")[0] is Step.STEPPED
        assert replay_step(owner="second") == (Step.BUSY, 0)
        RatingsReplay.objects.update(lease_until=timezone.now() - datetime.timedelta(seconds=1))
        assert replay_step(owner="second") == (Step.STEPPED, 1)
        assert replay_step(owner="first") == (Step.BUSY, 0)

    def test_a_match_filed_while_the_replay_runs_is_rated_in_its_turn(
        self, manual, client, host, monkeypatch
    ):
        monkeypatch.setattr(steps, "STEP_MATCHES", 2)
        league, front, _ = league_with_an_old_crowning(host, later=4)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)
        replay_step(owner="a")
        side = make_table(host=host, players=["Bob", "Gus", "Eve"], name="Side")
        newest = play_out(side, ["Gus", "Eve"], league)
        assert not RatingChange.objects.filter(match=newest).exists()  # the replay's turn
        assert client.get(reverse("matches:api_ratings")).json()["updating"] is True
        ratings_settle(owner="a")
        assert RatingChange.objects.filter(match=newest).count() == 3
        assert rating_problems() == []
        assert api_rows(client) == league.expected_rows()

    def test_an_earlier_undo_during_the_replay_moves_it_back(
        self, manual, client, host, monkeypatch
    ):
        monkeypatch.setattr(steps, "STEP_MATCHES", 1)
        league = League()
        early = make_table(host=host, players=["Ann", "Bob", "Hal"], name="Early")
        front = make_table(host=host, players=ROSTER, name="Front")
        back = make_table(host=host, players=["Ann", "Bob", "Eve"], name="Back")
        play_out(early, ["Hal", "Bob"], league)  # Early's last tap: the oldest crowning
        play_out(front, ["Dee", "Cy", "Bob"], league)
        for _ in range(3):
            play_out(back, ["Eve", "Bob"], league)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(1)
        replay_step(owner="a")
        replay_step(owner="a")
        generation = RatingsReplay.objects.get().generation
        table_undo_last(table_id=early.pk, tap_id=None, by=host)
        league.filed.pop(0)
        row = RatingsReplay.objects.get()
        assert row.generation == generation + 1  # what "a" kept in memory is void
        settle_and_check(client, league, owner="a")

    def test_a_merge_is_replayed_in_steps_too(self, manual, client, host):
        league = League()
        one = make_table(host=host, players=["Ann", "Bob", "Cy"], name="One")
        two = make_table(host=host, players=["Dee", "Bobby", "Eve"], name="Two")
        for _ in range(2):
            play_out(one, ["Cy", "Bob"], league)
            play_out(two, ["Eve", "Bobby"], league)
        ratings_before = stored_ratings()
        bob = one.matches.first().seats.get(player__name="Bob").player
        player_merge(keep_id=bob.pk, other_name="Bobby", by=the_organiser())
        assert stored_ratings() == [r for r in ratings_before if r[0] in set(
            PlayerRating.objects.values_list("player_id", flat=True))]  # fmt: skip
        assert client.get(reverse("matches:api_ratings")).json()["updating"] is True
        merge_names(league, "Bobby", "Bob")
        settle_and_check(client, league)

    def test_a_merge_resumed_after_a_crash_reads_only_final_ratings(
        self, manual, client, host, monkeypatch
    ):
        """Bob and Bobby alternate, so once merged the stored changes not yet replayed carry
        career numbers that the replayed ones reuse (Bobby's 2nd is the merged Bob's 4th):
        a restarted process must take each player's state from the replayed side only."""
        monkeypatch.setattr(steps, "STEP_MATCHES", 2)
        league = League()
        one = make_table(host=host, players=["Ann", "Bob", "Cy"], name="One")
        two = make_table(host=host, players=["Dee", "Bobby", "Eve"], name="Two")
        for _ in range(3):
            play_out(one, ["Cy", "Bob"], league)
            play_out(two, ["Eve", "Bobby"], league)
        bob = one.matches.first().seats.get(player__name="Bob").player
        player_merge(keep_id=bob.pk, other_name="Bobby", by=the_organiser())
        merge_names(league, "Bobby", "Bob")
        assert replay_step(owner="first") == (Step.STEPPED, 2)
        steps._kept.clear()  # the process died; what it remembered is gone
        RatingsReplay.objects.update(lease_until=timezone.now() - datetime.timedelta(seconds=1))
        settle_and_check(client, league, owner="second")

    def test_the_rebuild_reports_its_progress(self, manual, host, monkeypatch):
        monkeypatch.setattr(steps, "STEP_MATCHES", 2)
        league_with_an_old_crowning(host, later=4)
        RatingChange.objects.update(mu=1.0)  # damage every stored change
        seen = []
        assert (
            schedule.ratings_rebuild(progress=lambda done, total: seen.append((done, total))) == 5
        )
        assert seen == [(2, 5), (4, 5), (5, 5)]
        assert rating_problems() == []


class TestAStepRacedByAWrite:
    """What a step read before its transaction may be overtaken by a write; the step then
    writes nothing and is taken again, unless the write was a filing at the end."""

    def _step_raced_by(self, write, monkeypatch) -> tuple[Step, int]:
        real = steps._rerate

        def rerate_then_write(*args, **kwargs):
            read = real(*args, **kwargs)
            write()
            return read

        monkeypatch.setattr(steps, "_rerate", rerate_then_write)
        try:
            return replay_step(owner="a")
        finally:
            monkeypatch.setattr(steps, "_rerate", real)

    def test_a_filing_at_the_end_leaves_a_step_that_is_not_the_last_alone(
        self, manual, client, host, monkeypatch
    ):
        monkeypatch.setattr(steps, "STEP_MATCHES", 2)
        league, front, _ = league_with_an_old_crowning(host, later=5)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)
        side = make_table(host=host, players=["Bob", "Gus", "Eve"], name="Side")
        outcome = self._step_raced_by(lambda: play_out(side, ["Gus", "Eve"], league), monkeypatch)
        assert outcome == (Step.STEPPED, 2)
        settle_and_check(client, league, owner="a")

    def test_a_filing_after_the_last_steps_read_makes_it_read_again(
        self, manual, client, host, monkeypatch
    ):
        league, front, _ = league_with_an_old_crowning(host, later=2)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)
        side = make_table(host=host, players=["Bob", "Gus", "Eve"], name="Side")
        outcome = self._step_raced_by(lambda: play_out(side, ["Gus", "Eve"], league), monkeypatch)
        assert outcome == (Step.MOVED, 0)  # settling now would leave the new match unrated
        assert RatingsReplay.objects.get().pending
        settle_and_check(client, league, owner="a")

    def test_an_undo_among_the_steps_matches_makes_it_read_again(
        self, manual, client, host, monkeypatch
    ):
        monkeypatch.setattr(steps, "STEP_MATCHES", 3)
        league = League()
        early = make_table(host=host, players=["Ann", "Bob", "Hal"], name="Early")
        back = make_table(host=host, players=["Ann", "Bob", "Eve"], name="Back")
        play_out(early, ["Hal", "Bob"], league)
        play_out(back, ["Eve", "Bob"], league)
        play_out(back, ["Bob", "Eve"], league)
        last = play_out(back, ["Eve", "Ann"], league)
        table_undo_last(table_id=early.pk, tap_id=None, by=host)  # the replay's start
        league.filed.pop(0)

        def undo_back():
            table_undo_last(table_id=back.pk, tap_id=None, by=host)
            league.filed.pop()

        assert self._step_raced_by(undo_back, monkeypatch) == (Step.MOVED, 0)
        assert not RatingChange.objects.filter(match=last).exists()
        settle_and_check(client, league, owner="a")

    def test_a_merge_during_a_step_makes_it_read_again(self, manual, client, host, monkeypatch):
        monkeypatch.setattr(steps, "STEP_MATCHES", 2)
        league = League()
        front = make_table(host=host, players=ROSTER, name="Front")
        one = make_table(host=host, players=["Ann", "Bob", "Cy"], name="One")
        two = make_table(host=host, players=["Dee", "Bobby", "Eve"], name="Two")
        play_out(front, ["Dee", "Cy", "Bob"], league)
        for _ in range(2):
            play_out(one, ["Cy", "Bob"], league)
            play_out(two, ["Eve", "Bobby"], league)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)
        bob = one.matches.first().seats.get(player__name="Bob").player

        def merge():
            player_merge(keep_id=bob.pk, other_name="Bobby", by=the_organiser())

        assert self._step_raced_by(merge, monkeypatch) == (Step.MOVED, 0)
        merge_names(league, "Bobby", "Bob")
        settle_and_check(client, league, owner="a")


class TestAStepsWrite:
    """A step writes its rows in a statement or two (on PostgreSQL an unnest of text
    arrays): every float comes back bit for bit, and a missing value stays missing, whether
    the row was updated in place or upserted whole."""

    AWKWARD = [0.1 + 0.2, 1 / 3, 25.000000000000004, 8.333333333333334e-17, 1e300, -2.5]

    def test_every_value_reads_back_exactly(self, manual, host):
        league = League()
        front = make_table(host=host, players=ROSTER, name="Front")
        match = play_out(front, ["Dee", "Cy", "Bob"], league)
        seats = list(match.seats.order_by("position").values_list("player_id", "place"))
        rows = []
        for index, (player, place) in enumerate(seats):
            mu = self.AWKWARD[index]
            first = index % 2 == 0  # their first match: no rating before it, no best place
            # Career numbers 1, 2, 3, 4: the first one stands (every player's first match
            # is stored as their 1st), so that row is updated and the others upserted.
            rows.append(
                store.ChangeRow(
                    match.pk, player, None if first else mu / 7, None if first else 1 / 9, mu,
                    abs(mu) / 3 + 1e-9, place, bool(index % 2), index + 1, index, index + 2,
                    None if first else place,
                )
            )  # fmt: skip
        numbers = store.stored_numbers([match.pk])
        assert sorted(numbers.values()) == [1, 1, 1, 1]
        steps._Rerated(1, None, [match.pk], rows, [], numbers).write()
        stored = list(
            RatingChange.objects.filter(match=match)
            .order_by("player_id")
            .values_list(*store.CHANGE_COLUMNS)
        )
        assert stored == sorted(rows, key=lambda row: row[1])

    def test_a_row_gone_since_its_number_was_read_is_written_whole(self, manual, host):
        league = League()
        front = make_table(host=host, players=ROSTER, name="Front")
        match = play_out(front, ["Dee", "Cy", "Bob"], league)
        numbers = store.stored_numbers([match.pk])
        stored = RatingChange.objects.filter(match=match).order_by("player_id")
        rows = [row._replace(mu=row.mu + 1.0) for row in store.change_rows(stored)]
        stored.filter(player_id=rows[0].player_id).delete()

        store.changes_write(rows, numbers)

        assert list(stored.values_list(*store.CHANGE_COLUMNS)) == [tuple(row) for row in rows]

    def test_text_is_refused_rather_than_sent_unquoted(self):
        with pytest.raises(TypeError, match="no text columns"):
            unnest_rows(Player, ["name"], [("Ann, Bob",)])
