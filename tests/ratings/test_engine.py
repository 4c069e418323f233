"""The rating engine's own Plackett-Luce update against openskill's: the same floats, bit for
bit, for any match the league can file."""

from hypothesis import given, settings
from openskill.models import PlackettLuce

from matches.ratings.engine import NEWCOMER, Seating, State, rate
from tests.strategies import rated_matches


def ratings_after(mode, seats, before):
    """Each player's rating after the match, as a replay step rates it."""
    states = {player: State(rating, NEWCOMER) for player, rating in before.items()}
    after = rate(Seating(1, mode, seats), states)
    return {player: state.rating for player, state in after.items()}


class TestRateMatch:
    @settings(max_examples=2000)
    @given(rated_matches)
    def test_equals_openskills_plackett_luce_exactly(self, match):
        mode, places, priors = match
        model = PlackettLuce()
        seats = [(100 + index, place) for index, place in enumerate(places)]
        before = {player: prior for (player, _), prior in zip(seats, priors, strict=True)}
        # Winner takes all: the winner first, everyone else shares second.
        ranks = places if mode == "ranked" else [1 if place == 1 else 2 for place in places]
        teams = [[model.rating() if prior is None else model.rating(*prior)] for prior in priors]
        expected = {
            player: (team[0].mu, team[0].sigma)
            for (player, _), team in zip(seats, model.rate(teams, ranks=ranks), strict=True)
        }

        assert ratings_after(mode, seats, before) == expected

    def test_a_newcomer_starts_from_the_models_default(self):
        model = PlackettLuce()
        seats = [(1, 2), (2, 1), (3, 3)]
        teams = [[model.rating()] for _ in seats]
        rated = model.rate(teams, ranks=[2, 1, 3])

        got = ratings_after("ranked", seats, dict.fromkeys([1, 2, 3]))

        assert got == {p: (t[0].mu, t[0].sigma) for (p, _), t in zip(seats, rated, strict=True)}
