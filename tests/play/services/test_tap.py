import uuid

import pytest

from matches.core import errors
from matches.models import Match, Player, Table, Tap
from matches.play.messages import MATCH_NOT_FOUND, TAP_WAS_UNDONE, UNKNOWN_PLAYER, WRONG_TABLE
from matches.play.services import tables as table_services
from matches.play.services.tables import table_close
from matches.play.services.tap import match_eliminate
from matches.play.services.undo import table_undo_last
from matches.rules.scoring import points_for
from matches.web import feedback
from tests.factories import (
    WORKED_GAME,
    make_table,
    open_match,
    places,
    seat_of,
    tap,
)

pytestmark = pytest.mark.django_db


def said(message):
    """A message as a host reads it: its players, named by reference, read by name."""
    return message if message is None else feedback.with_names(message, real_names=True)


NAMES = ["Alice", "Ben", "Cara", "Dev", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jo"]


class TestWorkedGame:
    def test_ranked_places_points_and_next_match(self):
        table = make_table(mode=Table.Mode.RANKED)
        match = open_match(table)

        assert tap(table, "Ben").tap.place == 4
        assert tap(table, "Alice").tap.place == 3
        result = tap(table, "Cara")

        match.refresh_from_db()
        assert places(match) == {"Alice": 3, "Ben": 4, "Cara": 2, "Dev": 1}
        assert result.winner.name == "Dev"
        assert match.status == Match.Status.FILED and match.filed_at is not None
        assert match.winner.name == "Dev"
        points = {name: points_for(table.mode, place) for name, place in places(match).items()}
        assert points == {"Dev": 3, "Cara": 2, "Alice": 1, "Ben": 0}

        second = open_match(table)
        assert result.next_match == second
        assert second.number == 2
        assert places(second) == dict.fromkeys(WORKED_GAME)

    def test_winner_takes_all_names_only_the_winner(self):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        for name in ["Ben", "Alice", "Cara"]:
            result = tap(table, name)
        assert result.winner.name == "Dev"
        # The elimination order is still recorded, for undo and the audit trail.
        assert places(result.match) == {"Alice": 3, "Ben": 4, "Cara": 2, "Dev": 1}
        assert {points_for(table.mode, p) for p in places(result.match).values()} == {None}
        assert open_match(table).number == 2

    def test_messages_say_the_place_or_out(self):
        ranked = make_table(mode=Table.Mode.RANKED)
        # Names are isolated (<bdi>) so a right-to-left name cannot reorder the sentence.
        assert (
            said(feedback.tap_message(tap(ranked, "Ben"), table=ranked))
            == "<bdi>Ben</bdi> is out, 4th."
        )
        wta = make_table(mode=Table.Mode.WINNER_TAKES_ALL, players=["Ann", "Bo", "Cy"])
        assert said(feedback.tap_message(tap(wta, "Bo"), table=wta)) == "<bdi>Bo</bdi> is out."
        # A crowning says nothing here: the result card shows it once.
        assert said(feedback.tap_message(tap(wta, "Ann"), table=wta)) is None

    def test_a_name_is_escaped_inside_its_bdi(self):
        table = make_table(players=["<b>Ann</b>", "Bo", "Cy"])
        assert said(feedback.tap_message(tap(table, "<b>Ann</b>"), table=table)) == (
            "<bdi>&lt;b&gt;Ann&lt;/b&gt;</bdi> is out, 3rd."
        )

    def test_a_replayed_crowning_says_it_all(self):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL, players=["Ann", "Bo", "Cy"])
        tap(table, "Bo")
        key = uuid.uuid4()
        tap(table, "Ann", key=key)
        match = table.matches.get(number=1)
        again = match_eliminate(
            table_id=table.pk, match_id=match.pk, player_id=seat_of(match, "Ann").player_id,
            key=key, by=table.created_by,
        )  # fmt: skip
        assert said(feedback.tap_message(again, table=table)) == (
            "Already recorded: <bdi>Ann</bdi> is out. <bdi>Cy</bdi> wins match 1!"
        )


class TestPlaces:
    @pytest.mark.parametrize("count", range(3, 11))
    def test_every_place_for_every_table_size(self, count):
        table = make_table(players=NAMES[:count])
        order = list(reversed(NAMES[:count]))  # knock out from the last seat backwards
        for standing, name in zip(range(count, 1, -1), order[:-1], strict=True):
            assert tap(table, name).tap.place == standing
        filed = table.matches.get(number=1)
        assert places(filed) == {name: count - i for i, name in enumerate(order)}
        assert filed.winner.name == NAMES[0]

    @pytest.mark.parametrize("mode", [Table.Mode.RANKED, Table.Mode.WINNER_TAKES_ALL])
    def test_points_per_mode(self, mode):
        table = make_table(players=NAMES[:6], mode=mode)
        for name in ["Finn", "Eve", "Dev", "Cara", "Ben"]:
            tap(table, name)
        got = {n: points_for(mode, p) for n, p in places(table.matches.get(number=1)).items()}
        if mode == Table.Mode.RANKED:
            assert got == {"Alice": 3, "Ben": 2, "Cara": 1, "Dev": 0, "Eve": 0, "Finn": 0}
        else:
            assert set(got.values()) == {None}


