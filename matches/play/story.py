"""The night's story at a table: who was champion, each player's line, the longest winning
run and the biggest upset by rating. Read in a fixed three queries at most, whatever the
length of the night; the page, the TV, the share card and its text all tell this one story."""

import datetime
from dataclasses import dataclass, field

from django.utils import timezone, translation

from matches.models import Match, RatingChange, Seat, Table
from matches.play.tonight import night_level, night_places, separated_on
from matches.ratings.engine import MODEL, shown_rating
from matches.rules.names import shown_player_name
from matches.rules.nights import NIGHT_STARTS, night_of, night_start
from matches.rules.scoring import is_ranked, place_counts

_NEW = MODEL.rating()
# The rating a player shows before their first match (the model's starting guess).
NEWCOMER_RATING = shown_rating(_NEW.mu, _NEW.sigma)


@dataclass
class StoryLine:
    """One player's night: how many matches, wins (2nds and 3rds), the places finished in
    the order played (rules.scoring.place_label names them per mode), points at a ranked
    table, the rating before their first match of the night here and after their last, and
    their place in the night (tonight.night_places: shared when level on every step)."""

    player_id: int
    player: str
    played: int = 0
    wins: int = 0
    points: int | None = None
    places: list[int] = field(default_factory=list)
    rating_before: int | None = None
    rating_after: int | None = None
    seconds: int = 0
    thirds: int = 0
    place: int = 1
    shared: bool = False

    @property
    def level(self) -> tuple:
        """Where the night's order (tonight.night_level) puts this line."""
        return night_level(
            points=self.points,
            wins=self.wins,
            seconds=self.seconds,
            thirds=self.thirds,
            played=self.played,
        )

    @property
    def rating_change(self) -> int | None:
        if self.rating_before is None or self.rating_after is None:
            return None
        return self.rating_after - self.rating_before


@dataclass(frozen=True)
class Run:
    """A winning run: one player's consecutive wins among the matches they played tonight."""

    player: str
    length: int
    first: int  # match numbers, first and last of the run
    last: int


@dataclass(frozen=True)
class Upset:
    """The biggest upset: a match won by a player rated below someone else at the table,
    by the widest gap between the winner's rating going in and the favourite's (the
    highest-rated other player going in)."""

    match: int
    winner: str
    winner_rating: int
    favourite: str
    favourite_rating: int

    @property
    def gap(self) -> int:
        return self.favourite_rating - self.winner_rating


@dataclass(frozen=True)
class Story:
    table: Table
    night: datetime.date
    ranked: bool
    matches: int
    lines: list[StoryLine]
    champions: list[StoryLine]  # the lines placed 1st; more than one: shared
    runs: list[Run]  # the longest runs (of two wins or more), several when level
    upset: Upset | None
    # A lone champion level with the runner-up on their score (points, or wins): the step of
    # the night's order (tonight.NIGHT_STEPS) that put the champion ahead, and of whom.
    ahead_on: str | None = None
    ahead_of: str | None = None

    @property
    def champion_score(self) -> int:
        """What the champion won on: points at a ranked table, wins otherwise."""
        if not self.champions:
            return 0
        first = self.champions[0]
        return (first.points or 0) if self.ranked else first.wins


def story_night(*, table: Table, now: datetime.datetime | None = None) -> datetime.date:
    """The night a table's story tells: tonight (by the noon rule) while it is open; once it
    is closed, the night of its last filed match (or of its closing, if none was filed)."""
    if table.is_open:
        return night_of(now)
    last = (
        Match.objects.filter(table=table, status=Match.Status.FILED)
        .order_by("-filed_at")
        .values_list("filed_at", flat=True)
        .first()
    )
    return night_of(last or table.closed_at)


