"""docs/api.md documents every read-only endpoint a league's website or spreadsheet may
pull: each api/ URL and CSV file of the URLconf has its section, and each section's example
has the fields (or columns) the endpoint answers with today, read from a league built here."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings

from matches.models import Player, Season
from tests.clients import FormClient
from tests.factories import make_host, make_table, tap
from tests.urlconf import url_names

pytestmark = pytest.mark.django_db

DOC = Path(settings.BASE_DIR) / "docs" / "api.md"
# A section: its heading names the method and path, its first code block is the example.
SECTION = re.compile(r"^## .*?`(GET|POST) (/\S*?)`.*?\n```(json|csv)\n(.*?)\n```", re.M | re.S)
SHOWDOWN = '{"hands": {"Ann": "QS QC 7D", "Bob": "QH 9H 2C"}}'


def documented() -> dict[str, tuple[str, str, str]]:
    """Each documented path (placeholders as <table_id>) -> (method, block kind, example)."""
    text = DOC.read_text(encoding="utf-8")
    return {
        path.split("?")[0]: (method, kind, body)
        for method, path, kind, body in SECTION.findall(text)
    }


def doc_path(pattern: str) -> str:
    """The URLconf's pattern as the docs write it: api/tables/<id:table_id>/ reads
    /api/tables/<table_id>/."""
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", pattern)


def served_files() -> dict[str, str]:
    """The read-only endpoints: every api/ URL and every CSV file, by documented path."""
    return {
        doc_path(pattern): name
        for name, pattern in url_names().items()
        if name.startswith("matches:") and (pattern.startswith("api/") or pattern.endswith(".csv"))
    }


def seeded_league() -> dict:
    """A night at one table: Ann wins, Dee wins, and a third match under way; a season."""
    host = make_host()
    table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"], name="Front bar")
    for name in ["Dee", "Cy", "Bob", "Bob", "Cy", "Ann", "Cy"]:
        tap(table, name)
    season = Season.objects.create(name="Winter", first_day="2026-12-01", last_day="2027-02-28")
    return {
        "table_id": table.pk,
        "player_id": Player.objects.get(name="Ann").pk,
        "season_id": season.pk,
        "host": host,
    }


def fetch(path: str, method: str, league: dict) -> tuple[str, str]:
    """The endpoint's answer for the seeded league, as (kind, text); the seat picker's
    search is a host's, so it is asked logged in."""
    client = FormClient()
    client.force_login(league["host"])
    url = re.sub(r"<(\w+)>", lambda m: str(league[m.group(1)]), path)
    if method == "POST":
        response = client.post(url, SHOWDOWN, content_type="application/json")
    else:
        response = client.get(url, {"q": "a"} if "search" in path else {})
    assert response.status_code == 200, url
    content = b"".join(response.streaming_content) if response.streaming else response.content
    kind = "csv" if response["Content-Type"].startswith("text/csv") else "json"
    return kind, content.decode()


def shape(value):
    """The field names of a JSON value, nested (a list by its first item); values aside."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return None


def test_every_read_only_endpoint_is_documented():
    missing = sorted(set(served_files()) - set(documented()))
    assert missing == [], f"document these in docs/api.md: {missing}"


def test_the_venue_filter_is_documented():
    text = DOC.read_text(encoding="utf-8")
    assert "/api/standings/?venue=" in text and "/standings.csv?venue=" in text


@pytest.mark.parametrize("path", sorted(served_files()))
def test_the_documented_example_has_the_fields_served(path):
    league = seeded_league()
    method, kind, example = documented()[path]
    served_kind, served = fetch(path, method, league)
    assert served_kind == kind
    if kind == "csv":
        assert example.splitlines()[0] == served.lstrip("\ufeff").splitlines()[0]
    else:
        assert shape(json.loads(example)) == shape(json.loads(served))
