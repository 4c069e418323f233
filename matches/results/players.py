"""Players are the league's: a typed name is cleaned and matched to the player who has it
(or a new one), a host renames a player, or merges two records of the same person into one.
Every seat, tap, tally and rating follows, and every cached page that shows names
(standings, ratings, table pages, the TV) is refreshed at once."""

import datetime
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import cast

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.core import serializers
from django.core.exceptions import ValidationError
from django.core.paginator import Page, Paginator
from django.db import transaction
from django.db.models import Model, OuterRef, Q, Subquery, Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.core.errors import Refusal, RuleError
from matches.core.stamp import standings_changed, tables_bump
from matches.models import (
    AllTimeTotal,
    DailyTally,
    Match,
    Player,
    PlayerMerge,
    PlayerRating,
    RatingChange,
    Seat,
    Tap,
)
from matches.org.hosts import User, require_host
from matches.ratings import schedule
from matches.ratings.engine import shown_rating
from matches.results import tallies
from matches.results.filing import players_merged, players_recount
from matches.rules.names import (
    NAME_POSES_AS_A_RECORD,
    clean_name,
    fold_key,
    name_key,
    near_names,
    reads_as_a_record,
)
from matches.rules.nights import night_of

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


def player_lock(player_id: int) -> Player:
    """The player's row, locked for a write in this transaction, or a RuleError."""
    player = Player.objects.select_for_update().filter(pk=player_id).first()
    if player is None:
        raise RuleError(PLAYER_NOT_FOUND)
    return player


def player_pages_refresh(player_ids: list[int]) -> None:
    """Names appear on cached standings and on every page of the tables they sat at: their
    versions move, so no kept rendering or 304 answers for them, and so does the standings
    stamp (standings, ratings, player pages, seasons)."""
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
    # Nor the name the public reads of another player (results.public_names refuses the
    # same the other way round): the public would take one for the other.
    others = Player.objects.exclude(public_name="")
    if player_id is not None:
        others = others.exclude(pk=player_id)
    key = name_key(name)
    if any(name_key(other) == key for other in others.values_list("public_name", flat=True)):
        raise RuleError(PLAYER_NAME_TAKEN, name=name)
    if reads_as_a_record(name, hidden=False):
        raise RuleError(NAME_POSES_AS_A_RECORD, name=name)
    return name


def players_resolve(*, names: Sequence[str]) -> list[Player]:
    """The league's players for these names (created as first written), in the same order."""
    wanted = {name_key(name): name for name in names}

    def existing() -> dict[str, Player]:
        return {player.key: player for player in Player.objects.filter(key__in=wanted)}

    found = existing()
    missing = [Player(name=name, key=key) for key, name in wanted.items() if key not in found]
    for player in missing:
        # A known player keeps the name; a new one may not read as an erased record.
        if reads_as_a_record(player.name, hidden=False):
            raise RuleError(NAME_POSES_AS_A_RECORD, name=player.name)
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
    player = player_lock(player_id)
    # The same rules as a new player's name, and no other player may read the same.
    player.name = player_name_available(name=name, player_id=player.pk)
    player.save(update_fields=["name", "key"])
    player_pages_refresh([player.pk])
    return player


MERGE_CHANGED = _(
    "“%(name)s” is not the record you confirmed any more (it was renamed or merged "
    "meanwhile); nothing was changed."
)
MERGE_NOT_FOUND = _("That merge does not exist; nothing was changed.")
MERGE_ALREADY_UNDONE = _("This merge was already undone; nothing was changed.")
UNDO_KEPT_GONE = _(
    "“%(name)s” was merged into a record that has itself been merged since: undo that "
    "later merge first; nothing was changed."
)
UNDO_NAME_TAKEN = _(
    "Another player is called “%(name)s” now, so “%(absorbed)s” cannot come back: rename "
    "that player first; nothing was changed."
)

# The ids moved back are read this many at a time (databases cap a statement's parameters).
ID_CHUNK = 500


def _chunks(ids: Sequence[int]) -> list[list[int]]:
    return [list(ids[i : i + ID_CHUNK]) for i in range(0, len(ids), ID_CHUNK)]


def _log(by: User, obj: Model, flag: int, message: str) -> None:
    """One line of the admin's history of obj, naming who did it."""
    LogEntry.objects.log_actions(
        user_id=cast("int", by.pk), queryset=[obj], action_flag=flag, change_message=message,
        single_object=True,
    )  # fmt: skip


