"""The role matrix: every write URL of the app, asked by an anonymous visitor, a host of
another venue, a host of this venue, a manager of this venue and the organiser, answers as
the roles say (to log in, 403 with the sentence saying who may, or done), and a refused
write saves nothing: every model's rows are compared before and after.

A URL added to the app fails test_every_url_is_in_the_matrix until it is placed here: a
write with one Write(...) line of expectations, a read in READS (and a read must refuse a
POST)."""

import datetime
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.urls import Resolver404, resolve, reverse

from matches.models import DailyTally, Player, PlayerMerge, Season, Table, Venue, VenueRole
from matches.org import venues
from matches.org.roles import PLAYERS_ARE_THE_ORGANISERS, SEASONS_ARE_THE_ORGANISERS
from matches.play import corrections
from matches.play import messages as play_messages
from matches.play.services.finals import FINALS_ARE_THE_ORGANISERS
from matches.play.services.tables import table_close
from matches.results.players.services import player_merge, players_resolve
from matches.results.season_rules import rules_change
from tests.clients import HTMX, FormClient
from tests.factories import (
    first_venue,
    make_host,
    make_table,
    open_match,
    other_venue,
    seat_of,
    tap,
)
from tests.urlconf import url_names

ACTORS = ("anonymous", "other_host", "host", "manager", "organiser")
PASSWORD = "a-long-test-password"


@dataclass(frozen=True)
class Login:
    """Sent to log in (htmx: told to go there), nothing saved."""


@dataclass(frozen=True)
class Refused:
    """403 with this sentence on the page, nothing saved."""

    sentence: str


@dataclass(frozen=True)
class Done:
    """Answered (a page or a redirect), and a POST saved something."""


@dataclass(frozen=True)
class Told:
    """Sent back to the venue's page, which says this sentence; nothing saved (a refusal
    that is not about who is asking)."""

    sentence: str


@dataclass(frozen=True)
class Gone:
    """404 for everyone (the first-host setup, once a host exists), nothing saved."""


@dataclass(frozen=True)
class Answered:
    """Answered for everyone, and nothing saved (a POST that only computes)."""


LOGIN, DONE, GONE, ANSWERED = Login(), Done(), Gone(), Answered()


@dataclass
class League:
    """One venue's league as an evening leaves it, with a second venue beside it."""

    venue: Venue
    table: Table  # open at the first venue: match 1 filed, match 2 with one tap
    closed: Table  # closed, at the first venue
    fresh: Table  # just launched at the first venue: nobody tapped yet
    season: Season
    merge: PlayerMerge
    users: dict[str, Any] = field(default_factory=dict)

    def player(self, name: str) -> int:
        return Player.objects.get(name=name).pk


def build_league() -> League:
    users = get_user_model().objects
    organiser = users.create_superuser(username="organiser", password=PASSWORD)
    venue = first_venue()
    anchor = other_venue("The Anchor")
    host = make_host("host", venue=venue)
    manager = make_host("manager", venue=anchor)  # a host elsewhere too: one may be both
    VenueRole.objects.create(user=manager, venue=venue, kind=VenueRole.Kind.MANAGER)
    other_host = make_host("other_host", venue=anchor)
    # A second manager of the first venue: one manager may not remove another.
    co_manager = make_host("co_manager", venue=venue)
    VenueRole.objects.filter(user=co_manager).update(kind=VenueRole.Kind.MANAGER)
    table = make_table(host=host, players=["Alice", "Ben", "Cara", "Dev"])
    for name in ["Dev", "Cara", "Ben"]:
        tap(table, name)
    tap(table, "Dev")
    closed = make_table(host=host, players=["Eve", "Finn", "Gil"], name="Snug")
    table_close(table_id=closed.pk, by=host, discard_match_id=open_match(closed).pk)
    fresh = make_table(host=host, players=["Hal", "Ian", "Jo"], name="Corner")
    players_resolve(names=["Yan", "Zed", "Zoe"])
    merge = player_merge(
        keep_id=Player.objects.get(name="Alice").pk, other_name="Yan", by=organiser
    )
    season = Season.objects.create(
        name="Winter", first_day=datetime.date(2020, 1, 1), last_day=datetime.date(2020, 3, 31)
    )
    return League(
        venue=venue,
        table=table,
        closed=closed,
        fresh=fresh,
        season=season,
        merge=merge,
        users={
            "host": host,
            "manager": manager,
            "co_manager": co_manager,
            "other_host": other_host,
            "organiser": organiser,
        },
    )


