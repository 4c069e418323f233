"""The rating model, pure: openskill's Plackett-Luce with its default parameters, the
scale people read, and a player's career as it runs from match to match. No database:
store.py keeps what this computes, steps.py replays it."""

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from openskill.models import PlackettLuce

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


# Every player's state before their first match.
NEWCOMER_STATE = State(None, NEWCOMER)


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


def _ranks(mode: str, places: Sequence[int]) -> list[int]:
    """Each player's rank in the rating event: the place the mode names; at a
    winner-takes-all table everyone but the winner shares second."""
    return [shown_place(mode, place) or 2 for place in places]


# openskill's PlackettLuce defaults (MODEL's): the prior, the game's noise, the floor on a
# variance's shrink factor and the additive dynamics factor.
MU = MODEL.mu
SIGMA = MODEL.sigma
BETA_SQUARED = MODEL.beta**2
KAPPA = MODEL.kappa
TAU_SQUARED = MODEL.tau * MODEL.tau


def rate_ranks(ranks: Sequence[int], ratings: Sequence[Rating | None]) -> list[Rating]:
    """New ratings of one match's players, in seating order, from their ranks (1 best,
    ties shared) and their ratings going in (None at a first match).

    openskill's PlackettLuce().rate for one-player teams and its default parameters,
    operation for operation on plain floats, so the results are the same floats (a
    property test holds it to that): the model builds, copies and sorts rating objects,
    which cost most of a replay's time."""
    count = len(ranks)
    # The model sorts the teams by rank, stably, and works in that order throughout: every
    # sum below adds in it, as the model's do, so each rounds the same.
    order = sorted(range(count), key=ranks.__getitem__)
    mus: list[float] = []
    variances: list[float] = []  # each sigma once tau is added, squared
    sigmas: list[float] = []
    for index in order:
        mu, sigma = ratings[index] or (MU, SIGMA)
        sigma = math.sqrt(sigma * sigma + TAU_SQUARED)
        mus.append(mu)
        sigmas.append(sigma)
        variances.append(sigma**2)
    total = 0.0
    for variance in variances:
        total += variance + BETA_SQUARED
    c = math.sqrt(total)
    c_squared = c**2
    exps = [math.exp(mu / c) for mu in mus]
    # Sorted, the players of one rank are a run. The model walks every player q ranked at
    # q's rank or better than i, dividing by the sum of the exps of those ranked at q's
    # rank or worse and by how many share q's rank: both the same for all of a run, so
    # each run's terms are worked out once and added once per player in it, in order.
    runs: list[tuple[int, int, float, int]] = []  # start, end, sum from start on, ties
    start = 0
    while start < count:
        rank = ranks[order[start]]
        end = start + 1
        while end < count and ranks[order[end]] == rank:
            end += 1
        summed = exps[start]
        for i in range(start + 1, count):
            summed += exps[i]
        runs.append((start, end, summed, end - start))
        start = end
    after: list[Rating] = [(MU, SIGMA)] * count
    for i in range(count):
        exp_i = exps[i]
        omega = 0.0
        delta = 0.0
        for start, end, summed, ties in runs:
            share = exp_i / summed
            if ties == 1:  # x / 1 is x exactly: the model's division changes nothing
                delta += share * (1 - share)
                if start == i:
                    omega += 1 - share
                else:
                    omega -= share
            else:
                term = share * (1 - share) / ties
                less = share / ties
                for q in range(start, end):
                    delta += term
                    if q == i:
                        omega += (1 - share) / ties
                    else:
                        omega -= less
            if end > i:  # i's own run: the worse ranked do not count for i
                break
        variance = variances[i]
        omega *= variance / c
        delta *= variance / c_squared
        delta *= math.sqrt(variance) / c  # the model's gamma
        # The model scales both by the player's share of the team's variance (here 1.0,
        # exactly: one player per team) and by a weight of 1.0.
        sigma = sigmas[i]
        share_of_team = sigma**2 / variance
        after[order[i]] = (
            mus[i] + share_of_team * omega * 1.0,
            sigma * math.sqrt(max(1 - share_of_team * delta * 1.0, KAPPA)),
        )
    # The model then averages the mean's change across tied players, but from ratings it has
    # already overwritten: the average is 0.0 and changes nothing.
    return after


def rate_states(seating: Seating, before: Sequence[State]) -> list[RatedState]:
    """Every player's rating and career after this match, from theirs going in, both in
    seating order (a replay step's way: no mapping per match)."""
    _, mode, seats = seating
    ranked = is_ranked(mode)
    ratings = rate_ranks(
        _ranks(mode, [place for _, place in seats]), [state.rating for state in before]
    )
    return [
        RatedState(rating, state.career.then(ranked=ranked, place=place))
        for (_, place), state, rating in zip(seats, before, ratings, strict=True)
    ]


def rate(seating: Seating, before: Mapping[int, State]) -> dict[int, RatedState]:
    """Every player's rating and career after this match, from theirs going in, by player."""
    players = [player for player, _ in seating.seats]
    after = rate_states(seating, [before[player] for player in players])
    return dict(zip(players, after, strict=True))
