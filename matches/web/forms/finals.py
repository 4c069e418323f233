"""A season's finals night as the organiser sets it up: the venue, the mode, how many heats,
how they are made, and how many runners-up join the heats' winners in the final."""

from django import forms
from django.utils.translation import gettext_lazy as _

from matches.models import FinalsSeeding, Table, Venue
from matches.rules import finals as rules
from matches.rules.limits import MAX_PLAYERS, MIN_PLAYERS

WHOLE_NUMBER = _("Enter a whole number.")


class FinalsForm(forms.Form):
    label_suffix = ""

    venue = forms.ModelChoiceField(
        label=_("Venue"),
        queryset=Venue.objects.order_by("name"),
        empty_label=None,
        error_messages={"invalid_choice": _("Choose the venue of the finals night.")},
    )
    mode = forms.ChoiceField(
        label=_("Mode"),
        choices=Table.Mode.choices,
        initial=Table.Mode.RANKED,
        widget=forms.RadioSelect,
    )
    heats = forms.IntegerField(
        label=_("Heats"),
        min_value=rules.MIN_HEATS,
        max_value=99,
        help_text=_("Each heat seats 3 to 10 finalists, as evenly as they divide."),
        error_messages={
            "min_value": _("A finals night needs at least %(limit_value)s heats."),
            "max_value": _("At most %(limit_value)s heats."),
            "invalid": WHOLE_NUMBER,
        },
    )
    seeding = forms.ChoiceField(
        label=_("Heats made by"),
        choices=FinalsSeeding.choices,
        initial=FinalsSeeding.SPREAD,
        widget=forms.RadioSelect,
    )
    runners_up = forms.IntegerField(
        label=_("Runners-up through to the final"),
        min_value=0,
        max_value=MAX_PLAYERS,
        initial=1,
        help_text=_(
            "Every heat’s winner goes through; these best runners-up by season position join "
            "them (2nd place, or the last one out at winner takes all)."
        ),
        error_messages={
            "min_value": _("Enter 0 or more runners-up."),
            "max_value": _("At most %(limit_value)s runners-up go through."),
            "invalid": WHOLE_NUMBER,
        },
    )

    @staticmethod
    def initial_for(finalists: int, venue: Venue | None) -> dict:
        """Heats of about six, at least two."""
        heats = max(rules.MIN_HEATS, round(finalists / 6))
        heats = min(heats, max(rules.MIN_HEATS, finalists // MIN_PLAYERS))
        return {"heats": heats, "runners_up": 1, "venue": venue}
