"""The player page's reads: totals by mode, rating, head-to-head, streaks, best night, the
chart's latest matches and one page of match history. A fixed number of indexed reads of
what the services keep per player (totals, the career on each RatingChange, head-to-head
pairs), however long the player's career."""

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from django.contrib.humanize.templatetags.humanize import ordinal
from django.core.paginator import Page, Paginator
from django.db.models import F, Func, Min, Subquery, Sum
from django.utils.formats import date_format, number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from matches.models import AllTimeTotal, Match, Player, RatingChange, Seat, Venue
from matches.ratings.selectors import RatingRow, player_rating, rating_table
from matches.results.head_to_head import Rival, conqueror, favourite_victim, head_to_head
from matches.results.player_nights import Night, best_night
from matches.rules import scoring
from matches.rules.nights import night_of

CHART_MATCHES = 100
HISTORY_PER_PAGE = 25

UPDATING = gettext_lazy(
    "Ratings are being updated after a change to past matches: the rating, the winning run, "
    "the chart and the match history show here again in a moment."
)


@dataclass(frozen=True)
class Finish:
    """One filed match of the player's, numbered from their first."""

    number: int
    match_id: int
    filed_at: datetime.datetime
    mode: str
    place: int
    mu: float | None = None
    sigma: float | None = None

    @property
    def shown_place(self) -> int | None:
        return scoring.shown_place(self.mode, self.place)


@dataclass(frozen=True)
class VenuePlayed:
    """A venue the player has played at, with their filed matches there."""

    name: str
    slug: str
    played: int


@dataclass(frozen=True)
class PlayerProfile:
    player: Player
    played: int
    wins: int
    seconds: int
    thirds: int
    points: int
    ranked_played: int
    wta_played: int
    best_ranked_place: int | None
    rating: RatingRow | None
    rated_players: int
    rivals: list[Rival]
    conqueror: Rival | None
    victim: Rival | None
    longest_run: int
    best_night: Night | None
    chart: list[Finish]  # the latest CHART_MATCHES, oldest first, with ratings after each
    history: Page  # newest first
    name: str = ""  # the player's name as the viewer reads it
    # A ratings replay is pending (a merge, its undo, a correction): the rating, its rank,
    # the winning run, the chart and the history (all read from the ratings kept per match)
    # are left out until it settles, never shown half replayed.
    updating: bool = False
    # Where the player has played, most matches first: empty in a league of one venue.
    venues: tuple[VenuePlayed, ...] = ()

    @property
    def win_percent(self) -> Decimal:
        """Rounded as the standings round it (scoring.win_percent): 3 of 7 is 42.9."""
        return scoring.win_percent(wins=self.wins, played=self.played)


def _totals_by_mode_and_venue(player: Player) -> tuple[dict[str, dict], tuple[VenuePlayed, ...]]:
    """The player's all-time totals per mode, and the venues they have played at (when the
    league has more than one), from one read of their totals per mode and venue."""
    # The league's number of venues rides along as a subquery: no read of its own.
    venue_count = Venue.objects.order_by().values(n=Func(F("pk"), function="COUNT"))
    # The sums are named at run time (annotate(**...)): read as plain dicts.
    rows = cast(
        "list[dict[str, Any]]",
        AllTimeTotal.objects.filter(player=player)
        .values("table__mode", "venue__name", "venue__slug")
        .annotate(
            **{name: Sum(name) for name in scoring.COUNT_FIELDS},
            league_venues=Subquery(venue_count),
        )
        .order_by(),
    )
    by_mode: dict[str, dict] = {}
    at: dict[tuple[str, str], int] = {}
    several = False
    for row in rows:
        mode = by_mode.setdefault(row["table__mode"], dict.fromkeys(scoring.COUNT_FIELDS, 0))
        for name in scoring.COUNT_FIELDS:
            mode[name] += row[name]
        where = (row["venue__name"], row["venue__slug"])
        at[where] = at.get(where, 0) + row["played"]
        several = row["league_venues"] > 1
    venues = tuple(
        VenuePlayed(name=name, slug=slug, played=played)
        for (name, slug), played in sorted(at.items(), key=lambda item: (-item[1], item[0]))
        if played
    )
    return by_mode, venues if several else ()


def _mode(ranked: bool) -> str:
    return scoring.RANKED if ranked else scoring.WINNER_TAKES_ALL


