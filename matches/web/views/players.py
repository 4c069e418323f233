"""Hosts' pages to rename a player and to merge two records of the same person."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from matches.core.errors import RuleError
from matches.models import Player
from matches.results import players as player_records
from matches.web.access import host_required
from matches.web.forms import PlayerMergeForm, PlayerRenameForm
from matches.web.htmx import HtmxHttpRequest

RENAMED = _("Renamed to “%(name)s”. Standings and table pages show the new name.")
MERGED = _("“%(other)s” is now part of %(name)s: every match, win and rating moved.")


@host_required
@require_http_methods(["GET", "POST"])
def player_rename(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=player_id)
    form = PlayerRenameForm(request.POST or None, initial={"name": player.name})
    if request.method == "POST" and form.is_valid():
        try:
            player = player_records.player_rename(
                player_id=player.pk, name=form.cleaned_data["name"], by=request.user
            )
        except RuleError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, str(RENAMED) % {"name": player.name})
            return redirect("matches:player", player_id=player.pk)
    status = 400 if request.method == "POST" else 200
    context = {"player": player, "form": form}
    return render(request, "matches/player_rename.html", context, status=status)


@host_required
@require_http_methods(["GET", "POST"])
def player_merge(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=player_id)
    form = PlayerMergeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        other = form.cleaned_data["other"].strip()
        try:
            player = player_records.player_merge(
                keep_id=player.pk, other_name=other, by=request.user
            )
        except RuleError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, str(MERGED) % {"other": other, "name": player.name})
            return redirect("matches:player", player_id=player.pk)
    status = 400 if request.method == "POST" else 200
    context = {
        "player": player,
        "form": form,
        "names": player_records.player_names_like(player=player),
    }
    return render(request, "matches/player_merge.html", context, status=status)
