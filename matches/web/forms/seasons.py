"""A season: its name, its days and its best nights rule."""

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from matches.models import Season
from matches.results import seasons
from matches.rules import qualifying
from matches.rules.limits import SEASON_NAME_MAX_LENGTH
from matches.web.forms.fields import day_field, name_field

# A number of nights: the season's minimum to be ranked and the qualifiers' minimum.
NIGHTS_ERRORS = {
    "min_value": _("Enter a number of nights, 0 or more."),
    "max_value": _("A season counts at most %(limit_value)s nights."),
    "invalid": _("Enter a whole number of nights."),
}


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
        error_messages=NIGHTS_ERRORS,
    )

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        if cleaned.get("min_nights") and not cleaned.get("best_nights"):
            self.add_error("min_nights", _("A minimum of nights goes with best nights counted."))
        return cleaned


class SeasonRulesForm(forms.Form):
    """A season's qualification rules (rules.qualifying), and after its first night the
    confirmation of exactly the change shown (season_rules.RulesChange.token)."""

    label_suffix = ""

    places = forms.IntegerField(
        label=_("Finalists per venue"),
        min_value=1,
        max_value=qualifying.MAX_PLACES,
        help_text=_("Each venue’s top players; with a percentage, the most a venue sends."),
        error_messages={
            "required": _("Give each venue a number of places."),
            "min_value": _("Give each venue at least one place."),
            "max_value": _("A venue sends at most %(limit_value)s players."),
            "invalid": _("Enter a whole number of players."),
        },
    )
    percent = forms.IntegerField(
        label=_("Or a percentage of each venue’s ranked players"),
        required=False,
        min_value=1,
        max_value=100,
        help_text=_("Rounded up, and never more than the places above. Leave empty for the top."),
        error_messages={
            "min_value": _("A percentage is between 1 and 100."),
            "max_value": _("A percentage is between 1 and 100."),
            "invalid": _("Enter a whole percentage."),
        },
    )
    min_nights = forms.IntegerField(
        label=_("Minimum nights at the venue"),
        required=False,
        min_value=0,
        max_value=qualifying.MAX_NIGHTS,
        help_text=_(
            "For a venue open on every night of the league; a venue that ran fewer nights "
            "asks for fewer. Leave empty for none."
        ),
        error_messages=NIGHTS_ERRORS,
    )
    best_nights = forms.BooleanField(
        label=_("Count only each player’s best nights (the season’s own rule)"), required=False
    )
    one_venue = forms.BooleanField(
        label=_("One venue per player: their best position; other places pass down"),
        required=False,
    )
    confirm = forms.CharField(required=False, widget=forms.HiddenInput, max_length=400)

    def __init__(self, *args, season: Season, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.season = season
        if season.best_nights is None:
            self.fields["best_nights"].disabled = True
            self.fields["best_nights"].help_text = _(
                "This season counts every night: set its best nights counted first."
            )
        else:
            self.fields["best_nights"].help_text = ngettext_lazy(
                "Its best %(count)s night.", "Its best %(count)s nights.", "count"
            ) % {"count": season.best_nights}

    @classmethod
    def initial_of(cls, season: Season) -> dict:
        return {
            "places": season.qualify_places,
            "percent": season.qualify_percent,
            "min_nights": season.qualify_min_nights or None,
            "best_nights": season.qualify_best_nights,
            "one_venue": season.qualify_one_venue,
        }

    def rules(self) -> qualifying.QualifyingRules:
        data = self.cleaned_data
        return qualifying.QualifyingRules(
            places=data["places"],
            percent=data["percent"],
            min_nights=data["min_nights"] or 0,
            best_nights=self.season.best_nights if data["best_nights"] else None,
            one_venue=data["one_venue"],
        )
