"""Downloads and JSON answers. CSV: one way to write a file a spreadsheet opens with accents intact, and safe
to open: a text cell a spreadsheet would evaluate as a formula (a player named
=HYPERLINK(...)) is written as text."""

import csv
import io
from collections.abc import Iterable, Iterator

from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone

from matches.models import Seat, Table
from matches.rules.scoring import points_for, shown_place

# What Excel, LibreOffice and Google Sheets take as the start of a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TABLE_RESULTS_HEADER = ["match", "filed_at", "player", "place", "points", "winner"]


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


def table_result_row(table: Table, seat: Seat) -> list:
    """A filed seat under TABLE_RESULTS_HEADER: the place and points its table's mode names."""
    place, points = shown_place(table.mode, seat.place), points_for(table.mode, seat.place)
    return [
        seat.match.number,
        # The table's local time, to the second, with its UTC offset (ISO 8601).
        timezone.localtime(seat.match.filed_at).isoformat(timespec="seconds"),
        seat.player.name,
        "" if place is None else place,
        "" if points is None else points,
        "yes" if seat.place == 1 else "no",
    ]


def json_response(payload: dict, *, status: int = 200) -> JsonResponse:
    """A JSON answer that keeps names readable (José, not Jos\\u00e9)."""
    return JsonResponse(payload, status=status, json_dumps_params={"ensure_ascii": False})
