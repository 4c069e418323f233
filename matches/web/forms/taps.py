"""The table's taps and undos, as the page's buttons and the tablet's queue post them."""

import uuid

from django import forms
from django.contrib.auth import get_user_model

from matches.rules.limits import ID_MAX


class _QueuedForm(forms.Form):
    """An entry of the tablet's queue may be sent by another host's session than the one
    that made it (a shared tablet, logged in again): queued_by names the host who made it."""

    queued_by = forms.IntegerField(required=False, min_value=1, max_value=ID_MAX)

    def __init__(self, *args, sender=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The host sending the request: naming them costs no query.
        self.sender = sender

    def clean_queued_by(self):
        pk = self.cleaned_data["queued_by"]
        if pk is None:
            return None
        if self.sender is not None and pk == self.sender.pk:
            return self.sender
        user = get_user_model().objects.filter(pk=pk).first()
        if user is None:
            raise forms.ValidationError("no such user", code="unknown_user")
        return user


class TapForm(_QueuedForm):
    # The match by its server id (the page's form, and the queue once it saw the id), by the
    # key of the crowning that opened it (after: the queue predicted that match while
    # offline), or by its number on this table (scripts and the page without JavaScript). A
    # number sent with either must agree with the match they name.
    match = forms.IntegerField(required=False, min_value=1, max_value=ID_MAX)
    number = forms.IntegerField(required=False, min_value=1, max_value=ID_MAX)
    after = forms.UUIDField(required=False)
    player = forms.IntegerField(min_value=1, max_value=ID_MAX)
    # A fresh key per rendered button; a missing key only loses duplicate protection.
    key = forms.UUIDField(required=False)

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        if all(cleaned.get(name) is None for name in ["match", "number", "after"]):
            raise forms.ValidationError("name the match", code="no_match")
        return cleaned

    def service_kwargs(self) -> dict:
        data = self.cleaned_data
        return {
            "match_id": data["match"],
            "match_number": data["number"],
            "after_key": data["after"],
            "player_id": data["player"],
            "key": data["key"] or uuid.uuid4(),
            "queued_by": data["queued_by"],
        }


class UndoForm(_QueuedForm):
    # The tap the host saw as the latest; absent means "whatever is latest". The page's
    # button names it by id, the tablet's queue by the key it tapped with.
    tap = forms.IntegerField(required=False, min_value=1, max_value=ID_MAX)
    tap_key = forms.UUIDField(required=False)
    # Sent by the confirmation page: the next match's new roster may go with the undo.
    drop_roster = forms.BooleanField(required=False)

    def service_kwargs(self) -> dict:
        data = self.cleaned_data
        return {
            "tap_id": data["tap"],
            "tap_key": data["tap_key"],
            "drop_roster": data["drop_roster"],
            "queued_by": data["queued_by"],
        }
