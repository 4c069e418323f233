"""Players, tables, matches, seats and taps: the facts of play and the database constraints
that stand behind the services' rules."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.models.venues import Venue
from matches.rules import scoring
from matches.rules.limits import MAX_PLAYERS, NAME_MAX_LENGTH, TABLE_NAME_MAX_LENGTH
from matches.rules.names import erased_player_key, name_key, shown_player_name


class Player(models.Model):
    """A person in the league, known by one name whatever its case, shown as first written."""

    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH)
    key = models.CharField(_("matching key"), max_length=3 * NAME_MAX_LENGTH, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # What the public reads instead of the name (empty: the name as entered); hidden shows
    # "Player N" instead; erased: the name is gone for good ("Former player N" to everyone).
    # Which one a viewer reads is rules.names.shown_player_name.
    public_name = models.CharField(
        _("public name"), max_length=NAME_MAX_LENGTH, blank=True, default=""
    )
    hidden = models.BooleanField(_("hidden from the public"), default=False)
    erased_at = models.DateTimeField(_("erased at"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["key"]
        constraints = [
            models.UniqueConstraint(fields=["key"], name="player_name_unique_ci"),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_empty"),
            models.CheckConstraint(condition=~Q(key=""), name="player_key_not_empty"),
            # An erased player keeps no name of any kind.
            models.CheckConstraint(
                condition=Q(erased_at__isnull=True) | Q(public_name="", hidden=False),
                name="player_erased_keeps_no_public_name",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # An erased record's key matches no typed name (rules.names.erased_player_key).
        self.key = erased_player_key(self.pk) if self.erased_at else name_key(self.name)
        super().save(*args, **kwargs)

    def shown_name(self, *, real: bool) -> str:
        """The name a viewer reads: real for a host, the public's otherwise (see
        rules.names.shown_player_name)."""
        return shown_player_name(
            player_id=self.pk,
            name=self.name,
            public_name=self.public_name,
            hidden=self.hidden,
            erased=self.erased_at is not None,
            real=real,
        )


# The choices of Table.mode and Match.status are defined at module level, and named inside
# their models, so that each Meta's constraints can spell their members: a nested class
# body does not see the names of the class around it.


class TableMode(models.TextChoices):
    WINNER_TAKES_ALL = scoring.WINNER_TAKES_ALL, _("Winner takes all")
    RANKED = scoring.RANKED, _("Ranked (3/2/1)")


class Table(models.Model):
    """A knockout table: one game after another with the same mode."""

    Mode = TableMode

    name = models.CharField(_("table name"), max_length=TABLE_NAME_MAX_LENGTH)
    mode = models.CharField(_("mode"), max_length=20, choices=Mode.choices)
    # Where the table is played, from launch for good: who may change it, and which venue's
    # standings count its matches.
    venue = models.ForeignKey(
        Venue, on_delete=models.PROTECT, related_name="tables", verbose_name=_("venue")
    )
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
    # A heat or the final of a season's finals night (models.finals): it plays one match,
    # and its crowning closes it instead of opening the next. Read with the row a tap's
    # bump returns, so an ordinary crowning pays nothing to know it is not one.
    finals = models.BooleanField(_("finals"), default=False, editable=False)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="table_name_not_empty"),
            models.CheckConstraint(
                condition=Q(mode__in=[TableMode.WINNER_TAKES_ALL, TableMode.RANKED]),
                name="table_mode_valid",
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


class MatchQuerySet(models.QuerySet):
    def open(self) -> "MatchQuerySet":
        return self.filter(status=Match.Status.OPEN)

    def filed(self) -> "MatchQuerySet":
        return self.filter(status=Match.Status.FILED)

    def live(self) -> "MatchQuerySet":
        """Open and filed matches: everything but the discarded."""
        return self.exclude(status=Match.Status.DISCARDED)


class MatchStatus(models.TextChoices):
    OPEN = "open", _("open")
    FILED = "filed", _("filed")
    # An opened match that never happened (its table closed, or the crowning before it
    # was undone). Kept, not deleted, so the audit trail of any undone taps survives.
    DISCARDED = "discarded", _("discarded")


class Match(models.Model):
    """One game at a table, from every player standing to one survivor."""

    Status = MatchStatus

    class DiscardReason(models.TextChoices):
        # Why a match was discarded: the audit page says which, since a number used again
        # (after a close and reopen, or an undone and redone crowning) shows both games.
        CLOSED = "closed", _("the table was closed")
        UNDONE = "undone", _("the crowning before it was undone")

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
    # Blank on matches discarded before the reason was recorded.
    discard_reason = models.CharField(
        _("discard reason"), max_length=10, choices=DiscardReason.choices, blank=True
    )
    discarded_at = models.DateTimeField(_("discarded at"), null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["table", "number", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "number"],
                condition=~Q(status=MatchStatus.DISCARDED),
                name="match_number_unique_per_table",
            ),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(status=MatchStatus.OPEN),
                name="match_one_open_per_table",
            ),
            models.CheckConstraint(
                condition=Q(
                    status__in=[MatchStatus.OPEN, MatchStatus.FILED, MatchStatus.DISCARDED]
                ),
                name="match_status_valid",
            ),
            # A filed match has exactly one winner and a filing time; any other has neither.
            models.CheckConstraint(
                condition=(
                    Q(status=MatchStatus.FILED, winner__isnull=False, filed_at__isnull=False)
                    | (~Q(status=MatchStatus.FILED) & Q(winner__isnull=True, filed_at__isnull=True))
                ),
                name="match_winner_iff_filed",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="match_number_positive"),
            # Only a discarded match carries a reason and a time for it.
            models.CheckConstraint(
                condition=Q(status=MatchStatus.DISCARDED)
                | Q(discard_reason="", discarded_at__isnull=True),
                name="match_discard_only_when_discarded",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "filed_at"], name="match_status_filed_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.number}"


class Seat(models.Model):
    """A player seated in a match, in clockwise order, with the place they finished."""

    # No index of their own: the unique (match, player) and the (player, match) index lead
    # with them. A merge moves thousands of seats, and every index is written for each.
    match = models.ForeignKey(
        Match,
        on_delete=models.CASCADE,
        related_name="seats",
        verbose_name=_("match"),
        db_index=False,
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="seats",
        verbose_name=_("player"),
        db_index=False,
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
    # The hosts' columns have no index: a tap is only ever found by its match, player or key,
    # and a merge moves thousands of taps, writing every index again for each. Deleting a
    # host, the one thing that looks taps up by host (PROTECT), reads the table instead.
    tapped_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("tapped by"),
        db_index=False,
    )
    # The host whose tablet queued the tap while offline, when another host's session sent
    # it (NULL: queued and sent by the same host, or tapped online).
    queued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("queued by"),
        db_index=False,
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
        db_index=False,
    )
    # As queued_by, for the undo.
    undo_queued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("undo queued by"),
        db_index=False,
    )

    class Meta:
        verbose_name = _("tap")
        verbose_name_plural = _("taps")
        ordering = ["id"]
        # No "one live tap per player" constraint: a correction moves players between
        # places without rewriting the taps, so once its crowning is undone a player tapped
        # in one place may be tapped again in the place the correction gave them. The tap
        # service refuses a player already out (their seat's place) under the table's lock.
        constraints = [
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
