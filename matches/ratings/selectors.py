"""The league's rating list as people read it: every rated player by conservative skill."""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import QuerySet

from matches.models import Match, Player, PlayerRating
from matches.ratings.engine import PROVISIONAL_BELOW, ordinal, shown_rating
from matches.ratings.store import filed_after
from matches.rules.names import shown_player_name


@dataclass(frozen=True)
class RatingRow:
    rank: int
    player_id: int
    player: str
    matches: int
    mu: float
    sigma: float
    longest_run: int = 0
    best_place: int | None = None

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_BELOW

    @property
    def shown(self) -> int:
        return shown_rating(self.mu, self.sigma)

    def as_json(self) -> dict:
        return {
            "rank": self.rank,
            "id": self.player_id,
            "player": self.player,
            "matches": self.matches,
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "provisional": self.provisional,
        }


def _ranked(ratings: QuerySet[PlayerRating], real: bool) -> list[RatingRow]:
    rows = sorted(
        ratings.values_list(
            "player_id", "player__name", "player__key", "matches", "mu", "sigma",
            "longest_run", "best_place", "player__public_name", "player__hidden",
            "player__erased_at",
        ),
        key=lambda r: (-ordinal(r[4], r[5]), r[2], r[0]),
    )  # fmt: skip

    def shown(p: int, name: str, public_name: str, hidden: bool, erased_at: object) -> str:
        return shown_player_name(
            player_id=p,
            name=name,
            public_name=public_name,
            hidden=hidden,
            erased=erased_at is not None,
            real=real,
        )

    return [
        RatingRow(rank=n, player_id=p, player=shown(p, name, public, hidden, erased),
                  matches=m, mu=mu, sigma=s, longest_run=run, best_place=best)
        for n, (p, name, _, m, mu, s, run, best, public, hidden, erased) in enumerate(rows, 1)
    ]  # fmt: skip


def rating_table(*, real_names: bool = False) -> list[RatingRow]:
    """Every rated player, best ordinal first, then by name; one query. Players are named as
    the public reads them unless real_names (a host)."""
    return _ranked(PlayerRating.objects.all(), real_names)


def ratings_of(*, player_ids: Iterable[int], limit: int | None = None) -> list[RatingRow]:
    """These players' rows of the league's rating list (their league ranks), best first, at
    most limit of them; one query, none without players. (Their names are the public's.)"""
    wanted = set(player_ids)
    if not wanted:
        return []
    return [row for row in rating_table() if row.player_id in wanted][:limit]


def player_rating(*, player: Player) -> RatingRow | None:
    """One player's current rating with their place in the rating list, or None if unrated
    (the row names them as the public reads them)."""
    for row in rating_table():
        if row.player_id == player.pk:
            return row
    return None


def matches_rated_after(*, match: Match) -> int:
    """How many filed matches come after this one in filing order: the matches whose
    ratings a change to it replays. One count, answered from the filing index."""
    return filed_after(match).count()
