"""What a host account carries beyond Django's user: the name the public is shown."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from matches.rules.limits import HOST_NAME_MAX_LENGTH


class HostProfile(models.Model):
    """A host's display name, the one thing the public sees of who tapped: a login username
    is half of a credential, so it is shown to logged-in hosts only. No row, or an empty
    name, reads "host"."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="host_profile",
        verbose_name=_("user"),
    )
    display_name = models.CharField(
        _("display name"),
        max_length=HOST_NAME_MAX_LENGTH,
        blank=True,
        help_text=_(
            "What spectators see in a match's audit trail instead of the username (which only "
            "logged-in hosts see). Empty: “host”."
        ),
    )

    class Meta:
        verbose_name = _("host profile")
        verbose_name_plural = _("host profiles")

    def __str__(self) -> str:
        return self.display_name
