"""What the results keep beside the filed matches: counts per player and table (daily and
all time), running totals for date ranges, head-to-head pairs, players' nights, and seasons."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.models.tables import Player, Table
from matches.models.venues import Venue
from matches.rules import qualifying, scoring
from matches.rules.limits import SEASON_NAME_MAX_LENGTH


class CountFields(models.Model):
    """The counts of filed results (scoring.COUNT_FIELDS), as every kept sum of them holds
    them: per player and table (Counts) or per player, mode and day up to it (RunningTotal)."""

    played = models.PositiveIntegerField(_("played"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    # Ranked tables only: a winner-takes-all match names no 2nd or 3rd and carries no points.
    seconds = models.PositiveIntegerField(_("2nds"), default=0)
    thirds = models.PositiveIntegerField(_("3rds"), default=0)
    points = models.PositiveIntegerField(_("points"), default=0)

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=Q(wins__lte=F("played"))
                & Q(seconds__lte=F("played"))
                & Q(thirds__lte=F("played")),
                name="%(class)s_counts_within_played",
            ),
        ]


class Counts(CountFields):
    """Filed results added up: what standings read instead of every match."""

    # Not indexed alone: each model's unique key leads with the player, and a second index
    # was one more entry to move for every tally a filing or a merge writes.
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"),
        db_index=False,
    )  # fmt: skip
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="+", verbose_name=_("table")
    )
    # The table's venue, copied (a table's venue is for good): a venue's standings filter
    # these rows instead of joining every one to its table. Indexed below, per model.
    venue = models.ForeignKey(
        Venue, on_delete=models.PROTECT, related_name="+", verbose_name=_("venue"), db_index=False
    )

    class Meta(CountFields.Meta):
        abstract = True


class DailyTally(Counts):
    """A player's filed results at one table on one night (its day is the evening's date,
    rules.nights): standings over a date range."""

    day = models.DateField(_("day"))

    class Meta:
        verbose_name = _("daily tally")
        verbose_name_plural = _("daily tallies")
        constraints = [
            *Counts.Meta.constraints,
            models.UniqueConstraint(fields=["player", "table", "day"], name="tally_unique"),
        ]
        # Standings over a date range add up every tally in the range: both indexes cover
        # the query (counts included), so no table row is read. PostgreSQL scans the days'
        # range of the first (it cannot skip along the second); SQLite skips along the
        # second's players (its planner picks that over the first, and cannot INCLUDE).
        indexes = [
            models.Index(
                fields=["day", "player"],
                include=["table", *scoring.COUNT_FIELDS],
                name="tally_day_player_idx",
            ),
            models.Index(
                fields=["player", "day", "table", *scoring.COUNT_FIELDS],
                name="tally_player_day_idx",
            ),
            models.Index(fields=["table", "day"], name="tally_table_day_idx"),
            # A venue's nights (a season's best nights at one venue), covered as above.
            models.Index(
                fields=["venue", "day", "player"],
                include=["table", *scoring.COUNT_FIELDS],
                name="tally_venue_day_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.table} {self.day}"


class AllTimeTotal(Counts):
    """A player's filed results at one table, all time: the standings without dates add up
    a few rows per player, however many matches were played."""

    class Meta:
        verbose_name = _("total")
        verbose_name_plural = _("totals")
        constraints = [
            *Counts.Meta.constraints,
            models.UniqueConstraint(fields=["player", "table"], name="total_unique"),
        ]
        # A venue's all-time standings add up its rows per player from this index alone.
        indexes = [
            models.Index(
                fields=["venue", "player", *scoring.COUNT_FIELDS], name="total_venue_player_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.table}"


class RunningTotal(CountFields):
    """A player's filed results at tables of one mode (or of all: ALL_MODES) over every day
    up to and including this one (see results/running_totals.py): standings over any date range
    subtract two of these per player, however many days the range holds. A row without a
    venue counts the whole league; a row with one counts that venue's tables only."""

    # Kept beside each mode's rows: standings of every mode, the usual read, step along
    # one row per player instead of adding up two.
    ALL_MODES = "all"

    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"), db_index=False
    )
    mode = models.CharField(
        _("mode"), max_length=20, choices=[*Table.Mode.choices, (ALL_MODES, _("all modes"))]
    )
    day = models.DateField(_("day"))
    # None: the league's row. Its unique index leads with the player: none of its own.
    venue = models.ForeignKey(
        Venue,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("venue"),
        null=True,
        blank=True,
        db_index=False,
    )

    class Meta:
        verbose_name = _("running total")
        verbose_name_plural = _("running totals")
        # Each unique index is the one a range read seeks along: the latest row on or before
        # a day is one step back from it. The league's rows (no venue) have a partial one,
        # so its reads never step over the venues' rows. The venues' one needs no condition
        # (rows without a venue never collide in it: nulls are distinct) and has none, so
        # it also finds every row of a player: deleting a player's rows (a merge) read the
        # whole table. No index of its own on player.
        constraints = [
            *CountFields.Meta.constraints,
            models.UniqueConstraint(
                fields=["player", "mode", "day"],
                condition=Q(venue__isnull=True),
                name="running_total_unique",
            ),
            models.UniqueConstraint(
                fields=["player", "venue", "mode", "day"], name="running_total_venue_unique"
            ),
            models.CheckConstraint(
                # "all" is ALL_MODES, which Meta cannot name (see models/tables.py).
                condition=Q(mode__in=[Table.Mode.WINNER_TAKES_ALL, Table.Mode.RANKED, "all"]),
                name="running_total_mode",
            ),
        ]

    def __str__(self) -> str:
        where = f" at venue {self.venue_id}" if self.venue_id else ""
        return f"{self.player_id} {self.mode}{where} to {self.day}"


