"""A season's qualification rules: changing them (the organiser's; after the season's first
night only once the change's winners and losers were shown and confirmed), their history,
and the rules in words as the pages say them."""

import datetime
from dataclasses import dataclass
from typing import cast

from django.contrib.auth import models as auth
from django.db import transaction
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from matches.core.errors import Refusal, RuleError
from matches.core.stamp import standings_changed
from matches.models import FinalsEvent, Player, Season, SeasonRuleChange
from matches.org.hosts import User, host_name_for, public_host_name
from matches.org.roles import SEASONS_ARE_THE_ORGANISERS, require_organiser
from matches.results.qualifiers import season_qualifiers, season_status
from matches.results.seasons import SEASON_NOT_FOUND
from matches.rules.names import shown_player_name
from matches.rules.qualifying import MAX_NIGHTS, MAX_PLACES, QualifyingRules

RULES_PLACES_INVALID = _("Give each venue between 1 and %(limit)s places.")
RULES_PERCENT_INVALID = _("A percentage is between 1 and 100.")
RULES_NIGHTS_INVALID = _("Ask for between 0 and %(limit)s nights.")
RULES_BEST_NIGHTS_WITHOUT_RULE = _(
    "This season counts every night: give it a number of best nights counted first."
)
RULES_NEED_CONFIRMATION = _(
    "The season has started: check who gains and who loses a place, then confirm."
)
RULES_AFTER_FINALS = _(
    "The finals night has been drawn from these qualifiers: the qualification rules can no "
    "longer change; nothing was saved."
)
RULES_CHANGED_MEANWHILE = _(
    "The rules or the results changed while you were confirming: check the change again."
)


@dataclass(frozen=True)
class Moved:
    player_id: int
    name: str


@dataclass(frozen=True)
class RulesChange:
    """What a change of the rules would do: who gains and who loses a place in the finals
    (computed under both rules, as if the season ended tonight); a change before the
    season's first night needs no confirmation."""

    season: Season
    before: QualifyingRules
    after: QualifyingRules
    started: bool
    gained: tuple[Moved, ...] = ()
    lost: tuple[Moved, ...] = ()

    @property
    def token(self) -> str:
        """What a confirmation names: the rules before and after and the places moved, so
        a confirmation of another change (or of other results) saves nothing."""
        gained = ".".join(str(m.player_id) for m in self.gained)
        lost = ".".join(str(m.player_id) for m in self.lost)
        return f"{self.before.token()}/{self.after.token()}/g{gained}/l{lost}"

    @property
    def lines(self) -> list[tuple[str, str]]:
        """The rules that change, each (before, after) in words."""
        return changed_lines(self.before, self.after)


def rules_change(
    season: Season, after: QualifyingRules, *, real_names: bool = False
) -> RulesChange:
    """What changing the season's rules to `after` would do: two reads of the qualifiers
    once the season has started, none before."""
    before = season.qualifying_rules
    started = season_status(season) != "upcoming"
    if not started or before == after:
        return RulesChange(season=season, before=before, after=after, started=started)
    old = {f.player_id: f.name for f in season_qualifiers(season, real_names=real_names).finalists}
    new = {
        f.player_id: f.name
        for f in season_qualifiers(season, rules=after, real_names=real_names).finalists
    }
    return RulesChange(
        season=season,
        before=before,
        after=after,
        started=True,
        gained=tuple(Moved(pid, name) for pid, name in new.items() if pid not in old),
        lost=tuple(Moved(pid, name) for pid, name in old.items() if pid not in new),
    )


def rules_check(rules: QualifyingRules, season: Season) -> None:
    """Refuse rules the season cannot keep (the database's constraints, said in words)."""
    if not 1 <= rules.places <= MAX_PLACES:
        raise RuleError(RULES_PLACES_INVALID, limit=MAX_PLACES)
    if rules.percent is not None and not 1 <= rules.percent <= 100:
        raise RuleError(RULES_PERCENT_INVALID)
    if not 0 <= rules.min_nights <= MAX_NIGHTS:
        raise RuleError(RULES_NIGHTS_INVALID, limit=MAX_NIGHTS)
    if rules.best_nights is not None and rules.best_nights != season.best_nights:
        raise RuleError(RULES_BEST_NIGHTS_WITHOUT_RULE)


