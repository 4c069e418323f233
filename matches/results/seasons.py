"""Seasons: named stretches of nights (rules.nights: a season ending on Friday holds Friday's
night to noon on Saturday) that standings can be read over. Hosts define them; the standings
page opens on the season covering tonight, or on all time when none does. A season's
table is always computed from the daily tallies, so an undo after it ended shows there too."""

import datetime
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import BooleanField, Case, ExpressionWrapper, IntegerField, Q, Value, When
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from matches.core.errors import RuleError
from matches.core.stamp import standings_changed
from matches.models import DailyTally, FinalsEvent, Season
from matches.org.hosts import User
from matches.org.roles import SEASONS_ARE_THE_ORGANISERS, require_organiser
from matches.results.standings import (
    SUMS,
    StandingRow,
    night_name_values,
    rank_best_nights,
    rank_standings,
)
from matches.rules.limits import SEASON_NAME_MAX_LENGTH
from matches.rules.names import clean_typed_name, name_key
from matches.rules.nights import night_of

SEASON_NAME_EMPTY = _("Give the season a name.")
SEASON_NAME_TOO_LONG = _("A season name is at most %(limit_value)s characters.")
SEASON_NAME_TAKEN = _("There is already a season called “%(name)s”.")
SEASON_DAYS_REVERSED = _("The last day is before the first day.")
SEASON_OVERLAPS = _("These days overlap the season “%(name)s” (%(first)s to %(last)s).")
SEASON_NOT_FOUND = _("That season does not exist; nothing was changed.")
SEASON_NIGHTS_INVALID = _("Count at least one night, or leave it empty.")
SEASON_MINIMUM_WITHOUT_RULE = _("A minimum of nights goes with best nights counted.")
SEASON_TAKES_IN_FINALS = _(
    "The finals night of “%(name)s” was held on %(night)s: a season’s days cannot take it in "
    "(its matches would count in that season’s standings); nothing was saved."
)
SEASON_BEST_NIGHTS_QUALIFY = _(
    "The finals’ qualification counts this season’s best nights: change that in the "
    "qualification rules first."
)


def season_name_clean(name: str) -> str:
    """A season's name as stored (the player names' rules, rules.names), or a RuleError."""
    try:
        return clean_typed_name(
            name,
            max_length=SEASON_NAME_MAX_LENGTH,
            empty=SEASON_NAME_EMPTY,
            too_long=SEASON_NAME_TOO_LONG,
        )
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None


def _lock_and_stamp() -> None:
    # Serialise season writes (the overlap check reads, then writes) and change the
    # standings stamp: the standings page's default season may have changed.
    standings_changed()


@transaction.atomic
def season_save(
    *,
    season_id: int | None,
    name: str,
    first_day: datetime.date,
    last_day: datetime.date,
    best_nights: int | None = None,
    min_nights: int = 0,
    by: User,
) -> Season:
    """Create a season (season_id None) or change one; seasons never overlap. best_nights:
    each player's best nights count, min_nights of them to be ranked."""
    require_organiser(by, refusal=SEASONS_ARE_THE_ORGANISERS)
    name = season_name_clean(name)
    if last_day < first_day:
        raise RuleError(SEASON_DAYS_REVERSED)
    if (best_nights is not None and best_nights < 1) or min_nights < 0:
        raise RuleError(SEASON_NIGHTS_INVALID)
    if min_nights and best_nights is None:
        raise RuleError(SEASON_MINIMUM_WITHOUT_RULE)
    _lock_and_stamp()
    if season_id is None:
        season = Season()
    else:
        season = Season.objects.filter(pk=season_id).first()
        if season is None:
            raise RuleError(SEASON_NOT_FOUND)
    others = Season.objects.exclude(pk=season.pk) if season.pk else Season.objects.all()
    # Compared by the players' matching key (case folding and NFKC): "Winter" and a
    # full-width "Winter" are one season. Checked here, under the stamp's lock, rather
    # than by a key column: a league has a handful of seasons and every season write takes
    # that lock first, so no two writes check at once; the Lower(name) constraint stays
    # the database's last line for the (NFKC-stored) names.
    key = name_key(name)
    for other in others:
        if name_key(other.name) == key:
            raise RuleError(SEASON_NAME_TAKEN, name=other.name)
    clash = others.filter(first_day__lte=last_day, last_day__gte=first_day).first()
    if clash is not None:
        raise RuleError(
            SEASON_OVERLAPS,
            name=clash.name,
            # Worded as every other date on the pages: "1 Dec 2026", "1 de dezembro de 2026".
            first=date_format(clash.first_day),
            last=date_format(clash.last_day),
        )
    # Finals matches never count in a season's standings, which read the days: no season's
    # days (its own, moved later, or another's) may take in a finals night already held.
    finals = (
        FinalsEvent.objects.filter(night__gte=first_day, night__lte=last_day)
        .select_related("season")
        .first()
    )
    if finals is not None:
        raise RuleError(
            SEASON_TAKES_IN_FINALS, name=finals.season.name, night=date_format(finals.night)
        )
    # The qualifiers may count the best nights too: without the rule they could not, and
    # once the season has started a change of it must go through the rules' confirmation.
    moved = season.qualify_best_nights and best_nights != season.best_nights
    if moved and (best_nights is None or night_of() >= season.first_day):
        raise RuleError(SEASON_BEST_NIGHTS_QUALIFY)
    season.name, season.first_day, season.last_day = name, first_day, last_day
    season.best_nights, season.min_nights = best_nights, min_nights
    season.save()
    return season