def _bounds(night: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    """From the night's noon to the next night's, local time, whatever a clock change did."""
    start = timezone.make_aware(datetime.datetime.combine(night, NIGHT_STARTS))
    return start, night_start(start + datetime.timedelta(hours=36))


def _shown(mu: float | None, sigma: float | None) -> int:
    return NEWCOMER_RATING if mu is None or sigma is None else shown_rating(mu, sigma)


def night_story(*, table: Table, now: datetime.datetime | None = None) -> Story:
    """The story of the table's night (story_night): three queries at most (the night of a
    closed table, its seats, their rating changes). Players by their public names."""
    night = story_night(table=table, now=now)
    start, end = _bounds(night)
    rows = list(
        Seat.objects.filter(
            match__table=table,
            match__status=Match.Status.FILED,
            match__filed_at__gte=start,
            match__filed_at__lt=end,
        )
        .order_by("match__filed_at", "match__number", "place")
        .values_list(
            "match_id",
            "match__number",
            "player_id",
            "player__name",
            "player__public_name",
            "player__hidden",
            "player__erased_at",
            "place",
        )
    )
    # Told to everyone alike (the TV, the Tonight page, the share card): the public's names,
    # in no language ("Player 17"), as the story is kept for every viewer.
    with translation.override(None):
        seats: list[tuple[int, int, int, str, int | None]] = [
            (match_id, number, player_id, shown_player_name(
                player_id=player_id, name=name, public_name=public_name, hidden=hidden,
                erased=erased_at is not None, real=False,
            ), place)
            for match_id, number, player_id, name, public_name, hidden, erased_at, place in rows
        ]  # fmt: skip
    match_ids = sorted({seat[0] for seat in seats})
    changes = {
        (match_id, player_id): (_shown(mu0, s0), _shown(mu, s))
        for match_id, player_id, mu0, s0, mu, s in RatingChange.objects.filter(
            match_id__in=match_ids
        ).values_list("match_id", "player_id", "mu_before", "sigma_before", "mu", "sigma")
    } if match_ids else {}  # fmt: skip
    return _tell(table, night, seats, changes)


def _tell(table: Table, night: datetime.date, seats: list, changes: dict) -> Story:
    ranked = is_ranked(table.mode)
    lines: dict[int, StoryLine] = {}
    # Each player's run going, and the matches in order with their seats.
    going: dict[int, Run] = {}
    runs: list[Run] = []
    by_match: dict[int, list] = {}
    for match_id, number, player_id, name, place in seats:
        by_match.setdefault(match_id, []).append((number, player_id, name, place))
        line = lines.setdefault(
            player_id, StoryLine(player_id=player_id, player=name, points=0 if ranked else None)
        )
        counts = place_counts(table.mode, place)
        line.played += counts.played
        line.wins += counts.wins
        line.seconds += counts.seconds
        line.thirds += counts.thirds
        if ranked:
            line.points = (line.points or 0) + counts.points
        line.places.append(place)
        if (change := changes.get((match_id, player_id))) is not None:
            if line.rating_before is None:
                line.rating_before = change[0]
            line.rating_after = change[1]
        if place == 1:
            run = going.get(player_id)
            going[player_id] = (
                Run(name, run.length + 1, run.first, number)
                if run
                else Run(name, 1, number, number)
            )
            runs.append(going[player_id])
        else:
            going.pop(player_id, None)
    # The night's one order (as Tonight ranks it), level players by name.
    ordered = sorted(lines.values(), key=lambda r: (*r.level, r.player.casefold(), r.player_id))
    places = night_places([line.level for line in ordered])
    for line, place in zip(ordered, places, strict=True):
        line.place, line.shared = place, places.count(place) > 1
    champions = [line for line in ordered if line.place == 1]
    ahead_on = ahead_of = None
    if len(champions) == 1 and len(ordered) > 1:
        first, second = ordered[0], ordered[1]
        score = (lambda r: r.points or 0) if ranked else (lambda r: r.wins)
        if score(first) == score(second):
            ahead_on, ahead_of = separated_on(first.level, second.level), second.player
    return Story(
        table=table,
        night=night,
        ranked=ranked,
        matches=len(by_match),
        lines=ordered,
        champions=champions,
        runs=_longest(runs),
        upset=_upset(by_match, changes),
        ahead_on=ahead_on,
        ahead_of=ahead_of,
    )


def _longest(runs: list[Run]) -> list[Run]:
    """The longest runs of two wins or more: each player's longest once, the earliest."""
    length = max((run.length for run in runs), default=0)
    if length < 2:
        return []
    found: dict[str, Run] = {}
    for run in runs:
        if run.length == length:
            found.setdefault(run.player, run)
    return list(found.values())


def _upset(by_match: dict[int, list], changes: dict) -> Upset | None:
    """The match whose winner went in rated furthest below the favourite (the best-rated
    other player); the earliest on a level gap. Only matches whose every seat is rated."""
    best: Upset | None = None
    for match_id, seats in by_match.items():
        if any((match_id, pid) not in changes for _, pid, _, _ in seats):
            continue
        before: dict[int, int] = {pid: changes[match_id, pid][0] for _, pid, _, _ in seats}
        winner = next(seat for seat in seats if seat[3] == 1)
        others = [seat for seat in seats if seat[3] != 1]
        if not others:
            continue
        favourite = max(others, key=lambda seat: (before[seat[1]], -seat[3]))
        upset = Upset(
            match=winner[0],
            winner=winner[2],
            winner_rating=before[winner[1]],
            favourite=favourite[2],
            favourite_rating=before[favourite[1]],
        )
        if upset.gap > 0 and (best is None or upset.gap > best.gap):
            best = upset
    return best
