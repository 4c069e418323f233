"""The integrity scan: every broken game rule in the database, found with a fixed number of
aggregate queries, one group of rules per function.

The constraints should make most of these impossible; this finds damage done around them
(raw SQL, a restore from a bad copy, a constraint dropped by hand)."""

from django.core.exceptions import ValidationError
from django.db.models import (
    Count,
    Exists,
    Max,
    Min,
    OuterRef,
    Q,
)

from matches.models import Match, MatchCorrection, Player, Seat, Tap
from matches.models.corrections import covering
from matches.results.filing import aggregate_problems
from matches.rules.limits import MAX_PLAYERS, MIN_PLAYERS
from matches.rules.names import clean_name, erased_player_key, erased_player_name, name_key


def integrity_problems() -> list[str]:
    """Every broken game rule, as one sentence each; empty when all hold."""
    return [
        *match_problems(),
        *table_problems(),
        *tap_problems(),
        *player_name_problems(),
        *aggregate_problems(),
    ]


def match_problems() -> list[str]:
    """Places, winners and seat counts of every open or filed match."""
    problems: list[str] = []
    per_match = (
        Match.objects.live()
        .select_related("table")
        .annotate(
            seated=Count("seats"),
            placed=Count("seats", filter=Q(seats__place__isnull=False)),
            distinct_places=Count("seats__place", distinct=True),
            firsts=Count("seats", filter=Q(seats__place=1)),
            low=Min("seats__place"),
            high=Max("seats__place"),
            winner_first=Exists(
                Seat.objects.filter(match=OuterRef("pk"), place=1, player=OuterRef("winner"))
            ),
        )
    )
    for m in per_match.iterator(chunk_size=2000):
        where = f"Table {m.table.name!r} (#{m.table_id}) match {m.number}"
        if m.distinct_places != m.placed:
            problems.append(f"{where}: two players share a place")
        if m.status == Match.Status.FILED:
            if m.winner_id is None or m.filed_at is None:
                problems.append(f"{where}: filed without a winner")
            if m.firsts > 1:
                problems.append(f"{where}: two winners")
            elif not m.winner_first:
                problems.append(f"{where}: the winner is not the player in first place")
            if (m.placed, m.low, m.high) != (m.seated, 1, m.seated):
                problems.append(f"{where}: places do not run {m.seated}..1")
        else:
            if m.winner_id is not None or m.firsts:
                problems.append(f"{where}: a winner in a match still open")
            if m.placed and (m.high != m.seated or m.low != m.seated - m.placed + 1):
                problems.append(f"{where}: places do not run down from {m.seated}")
            if m.seated - m.placed < 2:
                problems.append(f"{where}: open with fewer than two standing")
        if not MIN_PLAYERS <= m.seated <= MAX_PLAYERS:
            problems.append(f"{where}: {m.seated} players seated")
    return problems


def table_problems() -> list[str]:
    """At most one open match per table, and none at a closed table."""
    problems = [
        f"Table {row['table__name']!r} (#{row['table_id']}): {row['n']} open matches"
        for row in Match.objects.open()
        .values("table_id", "table__name")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    ]
    problems += [
        f"Table {m.table.name!r} (#{m.table_id}): closed with match {m.number} open"
        for m in Match.objects.open().filter(table__closed_at__isnull=False).select_related("table")
    ]
    return problems


