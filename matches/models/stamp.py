"""The league's one-row stamp: moved by every change the standings show, and given a new
epoch by a restore."""

import uuid

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


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
