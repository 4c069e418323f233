"""The player page: a plain-words summary for every kind of player, the SVG chart's labelled
axes, legend and text alternative, head-to-head, streaks, best night and paginated history."""

import datetime
import re
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.models import Player, PlayerRating
from matches.ratings import steps
from matches.ratings.engine import shown_rating
from matches.ratings.steps import ratings_settle
from matches.results import profile
from matches.results.players import services as player_records
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


def crown(table, order, day: datetime.date | None = None):
    """Tap players out in this order (the last one left wins), filed on that day at noon."""
    when = timezone.now()
    if day is not None:
        when = timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))
    with mock.patch.object(timezone, "now", return_value=when):
        for name in order:
            tap(table, name)


def page(client, name: str, **params) -> str:
    player = Player.objects.get(name=name)
    return client.get(reverse("matches:player", args=[player.pk]), params).content.decode()


def rating_of(name: str) -> tuple[float, float]:
    rating = PlayerRating.objects.get(player__name=name)
    return rating.mu, rating.sigma


def profile_of(name: str):
    return profile.player_profile(player=Player.objects.get(name=name))


def rating_ticks(svg: str) -> list[int]:
    return sorted(int(t) for t in re.findall(r'class="tick-label"[^>]*>(\d{3,4})</text>', svg))


def line_points(svg: str, kind: str) -> list[str]:
    return re.search(rf'class="{kind}" points="([^"]+)"', svg).group(1).split()


def summary(html: str) -> list[str]:
    block = re.search(r'<div class="player-summary">(.*?)</div>', html, re.S).group(1)
    return re.findall(r"<p>(.*?)</p>", block)


