"""The seat picker's server side: the league's players as a host types a name."""

from django.http import HttpResponse
from django.views.decorators.http import require_safe

from matches.results.players.selectors import players_search
from matches.web.access import host_required
from matches.web.exports import json_response
from matches.web.htmx import HtmxHttpRequest

# Longer than any name: a longer query finds nobody and is not worth folding.
QUERY_MAX_LENGTH = 200


@host_required
@require_safe
def api_player_search(request: HtmxHttpRequest) -> HttpResponse:
    """GET ?q=zoe: {"players": [{"id": 7, "name": "Zoë"}, ...]}, the league's players whose
    name holds q ignoring case, accents and width, best first, at most eight."""
    query = request.GET.get("q", "")[:QUERY_MAX_LENGTH]
    found = players_search(query=query)
    response = json_response({"players": [{"id": p.pk, "name": p.name} for p in found]})
    response["Cache-Control"] = "private, no-store"
    return response
