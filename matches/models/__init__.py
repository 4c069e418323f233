"""Every model of the app, re-exported: Django and the migrations know them as
matches.models.<Name>."""

from matches.models.corrections import MatchCorrection
from matches.models.finals import FinalsEntry, FinalsEvent, FinalsSeeding, FinalsTable
from matches.models.hosts import HostProfile
from matches.models.merges import PlayerMerge
from matches.models.ratings import PlayerRating, RatingChange, RatingsReplay
from matches.models.stamp import StandingsStamp
from matches.models.standings import (
    AllTimeTotal,
    CountFields,
    Counts,
    DailyTally,
    HeadToHead,
    PlayerNight,
    RunningTotal,
    Season,
    SeasonRuleChange,
)
from matches.models.tables import Match, MatchQuerySet, Player, Seat, Table, Tap
from matches.models.venues import HostInvitation, Venue, VenueRole

__all__ = [
    "AllTimeTotal",
    "CountFields",
    "Counts",
    "DailyTally",
    "FinalsEntry",
    "FinalsEvent",
    "FinalsSeeding",
    "FinalsTable",
    "HeadToHead",
    "HostInvitation",
    "HostProfile",
    "Match",
    "MatchCorrection",
    "MatchQuerySet",
    "Player",
    "PlayerMerge",
    "PlayerNight",
    "PlayerRating",
    "RatingChange",
    "RatingsReplay",
    "RunningTotal",
    "Season",
    "SeasonRuleChange",
    "Seat",
    "StandingsStamp",
    "Table",
    "Tap",
    "Venue",
    "VenueRole",
]
