"""The standings filters: table, venue, season, dates and mode, as query parameters a user
can share. The form only checks them and names the standings asked for (StandingsQuery)."""

from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from matches.models import Season, Table, Venue
from matches.results.standings import FilterChoices, StandingsQuery
from matches.web.forms.fields import ManyOptionsSelect, day_field

# The filters that choose a period: asking for any of them, even blank, is not asking for
# the page's default season.
PERIOD_FILTERS = ("season", "from", "to")


def asked_filters(
    data: QueryDict,
    *,
    current_season: Callable[[], Season | None] | None = None,
    default_mode: Callable[[], str | None] | None = None,
) -> QueryDict:
    """The filters as the form reads them and the page shows them again. Dates typed while
    the season shown is still the one the page chose (preset) replace it: only a season the
    reader picked conflicts with dates. With current_season (the page, which opens on the
    season covering tonight, or all time when none does), a request asking for no period
    is given that season, read only then. With default_mode (the league's page, which
    opens on the mode played most when the league has both), a request asking for no mode
    is given that one; "Both modes" is asked for as a blank mode."""
    if current_season is not None and not any(name in data for name in PERIOD_FILTERS):
        current = current_season()
        if current is not None:
            data = data.copy()
            data["season"] = data["preset"] = str(current.pk)
    elif _dates_over_preset(data):
        data = data.copy()
        data["season"] = ""
        del data["preset"]
    if default_mode is not None and "mode" not in data and (mode := default_mode()):
        data = data.copy()
        data["mode"] = mode
    return data


def _dates_over_preset(data: QueryDict) -> bool:
    """Dates typed while the season is still the one the page preselected."""
    preset = data.get("preset")
    return bool(preset and preset == data.get("season") and (data.get("from") or data.get("to")))


class StandingsFilterForm(forms.Form):
    """The standings filters, as query parameters a user can share: table, venue (by its
    slug), season, from, to and mode."""

    label_suffix = ""
    table = forms.ModelChoiceField(
        label=_("Table"),
        queryset=Table.objects.order_by("name", "id"),
        widget=ManyOptionsSelect,
        required=False,
        empty_label=_("All tables"),
        error_messages={"invalid_choice": _("There is no such table.")},
    )
    venue = forms.ModelChoiceField(
        label=_("Venue"),
        queryset=Venue.objects.all(),
        to_field_name="slug",
        widget=ManyOptionsSelect,
        required=False,
        empty_label=_("All venues"),
        error_messages={"invalid_choice": _("There is no such venue.")},
    )
    season = forms.ModelChoiceField(
        label=_("Season"),
        queryset=Season.objects.all(),
        required=False,
        empty_label=_("All time"),
        error_messages={"invalid_choice": _("There is no such season.")},
    )
    # The season the page chose itself (asked_filters): dates typed over it replace it.
    preset = forms.CharField(widget=forms.HiddenInput, required=False, max_length=20)

    def __init__(
        self, data: QueryDict, *args: Any, table: Table | None = None, **kwargs: Any
    ) -> None:
        super().__init__(data, *args, **kwargs)
        # A table's own standings page is fixed to that table: no table to choose. The view
        # may put the table itself here once read (its mode picks the columns).
        self.fixed_table = table
        if table is not None:
            # A table's venue is its own: no venue to choose either.
            del self.fields["table"]
            del self.fields["venue"]
        # "from" is a Python keyword, so these two are added by name.
        for name, label in (("from", _("From")), ("to", _("To"))):
            self.fields[name] = day_field(label)
        self.fields["mode"] = forms.ChoiceField(
            label=_("Mode"),
            choices=[("", _("Both modes")), *Table.Mode.choices],
            required=False,
            error_messages={"invalid_choice": _("Choose a mode: ranked or winner takes all.")},
        )

    def offer(self, choices: FilterChoices) -> None:
        """Let the lists of tables, venues and seasons write these options, read once as
        plain pairs, instead of reading each model again and making an instance of every
        row (the cost of a league's first standings page after a change)."""
        offered: dict[str, Sequence[tuple[object, str]]] = {
            "table": choices.tables,
            "venue": choices.venues,
            "season": choices.seasons,
        }
        for name, options in offered.items():
            field = self.fields.get(name)
            if isinstance(field, forms.ModelChoiceField):
                field.widget.choices = [("", field.empty_label), *options]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        start, end = cleaned.get("from"), cleaned.get("to")
        if cleaned.get("season") and (start or end):
            raise forms.ValidationError(
                _("Choose a season or dates, not both (pick “All time” to use dates).")
            )
        if start and end and start > end:
            raise forms.ValidationError(_("The start date is after the end date."))
        return cleaned

    @property
    def query(self) -> StandingsQuery:
        """The standings asked for, from a valid form: a season's days and its best nights
        rule, the fixed table or the one chosen."""
        cleaned = self.cleaned_data
        table: Table | None = self.fixed_table or cleaned.get("table")
        venue: Venue | None = cleaned.get("venue")
        season: Season | None = cleaned.get("season")
        mode = cleaned.get("mode") or None
        wta = Table.Mode.WINNER_TAKES_ALL
        # A season's best nights rule, if it has one.
        rule = season if season is not None and season.best_nights is not None else None
        return StandingsQuery(
            table_id=table.pk if table else None,
            venue_id=venue.pk if venue else None,
            venue_slug=venue.slug if venue else None,
            season_id=season.pk if season else None,
            date_from=season.first_day if season else cleaned.get("from"),
            date_to=season.last_day if season else cleaned.get("to"),
            mode=mode,
            wins_only=mode == wta or (table is not None and table.mode == wta),
            best_nights=rule.best_nights if rule else None,
            min_nights=rule.min_nights if rule else 0,
        )
