"""Hosts' accounts: logging in (the site and the admin), the first host, a host's display
name."""

from typing import Any, cast

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from matches.models import HostProfile
from matches.org import hosts
from matches.rules.limits import HOST_NAME_MAX_LENGTH
from matches.web.forms.errors import refused_as_invalid


class LoginForm(AuthenticationForm):
    """Django's login form, refusing a username longer than any account's before it is
    checked: AuthenticationForm sets that length only on the widget, and django-axes would
    fail (a 500 on PostgreSQL) recording the attempt in its 255-character column."""

    def clean(self) -> dict[str, Any]:
        limit = self.username_field.max_length
        if limit is not None and len(self.cleaned_data.get("username") or "") > limit:
            raise self.get_invalid_login_error()
        return super().clean()


class AdminLoginForm(LoginForm, AdminAuthenticationForm):
    """The admin's login form (staff only, its own wording) with the same guard."""


class FirstHostForm(UserCreationForm):
    """The first host. A weak password is reported under the password field itself (Django
    puts it under the confirmation), and after a failed attempt the form keeps what was
    typed except a password field that failed (and its confirmation)."""

    label_suffix = ""
    field_order = ["username", "display_name", "password1", "password2"]

    display_name = forms.CharField(
        label=_("Display name (optional)"),
        required=False,
        max_length=HOST_NAME_MAX_LENGTH,
        error_messages={"max_length": hosts.HOST_NAME_TOO_LONG},
        help_text=_(
            "What spectators see of you in a match’s audit trail; the username is shown only "
            "to logged-in hosts. Empty: “host”."
        ),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name in ("password1", "password2"):
            self.fields[name].widget.render_value = True

    def clean_display_name(self) -> str:
        username = self.cleaned_data.get("username") or self.data.get("username") or ""
        with refused_as_invalid():
            return hosts.host_display_name_clean(
                self.cleaned_data["display_name"], usernames=[username]
            )

    def validate_password_for_user(self, user, **kwargs) -> None:
        super().validate_password_for_user(user, "password1")

    def full_clean(self) -> None:
        super().full_clean()
        failed = {"password1", "password2"} & set(self.errors)
        if "password1" in failed:
            failed.add("password2")  # it confirmed a password that was refused
        if failed:
            data = cast("QueryDict", self.data).copy()
            for name in failed:
                data[name] = ""
            self.data = data


class HostProfileForm(forms.ModelForm):
    """The admin's display name box: the names' rules, and never an account's username."""

    class Meta:
        model = HostProfile
        fields = ["display_name"]

    def clean_display_name(self) -> str:
        with refused_as_invalid():
            return hosts.host_display_name_clean(self.cleaned_data["display_name"])