def table_refusal(league: League) -> Refused:
    return Refused(str(play_messages.NOT_YOUR_TABLE) % {"venue": league.venue.name})


def table_writes(refused: Callable[[League], Refused] = table_refusal) -> dict:
    """A write at a table of the first venue: its hosts, its managers and the organiser."""
    return {
        "anonymous": LOGIN,
        "other_host": refused,
        "host": DONE,
        "manager": DONE,
        "organiser": DONE,
    }


def organiser_writes(sentence) -> dict:
    refused = Refused(str(sentence))
    return {
        "anonymous": LOGIN,
        "other_host": refused,
        "host": refused,
        "manager": refused,
        "organiser": DONE,
    }


def manager_refusal(league: League) -> Refused:
    return Refused(str(venues.NOT_VENUE_MANAGER) % {"venue": league.venue.name})


def manager_writes(**answers) -> dict:
    """A write about the first venue's hosts: its managers and the organiser (answers
    overrides an actor's answer)."""
    return {
        "anonymous": LOGIN,
        "other_host": manager_refusal,
        "host": manager_refusal,
        "manager": DONE,
        "organiser": DONE,
    } | answers


HOSTS_READ = {
    "anonymous": LOGIN,
    "other_host": DONE,
    "host": DONE,
    "manager": DONE,
    "organiser": DONE,
}
NOBODY = dict.fromkeys(ACTORS, GONE)
PLAYERS = organiser_writes(PLAYERS_ARE_THE_ORGANISERS)
SEASONS = organiser_writes(SEASONS_ARE_THE_ORGANISERS)
FINALS = organiser_writes(FINALS_ARE_THE_ORGANISERS)
VENUES = organiser_writes(venues.NOT_ORGANISER)


def launch_refusal(league: League) -> Refused:
    return Refused(str(play_messages.NOT_YOUR_VENUE) % {"venue": league.venue.name})


def correction_refusal(league: League) -> Refused:
    return Refused(str(corrections.NOT_YOURS) % {"venue": league.venue.name})


def tap_form(league: League) -> dict:
    match = open_match(league.table)
    return {"match": match.pk, "player": seat_of(match, "Cara").player_id, "key": uuid.uuid4()}


def correct_form(league: League) -> dict:
    return {"players": "Ben\nDev\nCara\nAlice", "confirm": "1"}


def merge_form(league: League) -> dict:
    return {"other": "Zoe", "other_id": league.player("Zoe"), "confirm": "1"}


def season_form(name: str) -> Callable[[League], dict]:
    return lambda league: {"name": name, "first_day": "2021-01-01", "last_day": "2021-03-31"}


def rules_form(league: League) -> dict:
    """Four places a venue instead of eight, confirmed as the confirmation page asks."""
    change = rules_change(league.season, replace(league.season.qualifying_rules, places=4))
    return {"places": "4", "one_venue": "on", "confirm": change.token}


def on_table(league: League) -> list:
    return [league.table.pk]


def on_fresh(league: League) -> list:
    return [league.fresh.pk]


def on_match(league: League) -> list:
    return [league.table.pk, 1]


@dataclass(frozen=True)
class Write:
    """One request to a write URL, and how each actor is answered (a value, or a function of
    the league for a sentence that names something of it)."""

    name: str
    method: str
    answers: dict
    args: Callable[[League], list] = lambda league: []
    data: Callable[[League], dict] = lambda league: {}
    htmx: bool = False
    json: str | None = None  # a JSON body instead of a form
    about: str = ""  # tells apart two lines of one URL and method in the tests' ids

    def expected(self, actor: str, league: League):
        answer = self.answers[actor]
        return answer(league) if callable(answer) else answer

    @property
    def id(self) -> str:
        about = f"-{self.about}" if self.about else ""
        return f"{self.name}{about}-{self.method}{'-htmx' if self.htmx else ''}"


