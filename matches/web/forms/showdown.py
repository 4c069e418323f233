"""The showdown judge's page: each player's name and three cards."""

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from matches.rules import showdown
from matches.rules.limits import NAME_MAX_LENGTH, SHOWDOWN_MAX_HANDS


class ShowdownForm(forms.Form):
    """Up to ten players' three cards each, judged as one showdown from one deck. It shows
    the rows needed (rows): every problem is named beside its field, not just the first."""

    # The fewest rows shown: a showdown takes two hands.
    MIN_ROWS = 2

    def __init__(self, *args, rows: int = MIN_ROWS, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.row_total = rows
        for n in range(1, rows + 1):
            self.fields[f"name_{n}"] = forms.CharField(
                label=_("Player %(n)s") % {"n": n}, required=False, max_length=NAME_MAX_LENGTH
            )
            attrs = {"class": "hand-input", "autocapitalize": "characters", "autocomplete": "off",
                     "spellcheck": "false"}  # fmt: skip
            if n == 1:
                # An example in the page's own notation (Portuguese: dama de espadas, ...).
                attrs["placeholder"] = pgettext("three cards typed as an example", "QS 7D 4C")
            self.fields[f"hand_{n}"] = forms.CharField(
                label=_("Cards of player %(n)s") % {"n": n},
                required=False,
                max_length=60,
                widget=forms.TextInput(attrs=attrs),
            )

    @classmethod
    def rows_for(cls, data, *, names: list[str], adding: bool) -> int:
        """The rows to show: those asked for (rows), every row filled in, a table's standing
        players, at least two; one more when adding; at most SHOWDOWN_MAX_HANDS."""
        asked = data.get("rows", "")
        count = int(asked) if asked.isascii() and asked.isdigit() and len(asked) <= 2 else 0
        filled = [
            n
            for n in range(1, SHOWDOWN_MAX_HANDS + 1)
            if (data.get(f"name_{n}") or "").strip() or (data.get(f"hand_{n}") or "").strip()
        ]
        count = max(count, len(names), max(filled, default=0), cls.MIN_ROWS)
        return min(count + int(adding), SHOWDOWN_MAX_HANDS)

    @staticmethod
    def initial_for(names: list[str]) -> dict:
        """The names of a table's standing players, in the name fields."""
        return {f"name_{n}": name for n, name in enumerate(names, 1)}

    @property
    def error_total(self) -> int:
        """How many problems the summary lists (a field may have more than one)."""
        return sum(len(errors) for errors in self.errors.values())

    @property
    def can_add(self) -> bool:
        return self.row_total < SHOWDOWN_MAX_HANDS

    def rows(self) -> list[tuple]:
        return [(n, self[f"name_{n}"], self[f"hand_{n}"]) for n in range(1, self.row_total + 1)]

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        pairs, numbers = [], []
        for n in range(1, self.row_total + 1):
            name = (cleaned.get(f"name_{n}") or "").strip()
            cards = (cleaned.get(f"hand_{n}") or "").strip()
            if cards:
                pairs.append((name or _("Hand %(n)s") % {"n": n}, cards))
                numbers.append(n)
        problems = showdown.showdown_problems(pairs)
        for index, error in problems:
            if index is None:
                self.add_error(None, showdown.error_message(error))
            else:
                field = "name" if error.code == "same_name" else "hand"
                self.add_error(f"{field}_{numbers[index]}", showdown.error_message(error))
        if not problems:
            cleaned["verdict"] = showdown.showdown_judge(pairs)
        return cleaned
