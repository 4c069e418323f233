"""The app's URLs plus three floors to measure it against, on the same server and stack."""

import uuid

from django.contrib.auth.decorators import login_required
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from matches.models import Player, Seat, Table, Tap


@require_safe
def read_floor(request: HttpRequest, player_id: int) -> HttpResponse:
    """One indexed query: the least a page that reads the database can cost."""
    name = Player.objects.filter(pk=player_id).values_list("name", flat=True).first()
    return HttpResponse(name or "")


@require_POST
def write_floor(request: HttpRequest) -> HttpResponse:
    """One row written in a transaction: the least any write can cost."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO bench_floor (n) VALUES (%s)", [1])
    return HttpResponse("ok")


def _tap_floor_sql() -> tuple[str, str, str]:
    quote = connection.ops.quote_name
    table, seat, tap = (quote(m._meta.db_table) for m in (Table, Seat, Tap))
    columns = ["match_id", "player_id", "place", "key", "tapped_by_id", "tapped_at"]
    columns += ["undone_at", "undone_by_id"]
    return (
        f"UPDATE {table} SET {quote('version')} = {quote('version')} + 1 WHERE id = %s"
        f" RETURNING {quote('version')}",
        f"UPDATE {seat} SET {quote('place')} = NULL WHERE id = %s",
        f"INSERT INTO {tap} ({', '.join(quote(c) for c in columns)})"
        f" VALUES ({', '.join(['%s'] * len(columns))})",
    )


@login_required
@require_POST
def tap_floor(request: HttpRequest) -> HttpResponse:
    """What a tap cannot do without: the session and the user loaded (login_required), then,
    in one transaction, the tap's own three writes in plain SQL (the table's version bumped,
    a seat's place set, a tap row inserted), nothing read and nothing rendered. The tap row
    is born undone, so the floor's table never has a live tap; the seat stays standing."""
    bump, seat, insert = _tap_floor_sql()
    data = request.POST
    now = Tap._meta.get_field("tapped_at").get_db_prep_value(timezone.now(), connection)
    key = Tap._meta.get_field("key").get_db_prep_value(uuid.uuid4(), connection)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(bump, [data["table"]])
        cursor.execute(seat, [data["seat"]])
        cursor.execute(
            insert,
            [data["match"], data["player"], 2, key, request.user.pk, now, now, request.user.pk],
        )
    return HttpResponse("ok")


urlpatterns = [
    path("bench/read/<int:player_id>/", read_floor),
    path("bench/write/", write_floor),
    path("bench/tap/", tap_floor),
    path("", include("brag_tables.urls")),
]