class TestChart:
    def test_labelled_axes_ticks_legend_and_text_alternative(self, host, client):
        ranked = make_table(host=host, players=["Ann", "Ben", "Cy"])
        crown(ranked, ["Cy", "Ben"])  # Ann 1st
        crown(ranked, ["Ann", "Ben"])  # Ann 3rd
        wta = make_table(host=host, players=["Ann", "Ben", "Dee"], mode="winner_takes_all")
        crown(wta, ["Ann", "Ben"])  # Ann out
        html = page(client, "Ann")
        svg = re.search(r'<svg role="img".*?</svg>', html, re.S).group()
        assert 'role="img" aria-labelledby="chart-title chart-desc"' in svg
        assert '<title id="chart-title">Rating and finishing place, match by match</title>' in svg
        assert re.search(
            r'<desc id="chart-desc">The chart shows 3 matches, numbers 1 to 3\. '
            r"The rating went from 1000 to \d+\. 1 of them was a win\.</desc>",
            svg,
        )
        for label in [
            "Rating after each match (line) and its recent trend (dashed)",
            "Finishing place",
            "Match number in the player’s career (oldest left)",
        ]:
            assert f">{label}</text>" in svg
        place_ticks = re.findall(
            r'class="tick-label"[^>]*dominant-baseline="middle">([^<]*[a-z][^<]*)</text>', svg
        )
        assert place_ticks == ["1st", "2nd", "3rd", "out"]
        x_ticks = re.findall(r'class="tick-label"[^>]*text-anchor="middle">(\d+)</text>', svg)
        assert x_ticks == ["1", "2", "3"]
        assert re.findall(r'class="tick-label"[^>]*>(\d{3,4})</text>', svg)  # rating ticks
        dots = re.findall(r'class="place-dot place-(\w+)".*?<title>([^<]+)</title>', svg)
        assert [kind for kind, _ in dots] == ["win", "place", "out"]
        assert dots[1][1].endswith(": 3rd") and dots[2][1].endswith(": out")
        assert (
            len(
                re.findall(
                    r"\d+\.\d,\d+\.\d", re.search(r'rating-line" points="([^"]+)"', svg).group(1)
                )
            )
            == 3
        )
        for key in ["Rating after each match", "Win", "Place at a ranked table",
                    "Out at a winner-takes-all table"]:  # fmt: skip
            assert f"</span> {key}</li>" in html

    def test_one_match_draws_a_mark_on_an_axis_around_it(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"], mode="winner_takes_all")
        crown(table, ["Ben", "Cy"])
        svg = re.search(r'<svg role="img".*?</svg>', page(client, "Ann"), re.S).group()
        assert svg.count('class="rating-mark"') == 1
        assert "rating-band" not in svg and "trend-line" not in svg
        rating = shown_rating(*rating_of("Ann"))
        ticks = rating_ticks(svg)
        assert ticks[0] < rating < ticks[-1] and ticks[-1] - ticks[0] <= 40
        # Winner takes all names only the winner: the places axis has 1st only.
        assert re.findall(r'dominant-baseline="middle">([^<]*[a-z][^<]*)</text>', svg) == ["1st"]

    def test_the_axis_hugs_the_ratings_and_the_trend_is_said(self, host, client):
        """The band ran from 1000 to 3000 and the line lay flat at its foot."""
        table = make_table(host=host, players=["Ann", "Ben", "Cy", "Dee"])
        for _ in range(6):
            crown(table, ["Dee", "Cy", "Ben"])  # Ann wins every match
        html = page(client, "Ann")
        svg = re.search(r'<svg role="img".*?</svg>', html, re.S).group()
        ratings = [shown_rating(f.mu, f.sigma) for f in profile_of("Ann").chart]
        ticks = rating_ticks(svg)
        step = ticks[1] - ticks[0]
        # The axis runs from just below the lowest rating to just above the highest.
        assert ticks[0] <= min(ratings) < ticks[0] + step
        assert ticks[-1] - step < max(ratings) <= ticks[-1]
        assert len(ticks) <= 12
        # The line spans the panel's height: its lowest and highest points are far apart.
        ys = [float(p.split(",")[1]) for p in line_points(svg, "rating-line")]
        assert max(ys) - min(ys) > 100
        # The trend: a dashed line over the latest matches and a sentence.
        assert len(line_points(svg, "trend-line")) == 2
        assert (
            f"Trend: up {ratings[-1] - 1000} over the last 6 matches, from 1000 to {ratings[-1]}."
            in html
        )

    def test_the_trend_covers_the_latest_ten_matches(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        for _ in range(6):
            crown(table, ["Cy", "Ben"])  # Ann wins
        for _ in range(6):
            crown(table, ["Ann", "Cy"])  # then Ann is out first
        html = page(client, "Ann")
        ratings = [shown_rating(f.mu, f.sigma) for f in profile_of("Ann").chart]
        start, end = ratings[-11], ratings[-1]
        assert start > end
        assert f"Trend: down {start - end} over the last 10 matches, from {start} to {end}." in html

    def test_a_sentence_says_how_rating_and_standings_differ(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        crown(table, ["Cy", "Ben"])
        html = page(client, "Ann")
        assert "Rating and standings are two different orders." in html
        assert "points for places (3 for 1st, 2 for 2nd, 1 for 3rd at ranked tables)" in html

    def test_no_chart_before_a_filed_match(self, host, client):
        make_table(host=host, players=["Ann", "Ben", "Cy"])
        html = page(client, "Ann")
        assert '<svg role="img"' not in html
        assert summary(html) == ["Ann has no filed matches yet."]


class TestSummary:
    def test_a_winner_takes_all_only_player_reads_sensibly(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"], mode="winner_takes_all")
        crown(table, ["Ann", "Cy"])  # Ben wins
        sentences = summary(page(client, "Ann"))
        assert sentences[0] == "Ann has played 1 filed match and won 0 of them (0.0%)."
        assert sentences[1] == (
            "All at winner-takes-all tables, where only the winner is named and no points are kept."
        )
        assert "No win yet." in sentences
        assert "Most often finished behind Ben (once)." in sentences
        assert not any("best place" in s or "Best night" in s for s in sentences)
        assert "<dt>Points</dt>" not in page(client, "Ann")

    def test_streak_best_night_rivals_and_rating(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        monday, tuesday = datetime.date(2026, 11, 2), datetime.date(2026, 11, 3)
        crown(table, ["Cy", "Ben"], monday)  # Ann wins
        crown(table, ["Cy", "Ann"], monday)  # Ben wins
        for _ in range(3):
            crown(table, ["Cy", "Ben"], tuesday)  # Ann wins three in a row
        sentences = summary(page(client, "Ann"))
        assert sentences[:2] == [
            "Ann has played 5 filed matches and won 4 of them (80.0%).",
            "At ranked tables: 14 points, best place 1st.",
        ]
        assert re.fullmatch(r"Rating \d+, 1st of 3 rated players\.", sentences[2])
        assert sentences[3:] == [
            "Longest winning run: 3 matches in a row.",
            "Best night: 3 Nov 2026, 3 won of 3 matches.",
            "Most often finished behind Ben (once).",
            "Favourite victim: Cy (finished ahead 5 times).",
        ]

    def test_head_to_head_list_links_each_pairs_matches(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        crown(table, ["Cy", "Ben"])
        crown(table, ["Cy", "Ann"])
        crown(table, ["Ben", "Cy"])
        html = page(client, "Ann")
        ann, ben = Player.objects.get(name="Ann"), Player.objects.get(name="Ben")
        pair = f"/players/{ann.pk}/vs/{ben.pk}/"
        assert f'<li><a href="{pair}">ahead of Ben 2–1 in 3</a></li>' in html
        assert ">ahead of Cy 3–0 in 3</a></li>" in html

    def test_portuguese(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"], mode="winner_takes_all")
        crown(table, ["Ben", "Cy"])
        player = Player.objects.get(name="Ann")
        html = client.get(
            reverse("matches:player", args=[player.pk]), HTTP_ACCEPT_LANGUAGE="pt"
        ).content.decode()
        assert "Ann jogou 1 partida terminada e ganhou 1 (100,0%)." in html
        assert "à frente de Ben 1–0 em 1" in html


class TestHistory:
    def test_paginated_newest_first(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        for _ in range(30):
            crown(table, ["Cy", "Ben"])
        first = page(client, "Ann")
        numbers = re.findall(r'<td><a href="/tables/\d+/matches/(\d+)/">', first)
        assert numbers == [str(n) for n in range(30, 5, -1)]
        assert "Page 1 of 2" in first and 'rel="next" href="?page=2">Older matches' in first
        second = page(client, "Ann", page=2)
        assert re.findall(r'<td><a href="/tables/\d+/matches/(\d+)/">', second) == [
            "5", "4", "3", "2", "1"
        ]  # fmt: skip
        assert 'rel="prev" href="?page=1">Newer matches' in second
        # A page out of range or not a number shows the nearest page, never an error.
        assert "Page 2 of 2" in page(client, "Ann", page=99)
        assert "Page 1 of 2" in page(client, "Ann", page="x")

    @pytest.mark.parametrize("matches", [3, 40])
    def test_the_same_queries_however_long_the_career(
        self, host, client, django_assert_num_queries, matches
    ):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        for _ in range(matches):
            crown(table, ["Cy", "Ben"])
        player = Player.objects.get(name="Ann")
        url = reverse("matches:player", args=[player.pk])
        # Player, league stamp, totals by mode, rating list (with the career summary),
        # whether the ratings are updating, head-to-head pairs, best night, the chart's
        # latest matches, the history page (no first-host check: the process has seen the
        # host).
        with django_assert_num_queries(9):
            client.get(url)
        # Until the league changes, the first page is rendered once: player, stamp.
        with django_assert_num_queries(2):
            client.get(url)
        # Another page of the history is rendered each time; the stamp keys whether the
        # Ratings are updating (kept with it).
        with django_assert_num_queries(8):
            client.get(url, {"page": 2})

    def test_the_first_page_follows_a_filing_and_a_rename_at_once(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        crown(table, ["Cy", "Ben"])
        assert "Ann has played 1 filed match" in page(client, "Ann")
        crown(table, ["Cy", "Ben"])
        assert "Ann has played 2 filed matches" in page(client, "Ann")
        ben = Player.objects.get(name="Ben")
        player_records.player_rename(player_id=ben.pk, name="Benedict", by=host)
        assert ">ahead of Benedict 2–0 in 2</a>" in page(client, "Ann")


def x_labels(html: str) -> list[str]:
    """The chart's match-number axis labels."""
    return re.findall(r'text-anchor="middle">(\d+)</text>', html)


class TestWhileTheRatingsReplay:
    """Right after a merge or its undo the ratings replay runs in the background: a player
    page shows settled figures, or says they are updating, never a half-replayed mix."""

    @pytest.fixture
    def manual(self, settings):
        settings.RATINGS_REPLAY = "manual"  # the replay waits until the test settles it
        steps._kept.clear()
        yield
        steps._kept.clear()

    @pytest.fixture
    def league(self, manual, host):
        """Ann won twice at a winner-takes-all table; Zed finished 6th, 5th and 4th at a
        ranked one."""
        wta = make_table(host=host, players=["Ann", "Cy", "Dee"], mode="winner_takes_all")
        crown(wta, ["Cy", "Dee"])
        crown(wta, ["Dee", "Cy"])
        others = ["Bo", "Eve", "Finn", "Gus", "Hal"]
        ranked = make_table(host=host, players=["Zed", *others], name="Ranked")
        crown(ranked, ["Zed", *others[:4]])
        crown(ranked, ["Bo", "Zed", *others[1:4]])
        crown(ranked, ["Bo", "Eve", "Zed", *others[2:4]])
        return Player.objects.get(name="Ann"), Player.objects.get(name="Zed")

    def test_a_merge_pending_its_replay_says_so_and_shows_no_rating(
        self, league, host, client, django_assert_num_queries
    ):
        ann, _zed = league
        player_records.player_merge(keep_id=ann.pk, other_name="Zed", by=host)
        url = reverse("matches:player", args=[ann.pk])
        # Player, stamp, whether the ratings are updating, totals by mode, the best ranked
        # place (no podium: one read of the seats), head-to-head, best night.
        with django_assert_num_queries(7):
            html = client.get(url).content.decode()
        assert summary(html)[:4] == [
            "Ann has played 5 filed matches and won 2 of them (40.0%).",
            "3 at ranked tables and 2 at winner-takes-all tables.",
            "At ranked tables: 0 points, best place 4th.",
            "Ratings are being updated after a change to past matches: the rating, the "
            "winning run, the chart and the match history show here again in a moment.",
        ]
        assert '<figure class="chart">' not in html and ">Rating</dt>" not in html
        assert ">Longest winning run</dt>" not in html
        assert "The match history shows again once the ratings are updated." in html
        assert '<meta http-equiv="refresh" content="5">' in html
        ratings_settle()
        html = client.get(url).content.decode()
        rating = PlayerRating.objects.get(player=ann)
        assert f"Rating {shown_rating(rating.mu, rating.sigma)}, " in " ".join(summary(html))
        assert "At ranked tables: 0 points, best place 4th." in summary(html)
        assert x_labels(html) == ["1", "2", "3", "4", "5"]
        assert 'http-equiv="refresh"' not in html

    def test_a_merged_players_best_ranked_place_below_the_podium(self, league, host, client):
        ann, _zed = league
        player_records.player_merge(keep_id=ann.pk, other_name="Zed", by=host)
        html = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
        # Zed's places, 6th, 5th and 4th, are Ann's now: never "best place out".
        assert "At ranked tables: 0 points, best place 4th." in summary(html)
        assert "best place out" not in html

    def test_right_after_undo_merge_no_half_state(self, league, host, client):
        ann, _zed = league
        merge = player_records.player_merge(keep_id=ann.pk, other_name="Zed", by=host)
        ratings_settle()
        player_records.player_merge_undo(merge_id=merge.pk, by=host)
        url = reverse("matches:player", args=[ann.pk])
        html = client.get(url).content.decode()
        # Ann's own two matches are settled; nothing read from the ratings is shown.
        assert summary(html)[0] == "Ann has played 2 filed matches and won 2 of them (100.0%)."
        assert not any(s.startswith("Rating ") for s in summary(html))
        assert '<figure class="chart">' not in html and " of 12 rated players" not in html
        assert "Ratings are being updated" in html
        zed = Player.objects.get(name="Zed")
        zed_html = client.get(reverse("matches:player", args=[zed.pk])).content.decode()
        assert "At ranked tables: 0 points, best place 4th." in summary(zed_html)
        api = client.get(reverse("matches:api_player", args=[ann.pk])).json()
        assert (api["rating"], api["updating"]) == (None, True)
        ratings_settle()
        html = client.get(url).content.decode()
        assert x_labels(html) == ["1", "2"]
        rating = PlayerRating.objects.get(player=ann)
        assert f"Rating {shown_rating(rating.mu, rating.sigma)}, " in " ".join(summary(html))
        api = client.get(reverse("matches:api_player", args=[ann.pk])).json()
        assert api["updating"] is False and api["rating"]["matches"] == 2

    def test_in_portuguese(self, league, host, client):
        ann, _zed = league
        player_records.player_merge(keep_id=ann.pk, other_name="Zed", by=host)
        url = reverse("matches:player", args=[ann.pk])
        html = client.get(url, HTTP_ACCEPT_LANGUAGE="pt").content.decode()
        assert "Os ratings estão a ser atualizados depois de uma alteração" in html
        assert "O histórico de partidas volta a aparecer quando os ratings" in html
