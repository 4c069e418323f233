from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from . import services
from .models import Table


class PlayersField(forms.CharField):
    """One name per line, in seating order; blank lines are not names."""

    widget = forms.Textarea(attrs={"rows": 10, "autocapitalize": "words", "spellcheck": "false"})

    def clean(self, value: str) -> list[str]:
        value = super().clean(value)
        lines = [line for line in (value or "").splitlines() if line.strip()]
        try:
            return services.clean_player_names(lines)
        except services.RuleError as error:
            raise forms.ValidationError(error.message) from None


class LaunchForm(forms.Form):
    label_suffix = ""

    name = forms.CharField(
        label=_("Table name"),
        max_length=services.TABLE_NAME_MAX_LENGTH,
        error_messages={
            "required": services.TABLE_NAME_EMPTY,
            "max_length": services.TABLE_NAME_TOO_LONG,
        },
    )
    players = PlayersField(
        label=_("Players"),
        help_text=_("One name per line, in seating order (clockwise), 3 to 10 players."),
        error_messages={"required": _("List the players, one name per line.")},
    )
    mode = forms.ChoiceField(
        label=_("Mode"),
        choices=Table.Mode.choices,
        widget=forms.RadioSelect,
        error_messages={
            "required": services.UNKNOWN_MODE,
            "invalid_choice": services.UNKNOWN_MODE,
        },
    )


class RosterForm(forms.Form):
    label_suffix = ""

    match = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    players = PlayersField(
        label=_("Players"),
        help_text=_(
            "One name per line, in seating order (clockwise), 3 to 10 players. "
            "Add a late arrival, remove someone who left, or reorder the seats."
        ),
        error_messages={"required": _("List the players, one name per line.")},
    )


class TapForm(forms.Form):
    match = forms.IntegerField(min_value=1)
    player = forms.IntegerField(min_value=1)
    # A fresh key per rendered button; a missing key only loses duplicate protection.
    key = forms.UUIDField(required=False)


class UndoForm(forms.Form):
    # The tap the host saw as the latest; absent means "whatever is latest".
    tap = forms.IntegerField(required=False, min_value=1)


class FirstHostForm(UserCreationForm):
    label_suffix = ""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)
