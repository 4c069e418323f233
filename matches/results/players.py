"""Players are the league's: a typed name is cleaned and matched to the player who has it
(or a new one), a host renames a player, or merges two records of the same person into one.
Every seat, tap, tally and rating follows, and every cached page that shows names
(standings, ratings, table pages, the TV) is refreshed at once."""

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import cast

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Field, Q
from django.utils.translation import gettext_lazy as _

from matches.core.errors import RuleError
from matches.core.stamp import standings_changed, tables_bump
from matches.models import (
    AllTimeTotal,
    Counts,
    DailyTally,
    Match,
    Player,
    RatingChange,
    Seat,
    Tap,
)
from matches.org.hosts import User, require_host
from matches.ratings import replay
from matches.results.filing import players_recount
from matches.rules.names import clean_name, fold_key, name_key, near_names
from matches.rules.scoring import COUNT_FIELDS

PLAYER_NAME_TAKEN = _(
    "Another player is already called “%(name)s” (names ignore upper and lower case); "
    "choose a different name."
)
NOT_A_HOST = _("Only a host can rename or merge players; nothing was changed.")
PLAYER_NOT_FOUND = _("That player does not exist; nothing was changed.")
MERGE_UNKNOWN = _("There is no player called “%(name)s”; nothing was changed.")
MERGE_SELF = _("A record cannot be merged into itself; nothing was changed.")
MERGE_SAME_MATCH = _(
    "%(one)s and %(other)s both sat in match %(number)s at “%(table)s”, so they are two "
    "people; nothing was changed."
)


def _lock_player(player_id: int) -> Player:
    player = Player.objects.select_for_update().filter(pk=player_id).first()
    if player is None:
        raise RuleError(PLAYER_NOT_FOUND)
    return player


def _refresh_pages_showing(player_ids: list[int]) -> None:
    """Names appear on cached standings and on every page of the tables they sat at."""
    tables_bump(player_ids=player_ids)
    standings_changed()


def player_name_clean(name: str) -> str:
    """A name as stored (see rules.names.clean_name), or a RuleError saying what is wrong."""
    try:
        return clean_name(name)
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None


def player_name_available(*, name: str, player_id: int | None = None) -> str:
    """A name as stored for this player (None: a new one), or a RuleError when it is not a
    clean name or another player already has it."""
    name = player_name_clean(name)
    holders = Player.objects.filter(key=name_key(name))
    if player_id is not None:
        holders = holders.exclude(pk=player_id)
    holder = holders.first()
    if holder is not None:
        raise RuleError(PLAYER_NAME_TAKEN, name=holder.name)
    return name


def players_resolve(*, names: Sequence[str]) -> list[Player]:
    """The league's players for these names (created as first written), in the same order."""
    wanted = {name_key(name): name for name in names}

    def existing() -> dict[str, Player]:
        return {player.key: player for player in Player.objects.filter(key__in=wanted)}

    found = existing()
    missing = [Player(name=name, key=key) for key, name in wanted.items() if key not in found]
    if missing:
        # Another table may create the same new player at this moment: let the unique
        # index pick one row and read it back instead of failing.
        Player.objects.bulk_create(missing, ignore_conflicts=True)
        found = existing()
    return [found[name_key(name)] for name in names]


@transaction.atomic
def player_rename(*, player_id: int, name: str, by: User) -> Player:
    """Give a player a new name; a name another player has (in any case) is refused."""
    require_host(by, refusal=NOT_A_HOST)
    player = _lock_player(player_id)
    # The same rules as a new player's name, and no other player may read the same.
    player.name = player_name_available(name=name, player_id=player.pk)
    player.save(update_fields=["name", "key"])
    _refresh_pages_showing([player.pk])
    return player


def _merge_counts(model: type[Counts], keep: Player, drop: Player, keys: tuple[str, ...]) -> None:
    """Add drop's count rows to keep's: the same table (and day) adds up, others move.

    Three statements in plain SQL (UPDATE ... FROM: SQLite 3.33+, PostgreSQL): bulk_update's
    CASE per row took 4 s of Python for two careers of 3,000 matches (loadtest --replay)."""
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)

    def column(name: str) -> str:
        return qn(cast("str", cast("Field", model._meta.get_field(name)).column))

    player = column("player")
    counts = [column(field) for field in COUNT_FIELDS]
    added = ", ".join(f"{c} = {table}.{c} + d.{c}" for c in counts)
    same_as_keep = " AND ".join(f"k.{column(key)} = {table}.{column(key)}" for key in keys)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {added} FROM {table} d "  # noqa: S608 (names from the model, values as parameters)
            f"WHERE {table}.{player} = %s AND d.{player} = %s AND "
            + " AND ".join(f"{table}.{column(key)} = d.{column(key)}" for key in keys),
            [keep.pk, drop.pk],
        )
        cursor.execute(
            f"DELETE FROM {table} WHERE {player} = %s AND EXISTS ("  # noqa: S608 (as above)
            f"SELECT 1 FROM {table} k WHERE k.{player} = %s AND {same_as_keep})",
            [drop.pk, keep.pk],
        )
        cursor.execute(f"UPDATE {table} SET {player} = %s WHERE {player} = %s", [keep.pk, drop.pk])  # noqa: S608 (as above)


