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


def rate_match(
    *, mode: str, seats: Sequence[tuple[int, int]], before: Mapping[int, Rating | None]
) -> dict[int, Rating]:
    """New ratings of one match's players. seats: (player id, place) in seating order;
    before: each player's rating going in, None at their first match.

    openskill's PlackettLuce().rate for one-player teams and its default parameters,
    operation for operation on plain floats, so the results are the same floats (a
    property test holds it to that): the model builds, copies and sorts rating objects,
    which cost most of a replay's time."""
    ranks = _ranks(mode, [place for _, place in seats])
    # The model sorts the teams by rank, stably, and works in that order throughout: every
    # sum below adds in it, as the model's do, so each rounds the same.
    order = sorted(range(len(seats)), key=ranks.__getitem__)
    players: list[int] = []
    mus: list[float] = []
    variances: list[float] = []  # each sigma once tau is added, squared
    sigmas: list[float] = []
    for index in order:
        player = seats[index][0]
        mu, sigma = before[player] or (MU, SIGMA)
        sigma = math.sqrt(sigma * sigma + TAU_SQUARED)
        players.append(player)
        mus.append(mu)
        sigmas.append(sigma)
        variances.append(sigma**2)
    sorted_ranks = [ranks[index] for index in order]
    total = 0.0
    for variance in variances:
        total += variance + BETA_SQUARED
    c = math.sqrt(total)
    exps = [math.exp(mu / c) for mu in mus]
    count = len(order)
    # Sorted, the players of one rank are a run: ends[q] is where q's run ends, and the
    # players ranked at q's rank or below it (worse) are those from q's run's start on.
    ends = [0] * count
    sum_q = [0.0] * count  # the exps of those players, added in the model's order
    ties = [0] * count  # how many share q's rank
    start = 0
    while start < count:
        end = start + 1
        while end < count and sorted_ranks[end] == sorted_ranks[start]:
            end += 1
        summed = exps[start]
        for i in range(start + 1, count):
            summed += exps[i]
        for q in range(start, end):
            ends[q], sum_q[q], ties[q] = end, summed, end - start
        start = end
    after: dict[int, Rating] = {}
    for i in range(count):
        exp_i = exps[i]
        omega = 0.0
        delta = 0.0
        for q in range(ends[i]):  # every q ranked at i's rank or better
            share = exp_i / sum_q[q]
            delta += share * (1 - share) / ties[q]
            if q == i:
                omega += (1 - share) / ties[q]
            else:
                omega -= share / ties[q]
        variance = variances[i]
        omega *= variance / c
        delta *= variance / c**2
        delta *= math.sqrt(variance) / c  # the model's gamma
        # The model scales both by the player's share of the team's variance (here 1.0,
        # exactly: one player per team) and by a weight of 1.0.
        share_of_team = sigmas[i] ** 2 / variance
        mu = mus[i] + share_of_team * omega * 1.0
        sigma = sigmas[i] * math.sqrt(max(1 - share_of_team * delta * 1.0, KAPPA))
        after[players[i]] = (mu, sigma)
    # The model then averages the mean's change across tied players, but from ratings it has
    # already overwritten: the average is 0.0 and changes nothing.
    return after


def rate(seating: Seating, before: Mapping[int, State]) -> dict[int, RatedState]:
    """Every player's rating and career after this match, from theirs going in."""
    _, mode, seats = seating
    ratings = rate_match(mode=mode, seats=seats, before={p: before[p].rating for p, _ in seats})
    ranked = is_ranked(mode)
    return {
        p: RatedState(ratings[p], before[p].career.then(ranked=ranked, place=place))
        for p, place in seats
    }
