"""Venues (the pubs a league plays at), who hosts or manages at each, and the invitations that
bring a new host in. The organiser is an account with Django's superuser flag: the first host,
and whoever an organiser makes one (org.roles)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.rules.limits import VENUE_NAME_MAX_LENGTH, VENUE_SLUG_MAX_LENGTH
from matches.rules.names import name_key


class Venue(models.Model):
    """A pub of the league: every table is launched at one, for good."""

    name = models.CharField(_("venue name"), max_length=VENUE_NAME_MAX_LENGTH)
    # The name ignoring case and spacing (rules.names.name_key): two venues never share it.
    key = models.CharField(_("matching key"), max_length=3 * VENUE_NAME_MAX_LENGTH, editable=False)
    slug = models.SlugField(_("slug"), max_length=VENUE_SLUG_MAX_LENGTH, unique=True)
    # Origins (scheme://host[:port]) allowed to frame the venue's standings embed, one per
    # line; every other page refuses to be framed.
    frame_origins = models.TextField(_("sites that may embed the standings"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("venue")
        verbose_name_plural = _("venues")
        ordering = ["key"]
        constraints = [
            models.UniqueConstraint(fields=["key"], name="venue_name_unique_ci"),
            models.CheckConstraint(condition=~Q(name=""), name="venue_name_not_empty"),
            models.CheckConstraint(condition=~Q(slug=""), name="venue_slug_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.key = name_key(self.name)
        super().save(*args, **kwargs)


class VenueRole(models.Model):
    """A host's place at a venue: a host runs its tables; a manager also invites and removes
    its hosts. One role per person and venue; a person may have roles at several venues."""

    class Kind(models.TextChoices):
        HOST = "host", _("Host")
        MANAGER = "manager", _("Manager")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="venue_roles",
        verbose_name=_("user"),
    )
    venue = models.ForeignKey(
        Venue, on_delete=models.CASCADE, related_name="roles", verbose_name=_("venue")
    )
    kind = models.CharField(_("role"), max_length=10, choices=Kind.choices, default=Kind.HOST)
    granted_at = models.DateTimeField(_("granted at"), auto_now_add=True)

    class Meta:
        verbose_name = _("venue role")
        verbose_name_plural = _("venue roles")
        constraints = [
            models.UniqueConstraint(fields=["user", "venue"], name="venue_role_unique"),
            models.CheckConstraint(
                condition=Q(kind__in=["host", "manager"]), name="venue_role_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.venue}: {self.kind}"


class HostInvitation(models.Model):
    """A link that lets one person join a venue as a host: it expires, and works once. Only
    the token's hash is stored, so the database never holds a working link."""

    venue = models.ForeignKey(
        Venue, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("venue")
    )
    kind = models.CharField(
        _("role"), max_length=10, choices=VenueRole.Kind.choices, default=VenueRole.Kind.HOST
    )
    token_hash = models.CharField(_("token hash"), max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"))
    used_at = models.DateTimeField(_("used at"), null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("used by"),
    )

    class Meta:
        verbose_name = _("host invitation")
        verbose_name_plural = _("host invitations")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.venue}: {self.kind}"