def _merge_pair(
    *, keep_id: int, other_name: str, other_id: int | None = None, lock: bool = True
) -> tuple[Player, Player]:
    """The two records a merge would join (kept, absorbed), or a RuleError saying why they
    cannot be: no such name, the same record, two people of one match, or (other_id) not
    the record the host confirmed. lock: both rows FOR UPDATE (in the merge's transaction)."""
    players = Player.objects.select_for_update() if lock else Player.objects.all()
    # Both rows in one statement, in id order: two merges of one pair in opposite
    # directions lock them in the same order, never waiting on each other in a circle.
    key = name_key(other_name)
    rows = list(players.filter(Q(pk=keep_id) | Q(key=key)).order_by("pk"))
    keep = next((row for row in rows if row.pk == keep_id), None)
    if keep is None:
        raise RuleError(PLAYER_NOT_FOUND)
    drop = next((row for row in rows if row.key == key), None)
    if drop is None:
        raise RuleError(MERGE_UNKNOWN, name=other_name.strip())
    if other_id is not None and drop.pk != other_id:
        raise RuleError(MERGE_CHANGED, name=other_name.strip())
    if drop.pk == keep.pk:
        raise RuleError(MERGE_SELF)
    # The first match they shared, if any, read bare: both careers walk their (player, match)
    # index side by side. Through the match, or ordered by seat, PostgreSQL walked every
    # match or seat of the league (50-100 ms at 100,000 matches) to find they never met.
    shared_id = (
        Seat.objects.filter(
            player=drop, match_id__in=Seat.objects.filter(player=keep).values("match_id")
        )
        .order_by("match_id")
        .values_list("match_id", flat=True)
        .first()
    )
    if shared_id is not None:
        shared = Match.objects.select_related("table").get(pk=shared_id)
        raise RuleError(
            MERGE_SAME_MATCH,
            one=keep.name,
            other=drop.name,
            number=shared.number,
            table=shared.table.name,
        )
    return keep, drop


@transaction.atomic
def player_merge(
    *, keep_id: int, other_name: str, by: User, other_id: int | None = None
) -> PlayerMerge:
    """Make the record called other_name part of keep: its seats, taps, wins, dealt games,
    tallies and head-to-head move, its rating history is replayed as keep's, and the record
    goes. What moved is kept (PlayerMerge) so that player_merge_undo can give it back.
    other_id: the record the host confirmed, refused if the name is another's by now."""
    require_host(by, refusal=NOT_A_HOST)
    keep, drop = _merge_pair(keep_id=keep_id, other_name=other_name, other_id=other_id)
    player_pages_refresh([keep.pk, drop.pk])
    record = PlayerMerge.objects.create(
        kept=keep,
        absorbed_id=drop.pk,
        absorbed_name=drop.name,
        absorbed=json.loads(serializers.serialize("json", [drop]))[0]["fields"],
        seat_ids=list(Seat.objects.filter(player=drop).order_by("pk").values_list("pk", flat=True)),
        tap_ids=list(Tap.objects.filter(player=drop).order_by("pk").values_list("pk", flat=True)),
        merged_by_id=cast("int", by.pk),
    )
    Seat.objects.filter(player=drop).update(player=keep)
    Tap.objects.filter(player=drop).update(player=keep)
    Match.objects.filter(winner=drop).update(winner=keep)
    Match.objects.filter(first_dealer=drop).update(first_dealer=keep)
    # Not moved: the replay below writes keep's rating change of every match of the merged
    # career, numbered along it, from its first. Deleting costs the merge no index entries;
    # moving 3,000 rows cost it 70-170 ms on PostgreSQL.
    RatingChange.objects.filter(player=drop).delete()
    players_merged(keep_id=keep.pk, drop_id=drop.pk)
    schedule.ratings_merged(keep=keep, dropped_id=drop.pk)
    said = f"Merged “{drop.name}” (#{drop.pk}) into “{keep.name}” (#{keep.pk}), merge #{record.pk}."
    _log(by, keep, CHANGE, said)
    _log(by, drop, DELETION, said)
    _log(by, record, ADDITION, said)
    drop.delete()
    return record


