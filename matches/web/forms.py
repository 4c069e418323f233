import uuid
from typing import TYPE_CHECKING, cast

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.http import QueryDict
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from matches.core.errors import RuleError
from matches.models import HostProfile, Season, Table
from matches.org import hosts
from matches.play import messages as play_messages
from matches.play.services import tables
from matches.results import seasons
from matches.results.players import selectors as league_players
from matches.rules import showdown
from matches.rules.limits import (
    HOST_NAME_MAX_LENGTH,
    ID_MAX,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME_MAX_LENGTH,
    SEASON_NAME_MAX_LENGTH,
    SHOWDOWN_MAX_HANDS,
    TABLE_NAME_MAX_LENGTH,
)
from matches.rules.names import name_key, normalise_name

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise


def _interpolate(message: str, params: dict) -> str:
    return str(message) % params


def with_limits(message: str) -> str:
    """A help text naming how many players a table seats, translated when it is shown (the
    lazy message would otherwise be fixed in the language active at import)."""
    return lazy(_interpolate, str)(message, {"min": MIN_PLAYERS, "max": MAX_PLAYERS})


ONE_NAME_PER_LINE = _("Put one name per line, not separated by commas or semicolons.")


class PlayersField(forms.CharField):
    """One name per line, in seating order; blank lines are not names."""

    widget = forms.Textarea(attrs={"rows": 10, "autocapitalize": "words", "spellcheck": "false"})

    def clean(self, value: str) -> list[str]:
        value = super().clean(value)
        lines = [line for line in (value or "").splitlines() if line.strip()]
        # "Ana, Ben, Cara" on one line reads as too few players: say how to type them
        # rather than count it as one name (a comma may be part of a name, so never split).
        if len(lines) < MIN_PLAYERS and any("," in line or ";" in line for line in lines):
            raise forms.ValidationError(ONE_NAME_PER_LINE)
        try:
            return tables.clean_player_names(lines)
        except RuleError as error:
            raise forms.ValidationError(error.message) from None


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


# --- Did you mean? (issue 22): a new name close to a known player's is asked about ---

NAMES_IN_DOUBT = _(
    "Nothing was saved: some names are close to players already in the league. Choose for "
    "each one below."
)
# The radio value that keeps the name as typed: a new player.
ADD_NEW = "new"
USE_PREFIX = "use:"


class AsksAboutNearNames(forms.Form):
    """A roster form that asks before adding a player whose name is close to a known one
    (results.players.selectors.names_in_doubt). The host's answers come back as radios doubt-<n>
    ("use:<known name>" or "new") with the name asked about in doubt-<n>-name; a name to
    use replaces the typed line in the players box, a name to add is remembered in hidden
    new_player fields, for this form only, so it is not asked about again."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.doubts: list[league_players.NameInDoubt] = []
        self.added_new: list[str] = []
        if self.is_bound:
            # The view passes request.POST (immutable): a copy, so a name chosen to use
            # replaces the typed one in the box the page shows again.
            data = cast("QueryDict", self.data).copy()
            self.data = data
            self._apply_answers(data)

    def _apply_answers(self, data: QueryDict) -> None:
        added = list(data.getlist("new_player"))
        uses: dict[str, str] = {}
        for index in range(MAX_PLAYERS):
            typed, answer = data.get(f"doubt-{index}-name"), data.get(f"doubt-{index}")
            if not typed or not answer:
                continue
            if answer == ADD_NEW:
                added.append(typed)
            elif answer.startswith(USE_PREFIX) and answer[len(USE_PREFIX) :].strip():
                uses[name_key(typed)] = normalise_name(answer[len(USE_PREFIX) :])
        typed_players = data.get("players")
        if uses and isinstance(typed_players, str):
            lines = typed_players.splitlines()
            data["players"] = "\n".join(uses.get(name_key(line), line) for line in lines)
        used = {name_key(name) for name in uses.values()}
        kept: dict[str, str] = {}
        for name in added:
            if name.strip() and name_key(name) not in used:
                kept.setdefault(name_key(name), normalise_name(name))
        self.added_new = list(kept.values())

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        names = cleaned.get("players")
        # Asked only of a form that is otherwise right: the answer then launches or saves.
        if names and not self.errors:
            self.doubts = league_players.names_in_doubt(names=names, settled=self.added_new)
            if self.doubts:
                raise forms.ValidationError(NAMES_IN_DOUBT, code="names_in_doubt")
        return cleaned


class LaunchForm(AsksAboutNearNames):
    label_suffix = ""

    name = name_field(
        _("Table name"),
        max_length=TABLE_NAME_MAX_LENGTH,
        empty=play_messages.TABLE_NAME_EMPTY,
        too_long=play_messages.TABLE_NAME_TOO_LONG,
    )
    players = PlayersField(
        label=_("Players"),
        help_text=with_limits(
            _("One name per line, in seating order (clockwise), %(min)s to %(max)s players.")
        ),
        error_messages={"required": _("List the players, one name per line.")},
    )
    mode = forms.ChoiceField(
        label=_("Mode"),
        choices=Table.Mode.choices,
        widget=forms.RadioSelect,
        error_messages={
            "required": play_messages.UNKNOWN_MODE,
            "invalid_choice": play_messages.UNKNOWN_MODE,
        },
    )

    def service_kwargs(self) -> dict:
        data = self.cleaned_data
        return {"name": data["name"], "player_names": data["players"], "mode": data["mode"]}


BAD_ROSTER = _("That roster could not be read; nothing was changed. Reload the page and try again.")


class RosterForm(AsksAboutNearNames):
    label_suffix = ""

    match = forms.IntegerField(
        widget=forms.HiddenInput,
        min_value=1,
        max_value=ID_MAX,
        error_messages=dict.fromkeys(["required", "invalid", "min_value", "max_value"], BAD_ROSTER),
    )
    players = PlayersField(
        label=_("Players"),
        help_text=with_limits(
            _(
                "One name per line, in seating order (clockwise), %(min)s to %(max)s players. "
                "Add a late arrival, remove someone who left, or reorder the seats."
            )
        ),
        error_messages={"required": _("List the players, one name per line.")},
    )

    @staticmethod
    def initial_for(board) -> dict:
        """The open match's seating, standing and out alike, one name per line."""
        seats = board.standing + board.out
        return {"match": board.match.pk, "players": "\n".join(s.player.name for s in seats)}

    def service_kwargs(self) -> dict:
        data = self.cleaned_data
        return {"match_id": data["match"], "player_names": data["players"]}


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
        cleaned = super().clean()
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


