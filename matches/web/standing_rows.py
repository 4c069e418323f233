"""A standings row written in Python: the standings page shows one per player (hundreds in a
league), and a template partial per row cost most of a cold page (make bench). Markup and
texts as the template wrote them: one line of HTML per row, every value escaped."""

from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from matches.ratings.selectors import RatingRow
from matches.results.standings import StandingRow


def _ahead(row: StandingRow) -> str:
    """Which step of the order put the player above the one below, as the row says it."""
    name = {"name": row.ahead_of}
    if row.ahead_on == "wins":
        return gettext("ahead of %(name)s on wins") % name
    if row.ahead_on == "seconds":
        return gettext("ahead of %(name)s on 2nds") % name
    if row.ahead_on == "thirds":
        return gettext("ahead of %(name)s on 3rds") % name
    if row.ahead_on == "played":
        return gettext("ahead of %(name)s on fewer played") % name
    return ""


def _notes(row: StandingRow) -> SafeString:
    """The small print under the name: the tie-break and the nights that count."""
    notes = []
    ahead = _ahead(row)
    level = ""
    if row.level_with:
        names = {"names": ", ".join(row.level_with)}
        level = gettext("level on everything with %(names)s") % names
    if ahead or level:
        joined = "; ".join(text for text in (ahead, level) if text)
        notes.append(format_html('<small class="tie-break">{}</small>', joined))
    if row.nights:
        nights = ", ".join(date_format(night, "MONTH_DAY_FORMAT") for night in row.nights)
        notes.append(
            format_html(
                '<small class="nights-counted">{} {}</small>', gettext("Nights counted:"), nights
            )
        )
    return mark_safe("".join(notes))  # noqa: S308 (each part made by format_html)


def _rating(rating: RatingRow | None) -> SafeString:
    if rating is None:
        return mark_safe("–")
    if not rating.provisional:
        return format_html("{}", rating.shown)
    return format_html(
        '{}<span class="provisional"><span aria-hidden="true">?</span>'
        '<span class="visually-hidden"> {}</span></span>',
        rating.shown,
        gettext("(provisional)"),
    )


def standing_row(
    row: StandingRow, rating: RatingRow | None, *, wins_only: bool, players_url: str
) -> SafeString:
    """One <tr> of the standings: rank (= when shared), the linked name and its notes, the
    counts (without 2nds, 3rds and points when ranking by wins), win % and rating. Numbers
    are whole and unseparated; win % is already in the reader's language."""
    counts = [row.played, row.wins]
    if not wins_only:
        counts += [row.seconds, row.thirds, row.points]
    return format_html(
        '<tr><td>{}{}</td><td><a href="{}{}/">{}</a>{}</td>{}<td>{}</td><td>{}</td></tr>',
        "=" if row.shared else "",
        row.rank,
        players_url,
        row.player_id,
        row.player,
        _notes(row),
        format_html_join("", "<td>{}</td>", ((count,) for count in counts)),
        row.win_percent_text,
        _rating(rating),
    )
