"""The hypothesis strategies of the property tests, in one place. Their settings are the "brag"
profile tests/conftest.py registers; a test that needs another example count says so."""

import json

from hypothesis import strategies as st

from matches.rules.hands import Card

MODES = ["ranked", "winner_takes_all"]
POOL = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus"]

# Rules (tests/rules/test_hands.py): nine distinct cards of one deck, dealt as three hands.
DECK = [Card(rank, suit) for rank in range(2, 15) for suit in range(1, 5)]
disjoint_cards = st.lists(st.sampled_from(DECK), min_size=9, max_size=9, unique=True)


# Leagues (tests/results/test_aggregates.py, tests/ratings/test_ratings.py): three tables, each
# a mode and its players; then operations on them, each (kind, table index, pick).
def league_tables(*, max_players: int) -> st.SearchStrategy:
    return st.lists(
        st.tuples(
            st.sampled_from(MODES),
            st.lists(st.sampled_from(POOL), min_size=3, max_size=max_players, unique=True),
        ),
        min_size=3,
        max_size=3,
    )


def league_ops(kinds: list[str], *, max_size: int) -> st.SearchStrategy:
    return st.lists(
        st.tuples(st.sampled_from(kinds), st.integers(0, 2), st.integers(0, 9)),
        max_size=max_size,
    )


aggregate_tables = league_tables(max_players=4)
aggregate_ops = league_ops(["play", "play", "play", "tap", "undo", "merge"], max_size=25)
rating_tables = league_tables(max_players=5)
rating_ops = league_ops(["play", "play", "tap", "undo"], max_size=30)


# Play (tests/play/test_properties.py): launch, tap, undo, roster edit, close and correction
# (of the latest filed match, its order turned round by a number) on up to three tables. Taps
# and rosters also name "ann", who reads the same as Ann.
NAMES_WITH_A_TWIN = [*POOL, "ann"]
table_index = st.integers(min_value=0, max_value=2)
table_operations = st.lists(
    st.one_of(
        st.tuples(st.just("launch"), st.sampled_from(MODES), st.lists(st.sampled_from(POOL), min_size=3, max_size=6, unique=True)),
        st.tuples(st.just("tap"), table_index, st.sampled_from(NAMES_WITH_A_TWIN)),
        st.tuples(st.just("tap"), table_index, st.sampled_from(NAMES_WITH_A_TWIN)),
        st.tuples(st.just("tap"), table_index, st.sampled_from(NAMES_WITH_A_TWIN)),
        st.tuples(st.just("undo"), table_index),
        st.tuples(st.just("roster"), table_index, st.lists(st.sampled_from(NAMES_WITH_A_TWIN), min_size=2, max_size=7, unique=True)),
        st.tuples(st.just("close"), table_index),
        st.tuples(st.just("correct"), table_index, st.integers(min_value=1, max_value=9)),
    ),
    max_size=40,
)  # fmt: skip
# The same at one small table, tapped often enough to file matches, correct them, undo their
# crownings and tap again.
one_table = st.just(0)
FEW = POOL[:4]
corrected_operations = st.tuples(
    st.tuples(st.just("launch"), st.sampled_from(MODES), st.lists(st.sampled_from(FEW), min_size=3, max_size=4, unique=True)),
    st.lists(
        st.one_of(
            *(st.tuples(st.just("tap"), one_table, st.sampled_from([*FEW, "ann"])) for _ in range(6)),
            st.tuples(st.just("undo"), one_table),
            st.tuples(st.just("undo"), one_table),
            st.tuples(st.just("correct"), one_table, st.integers(min_value=1, max_value=9)),
            st.tuples(st.just("correct"), one_table, st.integers(min_value=1, max_value=9)),
            st.tuples(st.just("close"), one_table),
        ),
        min_size=10,
        max_size=40,
    ),
).map(lambda launch_then: [launch_then[0], *launch_then[1]])  # fmt: skip


# Running totals (tests/results/test_running_totals.py): filings on a day of the last week
# and undos at three tables; then date ranges (day offsets, either end open) and a mode.
day_offset = st.integers(min_value=0, max_value=6)
dated_operations = st.lists(
    st.one_of(
        st.tuples(st.just("file"), st.integers(0, 2), day_offset, st.integers(0, 9)),
        st.tuples(st.just("undo"), st.integers(0, 2)),
    ),
    max_size=14,
)
asked_ranges = st.lists(
    st.tuples(
        st.one_of(st.none(), st.integers(-1, 8)),
        st.one_of(st.none(), st.integers(-1, 8)),
        st.sampled_from([None, *MODES]),
    ),
    min_size=1,
    max_size=6,
)


# Hostile input (tests/web/test_security.py): form fields the app reads, and others, with
# text, huge integers, UUIDs and the values the app tests for; showdown bodies.
FIELD_NAMES = ["match", "player", "key", "tap", "name", "players", "mode", "table", "from", "to"]
field_values = st.one_of(
    st.text(max_size=60),
    st.integers(min_value=-(2**63), max_value=2**63).map(str),
    st.uuids().map(str),
    st.sampled_from(["", "0", "1", "-1", "ranked", "winner_takes_all", "\x00", "9" * 30]),
)


def form_fields(*, max_size: int) -> st.SearchStrategy:
    return st.dictionaries(
        st.sampled_from(FIELD_NAMES) | st.text(max_size=10), field_values, max_size=max_size
    )


form_bodies = form_fields(max_size=8)
query_params = form_fields(max_size=5)
showdown_bodies = st.one_of(
    st.binary(max_size=200),
    st.dictionaries(st.text(max_size=8), st.one_of(field_values, st.integers()), max_size=4).map(
        lambda hands: json.dumps({"hands": hands}).encode()
    ),
)


# Corrections (tests/play/test_corrections.py): whole matches filed at three tables (a seed
# draws the order they went out in) over a few nights; corrections of a filed match (a pick
# and a seed for its new order) and corrections back to the order before the last one.
correction_tables = league_tables(max_players=5)
correction_ops = st.lists(
    st.one_of(
        st.tuples(st.just("play"), st.integers(0, 2), st.integers(0, 2**16)),
        st.tuples(st.just("play"), st.integers(0, 2), st.integers(0, 2**16)),
        st.tuples(st.just("night"), st.just(0), st.just(0)),
        st.tuples(st.just("correct"), st.integers(0, 30), st.integers(0, 2**16)),
        st.tuples(st.just("correct"), st.integers(0, 30), st.integers(0, 2**16)),
        st.tuples(st.just("back"), st.integers(0, 30), st.just(0)),
    ),
    max_size=18,
)


# The rating engine (tests/ratings/test_engine.py): one filed match of 2 to 10 players, each
# a mode, a finishing order and a prior (None: a newcomer) per player in seating order.
def _rated_match(size: int) -> st.SearchStrategy:
    prior = st.none() | st.tuples(
        st.floats(min_value=-20.0, max_value=70.0), st.floats(min_value=0.05, max_value=9.0)
    )
    return st.tuples(
        st.sampled_from(MODES),
        st.permutations(range(1, size + 1)),
        st.lists(prior, min_size=size, max_size=size),
    )


rated_matches = st.integers(min_value=2, max_value=10).flatmap(_rated_match)
