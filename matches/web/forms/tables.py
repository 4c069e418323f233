"""Setting a table up and keeping its roster: the launch, the roster, closing. A new name
close to a known player's is asked about before anything is saved."""

from typing import TYPE_CHECKING, cast

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from matches.models import Table, Venue
from matches.play import messages as play_messages
from matches.play.services import tables as table_services
from matches.results.players import selectors as league_players
from matches.rules.limits import ID_MAX, MAX_PLAYERS, MIN_PLAYERS, TABLE_NAME_MAX_LENGTH
from matches.rules.names import name_key, normalise_name
from matches.web.forms.errors import refused_as_invalid
from matches.web.forms.fields import name_field, with_limits

if TYPE_CHECKING:
    from django.db.models import QuerySet

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
        with refused_as_invalid():
            return table_services.clean_player_names(lines)


# Did you mean? A new name close to a known player's is asked about.

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
        initial=Table.Mode.RANKED,
        help_text=_(
            "Winner takes all: only the survivor is named; everyone else is out. "
            "Ranked: 1st, 2nd and 3rd take 3, 2 and 1 points."
        ),
        error_messages={
            "required": play_messages.UNKNOWN_MODE,
            "invalid_choice": play_messages.UNKNOWN_MODE,
        },
    )

    def __init__(self, *args, venues: "QuerySet[Venue] | None" = None, **kwargs) -> None:
        """venues: those the host may launch at. Asked only where the league has more than
        one venue (a single pub never sees a venue choice), preselected when there is one."""
        super().__init__(*args, **kwargs)
        if venues is not None and Venue.objects.count() > 1:
            choices = list(venues)
            # Any venue is read; the launch refuses one the host does not host at (a 403
            # saying who may, as every write elsewhere): the select offers only theirs.
            field = forms.ModelChoiceField(
                label=_("Venue"),
                queryset=Venue.objects.all(),
                empty_label=None if len(choices) == 1 else "",
                initial=choices[0].pk if len(choices) == 1 else None,
                error_messages={
                    "required": play_messages.CHOOSE_VENUE,
                    "invalid_choice": play_messages.CHOOSE_VENUE,
                },
            )
            offered = [(venue.pk, venue.name) for venue in choices]
            field.choices = offered if len(choices) == 1 else [("", ""), *offered]
            # After the table's name: where it is played comes before who plays.
            fields = list(self.fields.items())
            fields.insert(1, ("venue", field))
            self.fields = dict(fields)

    def service_kwargs(self) -> dict:
        data = self.cleaned_data
        venue = data.get("venue")
        return {
            "name": data["name"],
            "player_names": data["players"],
            "mode": data["mode"],
            "venue_id": venue.pk if venue is not None else None,
        }


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


class CloseForm(forms.Form):
    # The open match the host was shown and agreed to discard (empty: none was under way).
    discard = forms.IntegerField(required=False, min_value=1, max_value=ID_MAX)
