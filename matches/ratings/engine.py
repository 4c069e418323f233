"""The rating model, pure: openskill's Plackett-Luce with its default parameters, the
scale people read, and a player's career as it runs from match to match. No database:
store.py keeps what this computes, steps.py replays it."""

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from openskill.models import PlackettLuce, PlackettLuceRating

from matches.rules.scoring import is_ranked, shown_place

MODEL = PlackettLuce()
MODEL_NAME = "PlackettLuce"
# Fewer filed matches than this and the rating is still mostly the starting guess.
PROVISIONAL_BELOW = 5

Rating = tuple[float, float]  # (mu, sigma)


class Career(NamedTuple):
    """A player's career after some match: how many, the winning run ending there, the
    longest run and the best ranked place so far. Kept on every RatingChange."""

    number: int = 0
    run: int = 0
    longest: int = 0
    best: int | None = None

    def then(self, *, ranked: bool, place: int) -> "Career":
        run = self.run + 1 if place == 1 else 0
        best = self.best
        if ranked:
            best = place if best is None else min(best, place)
        return Career(self.number + 1, run, max(self.longest, run), best)


NEWCOMER = Career()


class State(NamedTuple):
    """A player's rating and career after some match (no rating before their first)."""

    rating: Rating | None
    career: Career


class RatedState(State):
    """A player's state after a match they were rated in: the rating is known."""

    __slots__ = ()
    rating: Rating


class Seating(NamedTuple):
    """One filed match as the replay reads it."""

    match_id: int
    mode: str
    seats: list[tuple[int, int]]  # (player id, place) in seating order


def ordinal(mu: float, sigma: float) -> float:
    """The conservative skill estimate the lists rank by: mu - 3 sigma."""
    return mu - 3 * sigma


def shown_rating(mu: float, sigma: float) -> int:
    """The rating on the friendly scale people read: 1000 for a newcomer (ordinal 0),
    40 points per unit of ordinal."""
    return round(1000 + 40 * ordinal(mu, sigma))


def _ranks(mode: str, places: Sequence[int]) -> list[float]:
    """Each player's rank in the rating event: the place the mode names; at a
    winner-takes-all table everyone but the winner shares second."""
    return [shown_place(mode, place) or 2 for place in places]


def rate_match(
    *, mode: str, seats: Sequence[tuple[int, int]], before: Mapping[int, Rating | None]
) -> dict[int, Rating]:
    """New ratings of one match's players. seats: (player id, place) in seating order;
    before: each player's rating going in, None at their first match."""
    teams = [[_model_rating(before[player])] for player, _ in seats]
    rated = MODEL.rate(teams, ranks=_ranks(mode, [place for _, place in seats]))
    return {
        player: (team[0].mu, team[0].sigma) for (player, _), team in zip(seats, rated, strict=True)
    }


def _model_rating(rating: Rating | None) -> PlackettLuceRating:
    """The model's rating for a player: theirs, or the model's default at their first match."""
    return MODEL.rating() if rating is None else MODEL.rating(*rating)


def rate(seating: Seating, before: Mapping[int, State]) -> dict[int, RatedState]:
    """Every player's rating and career after this match, from theirs going in."""
    _, mode, seats = seating
    ratings = rate_match(mode=mode, seats=seats, before={p: before[p].rating for p, _ in seats})
    ranked = is_ranked(mode)
    return {
        p: RatedState(ratings[p], before[p].career.then(ranked=ranked, place=place))
        for p, place in seats
    }