def player(name: str) -> Callable[[League], list]:
    return lambda league: [league.player(name)]


def at_venue(league: League) -> list:
    return [league.venue.slug]


def finals_form(league: League) -> dict:
    """The season's qualifiers (six players' nights in it at the first venue), and a finals
    night of two heats from them."""
    for points, name in enumerate(["Alice", "Ben", "Cara", "Dev", "Eve", "Finn"]):
        DailyTally.objects.create(
            player_id=league.player(name),
            table=league.table,
            venue=league.venue,
            day=league.season.first_day,
            played=1,
            points=points,
        )
    return {
        "venue": league.venue.pk,
        "mode": "ranked",
        "heats": "2",
        "seeding": "spread",
        "runners_up": "1",
    }


def on_season(league: League) -> list:
    return [league.season.pk]


def venue_user(username: str) -> Callable[[League], list]:
    """The first venue and one of its people, for the changes to a host."""
    return lambda league: [league.venue.slug, league.users[username].pk]


def confirmed(league: League) -> dict:
    return {"confirmed": "yes"}


def unknown_token(league: League) -> list:
    return ["no-such-invitation"]


WRITES = [
    Write("setup", "GET", NOBODY),
    Write("setup", "POST", NOBODY, data=lambda league: {"username": "x", "password1": "y"}),
    Write("table_new", "GET", HOSTS_READ),
    Write(
        "table_new",
        "POST",
        table_writes(launch_refusal),
        data=lambda league: {
            "name": "Back room",
            "players": "Alice\nBen\nCara",
            "mode": Table.Mode.RANKED,
            "venue": league.venue.pk,
        },
    ),
    Write("tap", "POST", table_writes(), on_table, tap_form),
    Write("tap", "POST", table_writes(), on_table, tap_form, htmx=True),
    Write("undo", "GET", table_writes(), on_table),
    Write("undo", "POST", table_writes(), on_table),
    Write("undo", "POST", table_writes(), on_table, htmx=True),
    Write("roster", "GET", table_writes(), on_fresh),
    Write(
        "roster",
        "POST",
        table_writes(),
        on_fresh,
        lambda league: {"match": open_match(league.fresh).pk, "players": "Hal\nIan\nJo\nZed"},
    ),
    Write("close", "GET", table_writes(), on_table),
    Write(
        "close",
        "POST",
        table_writes(),
        on_table,
        lambda league: {"discard": open_match(league.table).pk},
    ),
    Write("reopen", "POST", table_writes(), lambda league: [league.closed.pk]),
    Write("match_correct", "GET", table_writes(correction_refusal), on_match),
    Write("match_correct", "POST", table_writes(correction_refusal), on_match, correct_form),
    Write("player_rename", "GET", PLAYERS, player("Dev")),
    Write("player_rename", "POST", PLAYERS, player("Dev"), lambda league: {"name": "Devon"}),
    Write("player_merge", "GET", PLAYERS, player("Zed")),
    Write("player_merge", "POST", PLAYERS, player("Zed"), merge_form),
    Write("player_merge_undo", "POST", PLAYERS, lambda league: [league.merge.pk]),
    Write("player_public_name", "GET", PLAYERS, player("Ben")),
    Write(
        "player_public_name",
        "POST",
        PLAYERS,
        player("Ben"),
        lambda league: {"public_name": "B.", "hidden": ""},
    ),
    Write("player_erase", "GET", PLAYERS, player("Cara")),
    Write("player_erase", "POST", PLAYERS, player("Cara")),
    Write("season_new", "GET", SEASONS),
    Write("season_new", "POST", SEASONS, data=season_form("Spring")),
    Write("season_edit", "GET", SEASONS, lambda league: [league.season.pk]),
    Write(
        "season_edit",
        "POST",
        SEASONS,
        lambda league: [league.season.pk],
        season_form("Winter 2020"),
    ),
    Write("season_delete", "POST", SEASONS, lambda league: [league.season.pk]),
    # A season's finals night: the organiser's, once the season has ended.
    Write("finals_new", "GET", FINALS, on_season),
    Write("finals_new", "POST", FINALS, on_season, finals_form),
    Write("season_rules", "GET", SEASONS, lambda league: [league.season.pk]),
    # The season has ended: the change saves with the confirmation of exactly this change.
    Write("season_rules", "POST", SEASONS, lambda league: [league.season.pk], rules_form),
    # Venues: the organiser adds, renames and lists who may frame the standings; the
    # venue's managers and the organiser invite and remove hosts, though only the organiser
    # removes a manager and nobody removes themselves; the organiser makes managers and
    # organisers.
    Write("venue_new", "POST", VENUES, data=lambda league: {"name": "The Crown"}),
    Write("venue_settings", "GET", VENUES, at_venue),
    Write("venue_rename", "POST", VENUES, at_venue, lambda league: {"name": "The Swan"}),
    Write(
        "venue_frame_origins",
        "POST",
        VENUES,
        at_venue,
        lambda league: {"origins": "https://thecrown.example"},
    ),
    Write("venue_invite", "POST", manager_writes(), at_venue),
    Write("venue_host_remove", "POST", manager_writes(), venue_user("host"), confirmed),
    Write(
        "venue_host_remove",
        "POST",
        manager_writes(manager=Told(str(venues.NOT_YOURSELF))),
        venue_user("manager"),
        confirmed,
        about="themselves",
    ),
    Write(
        "venue_host_remove",
        "POST",
        manager_writes(manager=Refused(str(venues.MANAGER_BY_ORGANISER))),
        venue_user("co_manager"),
        confirmed,
        about="a-manager",
    ),
    Write("venue_manager_grant", "POST", VENUES, venue_user("host"), confirmed),
    Write("organiser_grant", "POST", VENUES, venue_user("host"), confirmed),
    # An invitation nobody made is not found, whoever follows it.
    Write("invitation", "GET", NOBODY, unknown_token),
    Write("invitation", "POST", NOBODY, unknown_token),
    # Hosts' reads that the matrix checks too: the players' pages and the seat picker's search.
    Write("players", "GET", HOSTS_READ),
    Write("player_merges", "GET", HOSTS_READ),
    Write("api_player_search", "GET", HOSTS_READ, data=lambda league: {"q": "al"}),
    # The showdown judge takes a POST from anyone and saves nothing.
    Write(
        "api_showdown",
        "POST",
        dict.fromkeys(ACTORS, ANSWERED),
        json='{"hands": {"Ana": "QS QC 7D", "Rui": "QH 9H 2C"}}',
    ),
]

