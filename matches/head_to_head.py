"""Head-to-head: how a player fared against everyone they have shared a filed match with.

A table records one player finishing above another when a ranked table placed them higher,
or when a winner-takes-all table crowned them: that mode names only the winner, so two of its
non-winners are neither ahead of nor behind each other."""

from dataclasses import dataclass

from django.db.models import Count, F, Q, Sum
from django.utils.translation import gettext as _

from .models import AllTimeTotal, Match, Player, Seat, Table
from .ratings import RatingRow, player_rating


@dataclass(frozen=True)
class Rival:
    opponent_id: int
    opponent: str
    matches: int
    ahead: int
    behind: int

    def as_json(self) -> dict:
        return {
            "opponent": self.opponent,
            "opponent_id": self.opponent_id,
            "matches": self.matches,
            "ahead": self.ahead,
            "behind": self.behind,
        }

    @property
    def text(self) -> str:
        """The readable line, this player's count first ("ahead of Ben 5-3 in 9")."""
        if self.ahead > self.behind:
            template = _("ahead of %(name)s %(ahead)s–%(behind)s in %(matches)s")
        elif self.ahead < self.behind:
            template = _("behind %(name)s %(ahead)s–%(behind)s in %(matches)s")
        else:
            template = _("level with %(name)s %(ahead)s–%(behind)s in %(matches)s")
        return template % {
            "name": self.opponent,
            "ahead": self.ahead,
            "behind": self.behind,
            "matches": self.matches,
        }


def head_to_head(*, player: Player) -> list[Rival]:
    """Everyone who shared a filed match with this player, most shared matches first, then
    by name; one aggregate query over the player's matches."""
    # Each row is an opponent's seat; "mine" is this player's seat in the same match.
    mine = "match__seats__place"
    ranked = Q(match__table__mode=Table.Mode.RANKED)
    rows = (
        Seat.objects.filter(match__status=Match.Status.FILED, match__seats__player=player)
        .exclude(player=player)
        .values("player_id", "player__name", "player__key")
        .annotate(
            shared=Count("id"),
            ahead=Count("id", filter=(ranked & Q(**{f"{mine}__lt": F("place")})) | Q(**{mine: 1})),
            behind=Count("id", filter=(ranked & Q(place__lt=F(mine))) | Q(place=1)),
        )
        .order_by("-shared", "player__key", "player_id")
    )
    return [
        Rival(
            opponent_id=row["player_id"],
            opponent=row["player__name"],
            matches=row["shared"],
            ahead=row["ahead"],
            behind=row["behind"],
        )
        for row in rows
    ]


def conqueror(rivals: list[Rival]) -> Rival | None:
    """Who most often finished above this player (ties: more shared matches, then name)."""
    best = max(rivals, key=lambda r: (r.behind, r.matches), default=None)
    return best if best and best.behind else None


def favourite_victim(rivals: list[Rival]) -> Rival | None:
    """Whom this player most often finished above."""
    best = max(rivals, key=lambda r: (r.ahead, r.matches), default=None)
    return best if best and best.ahead else None


def player_totals(*, player: Player) -> dict:
    """All-time played, wins, 2nds, 3rds and points, summed over the per-table totals."""
    totals = AllTimeTotal.objects.filter(player=player).aggregate(
        played=Sum("played"),
        wins=Sum("wins"),
        seconds=Sum("seconds"),
        thirds=Sum("thirds"),
        points=Sum("points"),
    )
    return {name: value or 0 for name, value in totals.items()}


def _rating_json(row: RatingRow | None) -> dict | None:
    if row is None:
        return None
    data = row.as_json()
    return {key: data[key] for key in ("rank", "matches", "mu", "sigma", "ordinal", "provisional")}


def player_api(*, player: Player) -> dict:
    """The read-only JSON document about one player."""
    return {
        "id": player.pk,
        "player": player.name,
        "totals": player_totals(player=player),
        "rating": _rating_json(player_rating(player=player)),
        "head_to_head": [rival.as_json() for rival in head_to_head(player=player)],
    }