@transaction.atomic
def season_delete(*, season_id: int, by: User) -> None:
    """Forget a season; no result changes, only the standings' default view."""
    require_organiser(by, refusal=SEASONS_ARE_THE_ORGANISERS)
    _lock_and_stamp()
    deleted, _ = Season.objects.filter(pk=season_id).delete()
    if not deleted:
        raise RuleError(SEASON_NOT_FOUND)


def current_season(*, today: datetime.date | None = None) -> Season | None:
    """The season covering tonight (the night's date, not the calendar's), if any."""
    today = today or night_of()
    return Season.objects.filter(first_day__lte=today, last_day__gte=today).first()


@dataclass(frozen=True)
class SeasonSummary:
    season: Season
    status: str  # "upcoming", "current" or "finished"
    # Everyone ranked 1st to 3rd (shared ranks included); empty before any filed match.
    podium: list[StandingRow]

    @property
    def champions(self) -> list[StandingRow]:
        return [row for row in self.podium if row.rank == 1]


def seasons_overview(
    *, today: datetime.date | None = None, real_names: bool = False
) -> list[SeasonSummary]:
    """Every season, latest first, with its podium computed afresh from the daily tallies:
    two queries however many seasons (seasons never overlap, so each day has one), and one
    more for all the seasons with a best nights rule (their podiums count each player's best
    nights).
    Players are named as the public reads them unless real_names (a host)."""
    today = today or night_of()
    all_seasons = list(Season.objects.all())
    started = [season for season in all_seasons if season.first_day <= today]
    rows: dict[int, list[dict]] = {season.pk: [] for season in started}
    if started:
        season_of_day = Case(
            *[
                When(day__range=(season.first_day, season.last_day), then=Value(season.pk))
                for season in started
            ],
            default=Value(None),
            output_field=IntegerField(),
        )
        tallies = (
            DailyTally.objects.filter(
                day__gte=min(season.first_day for season in started),
                day__lte=max(season.last_day for season in started),
            )
            .annotate(season_id=season_of_day)
            .filter(season_id__isnull=False)
            .values(
                "season_id",
                "player_id",
                "player__name",
                "player__key",
                "player__public_name",
                "player__hidden",
                player__erased=ExpressionWrapper(
                    Q(player__erased_at__isnull=False), output_field=BooleanField()
                ),
            )
            .annotate(**SUMS)
            .filter(played_sum__gt=0)
        )
        for row in tallies:
            rows[row["season_id"]].append(dict(row))
    nights = _best_nights_by_season([season for season in started if season.best_nights])
    summaries = []
    for season in all_seasons:
        if season.first_day > today:
            status, podium = "upcoming", []
        else:
            status = "current" if season.last_day >= today else "finished"
            if season.best_nights is not None:
                ranked = rank_best_nights(
                    nights[season.pk],
                    best=season.best_nights,
                    minimum=season.min_nights,
                    real_names=real_names,
                )
            else:
                ranked = rank_standings(rows[season.pk], real_names=real_names)
            podium = [row for row in ranked if row.rank <= 3]
        summaries.append(SeasonSummary(season=season, status=status, podium=podium))
    return summaries


def _best_nights_by_season(seasons: list[Season]) -> dict[int, list[dict]]:
    """Each player's nights (rank_best_nights' rows) in each of these seasons: one query
    for all of them, none without any."""
    nights: dict[int, list[dict]] = {season.pk: [] for season in seasons}
    if not seasons:
        return nights
    season_of_day = Case(
        *[
            When(day__range=(season.first_day, season.last_day), then=Value(season.pk))
            for season in seasons
        ],
        default=Value(None),
        output_field=IntegerField(),
    )
    names = night_name_values()
    tallies = (
        DailyTally.objects.filter(
            day__gte=min(season.first_day for season in seasons),
            day__lte=max(season.last_day for season in seasons),
        )
        .annotate(season_id=season_of_day)
        .filter(season_id__isnull=False)
        .values("season_id", "player_id", "day", *names["fields"], **names["expressions"])
        .annotate(**SUMS)
        .order_by()
    )
    for row in tallies:
        nights[row["season_id"]].append(dict(row))
    return nights