# Pages and files anyone may read: they take no POST (test_reads_refuse_a_post).
READS = {
    "no_stream",
    "home",
    "service_worker",
    "manifest",
    "favicon",
    "table",
    "qr",
    "matches",
    "match",
    "tv",
    "tonight",
    "tonight_png",
    "table_standings",
    "table_results_csv",
    "standings",
    "standings_csv",
    "results_csv",
    "player",
    "player_pair",
    "api_table",
    "api_table_matches",
    "api_standings",
    "seasons",
    "finals",
    "finals_board",
    "season",
    "season_qualifiers",
    "api_season_qualifiers",
    "api_player",
    "api_ratings",
    "language",
    "rules",
    "showdown",
    "venues",
    "venue",
    "venue_board",
    "venue_standings_embed",
}
# Django's own: the admin (its permissions, and the backups pages it guards: test_backup.py),
# the login and logout pages and the language form.
DJANGO_OWN = ("admin", "login", "logout", "set_language", "admin_backups", "admin_backup_download")


def test_every_url_is_in_the_matrix():
    covered = {f"matches:{write.name}" for write in WRITES} | {f"matches:{name}" for name in READS}
    missing = [
        name
        for name, pattern in url_names().items()
        if name not in covered
        and not name.startswith(DJANGO_OWN)
        and not pattern.startswith("admin/")
    ]
    assert missing == [], f"place these URLs in the role matrix: {missing}"


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(READS))
def test_reads_refuse_a_post(name, admin_client):
    """A read takes no POST, whoever sends it: a write cannot hide among the reads."""
    pattern = url_names()[f"matches:{name}"]
    args = [1] * pattern.count("<")
    url = reverse(f"matches:{name}", args=args) if "^" not in pattern else "/" + pattern.strip("^")
    assert admin_client.post(url).status_code == 405


