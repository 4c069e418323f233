"""The reads of the league's players: the two records a merge would join and both side by side,
the names in doubt and the seat picker's search, the merges lists and the players page."""

import datetime
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import OuterRef, Q, Subquery, Sum
from django.utils.translation import gettext_lazy as _

from matches.core.errors import RuleError
from matches.models import AllTimeTotal, DailyTally, Match, Player, PlayerMerge, PlayerRating, Seat
from matches.ratings.engine import shown_rating
from matches.rules.names import fold_key, name_key, near_names
from matches.rules.nights import night_of

PLAYER_NOT_FOUND = _("That player does not exist; nothing was changed.")
MERGE_UNKNOWN = _("There is no player called “%(name)s”; nothing was changed.")
MERGE_SELF = _("A record cannot be merged into itself; nothing was changed.")
MERGE_SAME_MATCH = _(
    "%(one)s and %(other)s both sat in match %(number)s at “%(table)s”, so they are two "
    "people; nothing was changed."
)
MERGE_CHANGED = _(
    "“%(name)s” is not the record you confirmed any more (it was renamed or merged "
    "meanwhile); nothing was changed."
)
MERGE_SHOWS_HIDDEN = _(
    "The public does not read “%(name)s”’s name: tick the box to show their results in "
    "public under “%(shown)s”, or cancel; nothing was changed."
)


def merge_shows_hidden(*, keep: Player, drop: Player) -> bool:
    """Whether merging drop into keep would show the public results it read under no name:
    drop is hidden (or erased) and keep is shown by a name."""
    return (drop.hidden or drop.erased_at is not None) and not (
        keep.hidden or keep.erased_at is not None
    )


def players_to_merge(
    *, keep_id: int, other_name: str, other_id: int | None = None, lock: bool = False
) -> tuple[Player, Player]:
    """The two records a merge would join (kept, absorbed), or the RuleError saying why not."""
    # Why not: no such name, the same record, two people of one match, or (other_id) not the
    # record the host confirmed. lock: both rows claimed FOR NO KEY UPDATE (as
    # services.player_lock does, and why), in the merge's transaction.
    players = Player.objects.select_for_update(no_key=True) if lock else Player.objects.all()
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
    # match or seat of the league to find they never met.
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


def other_player_names(*, player: Player) -> list[str]:
    """Every other player's name, for the merge form's suggestions."""
    return list(Player.objects.filter(~Q(pk=player.pk)).values_list("name", flat=True))


# --- Near names and the seat picker's search ---

# At most this many known players are offered for one name in doubt, and found per search.
NEAR_NAMES_SHOWN = 3
SEARCH_RESULTS = 8


@dataclass(frozen=True)
class NameInDoubt:
    """A typed name no player has, but close to the known players' names (best first)."""

    typed: str
    known: list[str]


def names_in_doubt(*, names: Sequence[str], settled: Collection[str] = ()) -> list[NameInDoubt]:
    """The typed names no player has but close to some (rules.names.near_names), as typed."""
    # settled holds the names the host already chose to add as new players. Two queries at
    # most: the league is read only when a name is new.
    settled_keys = {name_key(name) for name in settled}
    typed = {name_key(name): name for name in names}
    known = set(Player.objects.filter(key__in=typed).values_list("key", flat=True))
    new = [name for key, name in typed.items() if key not in known and key not in settled_keys]
    if not new:
        return []
    # An erased record's placeholder is no one's name: never offered.
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
    """At most limit players whose name holds the query, ignoring case, accents and width."""
    # "zoe" finds "Zoë": names starting with it first, then a word starting with it, then
    # the rest. One query.
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


# --- A merge's confirmation and the merges lists ---


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


def _filed_match_seen(player: Player, newest: bool) -> MatchSeen | None:
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
        first=_filed_match_seen(player, newest=False),
        last=_filed_match_seen(player, newest=True),
    )


def player_merge_preview(*, keep_id: int, other_name: str) -> tuple[MergeSide, MergeSide]:
    """Both records side by side (kept first), or the RuleError the merge would give now."""
    keep, drop = players_to_merge(keep_id=keep_id, other_name=other_name)
    return merge_side(player=keep), merge_side(player=drop)


def standing_merges_into(*, player_id: int) -> list[PlayerMerge]:
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
    """One page of every merge (MergeRow), newest first, with who merged and who undid."""
    # Three queries, however many merges the page shows.
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


# --- The players page ---

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
    """One page of the league's players by name (PlayerListRow), those holding query if any."""
    # Each with filed matches, the last night they played and their rating; query keeps the
    # names containing it, ignoring case, accents and width ("zoe" finds "Zoë", as the seat
    # picker does). Two queries, however many players a page shows: the count (or,
    # searching, every name) and the page.
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