class TestNextMatch:
    def test_same_roster_same_seats_and_a_new_random_first_dealer(self, monkeypatch):
        picks = []

        def pick_last(players):
            picks.append([p.name for p in players])
            return players[-1]

        monkeypatch.setattr(table_services, "choose_first_dealer", pick_last)
        table = make_table(players=["Zed", "Amy", "Bob", "Cat"])
        for name in ["Amy", "Bob", "Cat"]:
            tap(table, name)
        second = open_match(table)
        seats = list(second.seats.select_related("player").order_by("position"))
        assert [s.player.name for s in seats] == ["Zed", "Amy", "Bob", "Cat"]
        assert picks == [["Zed", "Amy", "Bob", "Cat"]] * 2  # drawn afresh for each match
        assert second.first_dealer.name == "Cat"

    def test_first_dealer_is_seated(self):
        table = make_table()
        match = open_match(table)
        assert match.first_dealer.name in WORKED_GAME


class TestTapRefusals:
    def test_player_already_out_changes_nothing(self):
        table = make_table()
        tap(table, "Ben")
        with pytest.raises(errors.RuleError) as error:
            tap(table, "Ben")
        assert error.value.message == "Ben is already out; nothing was changed."
        assert Tap.objects.count() == 1

    def test_tap_on_a_filed_match(self):
        table = make_table()
        first = open_match(table)
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        with pytest.raises(errors.RuleError) as error:
            match_eliminate(
                table_id=table.pk,
                match_id=first.pk,
                player_id=seat_of(first, "Dev").player_id,
                key=uuid.uuid4(),
                by=table.created_by,
            )
        assert error.value.message == "Match 1 is already filed; nothing was changed."
        assert Tap.objects.count() == 3

    def test_unknown_player(self):
        table = make_table()
        stranger = Player.objects.create(name="Stranger")
        with pytest.raises(errors.RuleError) as error:
            match_eliminate(
                table_id=table.pk,
                match_id=open_match(table).pk,
                player_id=stranger.pk,
                key=uuid.uuid4(),
                by=table.created_by,
            )
        assert error.value.message == UNKNOWN_PLAYER
        assert not Tap.objects.exists()

    def test_match_of_another_table(self):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        with pytest.raises(errors.RuleError) as error:
            match_eliminate(
                table_id=table.pk,
                match_id=open_match(other).pk,
                player_id=seat_of(open_match(other), "Xi").player_id,
                key=uuid.uuid4(),
                by=table.created_by,
            )
        assert error.value.message == WRONG_TABLE
        assert not Tap.objects.exists()

    def test_unknown_match(self):
        table = make_table()
        with pytest.raises(errors.RuleError) as error:
            match_eliminate(
                table_id=table.pk,
                match_id=99999,
                player_id=1,
                key=uuid.uuid4(),
                by=table.created_by,
            )
        assert error.value.message == MATCH_NOT_FOUND

    def test_closed_table(self):
        table = make_table()
        match = open_match(table)
        table_close(table_id=table.pk, by=table.created_by)
        with pytest.raises(errors.RuleError) as error:
            match_eliminate(
                table_id=table.pk,
                match_id=match.pk,
                player_id=seat_of(match, "Ben").player_id,
                key=uuid.uuid4(),
                by=table.created_by,
            )
        assert error.value.message == "This table is closed; nothing was changed."
        assert not Tap.objects.exists()


class TestIdempotency:
    def test_the_same_request_twice_applies_once(self):
        table = make_table()
        key = uuid.uuid4()
        first = tap(table, "Ben", key=key)
        again = tap(table, "Ben", key=key)
        assert not first.replayed and again.replayed
        assert again.tap == first.tap
        assert Tap.objects.count() == 1
        assert said(feedback.tap_message(again, table=table)) == (
            "Already recorded: <bdi>Ben</bdi> is out, 4th."
        )

    def test_a_retried_crowning_does_not_file_twice(self):
        table = make_table()
        tap(table, "Ben")
        tap(table, "Alice")
        key = uuid.uuid4()
        first = tap(table, "Cara", key=key)
        # The retry carries the old match: replayed from the key, not refused or re-applied.
        again = match_eliminate(
            table_id=table.pk,
            match_id=first.match.pk,
            player_id=first.tap.player_id,
            key=key,
            by=table.created_by,
        )
        assert again.replayed and again.winner.name == "Dev"
        assert again.next_match == first.next_match
        assert table.matches.count() == 2 and Tap.objects.count() == 3

    def test_a_retry_of_an_undone_tap_is_not_reapplied(self):
        table = make_table()
        key = uuid.uuid4()
        tap(table, "Ben", key=key)
        table_undo_last(table_id=table.pk, tap_id=None, by=table.created_by)
        with pytest.raises(errors.RuleError) as error:
            tap(table, "Ben", key=key)
        assert error.value.message == TAP_WAS_UNDONE
        assert places(open_match(table))["Ben"] is None