def _chart(player: Player) -> list[Finish]:
    """The latest matches, oldest first, from the newest end of the career index."""
    rows = (
        RatingChange.objects.filter(player=player)
        .order_by("-number")
        .values_list("number", "match_id", "match__filed_at", "ranked", "place", "mu", "sigma")
    )[:CHART_MATCHES]
    return [
        Finish(number=n, match_id=m, filed_at=at, mode=_mode(r), place=p, mu=mu, sigma=sigma)
        for n, m, at, r, p, mu, sigma in reversed(rows)
    ]


@dataclass(frozen=True)
class HistoryRow:
    """One line of the match history, worded once in Python: a page of them costs the
    template no filter or URL lookups."""

    table_id: int
    table: str
    number: int
    day: str
    result: str
    points: int | None


class Career:
    """The player's filed matches newest first, as the paginator sees them: its length is
    the count the rating keeps, and a page is one range of career numbers on an index."""

    def __init__(self, player: Player, matches: int) -> None:
        self.player, self.matches = player, matches

    def __len__(self) -> int:
        return self.matches

    def __getitem__(self, page: slice) -> list[HistoryRow]:
        if page.start >= page.stop:
            return []
        newest, oldest = self.matches - page.start, self.matches - page.stop
        rows = (
            RatingChange.objects.filter(player=self.player, number__lte=newest, number__gt=oldest)
            .order_by("-number")
            .values_list(
                "match__table_id", "match__table__name", "match__number", "match__filed_at",
                "match__table__mode", "place",
            )
        )  # fmt: skip
        days: dict = {}
        results: dict = {}
        history = []
        for table_id, table, number, filed_at, mode, place in rows:
            day = night_of(filed_at)
            if day not in days:
                days[day] = date_format(day)
            if (mode, place) not in results:
                results[mode, place] = scoring.place_label(mode, place)
            history.append(
                HistoryRow(
                    table_id=table_id,
                    table=table,
                    number=number,
                    day=days[day],
                    result=results[mode, place],
                    points=scoring.points_for(mode, place),
                )
            )
        return history


def best_ranked_place(*, player: Player, ranked: Mapping[str, Any]) -> int | None:
    """The best place the player finished at a ranked table, from what the filings keep
    (ranked: their summed ranked counts), settled whatever the ratings replay is doing:
    a 1st, 2nd or 3rd is in the counts; below the podium, one read of their seats."""
    if not ranked.get("played"):
        return None
    for place, field in ((1, "wins"), (2, "seconds"), (3, "thirds")):
        if ranked.get(field):
            return place
    return Seat.objects.filter(
        player=player, match__status=Match.Status.FILED, match__table__mode=scoring.RANKED
    ).aggregate(best=Min("place"))["best"]


def player_profile(
    *,
    player: Player,
    page: int | str | None = 1,
    real_names: bool = False,
    updating: bool = False,
) -> PlayerProfile:
    """Everything the player page shows; every name as the public reads it unless
    real_names (a host). updating: a ratings replay is pending (ratings_updating), so
    nothing read from the ratings is shown (PlayerProfile.updating)."""
    by_mode, venues = _totals_by_mode_and_venue(player)
    totals = {name: sum(row[name] for row in by_mode.values()) for name in scoring.COUNT_FIELDS}
    ratings = [] if updating else rating_table()
    rating = next((row for row in ratings if row.player_id == player.pk), None)
    rivals = head_to_head(player=player, real_names=real_names)
    ranked: Mapping[str, Any] = by_mode.get(scoring.RANKED, {})
    return PlayerProfile(
        player=player,
        name=player.shown_name(real=real_names),
        **totals,
        ranked_played=ranked.get("played", 0),
        wta_played=by_mode.get(scoring.WINNER_TAKES_ALL, {}).get("played", 0),
        best_ranked_place=best_ranked_place(player=player, ranked=ranked),
        rating=rating,
        venues=venues,
        rated_players=len(ratings),
        rivals=rivals,
        conqueror=conqueror(rivals),
        victim=favourite_victim(rivals),
        longest_run=rating.longest_run if rating else 0,
        best_night=best_night(player=player),
        chart=_chart(player) if rating else [],
        history=Paginator(
            Career(player, rating.matches if rating else 0), HISTORY_PER_PAGE
        ).get_page(page),
        updating=updating,
    )


