import uuid

import pytest
from django.db import IntegrityError, transaction

from matches.core import errors
from matches.integrity import integrity_problems
from matches.models import Match, Player, Seat, Table, Tap
from matches.play.messages import NOT_YOUR_TABLE, ROSTER_LOCKED, TABLE_CLOSED, TABLE_NOT_CLOSED
from matches.play.services.tables import match_set_roster, table_close, table_launch, table_reopen
from tests.factories import (
    WORKED_GAME,
    make_host,
    make_table,
    open_match,
    other_venue,
    places,
    roster,
    tap,
    undo,
)

pytestmark = pytest.mark.django_db

NAMES = ["Alice", "Ben", "Cara", "Dev", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jo"]


class TestRoster:
    def test_add_remove_and_reorder_before_the_first_tap(self):
        table = make_table()
        match = open_match(table)
        match_set_roster(
            table_id=table.pk,
            match_id=match.pk,
            player_names=["Dev", "Cara", "Alice", "Zoe"],
            by=table.created_by,
        )
        seats = match.seats.select_related("player").order_by("position")
        assert [s.player.name for s in seats] == ["Dev", "Cara", "Alice", "Zoe"]
        match.refresh_from_db()
        assert match.first_dealer.name in {"Dev", "Cara", "Alice", "Zoe"}

    def test_the_following_match_copies_the_edited_roster(self):
        table = make_table()
        match_set_roster(
            table_id=table.pk,
            match_id=open_match(table).pk,
            player_names=["Cara", "Dev", "Eve"],
            by=table.created_by,
        )
        tap(table, "Cara")
        tap(table, "Dev")
        seats = open_match(table).seats.select_related("player").order_by("position")
        assert [s.player.name for s in seats] == ["Cara", "Dev", "Eve"]

    @pytest.mark.parametrize(
        ("names", "message"),
        [
            (["Alice", "Ben"], "A table needs at least 3 players; 2 given."),
            ([f"P{i}" for i in range(11)], "A table seats at most 10 players; 11 given."),
            (
                ["Alice", "Ben", "alice"],
                "“alice” is listed twice (names ignore upper and lower case).",
            ),
        ],
    )
    def test_limits(self, names, message):
        table = make_table()
        match = open_match(table)
        with pytest.raises(errors.RuleError) as error:
            match_set_roster(
                table_id=table.pk, match_id=match.pk, player_names=names, by=table.created_by
            )
        assert error.value.message == message
        assert sorted(places(match)) == sorted(WORKED_GAME)

    def test_locked_after_the_first_tap_and_free_again_after_its_undo(self):
        table = make_table()
        match = open_match(table)
        tap(table, "Ben")
        with pytest.raises(errors.RuleError) as error:
            match_set_roster(
                table_id=table.pk,
                match_id=match.pk,
                player_names=["Alice", "Cara", "Dev"],
                by=table.created_by,
            )
        assert error.value.message == ROSTER_LOCKED
        undo(table)
        match_set_roster(
            table_id=table.pk,
            match_id=match.pk,
            player_names=["Alice", "Cara", "Dev"],
            by=table.created_by,
        )
        assert sorted(places(match)) == ["Alice", "Cara", "Dev"]


class TestClose:
    def test_close_discards_the_untapped_match_and_opens_nothing(self):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        table_close(table_id=table.pk, by=table.created_by)
        table.refresh_from_db()
        assert not table.is_open
        assert table.matches.get(number=2).status == Match.Status.DISCARDED
        assert not table.matches.open().exists()
        assert table.matches.filed().count() == 1
        with pytest.raises(errors.RuleError):
            undo(table)
        with pytest.raises(errors.RuleError) as error:
            table_close(table_id=table.pk, by=table.created_by)
        assert error.value.message == TABLE_CLOSED


class TestLaunch:
    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [
            ({"name": "  "}, "Give the table a name."),
            ({"mode": "poker"}, "Choose a mode: Winner takes all or Ranked (3/2/1)."),
            ({"player_names": ["A", "B"]}, "A table needs at least 3 players; 2 given."),
            ({"player_names": ["A", "", "C"]}, "A player name cannot be empty."),
            (
                {"player_names": ["A", "B", "x" * 41]},
                f"Player names are at most 40 characters: “{'x' * 41}” is too long.",
            ),
            (
                {"player_names": ["Bo", "Al", "BO"]},
                "“BO” is listed twice (names ignore upper and lower case).",
            ),
        ],
    )
    def test_bad_input_saves_nothing(self, host, kwargs, message):
        args = {"name": "Snug", "player_names": ["Al", "Bo", "Cy"], "mode": "ranked", "by": host}
        with pytest.raises(errors.RuleError) as error:
            table_launch(**{**args, **kwargs})
        assert error.value.message == message
        assert (Table.objects.count(), Match.objects.count(), Player.objects.count()) == (0, 0, 0)

    def test_names_are_trimmed_and_shared_case_insensitively(self, host):
        make_table(host=host, players=["  Alice ", "Ben", "Cara"])
        second = make_table(host=host, players=["ALICE", "ben", "Dev"])
        names = sorted(s.player.name for s in open_match(second).seats.select_related("player"))
        assert names == ["Alice", "Ben", "Dev"]  # shown as first written
        assert Player.objects.count() == 4

    def test_accented_names_fold_case_too(self, host):
        make_table(host=host, players=["Åsa", "Bob", "Cy"])
        second = make_table(host=host, players=["åsa", "ÉMILE", "Cy"])
        names = sorted(s.player.name for s in open_match(second).seats.select_related("player"))
        assert names == ["Cy", "Åsa", "ÉMILE"]
        with pytest.raises(errors.RuleError) as error:
            make_table(host=host, players=["Émile", "émile", "Cy"])
        assert error.value.message == "“émile” is listed twice (names ignore upper and lower case)."

    def test_forty_characters_is_allowed(self, host):
        long_name = "x" * 40
        make_table(host=host, players=[long_name, "B", "C"])
        assert Player.objects.filter(name=long_name).exists()


