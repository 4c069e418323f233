"""Stored skill ratings: each player's latest rating and every filed match's changes."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.models.tables import Match, Player


class PlayerRating(models.Model):
    """A player's skill rating after their latest filed match (see ratings/store.py): what the
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


class RatingsReplay(models.Model):
    """One row: where the stored ratings stop being final. Every RatingChange of a match
    filed before (from_filed_at, from_match_id) in filing order is exact; from that position
    on the replay (ratings/steps.py) rewrites them in short batches after the answer, and
    PlayerRating keeps the last settled values until it reaches the end. An empty position
    means settled. An undo, a merge or a match filed out of order moves the position back,
    never forward; only the replay moves it forward."""

    from_filed_at = models.DateTimeField(_("replay from (filed at)"), null=True, blank=True)
    # Not a foreign key: the match that moved the position back may be the one undone.
    from_match_id = models.BigIntegerField(_("replay from (match id)"), null=True, blank=True)
    # Moves whenever the position moves back: a replayer's states kept in memory are void.
    generation = models.PositiveBigIntegerField(_("generation"), default=0)
    scheduled_at = models.DateTimeField(_("scheduled at"), null=True, blank=True)
    # Matches rated since scheduled_at, for progress.
    replayed = models.PositiveIntegerField(_("matches replayed"), default=0)
    # The process replaying now, until when: another waits (or takes over once it lapses).
    lease_owner = models.CharField(_("lease owner"), max_length=64, blank=True)
    lease_until = models.DateTimeField(_("lease until"), null=True, blank=True)

    class Meta:
        verbose_name = _("ratings replay")
        verbose_name_plural = _("ratings replay")
        constraints = [
            models.CheckConstraint(condition=Q(id=1), name="ratings_replay_single_row"),
            models.CheckConstraint(
                condition=Q(from_filed_at__isnull=True, from_match_id__isnull=True)
                | Q(from_filed_at__isnull=False, from_match_id__isnull=False),
                name="ratings_replay_position_whole",
            ),
        ]

    def __str__(self) -> str:
        if self.from_match_id is None:
            return "settled"
        return f"from {self.from_filed_at} #{self.from_match_id}"

    @property
    def pending(self) -> bool:
        return self.from_match_id is not None
