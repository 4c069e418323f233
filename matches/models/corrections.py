"""Corrections of filed matches: who changed the order players went out in, when, and the
order before and after, kept beside the match as its audit trail."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.models.tables import Match


class MatchCorrection(models.Model):
    """One correction of a filed match's order. The orders are the players' names as they
    read at the time, in the order they went out, the winner last: an audit line says what
    the host saw, whatever a later rename or merge does to the records."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="corrections", verbose_name=_("match")
    )
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("corrected by"),
    )
    corrected_at = models.DateTimeField(_("corrected at"), auto_now_add=True)
    before = models.JSONField(_("order before"))
    after = models.JSONField(_("order after"))

    class Meta:
        verbose_name = _("match correction")
        verbose_name_plural = _("match corrections")
        ordering = ["match", "id"]
        constraints = [
            # A correction changes the order: an unchanged one is refused before it is kept.
            models.CheckConstraint(
                condition=~Q(before=models.F("after")), name="correction_changes_order"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} corrected {self.corrected_at:%Y-%m-%d %H:%M}"