@transaction.atomic
def player_merge(*, keep_id: int, other_name: str, by: User) -> Player:
    """Make the record called other_name part of keep: its seats, taps, wins, dealt games,
    tallies and rating history move, its ratings are replayed, and the record goes."""
    require_host(by, refusal=NOT_A_HOST)
    keep = _lock_player(keep_id)
    drop = Player.objects.select_for_update().filter(key=name_key(other_name)).first()
    if drop is None:
        raise RuleError(MERGE_UNKNOWN, name=other_name.strip())
    if drop.pk == keep.pk:
        raise RuleError(MERGE_SELF)
    shared = (
        Seat.objects.filter(player=drop, match__seats__player=keep)
        .select_related("match__table")
        .first()
    )
    if shared is not None:
        raise RuleError(
            MERGE_SAME_MATCH,
            one=keep.name,
            other=drop.name,
            number=shared.match.number,
            table=shared.match.table.name,
        )
    _refresh_pages_showing([keep.pk, drop.pk])
    Seat.objects.filter(player=drop).update(player=keep)
    Tap.objects.filter(player=drop).update(player=keep)
    Match.objects.filter(winner=drop).update(winner=keep)
    Match.objects.filter(first_dealer=drop).update(first_dealer=keep)
    _merge_counts(DailyTally, keep, drop, ("table_id", "day"))
    _merge_counts(AllTimeTotal, keep, drop, ("table_id",))
    RatingChange.objects.filter(player=drop).update(player=keep)
    replay.ratings_merged(keep=keep, dropped_id=drop.pk)
    players_recount(player_ids=[keep.pk, drop.pk])
    drop.delete()
    return keep


def player_names_like(*, player: Player) -> list[str]:
    """Other players' names, for the merge form's suggestions."""
    return list(Player.objects.filter(~Q(pk=player.pk)).values_list("name", flat=True))


# --- Near names and the seat picker's search (issue 22) ---

# At most this many known players are offered for one name in doubt, and found per search.
NEAR_NAMES_SHOWN = 3
SEARCH_RESULTS = 8


@dataclass(frozen=True)
class NameInDoubt:
    """A typed name no player has, but close to the known players' names (best first)."""

    typed: str
    known: list[str]


def players_in_doubt(*, names: Sequence[str], settled: Collection[str] = ()) -> list[NameInDoubt]:
    """The typed names that are no player's but close to some (rules.names.near_names), in
    the order typed; settled holds the names the host already chose to add as new players.
    Two queries at most: the league is read only when a name is new."""
    settled_keys = {name_key(name) for name in settled}
    typed = {name_key(name): name for name in names}
    known = set(Player.objects.filter(key__in=typed).values_list("key", flat=True))
    new = [name for key, name in typed.items() if key not in known and key not in settled_keys]
    if not new:
        return []
    league = list(Player.objects.order_by("key").values_list("name", flat=True))
    doubts = []
    for name in new:
        close = near_names(name, league)
        if close:
            doubts.append(NameInDoubt(typed=name, known=close[:NEAR_NAMES_SHOWN]))
    return doubts


def players_search(*, query: str, limit: int = SEARCH_RESULTS) -> list[Player]:
    """The league's players whose name holds what was typed, ignoring case, accents and
    width ("zoe" finds "Zoë"): names starting with it first, then a word starting with it,
    then the rest; at most limit. One query."""
    folded = fold_key(query)
    if not folded:
        return []
    found = []
    for player in Player.objects.only("id", "name"):
        name = fold_key(player.name)
        if folded not in name:
            continue
        if name.startswith(folded):
            rank = 0
        elif any(word.startswith(folded) for word in name.split(" ")):
            rank = 1
        else:
            rank = 2
        found.append((rank, name, player.pk, player))
    found.sort(key=lambda row: row[:3])
    return [row[3] for row in found[:limit]]
