"""A standings row written in Python: the standings page shows one per player (hundreds in a
league), and a template partial per row cost most of a cold page (make bench). Markup and
texts as the template wrote them: one line of HTML per row. Every text is escaped with the
standard library's html.escape, which is what Django's escape does, without the lazy-string
checks that cost more than the escaping itself at this count."""

from html import escape

from django.utils.formats import date_format
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


def _notes(row: StandingRow) -> str:
    """The small print under the name, escaped: the tie-break and the nights that count."""
    notes = ""
    ahead = _ahead(row)
    level = ""
    if row.level_with:
        level = gettext("level on everything with %(names)s") % {"names": ", ".join(row.level_with)}
    if ahead or level:
        said = "; ".join(text for text in (ahead, level) if text)
        notes += f'<small class="tie-break">{escape(said)}</small>'
    if row.nights:
        nights = ", ".join(date_format(night, "MONTH_DAY_FORMAT") for night in row.nights)
        counted = gettext("Nights counted:")
        said = f"{counted} {nights}"
        notes += f'<small class="nights-counted">{escape(said)}</small>'
    return notes


def _rating(rating: RatingRow | None) -> str:
    if rating is None:
        return "–"
    if not rating.provisional:
        return str(rating.shown)
    provisional = escape(gettext("(provisional)"))
    return (
        f'{rating.shown}<span class="provisional"><span aria-hidden="true">?</span>'
        f'<span class="visually-hidden"> {provisional}</span></span>'
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
    cells = "".join(f"<td>{int(count)}</td>" for count in counts)
    link = f'<a href="{escape(players_url)}{int(row.player_id)}/">{escape(row.player)}</a>'
    return mark_safe(  # noqa: S308 (every text above escaped, every number an int)
        f"<tr><td>{'=' if row.shared else ''}{int(row.rank)}</td><td>{link}{_notes(row)}</td>"
        f"{cells}<td>{escape(row.win_percent_text)}</td><td>{_rating(rating)}</td></tr>"
    )
