"""Fields and field builders more than one feature's forms use: typed names, the limits a
table seats, date boxes."""

from typing import TYPE_CHECKING

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _

from matches.rules.limits import MAX_PLAYERS, MIN_PLAYERS

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise


def _interpolate(message: "str | StrPromise", params: dict) -> str:
    return str(message) % params


def with_limits(message: "str | StrPromise") -> str:
    """A help text naming how many players a table seats, translated when it is shown (the
    lazy message would otherwise be fixed in the language active at import)."""
    return lazy(_interpolate, str)(message, {"min": MIN_PLAYERS, "max": MAX_PLAYERS})


def name_field(
    label: "str | StrPromise",
    *,
    max_length: int,
    empty: "str | StrPromise",
    too_long: "str | StrPromise",
) -> forms.CharField:
    """A typed name (a table's, a season's, a player's): its limit and the service's own
    words for an empty or overlong one, so the form and the service say the same."""
    return forms.CharField(
        label=label,
        max_length=max_length,
        error_messages={"required": empty, "max_length": too_long},
    )


class DateBoxField(forms.DateField):
    """A date for an <input type="date">: it reads what the box sends (2026-11-30) or a
    British date typed into a shared link (30/11/2026), and always writes the box's format
    back, which the browser shows in the reader's own order (30/11/2026 in en-GB)."""

    widget = forms.DateInput(attrs={"type": "date"})
    input_formats = ["%Y-%m-%d", "%d/%m/%Y"]

    def prepare_value(self, value):
        if isinstance(value, str):
            try:
                parsed = self.to_python(value)
            except forms.ValidationError:
                return value
            return parsed.isoformat() if parsed else value
        return super().prepare_value(value)


def day_field(
    label: "str | StrPromise", *, required: "str | StrPromise | None" = None
) -> DateBoxField:
    """A date box (see DateBoxField); optional unless given the message for a missing date."""
    errors: dict[str, str | StrPromise] = {"invalid": _("Enter dates as YYYY-MM-DD.")}
    if required:
        errors["required"] = required
    return DateBoxField(
        label=label,
        required=bool(required),
        input_formats=DateBoxField.input_formats,
        error_messages=errors,
    )
