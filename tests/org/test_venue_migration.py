"""An existing single-pub install migrated to venues (0020 and on) keeps every page and
figure as it was: a league at the last migration before venues, migrated to the latest,
reads the same standings, places and counts (compared with a count made here from the raw
rows), the same pages byte for byte, and every table and host is at the one first venue."""

import re
from collections import defaultdict

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from matches.core import kept
from matches.integrity import integrity_problems
from matches.models import Player, Table, Venue, VenueRole
from matches.play.services.tables import table_close
from matches.rules.scoring import RANKED, RANKED_POINTS
from tests.clients import FormClient
from tests.factories import body, make_host, make_organiser, make_table, open_match, tap

BEFORE_VENUES = ("matches", "0019_corrections_keep_the_taps")
FILED = "filed"


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


def latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes("matches")[0]


def league() -> dict:
    """Two tables of one pub, ranked and winner takes all, with filed matches, one under way
    and one table closed: what an install has after a few nights."""
    priya = make_host("priya")
    sam = make_host("sam")
    make_organiser("boss")
    front = make_table(host=priya, players=["Ann", "Bob", "Cy", "Dee"], name="Front")
    for name in ["Dee", "Cy", "Bob", "Bob", "Cy", "Ann", "Cy"]:
        tap(front, name)  # Ann wins, then Dee wins; a third match under way
    snug = make_table(
        host=sam, players=["Ann", "Eve", "Finn"], name="Snug", mode=Table.Mode.WINNER_TAKES_ALL
    )
    for name in ["Ann", "Eve", "Finn", "Eve"]:
        tap(snug, name)
    table_close(table_id=snug.pk, by=sam, discard_match_id=open_match(snug).pk)
    return {"front": front, "snug": snug, "priya": priya}


def counted(apps) -> dict[str, dict]:
    """Each player's standings counted from the raw seats of filed matches (rules: ranked
    places 1-3 earn 3, 2, 1; winner takes all names the winner only)."""
    seats = apps.get_model("matches", "Seat").objects.filter(match__status=FILED)
    rows: dict[str, dict] = defaultdict(
        lambda: dict.fromkeys(("played", "wins", "seconds", "thirds", "points"), 0)
    )
    for name, place, mode in seats.values_list("player__name", "place", "match__table__mode"):
        row = rows[name]
        row["played"] += 1
        row["wins"] += place == 1
        if mode == RANKED:
            row["seconds"] += place == 2
            row["thirds"] += place == 3
            row["points"] += RANKED_POINTS.get(place, 0)
    return dict(rows)


def places(apps, table_id: int) -> dict[int, dict[str, int | None]]:
    """Each filed match's places at a table, by match number, from the raw seats."""
    found: dict[int, dict[str, int | None]] = defaultdict(dict)
    seats = apps.get_model("matches", "Seat").objects.filter(
        match__table_id=table_id, match__status=FILED
    )
    for number, name, place in seats.values_list("match__number", "player__name", "place"):
        found[number][name] = place
    return dict(found)


def fields_of(apps) -> dict[str, list[str]]:
    """The columns of every model of the league (and its accounts) in a migration state."""
    return {
        model._meta.label: [field.attname for field in model._meta.concrete_fields]
        for model in apps.get_models()
        if model._meta.app_label in ("matches", "auth")
    }


# The rows the league had, after the migrations: the running totals gain each venue's rows
# beside the league's (0022), which are the league's as they were.
LEAGUE_ROWS = {"matches.RunningTotal": {"venue__isnull": True}}


def rows_of(apps, fields: dict[str, list[str]], only: dict[str, dict] | None = None) -> dict:
    """Every row of these models (only those of only's filters), by these columns."""
    only = only or {}
    return {
        label: list(
            apps.get_model(label)
            .objects.filter(**only.get(label, {}))
            .order_by("pk")
            .values(*names)
        )
        for label, names in fields.items()
    }


# What differs on every rendering: the time it was rendered, each tap button's fresh key.
RENDERED_AT = re.compile(r'(data-rendered-at=")\d+')
TAP_KEY = re.compile(r'(name="key" value=")[0-9a-f-]{36}')


