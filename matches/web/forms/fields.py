"""Fields and field builders more than one feature's forms use: typed names, the limits a
table seats, date boxes."""

from typing import TYPE_CHECKING, Any

from django import forms
from django.forms.renderers import BaseRenderer
from django.utils.functional import lazy
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
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


class ManyOptionsSelect(forms.Select):
    """A select of every table or every venue: hundreds in a league of many pubs. Its
    options are written here, not through the select template: rendering them made most of
    a standings page's cost when its filters are not cached yet (make bench, venue rows).
    The markup is templates/django/forms/widgets/select.html's: no option groups, one
    option selected at most."""

    def render(
        self,
        name: str,
        value: Any,
        attrs: dict[str, Any] | None = None,
        renderer: BaseRenderer | None = None,
    ) -> SafeString:
        chosen = self.format_value(value)
        options: list[tuple[str, str, Any]] = []
        has_selected = False
        for option_value, label in self.choices:
            text = "" if option_value is None else str(option_value)
            selected = not has_selected and text in chosen
            has_selected |= selected
            options.append((text, " selected" if selected else "", label))
        # As attrs.html writes them: False left out, True as a bare name.
        final = self.build_attrs(self.attrs, attrs)
        shown = format_html_join(
            "",
            " {}{}",
            (
                (key, "" if val is True else format_html('="{}"', val))
                for key, val in final.items()
                if val is not False
            ),
        )
        rows = format_html_join("", '\n    <option value="{}"{}>{}</option>', options)
        return format_html('<select name="{}"{}>{}\n</select>', name, shown, rows)
