import pytest

from matches.core import errors
from matches.models import Match, Tap
from matches.play import selectors
from matches.play.messages import ALREADY_UNDONE, NOT_LATEST, TAP_NOT_FOUND
from matches.play.services import tables as table_services
from matches.play.services.undo import table_undo_last
from matches.web import feedback
from tests.factories import (
    everything_kept,
    make_host,
    make_table,
    open_match,
    places,
    roster,
    tap,
    undo,
)

pytestmark = pytest.mark.django_db


def said(message):
    """A message as a host reads it: its players, named by reference, read by name."""
    return message if message is None else feedback.with_names(message, real_names=True)


NAMES = ["Alice", "Ben", "Cara", "Dev", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jo"]


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
        assert said(feedback.undo_message(result)) == (
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
        table_undo_last(table_id=table.pk, tap_id=None, by=other)
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
        assert error.value.message == ALREADY_UNDONE
        assert places(open_match(table))["Ben"] == 4

    def test_a_stale_undo_is_refused(self):
        table = make_table()
        older = tap(table, "Ben").tap
        tap(table, "Alice")
        with pytest.raises(errors.RuleError) as error:
            undo(table, older.pk)
        assert error.value.message == NOT_LATEST
        assert places(open_match(table)) == {"Alice": 3, "Ben": 4, "Cara": None, "Dev": None}

    def test_undo_of_another_tables_tap_is_refused(self):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        foreign = tap(other, "Xi").tap
        with pytest.raises(errors.RuleError) as error:
            undo(table, foreign.pk)
        assert error.value.message == TAP_NOT_FOUND
        assert not Tap.objects.get().is_undone


class TestFirstDealerKept:
    def test_undoing_and_redoing_a_crowning_keeps_the_next_matchs_first_dealer(self, monkeypatch):
        draws = iter(["Alice", "Ben", "Cara", "Dev"])  # what a fresh draw would give

        def draw(players):
            name = next(draws)
            return next(p for p in players if p.name == name)

        monkeypatch.setattr(table_services, "choose_first_dealer", draw)
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

        monkeypatch.setattr(table_services, "choose_first_dealer", draw)
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        roster(table, ["Alice", "Ben", "Cara", "Eve"])  # Dev, match 2's dealer, left: Eve
        table_undo_last(table_id=table.pk, tap_id=None, by=table.created_by, drop_roster=True)
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
        result = table_undo_last(
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


class TestUndoAfterAReopen:
    """A close discards the open match with its taps; Undo after the reopen never offers a
    tap of that match, which it could not change."""

    def closed_during_match_3(self):
        table = make_table(players=["Ann", "Bob", "Zoe"])
        for name in ["Zoe", "Bob", "Zoe", "Bob"]:  # Ann wins matches 1 and 2
            tap(table, name)
        zoe = tap(table, "Zoe").tap  # match 3
        host = table.created_by
        table_services.table_close(table_id=table.pk, by=host, discard_match_id=zoe.match_id)
        table_services.table_reopen(table_id=table.pk, by=host)
        return table, zoe

    def test_the_board_offers_the_crowning_before_the_close(self):
        table, _ = self.closed_during_match_3()
        board = selectors.table_board(table=table, for_host=True)
        assert (board.last_tap.player.name, board.last_tap.match.number) == ("Bob", 2)
        assert board.undo_reopens and not board.undo_drops_roster

    def test_undo_does_what_the_board_offered(self):
        table, zoe = self.closed_during_match_3()
        result = undo(table)
        assert (result.tap.player.name, result.reopened) == ("Bob", True)
        assert places(open_match(table)) == {"Ann": None, "Bob": None, "Zoe": 3}
        zoe.refresh_from_db()
        assert zoe.undone_at is None  # the closed match's record stays as it was

    @pytest.mark.parametrize("by", ["key", "id"])
    def test_an_undo_naming_the_discarded_tap_is_refused_and_changes_nothing(self, by):
        table, zoe = self.closed_during_match_3()
        before = everything_kept()
        named = {"tap_key": zoe.key, "tap_id": None} if by == "key" else {"tap_id": zoe.pk}
        with pytest.raises(errors.RuleError) as error:
            table_undo_last(table_id=table.pk, by=table.created_by, **named)
        assert error.value.code == errors.Refusal.MATCH_DISCARDED
        assert error.value.message == "Match 3 is no longer in play; nothing was changed."
        assert everything_kept() == before
