"""A merge of two records of the same person, kept so that it can be undone."""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.models.tables import Player
from matches.rules.limits import NAME_MAX_LENGTH


class PlayerMerge(models.Model):
    """One record (the absorbed player) made part of another (the kept one): every field of
    the absorbed row, to recreate it as it was, and the seats and taps that moved, so an
    undo moves exactly those back (matches filed since stay with whoever played them)."""

    # Not a database constraint: the kept record may itself be merged into a third one
    # (and come back, with its id, when that merge is undone).
    kept = models.ForeignKey(
        Player,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
        verbose_name=_("kept player"),
    )
    absorbed_id = models.BigIntegerField(_("absorbed player's id"))
    absorbed_name = models.CharField(_("absorbed player's name"), max_length=NAME_MAX_LENGTH)
    # Every concrete field of the absorbed Player row as the serializer writes it.
    absorbed = models.JSONField(_("absorbed player's record"), encoder=DjangoJSONEncoder)
    # Ids, not relations: a seat deleted since (a roster edited) simply stays gone.
    seat_ids = models.JSONField(_("seats moved"), default=list)
    tap_ids = models.JSONField(_("taps moved"), default=list)
    merged_at = models.DateTimeField(_("merged at"), auto_now_add=True)
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("merged by"),
    )
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
        verbose_name = _("player merge")
        verbose_name_plural = _("player merges")
        ordering = ["-merged_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(absorbed_name=""), name="player_merge_absorbed_name"
            ),
            models.CheckConstraint(
                condition=~Q(kept=models.F("absorbed_id")), name="player_merge_two_records"
            ),
            models.CheckConstraint(
                condition=Q(undone_at__isnull=True, undone_by__isnull=True)
                | Q(undone_at__isnull=False, undone_by__isnull=False),
                name="player_merge_undone_by_with_undone_at",
            ),
        ]
        indexes = [models.Index(fields=["kept", "undone_at"], name="player_merge_kept_idx")]

    def __str__(self) -> str:
        return f"{self.absorbed_name} → {self.kept_id}"

    @property
    def is_undone(self) -> bool:
        return self.undone_at is not None