def _restore(record: PlayerMerge) -> Player:
    """The absorbed row written back as it was, with its id (a raw save: no field is
    recomputed). Fields added to Player since the merge take their defaults."""
    stored = {
        "model": Player._meta.label_lower,
        "pk": record.absorbed_id,
        "fields": record.absorbed,
    }
    (restored,) = serializers.deserialize("python", [stored], ignorenonexistent=True)
    restored.save()
    return cast("Player", restored.object)


@transaction.atomic
def player_merge_undo(*, merge_id: int, by: User) -> PlayerMerge:
    """Take a merge back: the absorbed record comes back as it was, with exactly the seats
    and taps that moved (and the wins and deals of those matches); matches filed since stay
    with whoever played them. Both players' aggregates are counted afresh and the ratings
    replayed from the first match given back."""
    require_host(by, refusal=NOT_A_HOST)
    record = PlayerMerge.objects.select_for_update().filter(pk=merge_id).first()
    if record is None:
        raise RuleError(MERGE_NOT_FOUND)
    if record.undone_at is not None:
        raise RuleError(MERGE_ALREADY_UNDONE, code=Refusal.ALREADY_UNDONE)
    keep = Player.objects.select_for_update().filter(pk=record.kept_id).first()
    if keep is None:
        raise RuleError(UNDO_KEPT_GONE, name=record.absorbed_name)
    holder = Player.objects.filter(
        Q(key=name_key(record.absorbed_name)) | Q(pk=record.absorbed_id)
    ).first()
    if holder is not None:
        raise RuleError(UNDO_NAME_TAKEN, name=holder.name, absorbed=record.absorbed_name)
    player_pages_refresh([keep.pk])
    drop = _restore(record)
    for chunk in _chunks(record.seat_ids):
        Seat.objects.filter(pk__in=chunk, player=keep).update(player=drop)
    for chunk in _chunks(record.tap_ids):
        Tap.objects.filter(pk__in=chunk, player=keep).update(player=drop)
    # What else each match given back says of the player follows its seat.
    given_back = Seat.objects.filter(player=drop).values("match_id")
    Tap.objects.filter(match_id__in=given_back, player=keep).update(player=drop)
    Match.objects.filter(pk__in=given_back, winner=keep).update(winner=drop)
    Match.objects.filter(pk__in=given_back, first_dealer=keep).update(first_dealer=drop)
    # The replay writes the restored player's rating changes (as after the merge).
    RatingChange.objects.filter(match_id__in=given_back, player=keep).delete()
    tallies.tallies_refresh(player_ids=[keep.pk, drop.pk])
    players_recount(player_ids=[keep.pk, drop.pk])
    schedule.ratings_unmerged(restored_id=drop.pk)
    record.undone_at, record.undone_by_id = timezone.now(), by.pk
    record.save(update_fields=["undone_at", "undone_by"])
    said = (
        f"Undid merge #{record.pk}: “{drop.name}” (#{drop.pk}) is a record of its own again, "
        f"apart from “{keep.name}” (#{keep.pk})."
    )
    _log(by, keep, CHANGE, said)
    _log(by, drop, ADDITION, said)
    _log(by, record, CHANGE, said)
    return record


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
    # An erased record's placeholder is no one's name: never offered (issue 22, item 4).
    league = list(
        Player.objects.filter(erased_at__isnull=True).order_by("key").values_list("name", flat=True)
    )
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
    for player in Player.objects.filter(erased_at__isnull=True).only("id", "name"):
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


@dataclass(frozen=True)
class MatchSeen:
    """A filed match as the merge's comparison names it."""

    table: str
    number: int
    day: datetime.date


@dataclass(frozen=True)
class MergeSide:
    """One record as the merge's confirmation shows it beside the other."""

    player: Player
    played: int
    wins: int
    points: int
    rating: int | None
    first: MatchSeen | None
    last: MatchSeen | None


def _filed_seat(player: Player, newest: bool) -> MatchSeen | None:
    order = ("-match__filed_at", "-match_id") if newest else ("match__filed_at", "match_id")
    row = (
        Seat.objects.filter(player=player, match__status=Match.Status.FILED)
        .order_by(*order)
        .values_list("match__table__name", "match__number", "match__filed_at")
        .first()
    )
    return None if row is None else MatchSeen(row[0], row[1], night_of(row[2]))