def describe(profile: PlayerProfile) -> list[str]:
    """The player's record in plain words, one sentence each: the page's summary, and the
    same for every kind of player (none yet, one mode only, both)."""
    name = profile.name or profile.player.shown_name(real=False)
    if not profile.played:
        return [_("%(name)s has no filed matches yet.") % {"name": name}]
    counts = {"name": name, "played": profile.played, "wins": profile.wins}
    sentences = [
        ngettext(
            "%(name)s has played %(played)s filed match and won %(wins)s of them (%(percent)s%%).",
            "%(name)s has played %(played)s filed matches and won %(wins)s of them (%(percent)s%%).",
            profile.played,
        )
        % {**counts, "percent": number_format(profile.win_percent, 1)}
    ]
    if profile.ranked_played and profile.wta_played:
        sentences.append(
            _("%(ranked)s at ranked tables and %(wta)s at winner-takes-all tables.")
            % {"ranked": profile.ranked_played, "wta": profile.wta_played}
        )
    elif profile.wta_played:
        sentences.append(
            _(
                "All at winner-takes-all tables, where only the winner is named and no points are kept."
            )
        )
    if profile.ranked_played and profile.best_ranked_place is not None:
        sentences.append(
            ngettext(
                "At ranked tables: %(points)s point, best place %(best)s.",
                "At ranked tables: %(points)s points, best place %(best)s.",
                profile.points,
            )
            % {
                "points": profile.points,
                "best": scoring.place_label(scoring.RANKED, profile.best_ranked_place),
            }
        )
    if profile.updating:
        sentences.append(str(UPDATING))
    elif profile.rating is not None:
        rating = profile.rating
        template = (
            _(
                "Rating %(rating)s, %(rank)s of %(count)s rated players (provisional until 5 matches)."
            )
            if rating.provisional
            else _("Rating %(rating)s, %(rank)s of %(count)s rated players.")
        )
        sentences.append(
            template
            % {"rating": rating.shown, "rank": ordinal(rating.rank), "count": profile.rated_players}
        )
    if profile.updating:
        pass  # the run is the ratings' career: told with them once settled
    elif profile.longest_run:
        sentences.append(
            ngettext(
                "Longest winning run: %(count)s match.",
                "Longest winning run: %(count)s matches in a row.",
                profile.longest_run,
            )
            % {"count": profile.longest_run}
        )
    else:
        sentences.append(_("No win yet."))
    if profile.best_night is not None:
        night = profile.best_night
        sentences.append(
            ngettext(
                "Best night: %(day)s, %(wins)s won of %(played)s match.",
                "Best night: %(day)s, %(wins)s won of %(played)s matches.",
                night.played,
            )
            % {"day": date_format(night.day), "wins": night.wins, "played": night.played}
        )
    if profile.conqueror is not None:
        sentences.append(
            ngettext(
                "Most often finished behind %(name)s (once).",
                "Most often finished behind %(name)s (%(count)s times).",
                profile.conqueror.behind,
            )
            % {"name": profile.conqueror.opponent, "count": profile.conqueror.behind}
        )
    if profile.victim is not None:
        sentences.append(
            ngettext(
                "Favourite victim: %(name)s (finished ahead once).",
                "Favourite victim: %(name)s (finished ahead %(count)s times).",
                profile.victim.ahead,
            )
            % {"name": profile.victim.opponent, "count": profile.victim.ahead}
        )
    return sentences


def player_totals(*, player: Player) -> dict:
    """All-time played, wins, 2nds, 3rds and points, summed over the per-table totals."""
    sums = {field: Sum(field) for field in scoring.COUNT_FIELDS}
    totals = AllTimeTotal.objects.filter(player=player).aggregate(**sums)
    return {name: value or 0 for name, value in totals.items()}


def _rating_json(row: RatingRow | None) -> dict | None:
    if row is None:
        return None
    data = row.as_json()
    return {key: data[key] for key in ("rank", "matches", "mu", "sigma", "ordinal", "provisional")}


def player_api(*, player: Player, real_names: bool = False, updating: bool = False) -> dict:
    """The read-only JSON document about one player, every name as the public reads it
    unless real_names (a host). updating: a ratings replay is pending, so the rating is
    null (never a half-replayed one) and "updating" says why."""
    rivals = head_to_head(player=player, real_names=real_names)
    return {
        "id": player.pk,
        "player": player.shown_name(real=real_names),
        "totals": player_totals(player=player),
        "rating": None if updating else _rating_json(player_rating(player=player)),
        "updating": updating,
        "head_to_head": [rival.as_json() for rival in rivals],
    }
