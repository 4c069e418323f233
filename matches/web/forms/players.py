"""A player's record: renaming it, merging another into it, its name in public."""

from django import forms
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _

from matches.rules.limits import NAME_MAX_LENGTH
from matches.web.forms.fields import name_field


class PlayerRenameForm(forms.Form):
    label_suffix = ""

    name = name_field(
        _("New name"),
        max_length=NAME_MAX_LENGTH,
        empty=_("Type the player’s new name."),
        too_long=_("Player names are at most %(limit_value)s characters."),
    )


class PlayerMergeForm(forms.Form):
    label_suffix = ""

    other = forms.CharField(
        label=_("Name of the other record"),
        max_length=NAME_MAX_LENGTH,
        help_text=_(
            "Its matches, wins, points and rating history become this player’s. Use it when "
            "one person was entered under two names: you see both records before anything "
            "changes, and a merge can be undone."
        ),
        # data-player-pick: the search that static/js/player-pick.js offers names from.
        widget=forms.TextInput(
            attrs={
                "list": "player-names",
                "autocomplete": "off",
                "data-player-pick": reverse_lazy("matches:api_player_search"),
                "data-player-pick-options": _("Players found"),
            }
        ),
        error_messages={"required": _("Type the name of the record to merge into this one.")},
    )


class PlayerMergeConfirmForm(forms.Form):
    """The merge's confirmation: the record shown beside this one, by name and id (a record
    renamed or merged meanwhile is refused, never merged unseen)."""

    other = forms.CharField(max_length=NAME_MAX_LENGTH, widget=forms.HiddenInput)
    other_id = forms.IntegerField(min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput)
    # Asked (and required by the merge) only when the other record is hidden from the public.
    show_hidden = forms.BooleanField(required=False)


class PlayerPublicNameForm(forms.Form):
    label_suffix = ""

    public_name = forms.CharField(
        label=_("Public name"),
        max_length=NAME_MAX_LENGTH,
        required=False,
        help_text=_(
            "What spectators, the TV, the JSON and the CSV files show instead of the name "
            "(for example “Zoë M.”). Leave it empty to show the name as entered. Hosts "
            "always see the name as entered."
        ),
        error_messages={"max_length": _("Player names are at most %(limit_value)s characters.")},
    )
    hidden = forms.BooleanField(
        label=_("Hide from the public"),
        required=False,
        help_text=_("Spectators read “Player %(id)s” instead of any name."),
    )

    def __init__(self, *args, player_id: int, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["hidden"].help_text = str(self.fields["hidden"].help_text) % {"id": player_id}