def merge_side(*, player: Player) -> MergeSide:
    """A record's filed matches, wins, points, rating and first and last match: four reads."""
    totals = AllTimeTotal.objects.filter(player=player).aggregate(
        played=Sum("played"), wins=Sum("wins"), points=Sum("points")
    )
    rating = PlayerRating.objects.filter(player=player).values_list("mu", "sigma").first()
    return MergeSide(
        player=player,
        played=totals["played"] or 0,
        wins=totals["wins"] or 0,
        points=totals["points"] or 0,
        rating=None if rating is None else shown_rating(*rating),
        first=_filed_seat(player, newest=False),
        last=_filed_seat(player, newest=True),
    )


def player_merge_preview(*, keep_id: int, other_name: str) -> tuple[MergeSide, MergeSide]:
    """Both records side by side (kept first) before a merge is confirmed, or the RuleError
    the merge would give now."""
    keep, drop = _merge_pair(keep_id=keep_id, other_name=other_name, lock=False)
    return merge_side(player=keep), merge_side(player=drop)


def merges_of(*, player_id: int) -> list[PlayerMerge]:
    """The merges into this player that stand (not undone), newest first: one query."""
    return list(
        PlayerMerge.objects.filter(kept_id=player_id, undone_at__isnull=True).select_related(
            "merged_by"
        )
    )


MERGES_PER_PAGE = 50


@dataclass(frozen=True)
class MergeRow:
    """One line of the merges list: the merge and the kept record's name now (None: that
    record was merged into another since)."""

    merge: PlayerMerge
    kept_name: str | None


def merges_page(*, page: str | int | None) -> Page:
    """One page of every merge (MergeRow), newest first, with who merged and who undid:
    three queries."""
    merges = PlayerMerge.objects.select_related("merged_by", "undone_by").defer(
        "absorbed", "seat_ids", "tap_ids"
    )
    shown = Paginator(merges, MERGES_PER_PAGE).get_page(page)
    # Not a join: a kept record merged away since must not hide its line.
    names = dict(
        Player.objects.filter(pk__in={m.kept_id for m in shown.object_list}).values_list(
            "pk", "name"
        )
    )
    rows = [MergeRow(m, names.get(m.kept_id)) for m in shown.object_list]
    return Page(rows, shown.number, shown.paginator)


PLAYERS_PER_PAGE = 50


@dataclass(frozen=True)
class PlayerListRow:
    """One line of the players page."""

    player_id: int
    name: str
    played: int
    last_played: datetime.date | None
    rating: int | None


def players_page(*, query: str = "", page: str | int | None = None) -> Page:
    """One page of the league's players by name (PlayerListRow), with filed matches, the
    last night they played and their rating; query keeps the names containing it, ignoring
    case, accents and width ("zoe" finds "Zoë", as the seat picker does). Two queries,
    however many players a page shows: the count (or, searching, every name) and the page."""
    players = Player.objects.annotate(
        played=Subquery(
            AllTimeTotal.objects.filter(player=OuterRef("pk"))
            .values("player")
            .annotate(n=Sum("played"))
            .values("n")
        ),
        last_played=Subquery(
            DailyTally.objects.filter(player=OuterRef("pk"), played__gt=0)
            .order_by("-day")
            .values("day")[:1]
        ),
    )
    columns = ("pk", "name", "played", "last_played", "rating__mu", "rating__sigma")
    folded = fold_key(query)
    if folded:
        # Folding is Python's (no database folds accents alike): the names are read once,
        # and only the page's players with their numbers.
        names = Player.objects.order_by("key", "pk").values_list("pk", "name")
        found = [pk for pk, name in names if folded in fold_key(name)]
        shown = Paginator(found, PLAYERS_PER_PAGE).get_page(page)
        wanted = list(shown.object_list)
        read = {row[0]: row for row in players.filter(pk__in=wanted).values_list(*columns)}
        rows = [read[pk] for pk in wanted if pk in read]
    else:
        shown = Paginator(
            players.order_by("key", "pk").values_list(*columns), PLAYERS_PER_PAGE
        ).get_page(page)
        rows = list(shown.object_list)
    listed = [
        PlayerListRow(
            player_id=pk,
            name=name,
            played=played or 0,
            last_played=last,
            rating=None if mu is None else shown_rating(mu, sigma),
        )
        for pk, name, played, last, mu, sigma in rows
    ]
    return Page(listed, shown.number, shown.paginator)
