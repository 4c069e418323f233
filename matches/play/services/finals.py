"""A season's finals night: the organiser creates it from the qualifiers (the heats, each a
table at the finals venue playing one match); a heat's crowning closes its table, and the
last heat's opens the final in the same transaction; the final's crowning stores the
season's champion. Undoing a heat's crowning takes back a final nobody has tapped in yet,
and is refused once the final is under way.

Creating a finals night takes the standings stamp, then the season's row.
Locks, in this order, whatever the write: a finals table (its bump, as every tap and undo
takes it), the final's table when there is one (final_lock_first), the standings stamp (the
filing's), its FinalsTable row, then the FinalsEvent row. Two heats filed
at once take turns on the event's row, so the final opens exactly once (and the one-final
constraint stands behind it)."""

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, cast

from django.contrib.auth.models import User as Account
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _g
from django.utils.translation import gettext_lazy as _

from matches.core.errors import RuleError
from matches.core.stamp import standings_changed, table_bump
from matches.models import (
    FinalsEntry,
    FinalsEvent,
    FinalsSeeding,
    FinalsTable,
    Match,
    Player,
    Season,
    Seat,
    Table,
    Venue,
)
from matches.org.hosts import User
from matches.org.roles import require_organiser
from matches.play import messages
from matches.play.services import tables
from matches.rules import finals as rules
from matches.rules.nights import night_of

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise

FINALS_ARE_THE_ORGANISERS = _(
    "Only the league’s organiser may create a season’s finals night; nothing was saved."
)
NO_SUCH_SEASON = _("That season does not exist; nothing was saved.")
ALREADY_HELD = _("%(season)s already has its finals night; nothing was saved.")
TOO_EARLY = _(
    "The finals are held after the season: %(season)s runs until %(last_day)s, so its finals "
    "can be created from the night after; nothing was saved."
)
CHOOSE_VENUE = _("Choose the venue of the finals night; nothing was saved.")
UNKNOWN_SEEDING = _("Choose how the heats are made: seeded or drawn at random.")
FINALIST_TWICE = _("A finalist is listed twice; nothing was saved.")
RULES = {
    "too_few_heats": _("A finals night needs at least %(min)s heats."),
    "heats_too_small": _(
        "%(count)s finalists cannot fill %(heats)s heats of at least %(min)s players."
    ),
    "heats_too_large": _(
        "%(count)s finalists do not fit %(heats)s heats of at most %(max)s players."
    ),
    "runners_up_per_heat": _("At most one runner-up per heat goes through (%(heats)s here)."),
    "final_size": _(
        "The final seats %(min)s to %(max)s players: the heats’ winners and the runners-up "
        "going through."
    ),
}
HEAT_NAME = _("Finals · Heat %(number)s")
FINAL_NAME = _("Finals · Final")
FINAL_UNDER_WAY = _(
    "The final is under way (a player is already out there): a heat’s crowning can no longer "
    "be undone; nothing was changed."
)
FINAL_PLAYED = _("The final has been won: undo the final’s crowning first; nothing was changed.")
CORRECTION_MOVES_FINAL = _(
    "The final is under way (a player is already out there): this correction would change who "
    "goes through to it, so it can no longer be made; nothing was changed."
)
CORRECTION_AFTER_FINAL = _(
    "The final has been won: this correction would change who went through to it; undo the "
    "final’s crowning first; nothing was changed."
)


class Qualified(Protocol):
    """A finalist as the qualifiers give them (results.qualifiers.Finalist)."""

    @property
    def player_id(self) -> int: ...
    @property
    def venue_id(self) -> int: ...
    @property
    def season_rank(self) -> int: ...


def _rule(error: rules.FinalsRuleError) -> RuleError:
    return RuleError(str(RULES[error.key]) % error.params)