def snapshot() -> dict:
    """Every row of every model (sessions aside: logging in is not a write of the app)."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in apps.get_models()
        if model is not Session
    }


CASES = [
    pytest.param(write, actor, id=f"{write.id}-{actor}") for write in WRITES for actor in ACTORS
]


@pytest.mark.django_db
@pytest.mark.parametrize(("write", "actor"), CASES)
def test_role_matrix(write: Write, actor: str):
    league = build_league()
    client = FormClient()
    if actor != "anonymous":
        client.force_login(league.users[actor])
    url = reverse(f"matches:{write.name}", args=write.args(league))
    data = write.data(league)
    headers = HTMX if write.htmx else {}
    before = snapshot()
    if write.method == "GET":
        response = client.get(url, data, **headers)
    elif write.json is not None:
        response = client.post(url, write.json, content_type="application/json")
    else:
        response = client.post(url, data, **headers)
    after = snapshot()
    expected = write.expected(actor, league)
    page = response.content.decode()
    if isinstance(expected, Login):
        login = reverse("login")
        if write.htmx:
            assert response["HX-Redirect"].startswith(login + "?next=")
        else:
            assert response.status_code == 302
            assert response["Location"].startswith(login + "?next=")
    elif isinstance(expected, Refused):
        assert response.status_code == 403
        assert expected.sentence in page
    elif isinstance(expected, Told):
        venue_page = reverse("matches:venue", args=[league.venue.slug])
        assert (response.status_code, response["Location"]) == (302, venue_page)
        assert expected.sentence in client.get(venue_page).content.decode()
    elif isinstance(expected, Gone):
        assert response.status_code == 404
    elif isinstance(expected, Answered):
        assert response.status_code == 200
    else:
        assert response.status_code in (200, 302), page[:2000]
        if write.method == "POST":
            assert after != before, "the write saved nothing"
    if write.method == "GET" or not isinstance(expected, Done):
        assert after == before


LINK = re.compile(r'\b(href|action)="(/[^"?#]*)')


@pytest.mark.django_db
@pytest.mark.parametrize("actor", ["other_host", "host", "manager", "organiser"])
def test_no_page_offers_a_write_it_would_refuse(actor):
    """Nobody meets a 403 by following the pages: every link (a GET) and form (a POST) a
    logged-in user is shown leads to something the matrix lets them do."""
    league = build_league()
    client = FormClient()
    client.force_login(league.users[actor])
    alice = league.player("Alice")
    pages = [
        reverse("matches:home"),
        reverse("matches:table", args=[league.table.pk]),
        reverse("matches:table", args=[league.closed.pk]),
        reverse("matches:table", args=[league.fresh.pk]),
        reverse("matches:matches", args=[league.table.pk]),
        reverse("matches:match", args=[league.table.pk, 1]),
        reverse("matches:player", args=[alice]),
        reverse("matches:players"),
        reverse("matches:player_merges"),
        reverse("matches:seasons"),
        reverse("matches:standings"),
        reverse("matches:venues"),
        reverse("matches:venue", args=[league.venue.slug]),
        reverse("matches:venue", args=["the-anchor"]),
    ]
    answers: dict[tuple[str, str], Write] = {}
    for write in WRITES:  # a URL's first line: the write as the pages offer it
        answers.setdefault((write.name, write.method), write)
    offered = set()
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        for kind, path in LINK.findall(response.content.decode()):
            offered.add((path, "GET" if kind == "href" else "POST"))
    refused = []
    for path, method in sorted(offered):
        try:
            match = resolve(path)
        except Resolver404:
            continue
        write = answers.get((match.url_name, method))
        if write is not None and isinstance(write.expected(actor, league), Refused | Login):
            refused.append((method, path))
    assert refused == []
