"""Tables, matches, seats and taps. Game rules live in services.py; these are the facts and
the database constraints that stand behind them."""

import unicodedata
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from . import scoring
from .limits import MAX_PLAYERS, NAME_MAX_LENGTH, SEASON_NAME_MAX_LENGTH, TABLE_NAME_MAX_LENGTH

PLAYER_NAME_EMPTY = _("A player name cannot be empty.")
PLAYER_NAME_TOO_LONG = _(
    "Player names are at most %(limit_value)s characters: “%(name)s” is too long."
)
PLAYER_NAME_INVISIBLE = _(
    "“%(name)s” contains an invisible or control character (such as a zero-width space or a "
    "direction mark); type the name again."
)
# Control, format (zero-width, bidi overrides), private-use and surrogate code points, and
# the letters that render as blank space.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs"})
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def normalise_name(name: str) -> str:
    """A name as it is stored: NFKC (full-width "Ann" is "Ann", a decomposed "José" is the
    composed one) with every run of whitespace made one space and none at the ends."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def is_invisible(char: str) -> bool:
    return unicodedata.category(char) in INVISIBLE_CATEGORIES or char in BLANK_LETTERS


def clean_name(name: str) -> str:
    """The name as stored, or a ValidationError saying what is wrong: invisible or control
    characters (two tiles must never read the same), empty, or too long."""
    name = normalise_name(name)
    if any(is_invisible(char) for char in name):
        visible = "".join(char for char in name if not is_invisible(char))
        raise ValidationError(PLAYER_NAME_INVISIBLE, code="invisible", params={"name": visible})
    if not name:
        raise ValidationError(PLAYER_NAME_EMPTY, code="empty")
    if len(name) > NAME_MAX_LENGTH:
        raise ValidationError(
            PLAYER_NAME_TOO_LONG,
            code="too_long",
            params={"name": name, "limit_value": NAME_MAX_LENGTH},
        )
    return name


def name_key(name: str) -> str:
    """How a name is matched: "alice", "Alice" and "ALICE" are one player, and so are "Åsa"
    and "åsa" (Unicode case folding, which SQLite's LOWER() does not do), "Ann  Lee" and
    "Ann Lee", and full-width "Ann" and "Ann" (NFKC, again after folding, as Unicode's
    NFKC_Casefold does)."""
    return unicodedata.normalize("NFKC", normalise_name(name).casefold())


class Player(models.Model):
    """A person in the league, known by one name whatever its case, shown as first written."""

    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH)
    key = models.CharField(_("matching key"), max_length=3 * NAME_MAX_LENGTH, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["key"]
        constraints = [
            models.UniqueConstraint(fields=["key"], name="player_name_unique_ci"),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_empty"),
            models.CheckConstraint(condition=~Q(key=""), name="player_key_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.key = name_key(self.name)
        super().save(*args, **kwargs)


class Table(models.Model):
    """A knockout table: one game after another with the same mode."""

    class Mode(models.TextChoices):
        WINNER_TAKES_ALL = scoring.WINNER_TAKES_ALL, _("Winner takes all")
        RANKED = scoring.RANKED, _("Ranked (3/2/1)")

    name = models.CharField(_("table name"), max_length=TABLE_NAME_MAX_LENGTH)
    mode = models.CharField(_("mode"), max_length=20, choices=Mode.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    # Bumped by every write on the table; the ETag that makes polling cheap is built on it.
    version = models.PositiveIntegerField(_("version"), default=0)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="table_name_not_empty"),
            models.CheckConstraint(
                condition=Q(mode__in=["winner_takes_all", "ranked"]), name="table_mode_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.closed_at is None

    @property
    def is_ranked(self) -> bool:
        return scoring.is_ranked(self.mode)

    def can_be_changed_by(self, user) -> bool:
        """The host who launched a table acts on it, and so do admins and hosts given the
        "change table" permission (for a second host sharing the table)."""
        return user.is_authenticated and (
            user.pk == self.created_by_id
            or user.is_superuser
            or user.has_perm("matches.change_table")
        )


class MatchQuerySet(models.QuerySet):
    def open(self) -> "MatchQuerySet":
        return self.filter(status=Match.Status.OPEN)

    def filed(self) -> "MatchQuerySet":
        return self.filter(status=Match.Status.FILED)

    def live(self) -> "MatchQuerySet":
        """Open and filed matches: everything but the discarded."""
        return self.exclude(status=Match.Status.DISCARDED)


class Match(models.Model):
    """One game at a table, from every player standing to one survivor."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        FILED = "filed", _("filed")
        # An opened match that never happened (its table closed, or the crowning before it
        # was undone). Kept, not deleted, so the audit trail of any undone taps survives.
        DISCARDED = "discarded", _("discarded")

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="matches", verbose_name=_("table")
    )
    number = models.PositiveIntegerField(_("number"))
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN
    )
    first_dealer = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("first dealer")
    )
    winner = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="matches_won",
        verbose_name=_("winner"),
    )
    opened_at = models.DateTimeField(_("opened at"), auto_now_add=True)
    filed_at = models.DateTimeField(_("filed at"), null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["table", "number", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "number"],
                condition=~Q(status="discarded"),
                name="match_number_unique_per_table",
            ),
            models.UniqueConstraint(
                fields=["table"], condition=Q(status="open"), name="match_one_open_per_table"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "filed", "discarded"]), name="match_status_valid"
            ),
            # A filed match has exactly one winner and a filing time; any other has neither.
            models.CheckConstraint(
                condition=(
                    Q(status="filed", winner__isnull=False, filed_at__isnull=False)
                    | (~Q(status="filed") & Q(winner__isnull=True, filed_at__isnull=True))
                ),
                name="match_winner_iff_filed",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="match_number_positive"),
        ]
        indexes = [
            models.Index(fields=["status", "filed_at"], name="match_status_filed_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.number}"


class Seat(models.Model):
    """A player seated in a match, in clockwise order, with the place they finished."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="seats", verbose_name=_("match")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="seats", verbose_name=_("player")
    )
    position = models.PositiveSmallIntegerField(_("seat"))
    # Null while standing; set by the tap that knocks the player out, or to 1 by the crowning.
    place = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["match", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "player"], name="seat_player_once_per_match"),
            models.UniqueConstraint(fields=["match", "position"], name="seat_position_unique"),
            models.UniqueConstraint(
                fields=["match", "place"],
                condition=Q(place__isnull=False),
                name="seat_place_unique_per_match",
            ),
            models.CheckConstraint(
                condition=Q(place__isnull=True) | Q(place__gte=1, place__lte=MAX_PLAYERS),
                name="seat_place_in_range",
            ),
            models.CheckConstraint(
                condition=Q(position__lt=MAX_PLAYERS), name="seat_position_in_range"
            ),
        ]
        indexes = [models.Index(fields=["player", "match"], name="seat_player_match_idx")]

    def __str__(self) -> str:
        return f"{self.player} @ {self.match}"


class Tap(models.Model):
    """One tap that put a player out. Undone taps stay here as the audit trail."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="taps", verbose_name=_("match")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("player")
    )
    place = models.PositiveSmallIntegerField(_("place"))
    # The client's idempotency key: a request sent twice carries the same key and is
    # answered with the first one's result instead of being applied again.
    key = models.UUIDField(_("idempotency key"), unique=True)
    tapped_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("tapped by"),
    )
    tapped_at = models.DateTimeField(_("tapped at"), auto_now_add=True)
    undone_at = models.DateTimeField(_("undone at"), null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("undone by"),
    )

    class Meta:
        verbose_name = _("tap")
        verbose_name_plural = _("taps")
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "player"],
                condition=Q(undone_at__isnull=True),
                name="tap_player_once_per_match",
            ),
            models.UniqueConstraint(
                fields=["match", "place"],
                condition=Q(undone_at__isnull=True),
                name="tap_place_unique_per_match",
            ),
            # A tap never gives first place: the survivor is crowned, not tapped.
            models.CheckConstraint(
                condition=Q(place__gte=2, place__lte=MAX_PLAYERS), name="tap_place_in_range"
            ),
            models.CheckConstraint(
                condition=Q(undone_at__isnull=True, undone_by__isnull=True)
                | Q(undone_at__isnull=False, undone_by__isnull=False),
                name="tap_undone_by_with_undone_at",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} out {self.place} @ {self.match}"

    @property
    def is_undone(self) -> bool:
        return self.undone_at is not None


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

    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player")
    )
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="+", verbose_name=_("table")
    )

    class Meta(CountFields.Meta):
        abstract = True


