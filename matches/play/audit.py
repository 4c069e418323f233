"""The audit read: every tap ever made under a match number, undone ones and those of
discarded matches included, with the hosts who made, queued and undid them."""

from dataclasses import dataclass, field

from matches.models import Match, Tap


@dataclass(frozen=True)
class DiscardedMatch:
    """A match opened under a number and discarded (its reason on the match), with its taps."""

    match: Match
    taps: list[Tap] = field(default_factory=list)


@dataclass(frozen=True)
class AuditTrail:
    """Every tap ever made under a match number, undone ones included: the filed (or open)
    match's own, and apart, those of each match discarded under that number (a close and
    reopen, or an undone crowning, opens the number again). Nothing is silently dropped."""

    taps: list[Tap]
    discarded: list[DiscardedMatch]


HOSTS_OF_A_TAP = ("tapped_by", "queued_by", "undone_by", "undo_queued_by")


def match_audit(*, match: Match) -> AuditTrail:
    """The audit trail of a match's number on its table, in one query. A discarded match
    without taps had nothing happen in it and is left out."""
    taps = (
        Tap.objects.filter(match__table_id=match.table_id, match__number=match.number)
        # Each host with their display name (the public's view of them), in the same query.
        .select_related(
            "player",
            "match",
            *(f"{who}__host_profile" for who in HOSTS_OF_A_TAP),
        )
        .order_by("id")
    )
    own: list[Tap] = []
    discarded: dict[int, DiscardedMatch] = {}
    for tap in taps:
        if tap.match_id == match.pk:
            own.append(tap)
        else:  # the number is unique among live matches: any other match is discarded
            discarded.setdefault(tap.match_id, DiscardedMatch(match=tap.match)).taps.append(tap)
    return AuditTrail(taps=own, discarded=[discarded[pk] for pk in sorted(discarded)])
