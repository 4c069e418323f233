"""Small helpers that build tables and play taps through the real services."""

import re
import uuid
from collections.abc import Sequence

from django.contrib.auth import get_user_model

from matches.core import stamp as core_stamp
from matches.models import (
    AllTimeTotal,
    DailyTally,
    Match,
    Player,
    Seat,
    Table,
    Tap,
    Venue,
    VenueRole,
)
from matches.play import answers
from matches.play.services.tables import match_set_roster, table_launch
from matches.play.services.tap import match_eliminate
from matches.play.services.undo import table_undo_last
from matches.rules.names import name_key

WORKED_GAME = ["Alice", "Ben", "Cara", "Dev"]


def first_venue() -> Venue:
    """The venue every install starts with (migration 0020), made again after a flush."""
    venue = Venue.objects.order_by("pk").first()
    return venue or Venue.objects.create(name="Our pub", slug="our-pub")


def other_venue(name: str = "The Anchor") -> Venue:
    """A second venue of the league, whose hosts may not change the first venue's tables."""
    return Venue.objects.get_or_create(
        slug=name.lower().replace(" ", "-"), defaults={"name": name}
    )[0]


def make_host(
    username: str = "host", password: str = "a-long-test-password", *, venue: Venue | None = None
):
    """A host of one venue (the first unless named), as an invitation makes one."""
    user = get_user_model().objects.create_user(username=username, password=password)
    VenueRole.objects.create(user=user, venue=venue or first_venue(), kind=VenueRole.Kind.HOST)
    return user


def make_organiser(username: str = "organiser", password: str = "a-long-test-password"):
    """The league's organiser (the superuser flag, as the first host has): seasons and the
    players' records are theirs, and every venue's tables (the first venue made again after
    a flush, as make_host makes it)."""
    first_venue()
    return get_user_model().objects.create_superuser(username=username, password=password)


def the_organiser():
    """The league's organiser, made on first use: who renames, merges and names players."""
    return get_user_model().objects.filter(is_superuser=True).first() or make_organiser()


def make_table(
    *,
    host=None,
    players: Sequence[str] = WORKED_GAME,
    mode: str = Table.Mode.RANKED,
    name: str = "Front bar",
) -> Table:
    host = host or get_user_model().objects.first() or make_host()
    return table_launch(name=name, player_names=list(players), mode=mode, by=host)


def open_match(table: Table) -> Match:
    return table.matches.open().get()


def seat_of(match: Match, name: str) -> Seat:
    return match.seats.select_related("player").get(player__key=name_key(name))


def tap(table: Table, name: str, *, host=None, key: uuid.UUID | None = None):
    """Tap a player of the table's open match out, as a host would: with the answer the
    table page builds in the tap's transaction (the outcome's answer)."""
    match = open_match(table)
    host = host or table.created_by
    return match_eliminate(
        table_id=table.pk,
        match_id=match.pk,
        player_id=seat_of(match, name).player_id,
        key=key or uuid.uuid4(),
        by=host,
        then=answers.after_tap,
    )


def tap_standing(table: Table, pick: int, *, host=None):
    """Tap out the standing player at index pick (modulo how many stand) of the open match:
    how the property tests play a random game."""
    standing = list(open_match(table).seats.filter(place__isnull=True))
    return match_eliminate(
        table_id=table.pk,
        match_id=standing[0].match_id,
        player_id=standing[pick % len(standing)].player_id,
        key=uuid.uuid4(),
        by=host or table.created_by,
        then=answers.after_tap,
    )


def undo(table: Table, tap_id: int | None = None):
    """Take back the table's latest tap (named by tap_id, or unnamed), as its host."""
    return table_undo_last(table_id=table.pk, tap_id=tap_id, by=table.created_by)


def roster(table: Table, names: Sequence[str]) -> Match:
    """Seat names in the table's open match, as its host."""
    return match_set_roster(
        table_id=table.pk, match_id=open_match(table).pk, player_names=names, by=table.created_by
    )


def places(match: Match) -> dict[str, int | None]:
    return {seat.player.name: seat.place for seat in match.seats.select_related("player")}


def written() -> tuple:
    """Everything a write could change: rows, each table's version, the standings stamp."""
    return (
        tuple(m.objects.count() for m in (Table, Match, Seat, Tap, Player, get_user_model())),
        tuple(Table.objects.order_by("pk").values_list("version", "closed_at", "name")),
        tuple(Seat.objects.order_by("pk").values_list("place", flat=True)),
        core_stamp.standings_stamp(),
    )


# A masked CSRF token: 64 letters and digits, random on every page. A check that a name
# such as "C1" is absent must not find it inside one (it did, one run in twenty or so).
CSRF_TOKEN = re.compile(r"\b[A-Za-z0-9]{64}\b")


def body(response) -> str:
    """The page's text, with its CSRF tokens blanked."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return CSRF_TOKEN.sub("<token>", content.decode())


def pid(name: str) -> int:
    return Player.objects.get(name=name).pk


def filed_league(host) -> Table:
    """Two filed matches at a ranked table of four: Ann wins the first (Bob 2nd, Cy 3rd), Dee
    the second (Ann 2nd, Cy 3rd)."""
    table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"])
    for name in ["Dee", "Cy", "Bob", "Bob", "Cy", "Ann"]:
        tap(table, name)
    return table


def everything_kept() -> tuple:
    """Every row a result and its aggregates hold."""
    counts = ("played", "wins", "seconds", "thirds", "points")
    return (
        written(),
        tuple(Match.objects.order_by("pk").values_list("pk", "status", "winner_id")),
        tuple(Tap.objects.order_by("pk").values_list("pk", "place", "undone_at")),
        tuple(DailyTally.objects.order_by("pk").values_list("pk", *counts)),
        tuple(AllTimeTotal.objects.order_by("pk").values_list("pk", *counts)),
    )


def venue_roles_form(user) -> dict[str, str]:
    """The user admin's venue roles inline as its page posts it back: the roles unchanged."""
    roles = list(VenueRole.objects.filter(user=user).order_by("pk"))
    data = {
        "venue_roles-TOTAL_FORMS": str(len(roles)),
        "venue_roles-INITIAL_FORMS": str(len(roles)),
        "venue_roles-MIN_NUM_FORMS": "0",
        "venue_roles-MAX_NUM_FORMS": "1000",
    }
    for i, role in enumerate(roles):
        data |= {
            f"venue_roles-{i}-id": str(role.pk),
            f"venue_roles-{i}-user": str(user.pk),
            f"venue_roles-{i}-venue": str(role.venue_id),
            f"venue_roles-{i}-kind": role.kind,
        }
    return data
