"""Head-to-head: how a player fared against everyone they have shared a filed match with.

A table records one player finishing above another when a ranked table placed them higher,
or when a winner-takes-all table crowned them: that mode names only the winner, so two of its
non-winners are neither ahead of nor behind each other."""

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from matches.models import HeadToHead, Match, Player, Seat, Table
from matches.results.counters import count_rows, counts_merge
from matches.rules import scoring
from matches.rules.names import shown_player_name

# (player, opponent) -> (shared matches, ahead, behind)
PAIR_COUNTS = ("matches", "ahead", "behind")
Pairs = dict[tuple[int, int], tuple[int, int, int]]


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
        ahead, behind, level = _lines(get_language())
        if self.ahead > self.behind:
            template = ahead
        elif self.ahead < self.behind:
            template = behind
        else:
            template = level
        return template % {
            "name": self.opponent,
            "ahead": self.ahead,
            "behind": self.behind,
            "matches": self.matches,
        }


@functools.cache
def _lines(language: str) -> tuple[str, str, str]:
    # Looked up once per language: a busy player's page words a hundred and more lines.
    return (
        _("ahead of %(name)s %(ahead)s–%(behind)s in %(matches)s"),
        _("behind %(name)s %(ahead)s–%(behind)s in %(matches)s"),
        _("level with %(name)s %(ahead)s–%(behind)s in %(matches)s"),
    )


def head_to_head(*, player: Player, real_names: bool = False) -> list[Rival]:
    """Everyone who shared a filed match with this player, most shared matches first, then
    by name; one indexed read of the pairs the services keep. Opponents are named as the
    public reads them unless real_names (a host)."""
    rows = (
        HeadToHead.objects.filter(player=player)
        .order_by("-matches", "opponent__key", "opponent_id")
        .values_list(
            "opponent_id",
            "opponent__name",
            "opponent__public_name",
            "opponent__hidden",
            "opponent__erased_at",
            "matches",
            "ahead",
            "behind",
        )
    )
    return [
        Rival(
            opponent_id=o,
            opponent=shown_player_name(
                player_id=o,
                name=name,
                public_name=public_name,
                hidden=hidden,
                erased=erased_at is not None,
                real=real_names,
            ),
            matches=m,
            ahead=a,
            behind=b,
        )
        for o, name, public_name, hidden, erased_at, m, a, b in rows
    ]


def _finished_above(ranked: bool, mine: int, theirs: int) -> bool:
    # Winner takes all names only the winner: no other place is above anyone.
    return mine == 1 or (ranked and mine < theirs)


def _pair_counts(mode: str, seats: Sequence[tuple[int, int]]) -> list[tuple[int, ...]]:
    """(player, opponent, 1, ahead, behind) for both directions of every pair in a match."""
    ranked = scoring.is_ranked(mode)
    return [
        (me, other, 1, int(_finished_above(ranked, mine, theirs)),
         int(_finished_above(ranked, theirs, mine)))
        for me, mine in seats
        for other, theirs in seats
        if me != other
    ]  # fmt: skip


def pairs_file(*, mode: str, seats: Sequence[Seat], sign: int) -> None:
    """Count a filed match in the head-to-head pairs (sign 1), or take it back (sign -1)."""
    places = [(seat.player_id, scoring.finished_place(seat.place)) for seat in seats]
    rows = _pair_counts(mode, places)
    count_rows(
        HeadToHead, keys=("player_id", "opponent_id"), counts=PAIR_COUNTS, rows=rows, sign=sign
    )


