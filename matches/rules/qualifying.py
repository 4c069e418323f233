"""How a season's finalists qualify, as pure arithmetic: how many places a venue has (the
top N, or the top X% of the players ranked there with a cap of N places) and how many
nights a player needs at a venue (the season's minimum, scaled down for a venue that ran
fewer of the league's nights). The season keeps the rules (models.Season's qualify_*
fields); results.qualifiers applies them."""

from dataclasses import dataclass

# Bounds a form and the database both keep (models.Season's constraints).
MAX_PLACES = 1000
MAX_NIGHTS = 366


@dataclass(frozen=True)
class QualifyingRules:
    """A season's qualification rules. places: the top N of each venue, or with percent the
    cap on the top percent% of the players ranked there. min_nights: the nights a player
    needs at the venue in a season where every night of the league was also one there
    (scaled: needed_nights). best_nights: each player's best N nights count at the venue
    (the season's own rule), None when every night counts. one_venue: a player qualifies
    at one venue only, their best position."""

    places: int = 8
    percent: int | None = None
    min_nights: int = 0
    best_nights: int | None = None
    one_venue: bool = True

    def as_dict(self) -> dict:
        """The rules as a rule-change record and the JSON keep them."""
        return {
            "places": self.places,
            "percent": self.percent,
            "min_nights": self.min_nights,
            "best_nights": self.best_nights,
            "one_venue": self.one_venue,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "QualifyingRules":
        return cls(
            places=int(data["places"]),
            percent=None if data.get("percent") is None else int(data["percent"]),
            min_nights=int(data.get("min_nights") or 0),
            best_nights=None if data.get("best_nights") is None else int(data["best_nights"]),
            one_venue=bool(data.get("one_venue", True)),
        )

    def token(self) -> str:
        """The rules in one line, for a confirmation to name exactly what it confirms."""
        percent = "" if self.percent is None else self.percent
        best = "" if self.best_nights is None else self.best_nights
        return f"p{self.places}.x{percent}.m{self.min_nights}.b{best}.o{int(self.one_venue)}"


def places_at(rules: QualifyingRules, ranked_players: int) -> int:
    """A venue's places: the top N; or percent% of its ranked players rounded up (at least
    one when anyone is ranked), capped at N. Never more than the players ranked there."""
    if rules.percent is None:
        wanted = rules.places
    else:
        # Integer arithmetic: 25% of 10 players is 3 places (2.5 rounded up), not a float's guess.
        wanted = min(rules.places, -(-ranked_players * rules.percent // 100))
    return min(wanted, ranked_players)


def needed_nights(minimum: int, *, venue_nights: int, league_nights: int) -> int:
    """The nights a player needs at a venue that ran venue_nights of the league's
    league_nights in the season: minimum x venue_nights / league_nights, rounded up (a
    venue open every night of the league needs the full minimum; one open half of them,
    half of it)."""
    if not minimum or not league_nights:
        return 0
    return -(-minimum * venue_nights // league_nights)
