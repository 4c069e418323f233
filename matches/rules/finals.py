"""A finals night's pure rules: how many finalists a number of heats takes, the heats dealt
by seed (a snake, so the top seeds meet only in the final) or by a random draw kept by its
seed, and who goes through to the final. Finalists are named by their season position,
1 the best; nothing here reads or writes the database."""

import random
from collections.abc import Sequence
from dataclasses import dataclass

from matches.rules.limits import MAX_PLAYERS, MIN_PLAYERS

SPREAD = "spread"
RANDOM = "random"
MIN_HEATS = 2
# The largest seed a random draw picks (kept in a signed 64-bit column, shown on the page).
DRAW_SEED_MAX = 999_999


class FinalsRuleError(ValueError):
    """A finals night that cannot be held as asked; the message names the problem and
    takes its numbers as placeholders (the caller translates the key)."""

    def __init__(self, key: str, **params: int) -> None:
        self.key = key
        self.params = params
        super().__init__(key)


def check_heats(finalists: int, heats: int, runners_up: int) -> None:
    """Refuse unless finalists split into heats of 3 to 10 and the final seats 3 to 10."""
    if heats < MIN_HEATS:
        raise FinalsRuleError("too_few_heats", min=MIN_HEATS)
    if finalists < MIN_PLAYERS * heats:
        raise FinalsRuleError("heats_too_small", heats=heats, count=finalists, min=MIN_PLAYERS)
    if finalists > MAX_PLAYERS * heats:
        raise FinalsRuleError("heats_too_large", heats=heats, count=finalists, max=MAX_PLAYERS)
    if not 0 <= runners_up <= heats:
        raise FinalsRuleError("runners_up_per_heat", heats=heats)
    if not MIN_PLAYERS <= heats + runners_up <= MAX_PLAYERS:
        raise FinalsRuleError("final_size", min=MIN_PLAYERS, max=MAX_PLAYERS)


def heat_sizes(finalists: int, heats: int) -> list[int]:
    """As even as possible: the first heats take one more when they cannot all be equal."""
    size, extra = divmod(finalists, heats)
    return [size + (1 if heat < extra else 0) for heat in range(heats)]


def spread(finalists: int, heats: int) -> list[list[int]]:
    """Seeds 1..finalists dealt to heats in a snake (1..k, then k..1, ...): seeds 1 to k land
    in different heats, and each heat's seeds are as strong as the others'. Each heat lists
    its seeds best first."""
    dealt: list[list[int]] = [[] for _ in range(heats)]
    for index in range(finalists):
        lap, step = divmod(index, heats)
        heat = step if lap % 2 == 0 else heats - 1 - step
        dealt[heat].append(index + 1)
    return dealt


def draw_order(finalists: int, seed: int) -> list[int]:
    """The random draw: seeds 1..finalists in the order a generator with this seed shuffles
    them (the same seed always gives the same order, so a kept seed shows the draw again)."""
    order = list(range(1, finalists + 1))
    random.Random(seed).shuffle(order)
    return order


def drawn(order: Sequence[int], heats: int) -> list[list[int]]:
    """The draw's order dealt into heats as even as possible, in the order drawn: the first
    names drawn fill heat 1, the next heat 2, ..."""
    dealt: list[list[int]] = []
    start = 0
    for size in heat_sizes(len(order), heats):
        dealt.append(list(order[start : start + size]))
        start += size
    return dealt


def new_draw_seed() -> int:
    return random.SystemRandom().randint(1, DRAW_SEED_MAX)


@dataclass(frozen=True)
class HeatResult:
    """A heat's filed match as going through reads it: the winner and the runner-up (the
    2nd place at a ranked table; at winner takes all, the last one knocked out), with the
    runner-up's season position."""

    winner: int
    runner_up: int
    runner_up_rank: int


def going_through(results: Sequence[HeatResult], runners_up: int) -> list[int]:
    """Every heat's winner, in heat order, then the best runners_up runners-up by season
    position (1 the best)."""
    best = sorted(results, key=lambda result: result.runner_up_rank)[:runners_up]
    return [result.winner for result in results] + [result.runner_up for result in best]