class TestDatabaseConstraints:
    """The last line of defence behind the service: raw writes that break a rule fail."""

    def test_two_open_matches_on_one_table(self):
        table = make_table()
        dealer = open_match(table).first_dealer
        with pytest.raises(IntegrityError), transaction.atomic():
            Match.objects.create(table=table, number=2, first_dealer=dealer)

    def test_duplicate_match_number(self):
        table = make_table()
        match = open_match(table)
        with pytest.raises(IntegrityError), transaction.atomic():
            Match.objects.create(
                table=table, number=1, first_dealer=match.first_dealer, status="discarded"
            )
            Match.objects.filter(pk=match.pk).update(status="filed")

    def test_filed_match_without_winner(self):
        match = open_match(make_table())
        with pytest.raises(IntegrityError), transaction.atomic():
            Match.objects.filter(pk=match.pk).update(status="filed")

    def test_open_match_with_a_winner(self):
        match = open_match(make_table())
        with pytest.raises(IntegrityError), transaction.atomic():
            Match.objects.filter(pk=match.pk).update(winner=match.first_dealer)

    def test_two_players_with_one_place(self):
        match = open_match(make_table())
        with pytest.raises(IntegrityError), transaction.atomic():
            Seat.objects.filter(match=match).update(place=4)

    def test_place_out_of_range(self):
        match = open_match(make_table())
        with pytest.raises(IntegrityError), transaction.atomic():
            Seat.objects.filter(match=match, position=0).update(place=11)

    def test_player_eliminated_twice_in_a_match_is_found_by_the_integrity_check(self):
        """Two live taps may name one player (a corrected match reopened by an undo taps a
        player again in the place the correction gave them), so no constraint refuses it;
        the service refuses a player already out, and a raw second tap is damage the
        integrity check names."""
        table = make_table()
        first = tap(table, "Ben").tap
        Tap.objects.create(
            match=first.match,
            player=first.player,
            place=3,
            key=uuid.uuid4(),
            tapped_by=first.tapped_by,
        )
        assert integrity_problems() == [
            f"Table 'Front bar' (#{table.pk}) match 1: Ben's tap and seat disagree on the place"
        ]

    def test_player_name_unique_ignoring_case(self, db):
        Player.objects.create(name="Alice")
        with pytest.raises(IntegrityError), transaction.atomic():
            Player.objects.create(name="ALICE")


class TestCloseAndReopen:
    def test_a_match_with_taps_is_not_discarded_without_confirmation(self):
        table = make_table()
        tap(table, "Ben")
        tap(table, "Alice")
        with pytest.raises(errors.RuleError) as error:
            table_close(table_id=table.pk, by=table.created_by)
        assert error.value.message == (
            "Match 1 is under way (out so far: Ben, Alice). Confirm that it is discarded, or "
            "finish it first; nothing was changed."
        )
        table.refresh_from_db()
        assert table.is_open and open_match(table).number == 1

    def test_confirmed_by_naming_the_match(self):
        table = make_table()
        tap(table, "Ben")
        match = open_match(table)
        table_close(table_id=table.pk, by=table.created_by, discard_match_id=match.pk)
        match.refresh_from_db()
        assert match.status == Match.Status.DISCARDED

    def test_reopen_continues_the_numbering_with_the_latest_roster(self):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        roster(table, ["Dev", "Cara", "Alice", "Eve"])
        table_close(table_id=table.pk, by=table.created_by)
        match = table_reopen(table_id=table.pk, by=table.created_by)
        table.refresh_from_db()
        assert table.is_open and table.closed_at is None
        assert match.number == 2 and match.status == Match.Status.OPEN
        seats = match.seats.select_related("player").order_by("position")
        assert [seat.player.name for seat in seats] == ["Dev", "Cara", "Alice", "Eve"]
        for name in ["Eve", "Alice", "Cara"]:
            tap(table, name)
        assert table.matches.filed().count() == 2
        assert open_match(table).number == 3

    def test_reopen_refuses_an_open_table_and_another_host(self):
        table = make_table()
        with pytest.raises(errors.RuleError) as error:
            table_reopen(table_id=table.pk, by=table.created_by)
        assert error.value.message == TABLE_NOT_CLOSED
        table_close(table_id=table.pk, by=table.created_by)
        with pytest.raises(errors.RuleError) as error:
            table_reopen(table_id=table.pk, by=make_host("other", venue=other_venue()))
        assert error.value.message == str(NOT_YOUR_TABLE) % {"venue": "Our pub"}
        assert not Table.objects.get(pk=table.pk).is_open
