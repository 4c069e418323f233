"""A standings row as the page writes it: every text escaped, the tie-break and the nights
in its small print, numbers as whole numbers, the rating marked provisional."""

import datetime

from django.utils import translation

from matches.ratings.selectors import RatingRow
from matches.results.standings import StandingRow
from matches.web.standing_rows import standing_row


def row(**fields) -> StandingRow:
    base = dict(
        rank=2, shared=True, player_id=7, player="Al <b>", played=1200, wins=3, seconds=2,
        thirds=1, points=14,
    )  # fmt: skip
    return StandingRow(**{**base, **fields})


def test_every_text_is_escaped_and_numbers_have_no_separator():
    html = standing_row(
        row(ahead_on="wins", ahead_of="Bo & Co", level_with=('Cy"', "Di'")),
        None,
        wins_only=False,
        players_url="/players/",
    )
    assert html == (
        '<tr><td>=2</td><td><a href="/players/7/">Al &lt;b&gt;</a>'
        '<small class="tie-break">ahead of Bo &amp; Co on wins; level on everything with '
        "Cy&quot;, Di&#x27;</small></td><td>1200</td><td>3</td><td>2</td><td>1</td>"
        "<td>14</td><td>0.3</td><td>–</td></tr>"
    )


def test_wins_only_drops_the_points_columns_and_the_nights_show_in_portuguese():
    nights = (datetime.date(2026, 3, 5), datetime.date(2026, 4, 9))
    rating = RatingRow(rank=1, player_id=7, player="Al", matches=2, mu=25.0, sigma=8.333)
    with translation.override("pt"):
        html = standing_row(
            row(shared=False, nights=nights), rating, wins_only=True, players_url="/players/"
        )
    assert html == (
        '<tr><td>2</td><td><a href="/players/7/">Al &lt;b&gt;</a>'
        '<small class="nights-counted">Noites que contam: 5 de março, 9 de abril</small></td>'
        f"<td>1200</td><td>3</td><td>0,3</td><td>{rating.shown}"
        '<span class="provisional"><span aria-hidden="true">?</span>'
        '<span class="visually-hidden"> (provisório)</span></span></td></tr>'
    )
