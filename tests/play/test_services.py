import uuid

import pytest
from django.db import IntegrityError, transaction

from matches.core import errors
from matches.models import Match, Player, Seat, Table, Tap
from matches.play import services
from matches.rules.scoring import points_for
from matches.web import feedback
from tests.factories import WORKED_GAME, make_host, make_table, open_match, places, seat_of, tap

pytestmark = pytest.mark.django_db

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
            feedback.tap_message(tap(ranked, "Ben"), table=ranked) == "<bdi>Ben</bdi> is out, 4th."
        )
        wta = make_table(mode=Table.Mode.WINNER_TAKES_ALL, players=["Ann", "Bo", "Cy"])
        assert feedback.tap_message(tap(wta, "Bo"), table=wta) == "<bdi>Bo</bdi> is out."
        # A crowning says nothing here: the result card shows it once.
        assert feedback.tap_message(tap(wta, "Ann"), table=wta) is None

    def test_a_name_is_escaped_inside_its_bdi(self):
        table = make_table(players=["<b>Ann</b>", "Bo", "Cy"])
        assert feedback.tap_message(tap(table, "<b>Ann</b>"), table=table) == (
            "<bdi>&lt;b&gt;Ann&lt;/b&gt;</bdi> is out, 3rd."
        )

    def test_a_replayed_crowning_says_it_all(self):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL, players=["Ann", "Bo", "Cy"])
        tap(table, "Bo")
        key = uuid.uuid4()
        tap(table, "Ann", key=key)
        match = table.matches.get(number=1)
        again = services.match_eliminate(
            table_id=table.pk, match_id=match.pk, player_id=seat_of(match, "Ann").player_id,
            key=key, by=table.created_by,
        )  # fmt: skip
        assert feedback.tap_message(again, table=table) == (
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

        monkeypatch.setattr(services, "choose_first_dealer", pick_last)
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
            services.match_eliminate(
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
            services.match_eliminate(
                table_id=table.pk,
                match_id=open_match(table).pk,
                player_id=stranger.pk,
                key=uuid.uuid4(),
                by=table.created_by,
            )
        assert error.value.message == services.UNKNOWN_PLAYER
        assert not Tap.objects.exists()

    def test_match_of_another_table(self):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        with pytest.raises(errors.RuleError) as error:
            services.match_eliminate(
                table_id=table.pk,
                match_id=open_match(other).pk,
                player_id=seat_of(open_match(other), "Xi").player_id,
                key=uuid.uuid4(),
                by=table.created_by,
            )
        assert error.value.message == services.WRONG_TABLE
        assert not Tap.objects.exists()

    def test_unknown_match(self):
        table = make_table()
        with pytest.raises(errors.RuleError) as error:
            services.match_eliminate(
                table_id=table.pk,
                match_id=99999,
                player_id=1,
                key=uuid.uuid4(),
                by=table.created_by,
            )
        assert error.value.message == services.MATCH_NOT_FOUND

    def test_closed_table(self):
        table = make_table()
        match = open_match(table)
        services.table_close(table_id=table.pk, by=table.created_by)
        with pytest.raises(errors.RuleError) as error:
            services.match_eliminate(
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
        assert feedback.tap_message(again, table=table) == (
            "Already recorded: <bdi>Ben</bdi> is out, 4th."
        )

    def test_a_retried_crowning_does_not_file_twice(self):
        table = make_table()
        tap(table, "Ben")
        tap(table, "Alice")
        key = uuid.uuid4()
        first = tap(table, "Cara", key=key)
        # The retry carries the old match: replayed from the key, not refused or re-applied.
        again = services.match_eliminate(
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
        services.table_undo_last(table_id=table.pk, tap_id=None, by=table.created_by)
        with pytest.raises(errors.RuleError) as error:
            tap(table, "Ben", key=key)
        assert error.value.message == services.TAP_WAS_UNDONE
        assert places(open_match(table))["Ben"] is None


def undo(table, tap_id=None):
    return services.table_undo_last(table_id=table.pk, tap_id=tap_id, by=table.created_by)


class TestUndo:
    @pytest.mark.parametrize("taps_before_undo", range(1, 5))
    def test_undo_at_every_position_leaves_every_place_right(self, taps_before_undo):
        order = ["Eve", "Ben", "Dev", "Alice"]  # five players: the fourth tap crowns Cara
        table = make_table(players=NAMES[:5])
        for name in order[:taps_before_undo]:
            tap(table, name)
        result = undo(table)
        assert result.tap.player.name == order[taps_before_undo - 1]
        assert result.reopened == (taps_before_undo == 4)

        match = table.matches.get(number=1)
        assert match.status == Match.Status.OPEN and match.winner is None
        expected = dict.fromkeys(NAMES[:5])
        for standing, name in zip(range(5, 1, -1), order[: taps_before_undo - 1], strict=False):
            expected[name] = standing
        assert places(match) == expected
        assert table.matches.live().count() == 1
        # Play on from here: the places still come out right.
        for name in order[taps_before_undo - 1 :]:
            tap(table, name)
        assert places(table.matches.get(number=1)) == {
            "Eve": 5,
            "Ben": 4,
            "Dev": 3,
            "Alice": 2,
            "Cara": 1,
        }

    def test_undo_the_crowning_reopens_and_removes_the_next_match(self):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            crowning = tap(table, name)
        second = crowning.next_match
        result = undo(table, crowning.tap.pk)

        first = table.matches.get(number=1)
        assert result.reopened
        assert first.status == Match.Status.OPEN
        assert (first.winner, first.filed_at) == (None, None)
        assert places(first) == {"Alice": 3, "Ben": 4, "Cara": None, "Dev": None}
        second.refresh_from_db()
        assert second.status == Match.Status.DISCARDED
        assert open_match(table) == first
        assert feedback.undo_message(result) == (
            "Undone: <bdi>Cara</bdi> is back and match 1 is open again."
        )

        again = tap(table, "Dev")  # this time Dev goes out second and Cara wins
        assert again.winner.name == "Cara"
        assert again.next_match.number == 2
        assert table.matches.live().count() == 2

    def test_undo_across_a_match_boundary(self):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        tap(table, "Alice")  # match 2
        assert undo(table).match.number == 2
        assert places(open_match(table))["Alice"] is None
        assert undo(table).reopened  # then the crowning of match 1
        assert undo(table).tap.player.name == "Alice"
        assert places(table.matches.get(number=1)) == {
            "Alice": None,
            "Ben": 4,
            "Cara": None,
            "Dev": None,
        }
        # Undone taps stay as the audit trail: nothing was deleted.
        assert Tap.objects.count() == 4
        assert Tap.objects.filter(undone_at__isnull=False).count() == 3

    def test_undo_records_who_and_when(self):
        table = make_table()
        other = make_host("second")
        other.is_superuser = True
        other.save()
        tap(table, "Ben")
        services.table_undo_last(table_id=table.pk, tap_id=None, by=other)
        audit = Tap.objects.get()
        assert audit.undone_by == other and audit.undone_at is not None

    def test_nothing_to_undo(self):
        table = make_table()
        with pytest.raises(errors.RuleError) as error:
            undo(table)
        assert error.value.message == "There is nothing to undo."

    def test_a_repeated_undo_does_not_take_back_an_older_tap(self):
        table = make_table()
        tap(table, "Ben")
        latest = tap(table, "Alice").tap
        undo(table, latest.pk)
        with pytest.raises(errors.RuleError) as error:
            undo(table, latest.pk)
        assert error.value.message == services.ALREADY_UNDONE
        assert places(open_match(table))["Ben"] == 4

    def test_a_stale_undo_is_refused(self):
        table = make_table()
        older = tap(table, "Ben").tap
        tap(table, "Alice")
        with pytest.raises(errors.RuleError) as error:
            undo(table, older.pk)
        assert error.value.message == services.NOT_LATEST
        assert places(open_match(table)) == {"Alice": 3, "Ben": 4, "Cara": None, "Dev": None}

    def test_undo_of_another_tables_tap_is_refused(self):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        foreign = tap(other, "Xi").tap
        with pytest.raises(errors.RuleError) as error:
            undo(table, foreign.pk)
        assert error.value.message == services.TAP_NOT_FOUND
        assert not Tap.objects.get().is_undone


class TestRoster:
    def test_add_remove_and_reorder_before_the_first_tap(self):
        table = make_table()
        match = open_match(table)
        services.match_set_roster(
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
        services.match_set_roster(
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
            services.match_set_roster(
                table_id=table.pk, match_id=match.pk, player_names=names, by=table.created_by
            )
        assert error.value.message == message
        assert sorted(places(match)) == sorted(WORKED_GAME)

    def test_locked_after_the_first_tap_and_free_again_after_its_undo(self):
        table = make_table()
        match = open_match(table)
        tap(table, "Ben")
        with pytest.raises(errors.RuleError) as error:
            services.match_set_roster(
                table_id=table.pk,
                match_id=match.pk,
                player_names=["Alice", "Cara", "Dev"],
                by=table.created_by,
            )
        assert error.value.message == services.ROSTER_LOCKED
        undo(table)
        services.match_set_roster(
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
        services.table_close(table_id=table.pk, by=table.created_by)
        table.refresh_from_db()
        assert not table.is_open
        assert table.matches.get(number=2).status == Match.Status.DISCARDED
        assert not table.matches.open().exists()
        assert table.matches.filed().count() == 1
        with pytest.raises(errors.RuleError):
            undo(table)
        with pytest.raises(errors.RuleError) as error:
            services.table_close(table_id=table.pk, by=table.created_by)
        assert error.value.message == services.TABLE_CLOSED


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
            services.table_launch(**{**args, **kwargs})
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

    def test_player_eliminated_twice_in_a_match(self):
        table = make_table()
        first = tap(table, "Ben").tap
        with pytest.raises(IntegrityError), transaction.atomic():
            Tap.objects.create(
                match=first.match,
                player=first.player,
                place=3,
                key=uuid.uuid4(),
                tapped_by=first.tapped_by,
            )

    def test_player_name_unique_ignoring_case(self, db):
        Player.objects.create(name="Alice")
        with pytest.raises(IntegrityError), transaction.atomic():
            Player.objects.create(name="ALICE")


def roster(table, names):
    return services.match_set_roster(
        table_id=table.pk, match_id=open_match(table).pk, player_names=names, by=table.created_by
    )


class TestFirstDealerKept:
    def test_undoing_and_redoing_a_crowning_keeps_the_next_matchs_first_dealer(self, monkeypatch):
        draws = iter(["Alice", "Ben", "Cara", "Dev"])  # what a fresh draw would give

        def draw(players):
            name = next(draws)
            return next(p for p in players if p.name == name)

        monkeypatch.setattr(services, "choose_first_dealer", draw)
        table = make_table()  # match 1: Alice deals first
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        assert open_match(table).first_dealer.name == "Ben"  # match 2 drawn: Ben
        undo(table)
        tap(table, "Cara")  # the same crowning again
        second = open_match(table)
        assert second.number == 2 and second.first_dealer.name == "Ben"
        undo(table)
        tap(table, "Dev")  # a different winner: still match 2, still Ben's deal
        assert open_match(table).first_dealer.name == "Ben"

    def test_a_first_dealer_no_longer_seated_is_drawn_again(self, monkeypatch):
        draws = []

        def draw(players):
            draws.append(players[-1].name)
            return players[-1]

        monkeypatch.setattr(services, "choose_first_dealer", draw)
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        roster(table, ["Alice", "Ben", "Cara", "Eve"])  # Dev, match 2's dealer, left: Eve
        services.table_undo_last(
            table_id=table.pk, tap_id=None, by=table.created_by, drop_roster=True
        )
        tap(table, "Cara")  # match 2 again, with Dev seated and Eve not
        assert open_match(table).first_dealer.name == "Dev"
        assert draws == ["Dev", "Dev", "Eve", "Dev"]  # match 1, match 2, roster, match 2 again


class TestUndoAcrossARosterChange:
    def crowned_then_changed(self):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        roster(table, ["Dev", "Cara", "Alice", "Eve"])  # Ben left, Eve joined for match 2
        return table

    def test_the_host_must_confirm_that_the_roster_change_goes(self):
        table = self.crowned_then_changed()
        with pytest.raises(errors.RuleError) as error:
            undo(table)
        assert error.value.message == (
            "Undoing this reopens match 1 and removes match 2 with its new roster. "
            "Confirm to go ahead; nothing was changed."
        )
        assert table.matches.get(number=1).status == Match.Status.FILED
        assert places(open_match(table)) == dict.fromkeys(["Dev", "Cara", "Alice", "Eve"])

    def test_confirmed_the_match_reopens_with_its_own_players(self):
        table = self.crowned_then_changed()
        result = services.table_undo_last(
            table_id=table.pk, tap_id=None, by=table.created_by, drop_roster=True
        )
        assert result.reopened
        assert places(open_match(table)) == {"Alice": 3, "Ben": 4, "Cara": None, "Dev": None}
        assert table.matches.get(number=2, status=Match.Status.DISCARDED)

    def test_no_roster_change_needs_no_confirmation(self):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        assert undo(table).reopened


class TestCloseAndReopen:
    def test_a_match_with_taps_is_not_discarded_without_confirmation(self):
        table = make_table()
        tap(table, "Ben")
        tap(table, "Alice")
        with pytest.raises(errors.RuleError) as error:
            services.table_close(table_id=table.pk, by=table.created_by)
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
        services.table_close(table_id=table.pk, by=table.created_by, discard_match_id=match.pk)
        match.refresh_from_db()
        assert match.status == Match.Status.DISCARDED

    def test_reopen_continues_the_numbering_with_the_latest_roster(self):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        roster(table, ["Dev", "Cara", "Alice", "Eve"])
        services.table_close(table_id=table.pk, by=table.created_by)
        match = services.table_reopen(table_id=table.pk, by=table.created_by)
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
            services.table_reopen(table_id=table.pk, by=table.created_by)
        assert error.value.message == services.TABLE_NOT_CLOSED
        services.table_close(table_id=table.pk, by=table.created_by)
        with pytest.raises(errors.RuleError) as error:
            services.table_reopen(table_id=table.pk, by=make_host("other"))
        assert error.value.message == services.NOT_YOUR_TABLE
        assert not Table.objects.get(pk=table.pk).is_open