class HeadToHead(models.Model):
    """How often a player shared a filed match with an opponent and finished above or below
    them (see results/head_to_head.py); kept for both directions of every pair by the services."""

    # The unique (player, opponent) leads with the player: no index of its own.
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"), db_index=False
    )
    opponent = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("opponent")
    )
    matches = models.PositiveIntegerField(_("shared matches"))
    ahead = models.PositiveIntegerField(_("ahead"))
    behind = models.PositiveIntegerField(_("behind"))

    class Meta:
        verbose_name = _("head-to-head record")
        verbose_name_plural = _("head-to-head records")
        constraints = [
            models.UniqueConstraint(fields=["player", "opponent"], name="head_to_head_unique"),
            models.CheckConstraint(
                condition=Q(ahead__lte=F("matches")) & Q(behind__lte=F("matches")),
                name="head_to_head_within_matches",
            ),
            models.CheckConstraint(
                condition=~Q(player=F("opponent")), name="head_to_head_two_players"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} v {self.opponent_id}"


class Season(models.Model):
    """A named stretch of days the league's standings can be read over; seasons never
    overlap (the service refuses it), so each day belongs to at most one."""

    name = models.CharField(_("name"), max_length=SEASON_NAME_MAX_LENGTH)
    first_day = models.DateField(_("first day"))
    last_day = models.DateField(_("last day"))
    # "Best N nights": each player's season counts only their best N nights
    # (rules.nights), and a player needs min_nights nights to be ranked. Null: every night
    # counts and everyone is ranked, as before.
    best_nights = models.PositiveSmallIntegerField(_("best nights counted"), null=True, blank=True)
    min_nights = models.PositiveSmallIntegerField(_("minimum nights to be ranked"), default=0)
    # Who qualifies for the finals (rules.qualifying, results.qualifiers): each venue's top
    # qualify_places, or with qualify_percent the top percent of its ranked players capped
    # at qualify_places; qualify_min_nights nights there (scaled for a venue that ran fewer
    # of the league's nights); each player's best nights only (the season's best_nights)
    # when qualify_best_nights; one venue per player when qualify_one_venue.
    qualify_places = models.PositiveSmallIntegerField(_("finalists per venue"), default=8)
    qualify_percent = models.PositiveSmallIntegerField(
        _("percent of each venue's players"), null=True, blank=True
    )
    qualify_min_nights = models.PositiveSmallIntegerField(
        _("minimum nights at the venue"), default=0
    )
    qualify_best_nights = models.BooleanField(_("count only the best nights"), default=False)
    qualify_one_venue = models.BooleanField(_("one venue per player"), default=True)

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        ordering = ["-first_day", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="season_name_not_empty"),
            models.CheckConstraint(
                condition=Q(last_day__gte=F("first_day")), name="season_days_in_order"
            ),
            models.UniqueConstraint(Lower("name"), name="season_name_unique_ci"),
            models.CheckConstraint(
                condition=Q(best_nights__isnull=True) | Q(best_nights__gte=1),
                name="season_best_nights_positive",
            ),
            # The minimum belongs to the rule: without it every player is ranked.
            models.CheckConstraint(
                condition=Q(best_nights__isnull=False) | Q(min_nights=0),
                name="season_min_nights_with_rule",
            ),
            models.CheckConstraint(
                condition=Q(qualify_places__gte=1, qualify_places__lte=qualifying.MAX_PLACES),
                name="season_qualify_places_range",
            ),
            models.CheckConstraint(
                condition=Q(qualify_percent__isnull=True)
                | Q(qualify_percent__gte=1, qualify_percent__lte=100),
                name="season_qualify_percent_range",
            ),
            models.CheckConstraint(
                condition=Q(qualify_min_nights__lte=qualifying.MAX_NIGHTS),
                name="season_qualify_min_nights_range",
            ),
            # Counting the best nights needs the season's rule saying how many.
            models.CheckConstraint(
                condition=Q(qualify_best_nights=False) | Q(best_nights__isnull=False),
                name="season_qualify_best_nights_with_rule",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def qualifying_rules(self) -> qualifying.QualifyingRules:
        """The season's qualification rules as the qualifiers apply them."""
        return qualifying.QualifyingRules(
            places=self.qualify_places,
            percent=self.qualify_percent,
            min_nights=self.qualify_min_nights,
            best_nights=self.best_nights if self.qualify_best_nights else None,
            one_venue=self.qualify_one_venue,
        )


class SeasonRuleChange(models.Model):
    """One change of a season's qualification rules: who, when, the rules before and after
    (QualifyingRules.as_dict) and, for a change after the season's first night, whom it
    moved in and out of the finals (player ids, as the confirmation listed them)."""

    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="rule_changes", verbose_name=_("season")
    )
    # The account may go; the record of the change stays.
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    at = models.DateTimeField(_("changed at"), default=timezone.now)
    before = models.JSONField(_("rules before"))
    after = models.JSONField(_("rules after"))
    after_first_night = models.BooleanField(_("after the first night"), default=False)
    gained = models.JSONField(_("players who gained a place"), default=list)
    lost = models.JSONField(_("players who lost a place"), default=list)

    class Meta:
        verbose_name = _("season rule change")
        verbose_name_plural = _("season rule changes")
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["season", "-at"], name="season_rule_change_idx")]

    def __str__(self) -> str:
        return f"{self.season_id} {self.at:%Y-%m-%d %H:%M}"


class PlayerNight(models.Model):
    """A player's filed results on one day, summed over tables: the player page's best
    night is the first row of its index instead of a sum over every tally."""

    # The unique (player, day) leads with the player: no index of its own.
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"), db_index=False
    )
    day = models.DateField(_("day"))
    played = models.PositiveIntegerField(_("played"))
    wins = models.PositiveIntegerField(_("wins"))
    points = models.PositiveIntegerField(_("points"))

    class Meta:
        verbose_name = _("player's night")
        verbose_name_plural = _("players' nights")
        constraints = [
            models.UniqueConstraint(fields=["player", "day"], name="player_night_unique"),
            models.CheckConstraint(condition=Q(wins__lte=F("played")), name="player_night_wins"),
        ]
        indexes = [
            # The best night first: most wins, then points, fewer matches, the latest.
            models.Index(
                fields=["player", "-wins", "-points", "played", "-day"],
                name="player_night_best_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.day}"
