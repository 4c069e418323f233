"""The standings filters as read: the page's default season and dates typed over it, and the
StandingsQuery a valid form names. No request, no page."""

import datetime

import pytest
from django.http import QueryDict

from matches.models import Season, Table
from matches.results.standings import StandingsQuery
from matches.web.forms.standings import StandingsFilterForm, asked_filters

DAY = datetime.date(2026, 11, 30)


def never() -> Season | None:
    raise AssertionError("the current season was read")


class TestAskedFilters:
    def test_no_period_asked_gets_the_current_season_as_the_pages_own(self):
        data = asked_filters(QueryDict("mode=ranked"), current_season=lambda: Season(pk=7))
        assert data.dict() == {"mode": "ranked", "season": "7", "preset": "7"}

    def test_no_current_season_leaves_all_time(self):
        data = QueryDict("")
        assert asked_filters(data, current_season=lambda: None) is data

    @pytest.mark.parametrize("query", ["season=", "from=", "to=2026-11-30"])
    def test_any_period_asked_for_reads_no_season(self, query):
        assert asked_filters(QueryDict(query), current_season=never).urlencode() == query

    def test_dates_over_the_pages_season_replace_it_with_or_without_a_default(self):
        typed = QueryDict("season=7&preset=7&from=2026-11-30")
        for current in (None, never):
            data = asked_filters(typed, current_season=current)
            assert data.dict() == {"season": "", "from": "2026-11-30"}

    def test_a_season_the_reader_picked_stays_beside_dates(self):
        typed = QueryDict("season=7&preset=3&from=2026-11-30")
        assert asked_filters(typed) is typed


@pytest.mark.django_db
class TestQuery:
    def test_a_seasons_days_and_best_nights_rule(self):
        season = Season.objects.create(
            name="Winter", first_day=DAY, last_day=DAY, best_nights=3, min_nights=2
        )
        form = StandingsFilterForm(QueryDict(f"season={season.pk}&mode=ranked"))
        assert form.is_valid(), form.errors
        assert form.query == StandingsQuery(
            season_id=season.pk,
            date_from=DAY,
            date_to=DAY,
            mode="ranked",
            best_nights=3,
            min_nights=2,
        )
        assert form.query.as_json() == {
            "table": None,
            "venue": None,
            "season": season.pk,
            "from": "2026-11-30",
            "to": "2026-11-30",
            "mode": "ranked",
        }

    def test_a_fixed_winner_takes_all_table_ranks_by_wins(self):
        table = Table(pk=5, mode=Table.Mode.WINNER_TAKES_ALL)
        form = StandingsFilterForm(QueryDict("from=2026-11-30"), table=table)
        assert form.is_valid(), form.errors
        assert form.query == StandingsQuery(table_id=5, date_from=DAY, wins_only=True)
        assert not form.query.mixes_modes


@pytest.mark.django_db
class TestManyOptionsSelect:
    """The table and venue selects write their options in Python (hundreds of them in a
    league of many pubs): the page must read exactly as Django's own select writes it."""

    @pytest.fixture
    def league(self):
        from tests.factories import make_table, other_venue

        other_venue('Tom & "Jerry" <b>')
        make_table(name="Back <room> & bar")
        make_table(name="Front bar")
        return Table.objects.order_by("pk")

    @pytest.mark.parametrize(
        "query", ["", 'venue=tom-&-"jerry"-<b>', "table={t}", "table=999&venue=nowhere"]
    )
    def test_the_same_html_as_djangos_select(self, league, query):
        from django import forms

        data = QueryDict(query.replace("{t}", str(league[1].pk)))
        form = StandingsFilterForm(data)
        form.is_valid()
        ours = {name: str(form[name]) for name in ("table", "venue")}
        for name in ("table", "venue"):
            plain = forms.Select(choices=form.fields[name].widget.choices)
            form.fields[name].widget = plain
        assert ours == {name: str(form[name]) for name in ("table", "venue")}

    def test_names_escaped_and_the_chosen_one_selected(self, league):
        form = StandingsFilterForm(QueryDict(f"table={league[0].pk}"))
        assert form.is_valid()
        html = str(form["table"])
        assert (
            f'<option value="{league[0].pk}" selected>Back &lt;room&gt; &amp; bar</option>' in html
        )
        assert '<option value="">All tables</option>' in html
        assert html.count(" selected") == 1
        venues = str(form["venue"])
        assert '<option value="" selected>All venues</option>' in venues
        assert ">Tom &amp; &quot;Jerry&quot; &lt;b&gt;</option>" in venues
