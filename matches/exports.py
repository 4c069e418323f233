"""CSV downloads: one way to write a file a spreadsheet opens with accents intact."""

import csv
from collections.abc import Iterable

from django.http import HttpResponse

from .models import Seat, Table
from .scoring import points_for, shown_place

TABLE_RESULTS_HEADER = ["match", "filed_at", "player", "place", "points", "winner"]


def csv_response(filename: str, header: list[str], rows: Iterable[list]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    # The byte-order mark makes spreadsheets read the file as UTF-8 (accents intact).
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows(rows)
    return response


def table_result_row(table: Table, seat: Seat) -> list:
    """A filed seat under TABLE_RESULTS_HEADER: the place and points its table's mode names."""
    place, points = shown_place(table.mode, seat.place), points_for(table.mode, seat.place)
    return [
        seat.match.number,
        seat.match.filed_at.isoformat(),
        seat.player.name,
        "" if place is None else place,
        "" if points is None else points,
        "yes" if seat.place == 1 else "no",
    ]
