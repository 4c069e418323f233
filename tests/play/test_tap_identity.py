"""A tap counts once: a key names one tap and is answered from what it did before
any other refusal; a tap names the match it was made on (its id, or the crowning that opened
it), never whichever match later took that number; who queued a tap or an undo is kept."""

import uuid

import pytest

from matches.core.errors import Refusal, RuleError
from matches.models import Match, Tap
from matches.play.services.tables import table_close, table_reopen
from matches.play.services.tap import match_eliminate
from matches.play.services.undo import table_undo_last
from tests.factories import make_host, make_table, open_match, places, seat_of, tap

pytestmark = pytest.mark.django_db


def eliminate(table, name, *, match=None, key=None, by=None, **named):
    """A tap as the tablet sends it: the match named as the caller says (match_id,
    match_number, after_key), the player found in `match` (the open one by default)."""
    match = match or open_match(table)
    return match_eliminate(
        table_id=table.pk,
        player_id=seat_of(match, name).player_id,
        key=key or uuid.uuid4(),
        by=by or table.created_by,
        **named,
    )


def refusal(call) -> RuleError:
    with pytest.raises(RuleError) as caught:
        call()
    return caught.value


def crown_first_match(table) -> Tap:
    """Ben 4th, Alice 3rd, Cara 2nd: Dev wins match 1 and match 2 opens. The crowning tap."""
    tap(table, "Ben")
    tap(table, "Alice")
    return tap(table, "Cara").tap


class TestTheKeyIsCheckedFirst:
    @pytest.mark.parametrize("by_id", [True, False], ids=["by id", "by number"])
    def test_a_crowning_resent_after_another_tablet_closed_the_table_is_a_replay(self, by_id):
        """Tablet A's crowning was filed and its answer lost; tablet B then closed the table;
        A sends the crowning again with its key: it was recorded, so A is told so."""
        table = make_table()
        tap(table, "Ben")
        tap(table, "Alice")
        first = open_match(table)
        key = uuid.uuid4()
        named = {"match_id": first.pk} if by_id else {"match_number": 1}
        eliminate(table, "Cara", key=key, **named)
        table_close(table_id=table.pk, by=table.created_by)

        again = eliminate(table, "Cara", match=first, key=key, **named)

        assert again.replayed and again.winner.name == "Dev"
        first.refresh_from_db()
        assert first.status == Match.Status.FILED
        assert Tap.objects.filter(key=key).count() == 1
        assert Tap.objects.count() == 3

    def test_an_undo_resent_after_the_table_was_closed_is_a_replay(self):
        table = make_table()
        ben = tap(table, "Ben").tap
        table_undo_last(table_id=table.pk, tap_id=None, tap_key=ben.key, by=ben.tapped_by)
        table_close(table_id=table.pk, by=table.created_by)

        again = table_undo_last(
            table_id=table.pk, tap_id=None, tap_key=ben.key, by=table.created_by
        )

        assert again.replayed
        assert Tap.objects.get().undone_by == table.created_by

    def test_an_undo_resent_by_a_host_who_may_not_change_the_table_is_a_replay(self):
        table = make_table()
        ben = tap(table, "Ben").tap
        table_undo_last(table_id=table.pk, tap_id=None, tap_key=ben.key, by=ben.tapped_by)
        other = make_host("kim")

        again = table_undo_last(table_id=table.pk, tap_id=None, tap_key=ben.key, by=other)

        assert again.replayed

    def test_a_key_reused_for_another_player_is_refused_naming_the_first_tap(self):
        table = make_table()
        key = uuid.uuid4()
        eliminate(table, "Ben", key=key, match_number=1)

        error = refusal(lambda: eliminate(table, "Alice", key=key, match_number=1))

        assert error.code == Refusal.KEY_REUSED
        assert error.message == (
            "That key was already used for Ben’s tap in match 1; nothing was changed."
        )
        assert places(open_match(table)) == {"Alice": None, "Ben": 4, "Cara": None, "Dev": None}
        assert Tap.objects.count() == 1

    def test_a_key_reused_for_the_same_player_in_another_match_is_refused(self):
        table = make_table()
        key = uuid.uuid4()
        eliminate(table, "Ben", key=key, match_number=1)
        tap(table, "Alice")
        tap(table, "Cara")  # match 2 opens

        error = refusal(lambda: eliminate(table, "Ben", key=key, match_number=2))

        assert error.code == Refusal.KEY_REUSED
        assert places(open_match(table))["Ben"] is None

    def test_a_key_reused_on_another_table_is_refused(self):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        key = uuid.uuid4()
        eliminate(table, "Ben", key=key, match_number=1)

        error = refusal(lambda: eliminate(other, "Xi", key=key, match_number=1))

        assert error.code == Refusal.KEY_REUSED
        assert "Ben’s tap in match 1" in error.message
        assert all(place is None for place in places(open_match(other)).values())

    def test_a_key_reused_on_a_closed_table_says_key_reused_not_closed(self):
        table = make_table()
        key = uuid.uuid4()
        first = open_match(table)
        eliminate(table, "Ben", key=key, match_number=1)
        table_close(table_id=table.pk, by=table.created_by, discard_match_id=first.pk)

        error = refusal(lambda: eliminate(table, "Alice", match=first, key=key, match_number=1))

        assert error.code == Refusal.KEY_REUSED

    def test_the_same_key_for_the_same_player_is_a_replay(self):
        table = make_table()
        key = uuid.uuid4()
        eliminate(table, "Ben", key=key, match_number=1)

        assert eliminate(table, "Ben", key=key, match_number=1).replayed
        assert Tap.objects.count() == 1

    def test_a_resent_tap_that_was_undone_says_so_even_once_the_table_is_closed(self):
        table = make_table()
        ben = tap(table, "Ben").tap
        table_undo_last(table_id=table.pk, tap_id=None, by=table.created_by)
        table_close(table_id=table.pk, by=table.created_by)

        error = refusal(
            lambda: eliminate(table, "Ben", match=ben.match, key=ben.key, match_id=ben.match_id)
        )

        assert error.code == Refusal.TAP_WAS_UNDONE


