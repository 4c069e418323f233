"""The standings filters: table, season, dates and mode, as query parameters a user can
share."""

from django import forms
from django.utils.translation import gettext_lazy as _

from matches.models import Season, Table
from matches.results import seasons
from matches.web.forms.fields import day_field


class StandingsFilterForm(forms.Form):
    """The standings filters, as query parameters a user can share: table, season, from, to
    and mode."""

    label_suffix = ""
    table = forms.ModelChoiceField(
        label=_("Table"),
        queryset=Table.objects.order_by("name", "id"),
        required=False,
        empty_label=_("All tables"),
        error_messages={"invalid_choice": _("There is no such table.")},
    )
    season = forms.ModelChoiceField(
        label=_("Season"),
        queryset=Season.objects.all(),
        required=False,
        empty_label=_("All time"),
        error_messages={"invalid_choice": _("There is no such season.")},
    )
    # The season the page chose itself (the current one), so dates typed over it replace it.
    preset = forms.CharField(widget=forms.HiddenInput, required=False, max_length=20)

    def __init__(
        self, data, *args, table: Table | None = None, default_season: bool = False, **kwargs
    ) -> None:
        if default_season and not any(name in data for name in ("season", "from", "to")):
            # The page opens on the season covering tonight; all time when none does.
            current = seasons.current_season()
            if current is not None:
                data = data.copy()
                data["season"] = data["preset"] = str(current.pk)
        elif self._dates_over_preset(data):
            # The season shown is the page's own choice, not the reader's: the dates they
            # typed replace it. Only a season they picked themselves conflicts with dates.
            data = data.copy()
            data["season"] = ""
            del data["preset"]
        super().__init__(data, *args, **kwargs)
        # A table's own standings page is fixed to that table: no table to choose.
        self.fixed_table = table
        if table is not None:
            del self.fields["table"]
        # "from" is a Python keyword, so these two are added by name.
        for name, label in (("from", _("From")), ("to", _("To"))):
            self.fields[name] = day_field(label)
        self.fields["mode"] = forms.ChoiceField(
            label=_("Mode"),
            choices=[("", _("Both modes")), *Table.Mode.choices],
            required=False,
            error_messages={"invalid_choice": _("Choose a mode: ranked or winner takes all.")},
        )

    @staticmethod
    def _dates_over_preset(data) -> bool:
        """Dates typed while the season is still the one the page preselected."""
        preset = data.get("preset")
        return bool(
            preset and preset == data.get("season") and (data.get("from") or data.get("to"))
        )

    def clean(self) -> dict:
        cleaned = super().clean()
        start, end = cleaned.get("from"), cleaned.get("to")
        if cleaned.get("season") and (start or end):
            raise forms.ValidationError(
                _("Choose a season or dates, not both (pick “All time” to use dates).")
            )
        if start and end and start > end:
            raise forms.ValidationError(_("The start date is after the end date."))
        return cleaned

    def _table(self) -> Table | None:
        return self.fixed_table or self.cleaned_data.get("table")

    def _days(self) -> tuple:
        season = self.cleaned_data.get("season")
        if season is not None:
            return season.first_day, season.last_day
        return self.cleaned_data.get("from"), self.cleaned_data.get("to")

    @property
    def wins_only(self) -> bool:
        """The standings cover winner-takes-all matches only: they keep no points."""
        table, mode = self._table(), self.cleaned_data.get("mode")
        wta = Table.Mode.WINNER_TAKES_ALL
        return mode == wta or (table is not None and table.mode == wta)

    @property
    def mixes_modes(self) -> bool:
        """League-wide standings of both modes, where points alone compare badly."""
        return self._table() is None and not self.cleaned_data.get("mode")

    def selector_kwargs(self) -> dict:
        table = self._table()
        start, end = self._days()
        return {
            "table_id": table.pk if table else None,
            "date_from": start,
            "date_to": end,
            "mode": self.cleaned_data.get("mode") or None,
            "wins_only": self.wins_only,
            **self.season_rule(),
        }

    def season_rule(self) -> dict:
        """The chosen season's best nights rule, if it has one."""
        season = self.cleaned_data.get("season")
        if season is None or season.best_nights is None:
            return {}
        return {"best_nights": season.best_nights, "min_nights": season.min_nights}

    def as_json(self) -> dict:
        table, season = self._table(), self.cleaned_data.get("season")
        start, end = self._days()
        return {
            "table": table.pk if table else None,
            "season": season.pk if season else None,
            "from": start.isoformat() if start else None,
            "to": end.isoformat() if end else None,
            "mode": self.cleaned_data.get("mode") or None,
        }
