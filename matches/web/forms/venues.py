"""A venue's name and the sites that may frame its standings; a newcomer's account made
from an invitation."""

from django import forms
from django.utils.translation import gettext_lazy as _

from matches.org import venues
from matches.rules.limits import VENUE_NAME_MAX_LENGTH
from matches.web.forms.accounts import FirstHostForm
from matches.web.forms.fields import name_field


class VenueForm(forms.Form):
    label_suffix = ""

    name = name_field(
        _("Venue name"),
        max_length=VENUE_NAME_MAX_LENGTH,
        empty=venues.VENUE_NAME_EMPTY,
        too_long=venues.VENUE_NAME_TOO_LONG,
    )


class FrameOriginsForm(forms.Form):
    label_suffix = ""

    origins = forms.CharField(
        label=_("Sites that may embed the standings"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false", "autocapitalize": "none"}),
        help_text=_(
            "One address per line, as https://thecrown.example: the pub’s own website may then "
            "show this venue’s standings in a frame. Leave empty to allow none."
        ),
    )


class JoinForm(FirstHostForm):
    """A new host's account, made from an invitation: the first host's form and rules."""