def finals_plan(
    *, finalists: int, heats: int, runners_up: int, seeding: str, draw_seed: int | None
) -> list[list[int]]:
    """The heats, each its finalists' season positions in seating order, or a RuleError."""
    try:
        rules.check_heats(finalists, heats, runners_up)
    except rules.FinalsRuleError as error:
        raise _rule(error) from None
    if seeding == FinalsSeeding.SPREAD:
        return rules.spread(finalists, heats)
    if seeding == FinalsSeeding.RANDOM and draw_seed is not None:
        return rules.drawn(rules.draw_order(finalists, draw_seed), heats)
    raise RuleError(UNKNOWN_SEEDING)


@transaction.atomic
def finals_create(
    *,
    season_id: int,
    finalists: Sequence[Qualified],
    heats: int,
    runners_up: int,
    seeding: str,
    mode: str,
    venue_id: int,
    by: User,
    draw_seed: int | None = None,
) -> FinalsEvent:
    """Create a season's finals night (the organiser's): the finalists dealt into heats
    (spread by seed, or a random draw kept by its seed), each heat a table at the venue with
    its one match open. Refused before the night after the season's last day."""
    require_organiser(by, refusal=FINALS_ARE_THE_ORGANISERS)
    account = cast(Account, by)  # the organiser's: an account, not an anonymous visitor
    # The stamp first, as every season write takes it (seasons, their rules): a change of
    # the season's days or rules and this creation take turns there, never in a circle, and
    # each sees what the other saved. The new tables are listed on the standings' filter.
    standings_changed()
    season = Season.objects.select_for_update().filter(pk=season_id).first()
    if season is None:
        raise RuleError(NO_SUCH_SEASON)
    tonight = night_of()
    if tonight <= season.last_day:
        raise RuleError(TOO_EARLY, season=season.name, last_day=season.last_day)
    if FinalsEvent.objects.filter(season=season).exists():
        raise RuleError(ALREADY_HELD, season=season.name)
    venue = Venue.objects.filter(pk=venue_id).first()
    if venue is None:
        raise RuleError(CHOOSE_VENUE)
    if mode not in Table.Mode.values:
        raise RuleError(messages.UNKNOWN_MODE)
    ordered = sorted(finalists, key=lambda finalist: finalist.season_rank)
    if len({f.player_id for f in ordered}) != len(ordered):
        raise RuleError(FINALIST_TWICE)
    if seeding == FinalsSeeding.RANDOM and draw_seed is None:
        draw_seed = rules.new_draw_seed()
    if seeding != FinalsSeeding.RANDOM:
        draw_seed = None
    plan = finals_plan(
        finalists=len(ordered),
        heats=heats,
        runners_up=runners_up,
        seeding=seeding,
        draw_seed=draw_seed,
    )
    try:
        with transaction.atomic():
            event = FinalsEvent.objects.create(
                season=season,
                venue=venue,
                night=tonight,
                mode=mode,
                seeding=seeding,
                draw_seed=draw_seed,
                heat_count=heats,
                runners_up=runners_up,
                created_by=account,
            )
    except IntegrityError:
        raise RuleError(ALREADY_HELD, season=season.name) from None
    # Season positions 1..n among these finalists, whatever the qualifiers numbered them.
    by_position = dict(enumerate(ordered, start=1))
    players = Player.objects.in_bulk([f.player_id for f in ordered])
    entries = []
    draw_position = 0
    for heat, positions in enumerate(plan, start=1):
        for position in positions:
            draw_position += 1
            finalist = by_position[position]
            entries.append(
                FinalsEntry(
                    event=event,
                    player_id=finalist.player_id,
                    season_rank=position,
                    venue_id=finalist.venue_id,
                    draw_position=draw_position,
                    heat=heat,
                )
            )
        table = Table.objects.create(
            name=_g(str(HEAT_NAME)) % {"number": heat},
            mode=mode,
            venue=venue,
            created_by=account,
            finals=True,
        )
        FinalsTable.objects.create(event=event, table=table, heat=heat)
        seated = [players[by_position[position].player_id] for position in positions]
        tables.match_open(table=table, number=1, players=seated)
    FinalsEntry.objects.bulk_create(entries)
    return event


