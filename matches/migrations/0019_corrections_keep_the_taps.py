"""A correction becomes its own record beside the taps: its orders name the match's seats
(not names kept as text), and it says which taps it covers (through_tap). The taps earlier
corrections rewrote name again the players who were tapped; and a player may hold two live
taps of one match (tapped again in the place a correction gave them after its crowning was
undone), so that constraint goes."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Q

from matches.rules.names import name_key


def _seat_ids(names, seats):
    """The seats these names (as they read when kept) stand for, in the same order: each
    name matched to a seated player's name now, ignoring case and spacing; a name that no
    longer reads as any (a rename since) takes a seat left over, in seating order."""
    by_key = {name_key(seat.player.name): seat for seat in seats}
    found = [by_key.get(name_key(name)) for name in names]
    left = [seat for seat in seats if seat not in found]
    ids = []
    for seat in found:
        if seat is None:
            if not left:
                return None
            seat = left.pop(0)
        ids.append(seat.pk)
    return ids


def orders_to_seats(apps, schema_editor):
    MatchCorrection = apps.get_model("matches", "MatchCorrection")
    Seat = apps.get_model("matches", "Seat")
    Tap = apps.get_model("matches", "Tap")
    corrections = list(MatchCorrection.objects.order_by("match_id", "id"))
    match_ids = {c.match_id for c in corrections}
    seats: dict[int, list] = {}
    for seat in Seat.objects.filter(match_id__in=match_ids).select_related("player"):
        seats.setdefault(seat.match_id, []).append(seat)
    taps: dict[int, list] = {}
    for tap in Tap.objects.filter(match_id__in=match_ids).order_by("id"):
        taps.setdefault(tap.match_id, []).append(tap)
    for correction in corrections:
        match_seats = sorted(seats.get(correction.match_id, []), key=lambda s: s.position)
        before = _seat_ids(correction.before, match_seats)
        after = _seat_ids(correction.after, match_seats)
        if before is None or after is None or before == after:
            # Names that fit no seating: the order as filed now stands for both sides.
            now = [s.pk for s in sorted(match_seats, key=lambda s: -(s.place or 0))]
            before, after = before or now, after or list(reversed(now))
        correction.before_seats, correction.after_seats = before, after
        covered = [
            t for t in taps.get(correction.match_id, []) if t.tapped_at <= correction.corrected_at
        ]
        correction.through_tap_id = covered[-1].pk if covered else None
        correction.save(update_fields=["before_seats", "after_seats", "through_tap"])

    # What was tapped: each tap a correction rewrote (live when it was made) names again
    # the player out in its place just before the first correction that covered it.
    seat_player = {seat.pk: seat.player_id for group in seats.values() for seat in group}
    by_match: dict[int, list] = {}
    for correction in corrections:
        by_match.setdefault(correction.match_id, []).append(correction)
    for match_id, match_corrections in by_match.items():
        count = len(seats.get(match_id, []))
        for tap in taps.get(match_id, []):
            first = next(
                (
                    c
                    for c in match_corrections
                    if c.through_tap_id is not None
                    and c.through_tap_id >= tap.pk
                    and (tap.undone_at is None or tap.undone_at > c.corrected_at)
                ),
                None,
            )
            if first is None or not 2 <= tap.place <= count:
                continue
            player_id = seat_player.get(first.before_seats[count - tap.place])
            if player_id is not None and player_id != tap.player_id:
                Tap.objects.filter(pk=tap.pk).update(player_id=player_id)


def seats_to_orders(apps, schema_editor):
    MatchCorrection = apps.get_model("matches", "MatchCorrection")
    Seat = apps.get_model("matches", "Seat")
    for correction in MatchCorrection.objects.all():
        names = dict(
            Seat.objects.filter(match_id=correction.match_id).values_list("pk", "player__name")
        )
        correction.before = [names.get(pk, "") for pk in correction.before_seats]
        correction.after = [names.get(pk, "") for pk in correction.after_seats]
        correction.save(update_fields=["before", "after"])


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0018_fewer_seat_and_tap_indexes"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="tap",
            name="tap_player_once_per_match",
        ),
        migrations.RemoveConstraint(
            model_name="matchcorrection",
            name="correction_changes_order",
        ),
        migrations.AddField(
            model_name="matchcorrection",
            name="before_seats",
            field=models.JSONField(default=list, verbose_name="order before"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="matchcorrection",
            name="after_seats",
            field=models.JSONField(default=list, verbose_name="order after"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="matchcorrection",
            name="through_tap",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="matches.tap",
                verbose_name="latest tap covered",
            ),
        ),
        migrations.AlterField(
            model_name="matchcorrection",
            name="before",
            field=models.JSONField(default=list, verbose_name="order before"),
        ),
        migrations.AlterField(
            model_name="matchcorrection",
            name="after",
            field=models.JSONField(default=list, verbose_name="order after"),
        ),
        migrations.RunPython(orders_to_seats, seats_to_orders),
        migrations.RemoveField(
            model_name="matchcorrection",
            name="before",
        ),
        migrations.RemoveField(
            model_name="matchcorrection",
            name="after",
        ),
        migrations.AddConstraint(
            model_name="matchcorrection",
            constraint=models.CheckConstraint(
                condition=~Q(before_seats=models.F("after_seats")),
                name="correction_changes_order",
            ),
        ),
    ]
