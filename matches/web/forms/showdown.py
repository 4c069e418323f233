"""The showdown judge's page: each player's name and three cards, a row each."""

from typing import Any, cast

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from matches.rules import showdown
from matches.rules.limits import NAME_MAX_LENGTH, SHOWDOWN_MAX_HANDS

# The fewest rows shown: a showdown takes two hands.
MIN_ROWS = 2


def row_field(name: str, number: int) -> str:
    """A row's field as the page names it: name_1, hand_1, name_2, ... (a shared link
    names its hands so)."""
    return f"{name}_{number}"


HAND_ATTRS = {"class": "hand-input", "autocapitalize": "characters", "autocomplete": "off",
              "spellcheck": "false"}  # fmt: skip


class HandForm(forms.Form):
    """One row: a player's name (optional) and three cards (a row without cards is not a
    hand)."""

    name = forms.CharField(required=False, max_length=NAME_MAX_LENGTH)
    hand = forms.CharField(required=False, max_length=60, widget=forms.TextInput(attrs=HAND_ATTRS))

    def __init__(self, *args: Any, number: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.number = number
        self.fields["name"].label = _("Player %(n)s") % {"n": number}
        self.fields["hand"].label = _("Cards of player %(n)s") % {"n": number}
        if number == 1:
            # An example in the page's own notation (Portuguese: dama de espadas, ...).
            example = pgettext("three cards typed as an example", "QS 7D 4C")
            widget = self.fields["hand"].widget
            # Beside the box's own attributes, before its length, as the page always had it.
            widget.attrs = {**HAND_ATTRS, "placeholder": example, **widget.attrs}

    def add_prefix(self, field_name: str) -> str:
        # Not the formset's form-0-name: the page's links name rows name_1, hand_1, ...
        return row_field(field_name, self.number)


class BaseShowdownFormSet(forms.BaseFormSet):
    """Up to ten players' three cards each, judged as one showdown from one deck. It shows
    the rows needed (rows): every problem is named beside its field, not just the first.
    The page counts its rows in its own rows field, not in a management form, so a link
    naming only the hands (?hand_1=...&hand_2=...) is judged as it reads."""

    def __init__(
        self, data: QueryDict | None = None, *, rows: int, initial: list[dict] | None = None
    ) -> None:
        if data is not None:
            data = data.copy()
            prefix = self.get_default_prefix()
            data[f"{prefix}-TOTAL_FORMS"] = str(rows)
            data[f"{prefix}-INITIAL_FORMS"] = "0"
        # Every row shown is an initial row (filled in or not): rows of them, no extra.
        initial = [*(initial or []), *({} for _ in range(rows))][:rows]
        super().__init__(data, initial=initial)
        self.row_total = rows
        # Every problem, by the id of the field it is about (None: the showdown as a whole),
        # in the order the page lists them.
        self.summary: dict[str | None, list[str]] = {}
        self.verdict: showdown.Verdict | None = None

    def get_form_kwargs(self, index: int | None) -> dict[str, Any]:
        return {"number": (index or 0) + 1}

    @classmethod
    def rows_for(cls, data: QueryDict, *, names: list[str], adding: bool) -> int:
        """The rows to show: those asked for (rows), every row filled in, a table's standing
        players, at least two; one more when adding; at most SHOWDOWN_MAX_HANDS."""
        asked = data.get("rows", "")
        count = int(asked) if asked.isascii() and asked.isdigit() and len(asked) <= 2 else 0
        filled = [
            n
            for n in range(1, SHOWDOWN_MAX_HANDS + 1)
            if (data.get(row_field("name", n)) or "").strip()
            or (data.get(row_field("hand", n)) or "").strip()
        ]
        count = max(count, len(names), max(filled, default=0), MIN_ROWS)
        return min(count + int(adding), SHOWDOWN_MAX_HANDS)

    @staticmethod
    def initial_for(names: list[str]) -> list[dict]:
        """The names of a table's standing players, in the name fields."""
        return [{"name": name} for name in names]

    @staticmethod
    def initial_from(data: QueryDict, rows: int) -> list[dict]:
        """What the rows held, shown again (Add a player: nothing judged yet)."""
        return [
            {
                field: data[row_field(field, n)]
                for field in ("name", "hand")
                if row_field(field, n) in data
            }
            for n in range(1, rows + 1)
        ]

    @property
    def error_total(self) -> int:
        """How many problems the summary lists (a field may have more than one)."""
        return sum(len(errors) for errors in self.summary.values())

    @property
    def can_add(self) -> bool:
        return self.row_total < SHOWDOWN_MAX_HANDS

    def clean(self) -> None:
        # What the fields refused first (too long), row by row, as the page lists them.
        for form in self.forms:
            for field, errors in form.errors.items():
                self.summary.setdefault(form[field].auto_id, []).extend(errors)
        pairs, rows = [], []
        for form in self.forms:
            name = (form.cleaned_data.get("name") or "").strip()
            cards = (form.cleaned_data.get("hand") or "").strip()
            if cards:
                pairs.append((name or _("Hand %(n)s") % {"n": form.number}, cards))
                rows.append(form)
        problems = showdown.showdown_problems(pairs)
        whole = []
        for index, error in problems:
            message = showdown.error_message(error)
            if index is None:
                whole.append(message)
                self.summary.setdefault(None, []).append(message)
            else:
                field = "name" if error.code == "same_name" else "hand"
                rows[index].add_error(field, message)
                self.summary.setdefault(rows[index][field].auto_id, []).append(message)
        if whole:
            raise forms.ValidationError(whole)
        if not problems:
            self.verdict = showdown.showdown_judge(pairs)


# The factory's type names only BaseFormSet: the page's own methods are BaseShowdownFormSet's.
ShowdownFormSet = cast(
    "type[BaseShowdownFormSet]",
    forms.formset_factory(
        HandForm, formset=BaseShowdownFormSet, extra=0, max_num=SHOWDOWN_MAX_HANDS
    ),
)