def final_lock_first(table: Table) -> None:
    """Before a heat's crowning, its undo or its correction moves the standings stamp: lock
    the final's table (when there is one) right after the heat's own, tables before the
    stamp as every write takes them, so that the final's crowning (its table, then the
    stamp) and this write never wait on each other in a circle."""
    final_id = (
        FinalsTable.objects.filter(event__stages__table_id=table.pk, heat__isnull=True)
        .exclude(table_id=table.pk)
        .order_by()
        .values_list("table_id", flat=True)
        .first()
    )
    if final_id is not None:
        list(Table.objects.select_for_update().filter(pk=final_id).order_by().values_list("pk"))


def _lock_stage(table: Table) -> FinalsTable | None:
    """The finals table's FinalsTable row, locked alone. Unordered: the model's ordering
    joins the event, and FOR UPDATE would lock the event's row too, before the final's
    table, against the lock order (a heat's undo, holding the event, waits for the final's
    table while the final's crowning, holding that table, waited for the event)."""
    return FinalsTable.objects.select_for_update().filter(table_id=table.pk).order_by("pk").first()


def _runner_up(seats: Sequence[Seat]) -> Seat:
    return next(seat for seat in seats if seat.place == 2)


def stage_filed(*, table: Table, match: Match, seats: Sequence[Seat]) -> None:
    """A finals table's one match was just filed (inside its crowning, the table locked):
    the table closes; a heat's winner is kept, and the last heat's filing opens the final;
    the final's winner is the season's champion."""
    now = timezone.now()
    table.closed_at = now
    Table.objects.filter(pk=table.pk).update(closed_at=now)
    stage = _lock_stage(table)
    if stage is None:
        return  # its finals night was deleted with its season: the table just closes
    stage.winner_id = match.winner_id
    stage.save(update_fields=["winner"])
    if stage.is_final:
        return
    event = FinalsEvent.objects.select_for_update().get(pk=stage.event_id)
    heats = list(FinalsTable.objects.filter(event=event, heat__isnull=False))
    if any(heat.winner_id is None for heat in heats):
        return
    _final_open(event, heats)


def _going_through(event: FinalsEvent, heats: Sequence[FinalsTable]) -> list[Player]:
    """The final's players as the heats' filed matches send them: every heat's winner, then
    the best runners-up by season position; best season position first."""
    ranks = dict(FinalsEntry.objects.filter(event=event).values_list("player_id", "season_rank"))
    last = len(ranks) + 1  # a player the draw did not seat (never, as rosters are fixed)
    # Every heat's filed match with its seats: two queries, however many heats.
    filed_at = {
        match.table_id: match
        for match in Match.objects.filed()
        .filter(table_id__in=[heat.table_id for heat in heats])
        .prefetch_related("seats")
    }
    results = []
    for heat in heats:
        filed = filed_at[heat.table_id]
        runner_up = _runner_up(list(filed.seats.all())).player_id
        results.append(
            rules.HeatResult(
                winner=filed.winner_id or 0,
                runner_up=runner_up,
                runner_up_rank=ranks.get(runner_up, last),
            )
        )
    through = rules.going_through(results, event.runners_up)
    players = Player.objects.in_bulk(through)
    return [players[pk] for pk in sorted(through, key=lambda pk: ranks.get(pk, last))]


