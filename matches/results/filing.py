"""Everything kept beside the filed matches, as one protocol: filing a match adds it to every
aggregate (tallies, running totals, ratings, head-to-head pairs, nights), unfiling takes it
back from every one, and the recounts and the integrity scan cover the same list. A new
aggregate is added here once, and every way of filing, undoing, merging, deleting or
checking covers it."""

from collections.abc import Callable, Sequence

from matches.core.stamp import standings_changed
from matches.models import AllTimeTotal, DailyTally, Match, Seat, Table
from matches.ratings import schedule
from matches.ratings.store import Position
from matches.results import head_to_head, player_nights, running_totals, tallies
from matches.results.counters import counts_merge
from matches.rules.nights import night_of
from matches.rules.scoring import COUNT_FIELDS


def match_file(*, table: Table, match: Match, seats: Sequence[Seat]) -> None:
    """Add a match just filed (places set, filed_at stamped) to every aggregate, in the
    transaction that files it. The standings stamp moves first: its row lock orders filings
    league-wide, which the ratings rely on."""
    _counts(table=table, match=match, seats=seats, sign=1)
    schedule.ratings_file(match=match, mode=table.mode, seats=seats)
    _pairs_and_nights(table=table, match=match, seats=seats, sign=1)


def match_unfile(*, table: Table, match: Match, seats: Sequence[Seat]) -> None:
    """Take a filed match (places and filed_at still set) back out of every aggregate,
    before it is reopened."""
    _counts(table=table, match=match, seats=seats, sign=-1)
    schedule.ratings_unfile(match=match)
    _pairs_and_nights(table=table, match=match, seats=seats, sign=-1)


def match_refile(
    *, table: Table, match: Match, before: Sequence[Seat], after: Sequence[Seat]
) -> None:
    """A filed match's places corrected in place (after: its seats as saved with the new
    places; before: the same seats with the places they had): every aggregate as if it had
    been filed that way from the start, on the night it was filed. Its ratings and every
    later match's are left to the replay, scheduled from its position."""
    _counts(table=table, match=match, seats=before, sign=-1)
    _pairs_and_nights(table=table, match=match, seats=before, sign=-1)
    _counts(table=table, match=match, seats=after, sign=1)
    _pairs_and_nights(table=table, match=match, seats=after, sign=1)
    schedule.ratings_corrected(match=match)


def _counts(*, table: Table, match: Match, seats: Sequence[Seat], sign: int) -> None:
    standings_changed()
    day = night_of(match.filed_at)
    running_totals.running_file(
        day=day, mode=table.mode, venue_id=table.venue_id, seats=seats, sign=sign
    )
    tallies.tallies_file(table=table, day=day, seats=seats, sign=sign)


def _pairs_and_nights(*, table: Table, match: Match, seats: Sequence[Seat], sign: int) -> None:
    head_to_head.pairs_file(mode=table.mode, seats=seats, sign=sign)
    day = night_of(match.filed_at)
    player_nights.nights_file(day=day, mode=table.mode, seats=seats, sign=sign)


def tables_deleted(*, player_ids: Sequence[int], first_filed: Position | None) -> None:
    """After tables were deleted with their matches and tallies (the admin): the players'
    other aggregates are counted afresh and every rating from the first deleted filing on is
    replayed. first_filed: schedule.first_filed_position of those tables, read before."""
    players_recount(player_ids=player_ids)
    schedule.ratings_matches_deleted(since=first_filed)


def players_recount(*, player_ids: Sequence[int]) -> None:
    """These players' head-to-head pairs, nights and running totals, from what is filed now
    (after an undone merge, or a table deleted with its matches). Their tallies and ratings
    are the caller's: an undone merge counts the tallies afresh and replays the ratings; a
    deleted table's go with it. (A merge adds up instead: players_merged.)"""
    player_ids = list(player_ids)
    head_to_head.pairs_refresh(player_ids=player_ids)
    player_nights.nights_refresh(player_ids=player_ids)
    running_totals.running_refresh(player_ids=player_ids)


def players_merged(*, keep_id: int, drop_id: int) -> None:
    """After a merge moved drop's seats to keep: drop's tallies, totals and head-to-head
    pairs add to keep's (the two never shared a match, so every count is a sum), and keep's
    nights and running totals are counted afresh (a night of each is one night now, with
    one best). The ratings are the caller's: they are replayed."""
    for model, keys in ((DailyTally, ("table", "day")), (AllTimeTotal, ("table",))):
        counts_merge(
            model, owner="player", keep_id=keep_id, drop_id=drop_id, keys=keys, counts=COUNT_FIELDS
        )
    head_to_head.pairs_merge(keep_id=keep_id, drop_id=drop_id)
    player_nights.nights_refresh(player_ids=[keep_id, drop_id])
    running_totals.running_refresh(player_ids=[keep_id, drop_id])


def league_recount(*, progress: Callable[[str, int, int], None] | None = None) -> dict[str, int]:
    """Every aggregate from scratch, each from what is beneath it: the daily tallies and
    all-time totals from the filed matches' seats; the running totals and nights from those
    tallies; the head-to-head pairs from the seats; every rating (with the career kept with
    it) by a replay. Whatever a raw edit left behind, the seats are the truth. Returns how
    many of each were counted; progress, if given, hears (step, steps done, steps)."""
    step = progress or (lambda name, done, steps: None)
    step("tallies", 0, 5)
    daily, totals = tallies.tallies_rebuild()
    step("running totals", 1, 5)
    running = running_totals.running_rebuild()
    step("nights", 2, 5)
    nights = player_nights.nights_rebuild()
    step("head-to-head pairs", 3, 5)
    pairs = head_to_head.pairs_rebuild()
    step("ratings", 4, 5)
    rated = schedule.ratings_rebuild(
        progress=lambda done, total: step(f"ratings {done:,}/{total:,} matches", 4, 5)
    )
    step("done", 5, 5)
    return {
        "tallies": daily,
        "totals": totals,
        "running": running,
        "nights": nights,
        "pairs": pairs,
        "rated": rated,
    }


def aggregate_problems() -> list[str]:
    """Every aggregate that differs from the filed matches (ratings apart: rating_problems
    replays the league, which check_integrity runs on its own)."""
    return [
        *tallies.tally_problems(),
        *head_to_head.pair_problems(),
        *player_nights.night_problems(),
        *running_totals.running_problems(),
    ]
