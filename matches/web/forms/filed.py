"""A table's filed matches: which page of them to show, and correcting one."""

from django import forms
from django.utils.translation import gettext_lazy as _

from matches.rules.limits import ID_MAX, MAX_PLAYERS, NAME_MAX_LENGTH


class FiledPageForm(forms.Form):
    """Which page of a table's filed matches: ?before=<number>, the matches numbered below
    it (the latest without it). The page and the JSON link each page to the next."""

    before = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=ID_MAX,
        error_messages={
            "invalid": _("before must be a match number."),
            "min_value": _("before must be a match number."),
            "max_value": _("before must be a match number."),
        },
    )


class CorrectionForm(forms.Form):
    """A filed match's players in the order they went out, one per line, the winner last
    (the page's buttons rewrite it); confirm, once the host has agreed to correct a match of
    a night that is over."""

    label_suffix = ""

    players = forms.CharField(
        label=_("Order they went out"),
        # Every name of a full table, with room for the spacing a hand adds.
        max_length=MAX_PLAYERS * (NAME_MAX_LENGTH + 8),
        help_text=_("One name per line: the first out first, the winner last."),
        widget=forms.Textarea(attrs={"rows": MAX_PLAYERS, "spellcheck": "false"}),
        error_messages={"required": _("List the players, one name per line.")},
    )
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean_players(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["players"].splitlines() if line.strip()]
