"""The finals night's services: heats dealt from the finalists, one match a heat, the final
opened by the last heat's crowning (exactly once), undo across it, the champion, and what
counts where (ratings and head-to-head: yes; the season's own standings: no)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.core.errors import RuleError
from matches.models import FinalsEntry, FinalsEvent, FinalsTable, Match, Player, PlayerRating, Table
from matches.play.messages import FINALS_TABLE_FIXED
from matches.play.services.tables import match_set_roster, table_close
from matches.play.services.undo import table_undo_last
from matches.results import head_to_head, standings
from matches.results.qualifiers import season_finalists
from matches.rules import finals as rules
from tests.factories import make_host, make_organiser
from tests.finals_factories import (
    create,
    ended_season,
    final_table,
    heat_table,
    knock_out,
    play_out,
    seated,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(db):
    return make_organiser()


class TestSeedingRules:
    @given(st.integers(2, 6).flatmap(lambda k: st.tuples(st.just(k), st.integers(3 * k, 10 * k))))
    def test_spread_puts_the_top_seeds_in_different_heats(self, heats_and_count):
        heats, count = heats_and_count
        dealt = rules.spread(count, heats)
        assert sorted(seed for heat in dealt for seed in heat) == list(range(1, count + 1))
        assert sorted(heat[0] for heat in dealt) == list(range(1, heats + 1))
        sizes = [len(heat) for heat in dealt]
        assert max(sizes) - min(sizes) <= 1 and all(3 <= size <= 10 for size in sizes)

    @given(st.integers(6, 40), st.integers(1, rules.DRAW_SEED_MAX))
    def test_a_draw_is_kept_by_its_seed(self, count, seed):
        order = rules.draw_order(count, seed)
        assert sorted(order) == list(range(1, count + 1))
        assert rules.draw_order(count, seed) == order
        heats = rules.drawn(order, 2)
        assert [seed for heat in heats for seed in heat] == order

    def test_snake_order(self):
        assert rules.spread(9, 3) == [[1, 6, 7], [2, 5, 8], [3, 4, 9]]
        assert rules.spread(7, 2) == [[1, 4, 5], [2, 3, 6, 7]]

    def test_going_through_winners_then_best_runners_up(self):
        results = [
            rules.HeatResult(winner=1, runner_up=11, runner_up_rank=6),
            rules.HeatResult(winner=2, runner_up=12, runner_up_rank=4),
            rules.HeatResult(winner=3, runner_up=13, runner_up_rank=5),
        ]
        assert rules.going_through(results, 2) == [1, 2, 3, 12, 13]
        assert rules.going_through(results, 0) == [1, 2, 3]

    @pytest.mark.parametrize(
        ("count", "heats", "runners_up", "key"),
        [
            (9, 1, 0, "too_few_heats"),
            (8, 3, 0, "heats_too_small"),
            (31, 3, 0, "heats_too_large"),
            (9, 3, 4, "runners_up_per_heat"),
            (6, 2, 0, "final_size"),
        ],
    )
    def test_refusals(self, count, heats, runners_up, key):
        with pytest.raises(rules.FinalsRuleError) as refused:
            rules.check_heats(count, heats, runners_up)
        assert refused.value.key == key


class TestFinalsCreate:
    def test_spread_heats_are_tables_at_the_venue(self, organiser):
        event = create(organiser)
        assert [stage.heat for stage in event.stages.all()] == [1, 2, 3]
        assert seated(heat_table(event, 1)) == ["Ana", "Fay", "Gus"]
        assert seated(heat_table(event, 2)) == ["Bea", "Edu", "Hana"]
        assert seated(heat_table(event, 3)) == ["Cid", "Dora", "Ivo"]
        table = heat_table(event, 2)
        assert (table.name, table.finals, table.is_open) == ("Finals · Heat 2", True, True)
        assert table.matches.open().count() == 1
        assert event.draw_seed is None and final_table(event) is None

    def test_random_draw_is_kept_and_made_again_from_its_seed(self, organiser):
        event = create(organiser, seeding="random", draw_seed=4242)
        order = rules.draw_order(9, 4242)
        entries = list(FinalsEntry.objects.filter(event=event).order_by("draw_position"))
        assert [entry.season_rank for entry in entries] == order
        assert [entry.heat for entry in entries] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
        assert event.draw_seed == 4242

    def test_a_random_draw_without_a_seed_picks_one(self, organiser):
        assert create(organiser, seeding="random").draw_seed is not None

    def test_refused_before_the_night_after_the_season(self, organiser):
        season = ended_season()
        season.last_day = season.last_day.replace(year=season.last_day.year + 1)
        season.save()
        with pytest.raises(RuleError, match="The finals are held after the season"):
            create(organiser, season=season)
        assert FinalsEvent.objects.count() == 0 and Table.objects.count() == 0

    def test_one_finals_night_a_season(self, organiser):
        event = create(organiser)
        with pytest.raises(RuleError, match="already has its finals night"):
            create(organiser, season=event.season)
        assert FinalsEvent.objects.count() == 1 and Table.objects.count() == 3

    def test_only_the_organiser(self, organiser):
        host = make_host("venue_host")
        with pytest.raises(RuleError, match="Only the league’s organiser may create"):
            create(host)
        assert FinalsEvent.objects.count() == 0

    def test_bad_split_is_refused(self, organiser):
        with pytest.raises(RuleError, match="8 finalists cannot fill 3 heats"):
            create(organiser, count=8)


class TestHeatsAndFinal:
    def test_a_heat_plays_one_match_then_closes(self, organiser):
        event = create(organiser)
        table = heat_table(event, 1)
        outcome = play_out(table, organiser)
        table.refresh_from_db()
        assert outcome.winner.name == "Ana" and outcome.next_match is None
        assert not table.is_open and table.matches.open().count() == 0
        assert FinalsTable.objects.get(table=table).winner.name == "Ana"
        assert final_table(event) is None

    def test_the_last_heat_opens_the_final_with_winners_and_best_runners_up(self, organiser):
        event = create(organiser)
        for heat in (1, 2, 3):
            play_out(heat_table(event, heat), organiser)
        final = final_table(event)
        assert final is not None and final.is_open and final.name == "Finals · Final"
        # Winners Ana, Bea, Cid; runners-up Fay (6), Edu (5), Dora (4): Dora goes through.
        assert seated(final) == ["Ana", "Bea", "Cid", "Dora"]

    def test_winner_takes_all_runners_up_are_the_last_knocked_out(self, organiser):
        event = create(organiser, mode="winner_takes_all", runners_up=2)
        for heat in (1, 2, 3):
            play_out(heat_table(event, heat), organiser)
        assert seated(final_table(event)) == ["Ana", "Bea", "Cid", "Dora", "Edu"]

    def test_the_final_crowns_the_champion(self, organiser):
        event = create(organiser)
        for heat in (1, 2, 3):
            play_out(heat_table(event, heat), organiser)
        final = final_table(event)
        play_out(final, organiser, ["Ana", "Bea", "Cid", "Dora"])
        final.refresh_from_db()
        assert not final.is_open
        assert FinalsTable.objects.get(table=final).winner.name == "Dora"
        assert finals_champion(event) == "Dora"

    def test_roster_close_and_reopen_are_refused(self, organiser):
        event = create(organiser)
        table = heat_table(event, 1)
        match = table.matches.open().get()
        with pytest.raises(RuleError, match=str(FINALS_TABLE_FIXED)):
            match_set_roster(
                table_id=table.pk, match_id=match.pk, player_names=["A", "B", "C"], by=organiser
            )
        with pytest.raises(RuleError, match=str(FINALS_TABLE_FIXED)):
            table_close(table_id=table.pk, by=organiser, discard_match_id=match.pk)

    def test_a_closed_heat_takes_no_tap(self, organiser):
        event = create(organiser)
        table = heat_table(event, 1)
        match = table.matches.open().get()
        play_out(table, organiser)
        # Refused by its filed match, which says who won (tests/play/test_finals_double_tap.py).
        with pytest.raises(RuleError, match="Match 1 is already filed"):
            knock_out_filed(table, match, organiser)


def finals_champion(event) -> str | None:
    stage = (
        FinalsTable.objects.filter(event=event, heat__isnull=True).select_related("winner").first()
    )
    return stage.winner.name if stage and stage.winner else None


def knock_out_filed(table, match, by):
    import uuid

    from matches.play.services.tap import match_eliminate

    return match_eliminate(
        table_id=table.pk,
        match_id=match.pk,
        player_id=match.seats.first().player_id,
        key=uuid.uuid4(),
        by=by,
    )


def undo_last(table, by):
    return table_undo_last(table_id=table.pk, tap_id=None, by=by)


class TestUndo:
    def test_undo_of_a_heat_crowning_reopens_it(self, organiser):
        event = create(organiser)
        table = heat_table(event, 1)
        play_out(table, organiser)
        outcome = undo_last(table, organiser)
        table.refresh_from_db()
        assert outcome.reopened and table.is_open
        assert table.matches.open().get().number == 1
        assert FinalsTable.objects.get(table=table).winner is None

    def test_undo_of_the_last_heat_takes_back_an_untapped_final(self, organiser):
        event = create(organiser)
        for heat in (1, 2, 3):
            play_out(heat_table(event, heat), organiser)
        final = final_table(event)
        undo_last(heat_table(event, 3), organiser)
        final.refresh_from_db()
        assert not final.is_open
        assert final.matches.get().status == Match.Status.DISCARDED
        # Played again otherwise: the same final table opens again, with the new winner.
        knock_out(heat_table(event, 3), organiser, "Cid")  # Ivo was out; Dora wins now
        final.refresh_from_db()
        assert final.is_open and final_table(event).pk == final.pk
        assert FinalsTable.objects.get(event=event, heat=3).winner.name == "Dora"
        # Cid (3) is now the best runner-up.
        assert seated(final) == ["Ana", "Bea", "Cid", "Dora"]
        assert final.matches.filter(status=Match.Status.OPEN).count() == 1

    def test_undo_of_a_heat_is_refused_once_the_final_is_under_way(self, organiser):
        event = create(organiser)
        for heat in (1, 2, 3):
            play_out(heat_table(event, heat), organiser)
        final = final_table(event)
        knock_out(final, organiser, "Ana")
        with pytest.raises(RuleError, match="The final is under way"):
            undo_last(heat_table(event, 3), organiser)
        assert not Table.objects.get(pk=heat_table(event, 3).pk).is_open
        assert final.matches.open().count() == 1

    def test_undo_of_the_final_crowning_takes_the_champion_back(self, organiser):
        event = create(organiser)
        for heat in (1, 2, 3):
            play_out(heat_table(event, heat), organiser)
        final = final_table(event)
        play_out(final, organiser)
        assert finals_champion(event) == "Ana"
        with pytest.raises(RuleError, match="The final has been won"):
            undo_last(heat_table(event, 1), organiser)
        undo_last(final, organiser)
        final.refresh_from_db()
        assert final.is_open and finals_champion(event) is None


class TestWhatCounts:
    def test_finals_count_in_ratings_and_head_to_head_not_the_season(self, organiser):
        event = create(organiser)
        season = event.season
        play_out(heat_table(event, 1), organiser)
        ana = Player.objects.get(name="Ana")
        rivals = {
            rival.opponent: rival
            for rival in head_to_head.head_to_head(player=ana, real_names=True)
        }
        assert (rivals["Fay"].matches, rivals["Fay"].ahead) == (1, 1)
        assert PlayerRating.objects.get(player=ana).matches == 1
        in_season = standings.StandingsQuery(
            season_id=season.pk, date_from=season.first_day, date_to=season.last_day
        )
        assert standings.standings(in_season, real_names=True) == []
        everyone = standings.standings(standings.ALL_TIME, real_names=True)
        assert {row.player for row in everyone} == {"Ana", "Fay", "Gus"}

    def test_finals_leave_best_nights_and_the_qualifiers_as_they_were(self, organiser):
        season = ended_season()
        season.best_nights, season.min_nights = 1, 0
        season.save()
        event = create(organiser, season=season)
        before = season_finalists(season)
        for heat in (1, 2, 3):
            play_out(heat_table(event, heat), organiser)
        best = standings.StandingsQuery(
            season_id=season.pk,
            date_from=season.first_day,
            date_to=season.last_day,
            best_nights=1,
        )
        assert standings.standings(best, real_names=True) == []
        assert season_finalists(season) == before


class TestMerges:
    def test_a_finalist_is_never_merged_away(self, organiser):
        from matches.results.players.services import player_merge

        create(organiser)
        with pytest.raises(
            RuleError, match="Ana is in a season’s finals night: merge Bea into Ana"
        ):
            player_merge(keep_id=Player.objects.get(name="Bea").pk, other_name="Ana", by=organiser)
        assert Player.objects.filter(name="Ana").exists()