class CloseForm(forms.Form):
    # The open match the host was shown and agreed to discard (empty: none was under way).
    discard = forms.IntegerField(required=False, min_value=1, max_value=ID_MAX)


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

    def first_error(self) -> str:
        return next(str(e) for errors in self.errors.values() for e in errors)


class LoginForm(AuthenticationForm):
    """Django's login form, refusing a username longer than any account's before it is
    checked: AuthenticationForm sets that length only on the widget, and django-axes would
    fail (a 500 on PostgreSQL) recording the attempt in its 255-character column."""

    def clean(self) -> dict:
        if len(self.cleaned_data.get("username") or "") > self.username_field.max_length:
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
        try:
            return hosts.host_display_name_clean(
                self.cleaned_data["display_name"], usernames=[username]
            )
        except RuleError as error:
            raise forms.ValidationError(error.message) from None

    def validate_password_for_user(self, user, **kwargs) -> None:
        super().validate_password_for_user(user, "password1")

    def full_clean(self) -> None:
        super().full_clean()
        failed = {"password1", "password2"} & set(self._errors or {})
        if "password1" in failed:
            failed.add("password2")  # it confirmed a password that was refused
        if failed:
            self.data = self.data.copy()
            for name in failed:
                self.data[name] = ""


class HostProfileForm(forms.ModelForm):
    """The admin's display name box: the names' rules, and never an account's username."""

    class Meta:
        model = HostProfile
        fields = ["display_name"]

    def clean_display_name(self) -> str:
        try:
            return hosts.host_display_name_clean(self.cleaned_data["display_name"])
        except RuleError as error:
            raise forms.ValidationError(error.message) from None


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


def day_field(label: str, *, required: str | None = None) -> DateBoxField:
    """A date box (see DateBoxField); optional unless given the message for a missing date."""
    errors = {"invalid": _("Enter dates as YYYY-MM-DD.")}
    if required:
        errors["required"] = required
    return DateBoxField(
        label=label,
        required=bool(required),
        input_formats=DateBoxField.input_formats,
        error_messages=errors,
    )


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

    def first_error(self) -> str:
        return next(str(e) for errors in self.errors.values() for e in errors)

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
        """The chosen season's best nights rule (issue 24), if it has one."""
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


class SeasonForm(forms.Form):
    label_suffix = ""

    name = name_field(
        _("Season name"),
        max_length=SEASON_NAME_MAX_LENGTH,
        empty=seasons.SEASON_NAME_EMPTY,
        too_long=seasons.SEASON_NAME_TOO_LONG,
    )
    first_day = day_field(_("First day"), required=_("Enter the season’s first day."))
    last_day = day_field(_("Last day"), required=_("Enter the season’s last day."))
    # "Best N nights" (issue 24): empty, every night counts.
    best_nights = forms.IntegerField(
        label=_("Best nights counted"),
        required=False,
        min_value=1,
        max_value=366,
        help_text=_(
            "Each player’s season counts only their best nights. Leave empty to count every night."
        ),
        error_messages={
            "min_value": _("Count at least one night, or leave it empty."),
            "max_value": _("A season counts at most %(limit_value)s nights."),
            "invalid": _("Enter a whole number of nights."),
        },
    )
    min_nights = forms.IntegerField(
        label=_("Minimum nights to be ranked"),
        required=False,
        min_value=0,
        max_value=366,
        help_text=_("Only with best nights counted. Leave empty to rank everyone."),
        error_messages={
            "min_value": _("Enter a number of nights, 0 or more."),
            "max_value": _("A season counts at most %(limit_value)s nights."),
            "invalid": _("Enter a whole number of nights."),
        },
    )

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("min_nights") and not cleaned.get("best_nights"):
            self.add_error("min_nights", _("A minimum of nights goes with best nights counted."))
        return cleaned


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
        widget=forms.TextInput(attrs={"list": "player-names", "autocomplete": "off"}),
        error_messages={"required": _("Type the name of the record to merge into this one.")},
    )


# --- Correcting a filed match (issue 24) -------------------------------------------------


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


class PlayerMergeConfirmForm(forms.Form):
    """The merge's confirmation: the record shown beside this one, by name and id (a record
    renamed or merged meanwhile is refused, never merged unseen)."""

    other = forms.CharField(max_length=NAME_MAX_LENGTH, widget=forms.HiddenInput)
    other_id = forms.IntegerField(min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput)


# --- Players' names in public (issue 22, item 4) ---


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