def pairs_recomputed(*, player_id: int | None = None) -> Pairs:
    """The pairs counted afresh from every filed match's seats (one grouped query): what
    the kept pairs must equal. With player_id, only that player's pairs, both directions."""
    qn = connection.ops.quote_name
    seat, match, table = (qn(m._meta.db_table) for m in (Seat, Match, Table))
    above = "CASE WHEN {a}.place = 1 OR (t.mode = %s AND {a}.place < {b}.place) THEN 1 ELSE 0 END"
    # One player's side only, from their seats (an index step, where "either side" read the
    # whole league's seats on every merge); the other side is its mirror.
    only = "AND mine.player_id = %s" if player_id else ""
    sql = (
        f"SELECT mine.player_id, theirs.player_id, COUNT(*), "  # noqa: S608 (names from the models)
        f"SUM({above.format(a='mine', b='theirs')}), SUM({above.format(a='theirs', b='mine')}) "
        f"FROM {seat} mine JOIN {seat} theirs ON theirs.match_id = mine.match_id "
        f"AND theirs.player_id <> mine.player_id JOIN {match} m ON m.id = mine.match_id "
        f"JOIN {table} t ON t.id = m.table_id WHERE m.status = %s {only} "
        f"GROUP BY mine.player_id, theirs.player_id"
    )
    params: list[str | int] = [scoring.RANKED, scoring.RANKED, Match.Status.FILED]
    if player_id:
        params.append(player_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        pairs = {(p, o): (m, a, b) for p, o, m, a, b in cursor.fetchall()}
    if player_id:
        # The opponent's view of the same matches: ahead where this player was behind.
        pairs.update({(o, p): (m, b, a) for (p, o), (m, a, b) in list(pairs.items())})
    return pairs


def pairs_refresh(*, player_ids: Sequence[int]) -> None:
    """Count these players' pairs afresh (after a merge moved seats from one to another)."""
    HeadToHead.objects.filter(player_id__in=player_ids).delete()
    HeadToHead.objects.filter(opponent_id__in=player_ids).delete()
    rows = {}
    for player_id in player_ids:
        rows.update(pairs_recomputed(player_id=player_id))
    HeadToHead.objects.bulk_create(
        HeadToHead(player_id=p, opponent_id=o, matches=m, ahead=a, behind=b)
        for (p, o), (m, a, b) in rows.items()
    )


def pairs_merge(*, keep_id: int, drop_id: int) -> None:
    """Add drop's pairs to keep's, both ways round (after a merge: the two never met)."""
    for owner, other in (("player", "opponent"), ("opponent", "player")):
        counts_merge(
            HeadToHead, owner=owner, keep_id=keep_id, drop_id=drop_id, keys=(other,),
            counts=PAIR_COUNTS,
        )  # fmt: skip


@transaction.atomic
def pairs_rebuild() -> int:
    """Count every pair afresh from the filed matches; returns the number of pairs kept."""
    HeadToHead.objects.all().delete()
    rows = HeadToHead.objects.bulk_create(
        (
            HeadToHead(player_id=p, opponent_id=o, matches=m, ahead=a, behind=b)
            for (p, o), (m, a, b) in pairs_recomputed().items()
        ),
        batch_size=2000,
    )
    return len(rows)


def pairs_kept() -> Pairs:
    return {
        (p, o): (m, a, b)
        for p, o, m, a, b in HeadToHead.objects.values_list(
            "player_id", "opponent_id", "matches", "ahead", "behind"
        )
    }


def pair_problems() -> list[str]:
    """Kept head-to-head pairs that differ from a count of the filed matches."""
    kept, actual = pairs_kept(), pairs_recomputed()
    return [
        f"Players #{p} and #{o}: head-to-head says {kept.get((p, o))}, filed matches say "
        f"{actual.get((p, o))}"
        for p, o in sorted(set(kept) | set(actual))
        if kept.get((p, o)) != actual.get((p, o))
    ]


def conqueror(rivals: list[Rival]) -> Rival | None:
    """Who most often finished above this player (ties: more shared matches, then name)."""
    best = max(rivals, key=lambda r: (r.behind, r.matches), default=None)
    return best if best and best.behind else None


def favourite_victim(rivals: list[Rival]) -> Rival | None:
    """Whom this player most often finished above."""
    best = max(rivals, key=lambda r: (r.ahead, r.matches), default=None)
    return best if best and best.ahead else None


@dataclass(frozen=True)
class SharedMatch:
    """A filed match two players both sat in, with each one's place."""

    match: Match
    place: int | None  # the first player's
    other_place: int | None


# The pair's page shows the latest matches they shared; older ones are counted, not listed.
SHARED_MATCHES_SHOWN = 100


def shared_matches(
    *, player_id: int, other_id: int, limit: int = SHARED_MATCHES_SHOWN
) -> tuple[list[SharedMatch], int]:
    """The filed matches two players shared, newest first (at most `limit`), and how many
    there are in all: three queries however many."""
    shared = (
        Match.objects.filed().filter(seats__player_id=player_id).filter(seats__player_id=other_id)
    )
    total = shared.count()
    matches = list(shared.select_related("table", "winner").order_by("-filed_at", "-pk")[:limit])
    places = {
        (match_id, seated): place
        for match_id, seated, place in Seat.objects.filter(
            match__in=[m.pk for m in matches], player_id__in=(player_id, other_id)
        ).values_list("match_id", "player_id", "place")
    }
    return [
        SharedMatch(m, places.get((m.pk, player_id)), places.get((m.pk, other_id))) for m in matches
    ], total