class DailyTally(Counts):
    """A player's filed results at one table on one day: standings over a date range."""

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

    def __str__(self) -> str:
        return f"{self.player} @ {self.table}"


class RunningTotal(CountFields):
    """A player's filed results at tables of one mode (or of all: ALL_MODES) over every day
    up to and including this one (see running_totals.py): standings over any date range
    subtract two of these per player, however many days the range holds."""

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

    class Meta:
        verbose_name = _("running total")
        verbose_name_plural = _("running totals")
        # The unique (player, mode, day) is the index a range read seeks along: the latest
        # row on or before a day is one step back from it. No index of its own on player.
        constraints = [
            *CountFields.Meta.constraints,
            models.UniqueConstraint(fields=["player", "mode", "day"], name="running_total_unique"),
            models.CheckConstraint(
                condition=Q(mode__in=["winner_takes_all", "ranked", "all"]),
                name="running_total_mode",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.mode} to {self.day}"


class StandingsStamp(models.Model):
    """One row: a stamp that changes whenever any standings change (a match filed or
    unfiled), so standings can be cached and revalidated. The epoch changes on a restore."""

    epoch = models.UUIDField(_("epoch"), default=uuid.uuid4)
    version = models.PositiveIntegerField(_("version"), default=0)

    class Meta:
        verbose_name = _("league stamp")
        verbose_name_plural = _("league stamp")
        constraints = [models.CheckConstraint(condition=Q(id=1), name="league_single_row")]

    def __str__(self) -> str:
        return f"{self.epoch}.{self.version}"


class PlayerRating(models.Model):
    """A player's skill rating after their latest filed match (see ratings.py): what the
    rating lists read instead of replaying the league."""

    player = models.OneToOneField(
        Player,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="rating",
        verbose_name=_("player"),
    )
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    matches = models.PositiveIntegerField(_("rated matches"))
    # The career summary after the latest match, copied from its RatingChange: the player
    # page reads these instead of every seat.
    run = models.PositiveIntegerField(_("current winning run"), default=0)
    longest_run = models.PositiveIntegerField(_("longest winning run"), default=0)
    best_place = models.PositiveSmallIntegerField(_("best ranked place"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.CheckConstraint(condition=Q(sigma__gt=0), name="rating_sigma_positive"),
            models.CheckConstraint(condition=Q(matches__gte=1), name="rating_has_matches"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.mu}±{self.sigma}"


class RatingChange(models.Model):
    """One player's rating before and after one filed match. Undoing a crowning restores the
    "before" values and replays only the matches filed after it."""

    # No index of their own: the unique (match, player) and the (player, number) index lead
    # with them, and every index more is written by every filing.
    match = models.ForeignKey(
        Match,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        verbose_name=_("match"),
        db_index=False,
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="rating_changes",
        verbose_name=_("player"),
        db_index=False,
    )
    # Null before a player's first match: they start from the model's default rating.
    mu_before = models.FloatField(_("mu before"), null=True)
    sigma_before = models.FloatField(_("sigma before"), null=True)
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    # The player's career at this match, so the player page pages and charts by an index
    # instead of reading every seat: the match's number in their career (1 = first), where
    # they finished, whether the table was ranked, the winning run ending here (0 if not a
    # win), the longest run and the best ranked place so far.
    number = models.PositiveIntegerField(_("number in the career"))
    place = models.PositiveSmallIntegerField(_("place"))
    ranked = models.BooleanField(_("ranked"))
    run = models.PositiveIntegerField(_("winning run"))
    longest_run = models.PositiveIntegerField(_("longest winning run"))
    best_place = models.PositiveSmallIntegerField(_("best ranked place"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        constraints = [
            models.UniqueConstraint(fields=["match", "player"], name="rating_change_once"),
            models.CheckConstraint(condition=Q(sigma__gt=0), name="rating_change_sigma_positive"),
            models.CheckConstraint(
                condition=Q(mu_before__isnull=True, sigma_before__isnull=True)
                | Q(mu_before__isnull=False, sigma_before__isnull=False),
                name="rating_change_before_whole",
            ),
        ]
        indexes = [models.Index(fields=["player", "number"], name="rating_change_career_idx")]

    def __str__(self) -> str:
        return f"{self.player_id} @ {self.match_id}: {self.mu}±{self.sigma}"


class HeadToHead(models.Model):
    """How often a player shared a filed match with an opponent and finished above or below
    them (see head_to_head.py); kept for both directions of every pair by the services."""

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
        ]

    def __str__(self) -> str:
        return self.name


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
