"""The app's URLs plus two floors to measure it against, on the same server and stack."""

from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.http import require_POST, require_safe

from matches.models import Player


@require_safe
def read_floor(request: HttpRequest, player_id: int) -> HttpResponse:
    """One indexed query: the least a page that reads the database can cost."""
    name = Player.objects.filter(pk=player_id).values_list("name", flat=True).first()
    return HttpResponse(name or "")


@require_POST
def write_floor(request: HttpRequest) -> HttpResponse:
    """One row written in a transaction: the least a tap can cost."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO bench_floor (n) VALUES (%s)", [1])
    return HttpResponse("ok")


urlpatterns = [
    path("bench/read/<int:player_id>/", read_floor),
    path("bench/write/", write_floor),
    path("", include("brag_tables.urls")),
]
