"""Players are the league's: a host renames a player, or merges two records of the same
person into one. Every seat, tap, tally and rating follows, and every cached page that shows
names (standings, ratings, table pages, the TV) is refreshed at once."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from . import ratings
from .models import (
    AllTimeTotal,
    DailyTally,
    Match,
    Player,
    RatingChange,
    Seat,
    Table,
    Tap,
    name_key,
)
from .recount import players_recount
from .scoring import COUNT_FIELDS
from .services import RuleError, player_name_available, standings_changed

NOT_A_HOST = _("Only a host can rename or merge players; nothing was changed.")
PLAYER_NOT_FOUND = _("That player does not exist; nothing was changed.")
MERGE_UNKNOWN = _("There is no player called “%(name)s”; nothing was changed.")
MERGE_SELF = _("A record cannot be merged into itself; nothing was changed.")
MERGE_SAME_MATCH = _(
    "%(one)s and %(other)s both sat in match %(number)s at “%(table)s”, so they are two "
    "people; nothing was changed."
)


def _check_host(by: AbstractBaseUser) -> None:
    if not (by.is_authenticated and by.is_active):
        raise RuleError(NOT_A_HOST)


def _lock_player(player_id: int) -> Player:
    player = Player.objects.select_for_update().filter(pk=player_id).first()
    if player is None:
        raise RuleError(PLAYER_NOT_FOUND)
    return player


def _refresh_pages_showing(player_ids: list[int]) -> None:
    """Names appear on cached standings and on every page of the tables they sat at. The
    tables' rows are locked before the stamp, in the order a tap takes them (table, then
    stamp), so a rename and a tap never wait on each other in a circle."""
    Table.objects.filter(
        pk__in=Seat.objects.filter(player_id__in=player_ids).values("match__table_id")
    ).update(version=F("version") + 1)
    standings_changed()


@transaction.atomic
def player_rename(*, player_id: int, name: str, by: AbstractBaseUser) -> Player:
    """Give a player a new name; a name another player has (in any case) is refused."""
    _check_host(by)
    player = _lock_player(player_id)
    # The same rules as a new player's name, and no other player may read the same.
    player.name = player_name_available(name=name, player_id=player.pk)
    player.save(update_fields=["name", "key"])
    _refresh_pages_showing([player.pk])
    return player


def _merge_counts(model, keep: Player, drop: Player, keys: tuple[str, ...]) -> None:
    """Add drop's count rows to keep's: the same table (and day) adds up, others move."""
    kept = {tuple(getattr(r, k) for k in keys): r for r in model.objects.filter(player=keep)}
    added, moved, gone = [], [], []
    for row in model.objects.filter(player=drop):
        same = kept.get(tuple(getattr(row, k) for k in keys))
        if same is None:
            row.player = keep
            moved.append(row)
            continue
        for field in COUNT_FIELDS:
            setattr(same, field, getattr(same, field) + getattr(row, field))
        added.append(same)
        gone.append(row.pk)
    model.objects.filter(pk__in=gone).delete()
    model.objects.bulk_update(added, list(COUNT_FIELDS), batch_size=1000)
    model.objects.bulk_update(moved, ["player"], batch_size=1000)


@transaction.atomic
def player_merge(*, keep_id: int, other_name: str, by: AbstractBaseUser) -> Player:
    """Make the record called other_name part of keep: its seats, taps, wins, dealt games,
    tallies and rating history move, its ratings are replayed, and the record goes."""
    _check_host(by)
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
    ratings.ratings_merged(keep=keep, dropped_id=drop.pk)
    players_recount(player_ids=[keep.pk, drop.pk])
    drop.delete()
    return keep


def player_names_like(*, player: Player) -> list[str]:
    """Other players' names, for the merge form's suggestions."""
    return list(Player.objects.filter(~Q(pk=player.pk)).values_list("name", flat=True))