def blank(text: str) -> str:
    return TAP_KEY.sub(r"\1", RENDERED_AT.sub(r"\1", text))


def pages(front: Table, player_id: int, host) -> dict[str, str]:
    """What the public and the host read, as text (what differs on every rendering blanked:
    CSRF tokens, the rendering's time, the tap buttons' keys)."""
    kept.forget_all()
    cache.clear()
    public, hosting = FormClient(), FormClient()
    hosting.force_login(host)
    urls = [
        reverse("matches:home"),
        reverse("matches:standings"),
        reverse("matches:standings_csv"),
        reverse("matches:results_csv"),
        reverse("matches:table", args=[front.pk]),
        reverse("matches:matches", args=[front.pk]),
        reverse("matches:match", args=[front.pk, 1]),
        reverse("matches:player", args=[player_id]),
        reverse("matches:seasons"),
        reverse("matches:api_standings"),
        reverse("matches:api_table", args=[front.pk]),
        reverse("matches:api_table_matches", args=[front.pk]),
        reverse("matches:api_player", args=[player_id]),
        reverse("matches:api_ratings"),
    ]
    read = {}
    for who, client in (("public", public), ("host", hosting)):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, url
            read[f"{who} {url}"] = blank(body(response))
    read["host launch form"] = blank(body(hosting.get(reverse("matches:table_new"))))
    return read


@pytest.mark.django_db(transaction=True)
def test_a_single_pub_reads_the_same_after_the_venue_migrations():
    built = league()
    front, priya = built["front"], built["priya"]
    ann = Player.objects.get(name="Ann").pk
    before_pages = pages(front, ann, priya)
    try:
        old = migrate(BEFORE_VENUES)
        # Accounts made before venues: a host, and a second organiser.
        users = old.get_model(*settings.AUTH_USER_MODEL.split(".")).objects
        users.create(username="kim", password="!")
        users.create(username="lee", password="!", is_superuser=True, is_staff=True)
        columns = fields_of(old)
        before_rows = rows_of(old, columns)
        figures = counted(old)
        front_places = places(old, front.pk)
        migrate(latest())
    finally:
        migrate(latest())
    new = migrate(latest())

    # Every row the league had is there as it was; the figures count the same.
    assert rows_of(new, columns, LEAGUE_ROWS) == before_rows
    assert counted(new) == figures
    assert (
        places(new, front.pk)
        == front_places
        == {
            1: {"Ann": 1, "Bob": 2, "Cy": 3, "Dee": 4},
            2: {"Dee": 1, "Ann": 2, "Cy": 3, "Bob": 4},
        }
    )
    # One venue, named from the setting; every table there; every host but the organisers
    # hosts there, so each still changes the tables they did.
    venue = Venue.objects.get()
    assert venue.name == settings.BRAG_FIRST_VENUE_NAME
    assert set(Table.objects.values_list("venue_id", flat=True)) == {venue.pk}
    assert sorted(VenueRole.objects.values_list("user__username", "venue_id", "kind")) == [
        (name, venue.pk, VenueRole.Kind.HOST) for name in ("kim", "priya", "sam")
    ]
    assert not get_user_model().objects.get(username="lee").venue_roles.exists()
    # The one venue's running totals are the league's, row for row.
    totals = new.get_model("matches", "RunningTotal").objects.order_by("player_id", "mode", "day")
    counts = [name for name in columns["matches.RunningTotal"] if name != "id"]
    venue_totals = list(totals.filter(venue_id=venue.pk).values(*counts))
    assert venue_totals == list(totals.filter(venue__isnull=True).values(*counts))
    assert len(venue_totals) == len(before_rows["matches.RunningTotal"])

    # The API's standings are the raw rows' count; the pages read as before, byte for byte.
    after_pages = pages(front, ann, priya)
    standings = FormClient().get(reverse("matches:api_standings")).json()["rows"]
    assert {row["player"]: {k: row[k] for k in figures["Ann"]} for row in standings} == figures
    assert after_pages == before_pages
    # A single pub sees no venue choice when launching a table.
    assert 'name="venue"' not in after_pages["host launch form"]
    assert integrity_problems() == []