@transaction.atomic
def season_rules_save(
    *, season_id: int, rules: QualifyingRules, by: User, confirm: str | None = None
) -> SeasonRuleChange | None:
    """Change a season's qualification rules and record the change (None: nothing changed).
    After the season's first night has started, only with confirm naming this very change
    (RulesChange.token): who gains and who loses a place were shown first."""
    require_organiser(by, refusal=SEASONS_ARE_THE_ORGANISERS)
    # The stamp's row orders every season write; the pages read the rules through it.
    standings_changed()
    season = Season.objects.filter(pk=season_id).first()
    if season is None:
        raise RuleError(SEASON_NOT_FOUND)
    rules_check(rules, season)
    if season.qualifying_rules == rules:
        return None
    if FinalsEvent.objects.filter(season=season).exists():
        # Its finalists are drawn into heats: the qualifiers stay those that sent them.
        raise RuleError(RULES_AFTER_FINALS)
    change = rules_change(season, rules, real_names=True)
    if change.started and confirm != change.token:
        raise RuleError(
            RULES_CHANGED_MEANWHILE if confirm else RULES_NEED_CONFIRMATION,
            code=Refusal.RULES_UNCONFIRMED,
        )
    season.qualify_places, season.qualify_percent = rules.places, rules.percent
    season.qualify_min_nights = rules.min_nights
    season.qualify_best_nights = rules.best_nights is not None
    season.qualify_one_venue = rules.one_venue
    season.save(
        update_fields=[
            "qualify_places",
            "qualify_percent",
            "qualify_min_nights",
            "qualify_best_nights",
            "qualify_one_venue",
        ]
    )
    return SeasonRuleChange.objects.create(
        season=season,
        by=cast("auth.User", by),  # require_organiser: the organiser's account
        before=change.before.as_dict(),
        after=rules.as_dict(),
        after_first_night=change.started,
        gained=[m.player_id for m in change.gained],
        lost=[m.player_id for m in change.lost],
    )


# The rules in words: one line per rule, in this order, so two rules compare line by line.


def rules_in_words(rules: QualifyingRules) -> list[str]:
    """The rules as the season page says them, in the active language."""
    if rules.percent is None:
        places = ngettext(
            "Each venue’s best player qualifies.",
            "Each venue’s top %(places)s players qualify.",
            rules.places,
        ) % {"places": rules.places}
    else:
        places = ngettext(
            "The top %(percent)s%% of each venue’s ranked players qualify (rounded up), "
            "at most %(places)s player per venue.",
            "The top %(percent)s%% of each venue’s ranked players qualify (rounded up), "
            "at most %(places)s players per venue.",
            rules.places,
        ) % {"percent": rules.percent, "places": rules.places}
    if rules.min_nights:
        nights = ngettext(
            "A player needs %(nights)s night at the venue; a venue that ran fewer of the "
            "league’s nights asks for fewer: %(nights)s × its nights ÷ the league’s nights, "
            "rounded up.",
            "A player needs %(nights)s nights at the venue; a venue that ran fewer of the "
            "league’s nights asks for fewer: %(nights)s × its nights ÷ the league’s nights, "
            "rounded up.",
            rules.min_nights,
        ) % {"nights": rules.min_nights}
    else:
        nights = gettext("No minimum of nights at the venue.")
    if rules.best_nights:
        best = ngettext(
            "Only each player’s best night at the venue counts.",
            "Only each player’s best %(nights)s nights at the venue count.",
            rules.best_nights,
        ) % {"nights": rules.best_nights}
    else:
        best = gettext("Every night at the venue counts.")
    if rules.one_venue:
        venues = gettext(
            "A player qualifies at one venue only, where their position is best (the higher "
            "place, then more points); their place at any other venue passes down its list."
        )
    else:
        venues = gettext(
            "A player may qualify at several venues; the finals count them once, at the venue "
            "of their best position."
        )
    return [places, nights, best, venues]


def changed_lines(before: QualifyingRules, after: QualifyingRules) -> list[tuple[str, str]]:
    """The lines of the rules in words that differ, each (before, after)."""
    return [
        (old, new)
        for old, new in zip(rules_in_words(before), rules_in_words(after), strict=True)
        if old != new
    ]


@dataclass(frozen=True)
class HistoryEntry:
    at: datetime.datetime
    by: str
    lines: list[tuple[str, str]]
    after_first_night: bool
    gained: list[str]
    lost: list[str]


def rules_history(
    season: Season, *, real_names: bool = False, viewer: User | None = None
) -> list[HistoryEntry]:
    """Every change of the season's rules, latest first, with who made it (the public's
    name of the host) and whom it moved in and out: two queries."""
    changes = list(
        SeasonRuleChange.objects.filter(season=season).select_related("by__host_profile")
    )
    ids = {pid for change in changes for pid in (*change.gained, *change.lost)}
    names = {}
    if ids:
        for player in Player.objects.filter(pk__in=ids).only(
            "name", "public_name", "hidden", "erased_at"
        ):
            names[player.pk] = shown_player_name(
                player_id=player.pk,
                name=player.name,
                public_name=player.public_name,
                hidden=player.hidden,
                erased=player.erased_at is not None,
                real=real_names,
            )
    return [
        HistoryEntry(
            at=change.at,
            by=(
                host_name_for(change.by, viewer=viewer)
                if viewer is not None
                else public_host_name(change.by)
            ),
            lines=changed_lines(
                QualifyingRules.from_dict(change.before), QualifyingRules.from_dict(change.after)
            ),
            after_first_night=change.after_first_night,
            gained=[names.get(pid, f"#{pid}") for pid in change.gained],
            lost=[names.get(pid, f"#{pid}") for pid in change.lost],
        )
        for change in changes
    ]
