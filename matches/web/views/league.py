"""League-wide reads beyond the standings: skill ratings, head-to-head and player pages."""

import hashlib

from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition, require_safe

from matches.models import Player
from matches.ratings import selectors as ratings
from matches.ratings.engine import MODEL_NAME
from matches.results import charts, head_to_head, profile
from matches.results.players.selectors import standing_merges_into
from matches.web.caching.standings import cached, ratings_updating, standings_stamp
from matches.web.caching.tags import audience, etag, key, real_names
from matches.web.exports import json_response
from matches.web.htmx import HtmxHttpRequest


def _ratings_etag(request: HtmxHttpRequest) -> str:
    # Ratings change only with a filing, an undo of one or a rebuild: all change the stamp.
    return etag("ratings", standings_stamp(request), audience(request))


def _player_etag(request: HtmxHttpRequest, player_id: int) -> str:
    # A player's totals, rating and head-to-head, and every name shown, move with the stamp.
    return etag(f"player{player_id}", standings_stamp(request), audience(request))


@require_safe
@cache_control(no_cache=True)
@condition(etag_func=_ratings_etag)
def api_ratings(request: HtmxHttpRequest) -> JsonResponse:
    with translation.override(None):  # names as every other JSON gives them
        rating_rows = ratings.rating_table(real_names=real_names(request))
    rows = [row.as_json() for row in rating_rows]
    # While a replay is pending the rows are the last settled ratings, not yet the final ones.
    payload = {"model": MODEL_NAME, "updating": ratings_updating(request), "rows": rows}
    return json_response(payload)


@require_safe
@cache_control(no_cache=True)
@condition(etag_func=_player_etag)
def api_player(request: HtmxHttpRequest, player_id: int) -> JsonResponse:
    player = get_object_or_404(Player, pk=player_id)
    with translation.override(None):  # names as every other JSON gives them
        document = profile.player_api(
            player=player, real_names=real_names(request), updating=ratings_updating(request)
        )
    return json_response(document)


def _player_body(request: HtmxHttpRequest, player: Player, page: str | None) -> str:
    """Everything the page shows of the player but the host's buttons, rendered once per
    change of the league for the first page (what nearly every visit opens); other pages of
    the history are rendered each time rather than let any ?page= push entries out."""

    real = real_names(request)

    def build() -> str:
        # While a replay is pending nothing read from the ratings is shown (never half
        # replayed): the page says so, and reloads itself until it has settled.
        updating = ratings_updating(request)
        shown = profile.player_profile(player=player, page=page, real_names=real, updating=updating)
        context = {
            "player": player,
            "profile": shown,
            "summary": profile.describe(shown),
            "chart": charts.player_chart(shown),
            "real_names": real,
            # The head-to-head list and the history link every opponent, table and match:
            # one reverse() each for all of them.
            "players_url": reverse("matches:player", args=[0]).removesuffix("0/"),
            # Each head-to-head line opens the pair's page: their matches together.
            "pair_url": reverse("matches:player_pair", args=[player.pk, 0]).removesuffix("0/"),
            "tables_url": reverse("matches:table", args=[0]).removesuffix("0/"),
        }
        return render_to_string("matches/player.html#body", context)

    if page not in (None, "", "1"):
        return build()
    # The name is in the key too: before any filing the stamp has no row to tell leagues apart.
    name = hashlib.blake2s(player.name.encode(), digest_size=6).hexdigest()
    cache_key = key(
        "player",
        standings_stamp(request),
        player.pk,
        name,
        get_language(),
        audience(request),
    )
    return cached(cache_key, build)


@require_safe
def player_detail(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=player_id)
    body = _player_body(request, player, request.GET.get("page"))
    # The merges into this record that stand, each with its undo: for hosts only.
    merges = standing_merges_into(player_id=player.pk) if request.user.is_authenticated else []
    context = {
        "player": player,
        "body": body,
        "merges": merges,
        "ratings_updating": ratings_updating(request),
    }
    return render(request, "matches/player.html", context)


@require_safe
@condition(etag_func=lambda request, player_id, other_id: _player_etag(request, player_id))
def player_pair(request: HtmxHttpRequest, player_id: int, other_id: int) -> HttpResponse:
    """Two players' matches together, newest first: where a head-to-head line leads."""
    player = get_object_or_404(Player, pk=player_id)
    other = get_object_or_404(Player, pk=other_id)
    shared, total = head_to_head.shared_matches(player_id=player.pk, other_id=other.pk)
    context = {"player": player, "other": other, "shared": shared, "total": total}
    return render(request, "matches/player_pair.html", context)