def tap_problems() -> list[str]:
    """Every live tap matches a seat's place, and every place below first has its tap. A tap
    names who was tapped; where a correction made after it covers it, the player out in its
    place is the one that correction puts there (read from the correction, not the tap)."""
    problems: list[str] = []
    active = Tap.objects.filter(undone_at__isnull=True, match__status__in=["open", "filed"])
    corrected = MatchCorrection.objects.filter(
        match=OuterRef("match"), through_tap_id__gte=OuterRef("pk")
    )
    uncorrected = active.filter(~Exists(corrected))
    seated = Seat.objects.filter(match=OuterRef("match"), player=OuterRef("player"))
    for t in uncorrected.filter(~Exists(seated)).select_related("match__table", "player"):
        problems.append(
            f"Table {t.match.table.name!r} (#{t.match.table_id}) match {t.match.number}: "
            f"{t.player.name} was eliminated but is not seated"
        )
    for t in uncorrected.filter(
        Exists(seated), ~Exists(seated.filter(place=OuterRef("place")))
    ).select_related("match__table", "player"):
        problems.append(
            f"Table {t.match.table.name!r} (#{t.match.table_id}) match {t.match.number}: "
            f"{t.player.name}'s tap and seat disagree on the place"
        )
    problems += _corrected_tap_problems(active.filter(Exists(corrected)))
    # A place below first has a live tap in it; in a match never corrected, one naming the
    # seat's own player too.
    live = Tap.objects.filter(undone_at__isnull=True, match=OuterRef("match"))
    untapped = ~Exists(live.filter(place=OuterRef("place"))) | (
        ~Exists(MatchCorrection.objects.filter(match=OuterRef("match")))
        & ~Exists(live.filter(player=OuterRef("player")))
    )
    for s in (
        Seat.objects.filter(place__gte=2, match__status__in=["open", "filed"])
        .filter(untapped)
        .select_related("match__table", "player")
    ):
        problems.append(
            f"Table {s.match.table.name!r} (#{s.match.table_id}) match {s.match.number}: "
            f"{s.player.name} has place {s.place} without a tap"
        )
    return problems


def _corrected_tap_problems(taps) -> list[str]:
    """The live taps a correction covers (three queries: the taps, their matches' seats and
    corrections): the seat the covering correction puts in each tap's place holds it; and
    each correction's orders are its match's seats, each once."""
    problems: list[str] = []
    taps = list(taps.select_related("match__table", "player").order_by("id"))
    match_ids = {t.match_id for t in taps}
    seats: dict[int, dict[int, Seat]] = {}
    for seat in Seat.objects.filter(match_id__in=match_ids).select_related("player"):
        seats.setdefault(seat.match_id, {})[seat.pk] = seat
    corrections: dict[int, list[MatchCorrection]] = {}
    for c in MatchCorrection.objects.filter(match_id__in=match_ids).order_by("id"):
        corrections.setdefault(c.match_id, []).append(c)
    match_of = {t.match_id: t.match for t in taps}
    for match_id, made in corrections.items():
        seated = sorted(seats[match_id])
        for c in made:
            if sorted(c.before_seats) != seated or sorted(c.after_seats) != seated:
                m = match_of[match_id]
                problems.append(
                    f"Table {m.table.name!r} (#{m.table_id}) match {m.number}: correction "
                    f"#{c.pk} does not list the match's seats"
                )
    for t in taps:
        where = f"Table {t.match.table.name!r} (#{t.match.table_id}) match {t.match.number}"
        cover = covering(corrections[t.match_id], t.pk)
        held = (
            seats[t.match_id].get(cover.seat_in(t.place))
            if cover and t.place <= len(cover.after_seats)
            else None
        )
        if held is None or held.place != t.place:
            problems.append(
                f"{where}: the correction #{cover.pk if cover else '?'} and the seats disagree on who is "
                f"out in {t.player.name}'s tap's place ({t.place})"
            )
    return problems


def player_name_problems() -> list[str]:
    """Players whose stored name is not clean, or who read the same as another (left so by
    the migration that normalised names): an admin renames or merges them."""
    problems = []
    players = list(Player.objects.only("name", "key", "public_name", "erased_at").order_by("id"))
    holder = {player.key: player for player in players}
    for player in players:
        if player.erased_at is not None:
            # An erased record keeps no name: its own placeholder and a key no name matches.
            if player.name != erased_player_name(player.pk) or player.key != erased_player_key(
                player.pk
            ):
                problems.append(f"Player #{player.pk} was erased but still holds a name")
            continue
        if player.public_name:
            try:
                if clean_name(player.public_name) != player.public_name:
                    raise ValidationError("")
            except ValidationError:
                problems.append(f"Player #{player.pk}'s public name is not a clean name")
        try:
            clean = clean_name(player.name)
        except ValidationError:
            problems.append(f"Player #{player.pk}'s name is not a clean name: {player.name!r}")
            continue
        key = name_key(clean)
        if clean != player.name or key != player.key:
            other = holder.get(key)
            if other is not None and other.pk != player.pk:
                problems.append(
                    f"Players #{player.pk} and #{other.pk} are both called “{clean}”: rename "
                    "one in the admin, or merge them"
                )
            else:
                problems.append(f"Player #{player.pk}'s matching key is out of date")
    return problems