def _final_open(event: FinalsEvent, heats: Sequence[FinalsTable]) -> None:
    """Seat the final: every heat's winner, then the best runners-up by season position;
    seated best season position first."""
    seated = _going_through(event, heats)
    final = FinalsTable.objects.filter(event=event, heat__isnull=True).first()
    if final is None:
        table = Table.objects.create(
            name=_g(str(FINAL_NAME)),
            mode=event.mode,
            venue=event.venue,
            created_by=event.created_by,
            finals=True,
        )
        FinalsTable.objects.create(event=event, table=table, heat=None)
        table_bump(table)  # the screens following the venue hear of it
    else:
        # Taken back by an undone heat, and opened again: the same table, a new match 1.
        table = Table.objects.select_for_update().get(pk=final.table_id)
        table.closed_at = None
        table_bump(table, "closed_at")
    tables.match_open(table=table, number=1, players=seated)


def stage_corrected(*, table: Table, match: Match) -> None:
    """A finals table's filed match was corrected (inside the correction, the table locked):
    its winner follows the corrected places (the final's: the season's champion). A heat's
    correction that changes who goes through seats the final again while nobody has been
    tapped out there, and is refused once the final is under way or won."""
    stage = _lock_stage(table)
    if stage is None:
        return  # its finals night was deleted with its season
    stage.winner_id = match.winner_id
    stage.save(update_fields=["winner"])
    if stage.is_final:
        return
    event = FinalsEvent.objects.select_for_update().get(pk=stage.event_id)
    final = (
        FinalsTable.objects.filter(event=event, heat__isnull=True).select_related("table").first()
    )
    heats = list(
        FinalsTable.objects.filter(event=event, heat__isnull=False).select_related("table")
    )
    if final is None or any(heat.winner_id is None for heat in heats):
        return  # no final seated: the last heat's crowning seats it from these places
    through = [player.pk for player in _going_through(event, heats)]
    live = final.table.matches.exclude(status=Match.Status.DISCARDED).order_by("-pk").first()
    if (
        live is not None
        and list(live.seats.order_by("position").values_list("player_id", flat=True)) == through
    ):
        return  # the final's players stay the same
    if final.winner_id is not None:
        raise RuleError(CORRECTION_AFTER_FINAL)
    _final_take_back(final, under_way=CORRECTION_MOVES_FINAL)
    _final_open(event, heats)


def stage_unfiled(*, table: Table) -> None:
    """A finals table's crowning is being undone (inside the undo, the table locked): the
    table opens again and its winner goes. A heat's undo takes back the final when nobody
    has been tapped out there yet, and is refused once the final is under way or won."""
    # The stamp before the event, as a heat's crowning takes them (its filing, then
    # stage_filed): the undo's own unfiling would otherwise take it after the event.
    standings_changed()
    stage = _lock_stage(table)
    if stage is not None and not stage.is_final:
        FinalsEvent.objects.select_for_update().filter(pk=stage.event_id).first()
        final = (
            FinalsTable.objects.filter(event_id=stage.event_id, heat__isnull=True)
            .select_related("table")
            .first()
        )
        if final is not None:
            _final_take_back(final)
    if stage is not None:
        stage.winner = None
        stage.save(update_fields=["winner"])
    table.closed_at = None
    Table.objects.filter(pk=table.pk).update(closed_at=None)


def _final_take_back(final: FinalsTable, *, under_way: "StrPromise" = FINAL_UNDER_WAY) -> None:
    if final.winner_id is not None:
        raise RuleError(FINAL_PLAYED)
    table = tables.bump_table(final.table_id).table
    # Read again under the final table's lock: its crowning may have landed since `final`
    # was read, and a closed final is then a won one, not one taken back.
    if FinalsTable.objects.filter(pk=final.pk, winner__isnull=False).exists():
        raise RuleError(FINAL_PLAYED)
    if not table.is_open:
        return  # already taken back by an earlier undo
    opened = table.matches.open().first()
    if opened is not None and opened.taps.filter(undone_at__isnull=True).exists():
        raise RuleError(under_way)
    tables.discard_open(table, Match.DiscardReason.UNDONE)
    table.closed_at = timezone.now()
    table.save(update_fields=["closed_at"])
