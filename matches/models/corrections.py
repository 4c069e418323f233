"""Corrections of filed matches: who changed the order players went out in, when, and the
order before and after, kept beside the match's taps as its own record: the taps say what
was tapped, and are never rewritten."""

from collections.abc import Sequence

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.models.tables import Match, Tap


class MatchCorrection(models.Model):
    """One correction of a filed match's order. The orders are the match's seats (their ids),
    in the order their players went out, the winner last: a seat stays with its match
    whatever a rename, a merge or an erasure does to its player, so the record holds no
    name and every page reads each player's name as it reads now.

    The correction covers the match's taps up to through_tap: each of them names who was
    tapped, and the player out in its place is the one this (the latest covering)
    correction puts there. A tap made after it (the crowning undone, the match played on)
    names its player itself."""

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
    before_seats = models.JSONField(_("order before"))
    after_seats = models.JSONField(_("order after"))
    through_tap = models.ForeignKey(
        Tap,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("latest tap covered"),
    )

    class Meta:
        verbose_name = _("match correction")
        verbose_name_plural = _("match corrections")
        ordering = ["match", "id"]
        constraints = [
            # A correction changes the order: an unchanged one is refused before it is kept.
            models.CheckConstraint(
                condition=~Q(before_seats=models.F("after_seats")),
                name="correction_changes_order",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} corrected {self.corrected_at:%Y-%m-%d %H:%M}"

    def covers(self, tap_id: int) -> bool:
        """Whether a tap of the match was made before this correction."""
        return self.through_tap_id is not None and self.through_tap_id >= tap_id

    def seat_in(self, place: int) -> int:
        """The seat (its id) this correction puts in a place."""
        return self.after_seats[len(self.after_seats) - place]


def covering(corrections: Sequence[MatchCorrection], tap_id: int) -> MatchCorrection | None:
    """The correction that says who is out in a tap's place (corrections: the tap's match's,
    oldest first): the latest one made after the tap; None when the tap came after them all
    (its own player is out in its place)."""
    return next((c for c in reversed(corrections) if c.covers(tap_id)), None)
