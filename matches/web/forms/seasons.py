"""A season: its name, its days and its best nights rule."""

from django import forms
from django.utils.translation import gettext_lazy as _

from matches.results import seasons
from matches.rules.limits import SEASON_NAME_MAX_LENGTH
from matches.web.forms.fields import day_field, name_field


class SeasonForm(forms.Form):
    label_suffix = ""

    name = name_field(
        _("Season name"),
        max_length=SEASON_NAME_MAX_LENGTH,
        empty=seasons.SEASON_NAME_EMPTY,
        too_long=seasons.SEASON_NAME_TOO_LONG,
    )
    first_day = day_field(_("First day"), required=_("Enter the season’s first day."))
    last_day = day_field(_("Last day"), required=_("Enter the season’s last day."))
    # "Best N nights": empty, every night counts.
    best_nights = forms.IntegerField(
        label=_("Best nights counted"),
        required=False,
        min_value=1,
        max_value=366,
        help_text=_(
            "Each player’s season counts only their best nights. Leave empty to count every night."
        ),
        error_messages={
            "min_value": _("Count at least one night, or leave it empty."),
            "max_value": _("A season counts at most %(limit_value)s nights."),
            "invalid": _("Enter a whole number of nights."),
        },
    )
    min_nights = forms.IntegerField(
        label=_("Minimum nights to be ranked"),
        required=False,
        min_value=0,
        max_value=366,
        help_text=_("Only with best nights counted. Leave empty to rank everyone."),
        error_messages={
            "min_value": _("Enter a number of nights, 0 or more."),
            "max_value": _("A season counts at most %(limit_value)s nights."),
            "invalid": _("Enter a whole number of nights."),
        },
    )

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        if cleaned.get("min_nights") and not cleaned.get("best_nights"):
            self.add_error("min_nights", _("A minimum of nights goes with best nights counted."))
        return cleaned