class TestATapNamesItsMatch:
    def test_a_tap_for_a_match_discarded_by_a_close_is_not_applied_to_the_reopened_one(self):
        table = make_table()
        tap(table, "Ben")
        old = open_match(table)
        table_close(table_id=table.pk, by=table.created_by, discard_match_id=old.pk)
        table_reopen(table_id=table.pk, by=table.created_by)
        reopened = open_match(table)
        assert reopened.number == old.number == 1

        error = refusal(lambda: eliminate(table, "Alice", match=old, match_id=old.pk))

        assert error.code == Refusal.MATCH_DISCARDED
        assert error.message == (
            "Alice’s tap was for match 1, which is no longer in play; nothing was changed."
        )
        assert all(place is None for place in places(reopened).values())

    def test_a_tap_after_a_crowning_whose_match_was_discarded_is_refused(self):
        table = make_table()
        crowning = crown_first_match(table)
        second = open_match(table)
        table_close(table_id=table.pk, by=table.created_by)
        table_reopen(table_id=table.pk, by=table.created_by)
        reopened = open_match(table)
        assert reopened.number == 2 and reopened.pk != second.pk

        error = refusal(lambda: eliminate(table, "Ben", after_key=crowning.key, match_number=2))

        assert error.code == Refusal.MATCH_DISCARDED
        assert all(place is None for place in places(reopened).values())

    def test_a_tap_after_the_crowning_lands_in_the_match_it_opened(self):
        table = make_table()
        crowning = crown_first_match(table)

        result = eliminate(table, "Ben", after_key=crowning.key, match_number=2)

        assert not result.replayed and result.match.number == 2
        assert places(open_match(table))["Ben"] == 4

    def test_a_tap_after_a_crowning_undone_and_redone_otherwise_is_refused(self):
        """Tablet A crowned Dev and tapped Ben in the match it expected next; meanwhile tablet
        B undid that crowning and Cara won instead. A's tap must not land in B's match 2."""
        table = make_table()
        crowning = crown_first_match(table)
        table_undo_last(table_id=table.pk, tap_id=None, tap_key=crowning.key, by=table.created_by)
        tap(table, "Dev")  # Cara wins match 1: another match 2 opens
        second = open_match(table)

        error = refusal(lambda: eliminate(table, "Ben", after_key=crowning.key, match_number=2))

        assert error.code == Refusal.CROWNED_OTHERWISE
        assert error.message == (
            "Ben’s tap was not recorded: match 2 did not open as this tablet expected; "
            "nothing was changed."
        )
        assert all(place is None for place in places(second).values())
        assert not second.taps.exists()

    def test_after_naming_no_crowning_is_refused(self):
        table = make_table()
        ben = tap(table, "Ben").tap  # a tap, but not a crowning

        for after in [ben.key, uuid.uuid4()]:
            error = refusal(lambda after=after: eliminate(table, "Alice", after_key=after))
            assert error.code == Refusal.CROWNED_OTHERWISE
            assert error.message == (
                "Alice’s tap was not recorded: its match did not open as this tablet "
                "expected; nothing was changed."
            )
        assert Tap.objects.count() == 1

    def test_after_with_another_number_than_the_match_opened_is_refused(self):
        table = make_table()
        crowning = crown_first_match(table)

        error = refusal(lambda: eliminate(table, "Ben", after_key=crowning.key, match_number=3))

        assert error.code == Refusal.CROWNED_OTHERWISE
        assert "match 3 did not open" in error.message
        assert places(open_match(table))["Ben"] is None

    def test_a_crowning_on_another_table_is_not_this_tables(self):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        tap(other, "Xi")
        theirs = tap(other, "Yu").tap

        error = refusal(lambda: eliminate(table, "Ben", after_key=theirs.key, match_number=2))

        assert error.code == Refusal.CROWNED_OTHERWISE

    def test_a_tap_sent_again_after_its_crowning_is_a_replay(self):
        table = make_table()
        crowning = crown_first_match(table)
        key = uuid.uuid4()
        eliminate(table, "Ben", key=key, after_key=crowning.key, match_number=2)

        assert eliminate(table, "Ben", key=key, after_key=crowning.key, match_number=2).replayed
        # The same key naming another crowning is another tap.
        error = refusal(lambda: eliminate(table, "Ben", key=key, after_key=uuid.uuid4()))
        assert error.code == Refusal.KEY_REUSED

    def test_a_number_alone_still_taps_the_open_match(self):
        table = make_table()
        crown_first_match(table)

        result = eliminate(table, "Ben", match_number=2)

        assert result.match == open_match(table) and places(result.match)["Ben"] == 4

    def test_an_id_and_a_number_that_disagree_are_refused(self):
        table = make_table()
        first = open_match(table)

        error = refusal(lambda: eliminate(table, "Ben", match_id=first.pk, match_number=2))

        assert error.code == Refusal.MATCH_NOT_FOUND
        assert error.message == "That match is not match 2; nothing was changed."
        assert not Tap.objects.exists()


class TestWhoQueuedIt:
    def test_the_host_who_queued_a_tap_is_kept_when_another_sent_it(self):
        table = make_table()
        sam = make_host("sam")

        eliminate(table, "Ben", match_number=1, queued_by=sam)
        eliminate(table, "Alice", match_number=1, queued_by=table.created_by)

        assert dict(Tap.objects.values_list("player__name", "queued_by")) == {
            "Ben": sam.pk,
            "Alice": None,
        }

    def test_the_host_who_queued_an_undo_is_kept_when_another_sent_it(self):
        table = make_table()
        sam = make_host("sam")
        ben = tap(table, "Ben").tap

        table_undo_last(
            table_id=table.pk, tap_id=None, tap_key=ben.key, by=table.created_by, queued_by=sam
        )

        ben.refresh_from_db()
        assert (ben.undone_by, ben.undo_queued_by) == (table.created_by, sam)
