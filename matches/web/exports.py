"""Downloads and JSON answers: CSV files, and the table's public JSON document with its
pages of filed matches. CSV: one way to write a file a spreadsheet opens with accents
intact, and safe to open: a text cell a spreadsheet would evaluate as a formula (a player
named =HYPERLINK(...)) is written as text."""

import csv
import datetime
import io
from collections.abc import Callable, Iterable, Iterator
from typing import cast

from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone, translation
from django.utils.text import slugify

from matches.models import Match, Player, Season, Seat, Table
from matches.play import selectors
from matches.ratings.selectors import RatingRow
from matches.results.standings import STANDING_CSV_HEADER, StandingRow
from matches.rules.scoring import points_for, shown_place

# What Excel, LibreOffice and Google Sheets take as the start of a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# One header for a table's results and the league's: the table's name on every row, the
# filing time as a date and a time a spreadsheet recognises (local), and "out" as the place
# of a winner-takes-all loser.
TABLE_RESULTS_HEADER = ["table", "match", "date", "time", "player", "place", "points", "winner"]
OUT_PLACE = "out"


def spreadsheet_safe(cell: object) -> object:
    """A text cell starting like a formula gets the usual leading apostrophe; numbers stay."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def csv_response(filename: str, header: list[str], rows: Iterable[list]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    # The byte-order mark makes spreadsheets read the file as UTF-8 (accents intact).
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows([spreadsheet_safe(cell) for cell in row] for row in rows)
    return response


# What a streamed CSV hands the server at a time: a few hundred rows, not one write per row.
STREAM_CHUNK = 64 * 1024


def _csv_chunks(header: list[str], rows: Iterable[list], size: int) -> Iterator[str]:
    buffer = io.StringIO()
    buffer.write("\ufeff")
    writer = csv.writer(buffer)
    writer.writerow(header)
    for row in rows:
        writer.writerow([spreadsheet_safe(cell) for cell in row])
        if buffer.tell() >= size:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def csv_stream(filename: str, header: list[str], rows: Iterable[list]) -> StreamingHttpResponse:
    """csv_response for a file that grows with the league: written as rows are read, so the
    first bytes leave at once and the server never holds the whole file."""
    response = StreamingHttpResponse(
        _csv_chunks(header, rows, STREAM_CHUNK), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def table_result_row(table: Table, seat: Seat, *, real_names: bool = False) -> list:
    """A filed seat under TABLE_RESULTS_HEADER: the place and points its table's mode names,
    the player by their public name unless real_names (a host's download)."""
    place, points = shown_place(table.mode, seat.place), points_for(table.mode, seat.place)
    # The table's local time, to the second: two cells a spreadsheet reads as a date and a
    # time (2026-12-01, 21:07:05), where one ISO 8601 cell with an offset stays text.
    filed = timezone.localtime(seat.match.filed_at)
    return [
        table.name,
        seat.match.number,
        filed.date().isoformat(),
        filed.strftime("%H:%M:%S"),
        _neutral_name(seat.player, real_names),
        OUT_PLACE if place is None else place,
        "" if points is None else points,
        "yes" if seat.place == 1 else "no",
    ]


def league_result_row(seat: Seat, *, real_names: bool = False) -> list:
    """A filed seat of any table under TABLE_RESULTS_HEADER (its match holds its table),
    the player by their public name unless real_names (a host's download)."""
    return table_result_row(seat.match.table, seat, real_names=real_names)


def _slug(name: str, fallback: str) -> str:
    # ASCII, so the name needs no RFC 5987 encoding in Content-Disposition.
    return slugify(name) or fallback


LEAGUE_RESULTS_FILENAME = "results-all-tables.csv"


def table_results_filename(table: Table) -> str:
    """results-front-bar-2026-12-01.csv: the table's name and the day it was launched (a
    pub launches a "Front bar" every week)."""
    day = timezone.localdate(table.created_at).isoformat()
    return f"results-{_slug(table.name, f'table-{table.pk}')}-{day}.csv"


def standings_filename(*, table: Table | None, season: Season | None, date_from: datetime.date | None,
                       date_to: datetime.date | None, mode: str | None,
                       venue: str | None = None) -> str:  # fmt: skip
    """standings-2026-autumn.csv: the file's name says its filters (table, venue's slug,
    season or dates, mode); all-time when no season or date is chosen."""
    parts = ["standings"]
    if table is not None:
        parts.append(_slug(table.name, f"table-{table.pk}"))
    if venue:
        parts.append(venue)
    if season is not None:
        parts.append(_slug(season.name, f"season-{season.pk}"))
    elif date_from and date_to:
        parts.append(f"{date_from.isoformat()}-to-{date_to.isoformat()}")
    elif date_from:
        parts.append(f"from-{date_from.isoformat()}")
    elif date_to:
        parts.append(f"to-{date_to.isoformat()}")
    else:
        parts.append("all-time")
    if mode:
        parts.append(mode.replace("_", "-"))
    return "-".join(parts) + ".csv"


# The standings' columns, then the league rating as the page shows it ("provisional": the
# page's "?", from fewer than 5 matches); both empty for an unrated player.
STANDINGS_CSV_HEADER = [*STANDING_CSV_HEADER, "rating", "provisional"]


def standings_csv_row(row: StandingRow, rating: RatingRow | None) -> list:
    """A standings row under STANDINGS_CSV_HEADER."""
    if rating is None:
        return [*row.as_csv_row(), "", ""]
    return [*row.as_csv_row(), rating.shown, "yes" if rating.provisional else "no"]


def _neutral_name(player, real: bool) -> str:
    # The file is the same in every language: "Player 17", never "Participante 17".
    with translation.override(None):
        return player.shown_name(real=real)


def json_response(payload: dict, *, status: int = 200) -> JsonResponse:
    """A JSON answer that keeps names readable (José, not Jos\\u00e9)."""
    return JsonResponse(payload, status=status, json_dumps_params={"ensure_ascii": False})


def _filed_document(table: Table, match: Match, real: bool) -> dict:
    # A filed match has its filing time and its winner: the database's constraint says so.
    filed_at, winner = cast(datetime.datetime, match.filed_at), cast(Player, match.winner)
    return {
        "number": match.number,
        "filed_at": filed_at.isoformat(),
        "winner": winner.shown_name(real=real),
        "results": [
            {
                "player": seat.player.shown_name(real=real),
                "place": shown_place(table.mode, seat.place),
                "points": points_for(table.mode, seat.place),
            }
            for seat in match.seats.all()
        ],
    }


def _filed_documents(
    table: Table,
    *,
    before: int | None,
    size: int,
    link_older: Callable[[int], str] | None,
    real: bool,
) -> tuple[list[dict], str | None]:
    """A page of filed matches with their results for the JSON, oldest first (as the
    document always listed them), and the link to the page before it."""
    page = selectors.table_filed_with_seats(table=table, before=before, size=size)
    documents = [_filed_document(table, match, real) for match in reversed(page.matches)]
    older = None if page.older is None or link_older is None else link_older(page.older)
    return documents, older


def table_api(
    *,
    table: Table,
    size: int = selectors.FILED_PAGE,
    link_older: Callable[[int], str] | None = None,
    real_names: bool = False,
) -> dict:
    """The read-only JSON document for scoreboards and other programs: the open match and
    the latest size filed matches; next is link_older(number), the page of the matches
    filed before them (None when there are none, or no link_older is given). Players' names
    are the public's unless real_names (a host's)."""
    match, standing, out = selectors.current_match(table=table)
    current = None
    real = real_names
    if match is not None:
        current = {
            "number": match.number,
            "first_dealer": match.first_dealer.shown_name(real=real),
            "standing": [seat.player.shown_name(real=real) for seat in standing],
            "out": [
                {
                    "player": seat.player.shown_name(real=real),
                    "place": shown_place(table.mode, seat.place),
                }
                for seat in out
            ],
        }
    matches, older = _filed_documents(
        table, before=None, size=size, link_older=link_older, real=real
    )
    return {
        "id": table.pk,
        "name": table.name,
        "mode": table.mode,
        "is_open": table.is_open,
        "current_match": current,
        "matches": matches,
        "next": older,
    }


def table_api_matches(
    *,
    table: Table,
    before: int | None,
    size: int = selectors.FILED_PAGE,
    link_older: Callable[[int], str] | None = None,
    real_names: bool = False,
) -> dict:
    """A page of the JSON's filed matches: the latest size numbered below before, oldest
    first, and next and names as in table_api."""
    matches, older = _filed_documents(
        table, before=before, size=size, link_older=link_older, real=real_names
    )
    return {"id": table.pk, "matches": matches, "next": older}
