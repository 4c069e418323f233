"""What the services keep beside the filed matches, counted afresh from them: one list, so
every way of recounting (a merge, a deleted table, rebuild_ratings, the bench seed) covers
every aggregate there is."""

from collections.abc import Sequence

from . import head_to_head, nights, ratings, running_totals


def players_recount(*, player_ids: Sequence[int]) -> None:
    """These players' head-to-head pairs, nights and running totals, from what is filed now
    (after a merge, or a table deleted with its matches)."""
    player_ids = list(player_ids)
    head_to_head.pairs_refresh(player_ids=player_ids)
    nights.nights_refresh(player_ids=player_ids)
    running_totals.running_refresh(player_ids=player_ids)


def league_recount() -> dict[str, int]:
    """Every rating (with the career kept with it), head-to-head pair, night and running
    total from scratch; how many of each were counted."""
    return {
        "rated": ratings.ratings_rebuild(),
        "pairs": head_to_head.pairs_rebuild(),
        "nights": nights.nights_rebuild(),
        "running": running_totals.running_rebuild(),
    }
