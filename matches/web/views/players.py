"""Hosts' pages for the league's players: the list, renaming, and merging two records of
the same person (seen side by side first, and undone later if need be)."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from matches.core.errors import Refusal, RuleError
from matches.models import Player, PlayerMerge
from matches.org.roles import PLAYERS_ARE_THE_ORGANISERS
from matches.results.players import selectors as player_selectors
from matches.results.players import services as player_services
from matches.rules.limits import NAME_MAX_LENGTH
from matches.web import feedback
from matches.web.access import host_required, organiser_required
from matches.web.forms.players import PlayerMergeConfirmForm, PlayerMergeForm, PlayerRenameForm
from matches.web.htmx import HtmxHttpRequest

RENAMED = _("Renamed to “%(name)s”. Standings and table pages show the new name.")
MERGED = _("“%(other)s” is now part of %(name)s: every match, win and rating moved.")
UNMERGED = _("The merge is undone: “%(other)s” is a record of its own again, apart from %(name)s.")
MERGE_NOT_CONFIRMED = _("Type the name of the other record again; nothing was changed.")


@organiser_required(PLAYERS_ARE_THE_ORGANISERS)
@require_http_methods(["GET", "POST"])
def player_rename(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=player_id)
    form = PlayerRenameForm(request.POST or None, initial={"name": player.name})
    if request.method == "POST" and form.is_valid():
        try:
            player = player_services.player_rename(
                player_id=player.pk, name=form.cleaned_data["name"], by=request.user
            )
        except RuleError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, str(RENAMED) % {"name": feedback.player_ref(player)})
            return redirect("matches:player", player_id=player.pk)
    status = 400 if request.method == "POST" else 200
    context = {"player": player, "form": form}
    return render(request, "matches/player_rename.html", context, status=status)


@organiser_required(PLAYERS_ARE_THE_ORGANISERS)
@require_http_methods(["GET", "POST"])
def player_merge(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    """The name of the other record, then both records side by side, then the merge."""
    player = get_object_or_404(Player, pk=player_id)
    if request.method == "POST" and "confirm" in request.POST:
        return _merge_confirmed(request, player)
    form = PlayerMergeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            return _confirmation(request, player, form.cleaned_data["other"])
        except RuleError as error:
            form.add_error(None, error.message)
    return _merge_form(request, player, form)


def _confirmation(
    request: HtmxHttpRequest, player: Player, other_name: str, error: str | None = None
) -> HttpResponse:
    """Both records side by side, and what the public will read after the merge; a
    RuleError if they cannot be merged."""
    kept, other = player_selectors.player_merge_preview(keep_id=player.pk, other_name=other_name)
    confirm = PlayerMergeConfirmForm(
        initial={"other": other.player.name, "other_id": other.player.pk}
    )
    context = {
        "player": player,
        "sides": [kept, other],
        "confirm": confirm,
        "error": error,
        "shows_hidden": player_selectors.merge_shows_hidden(keep=kept.player, drop=other.player),
        "hidden_as": other.player.shown_name(real=False),
        "shown_as": kept.player.shown_name(real=False),
    }
    status = 200 if error is None else 400
    return render(request, "matches/player_merge_confirm.html", context, status=status)


def _merge_form(request: HtmxHttpRequest, player: Player, form: PlayerMergeForm) -> HttpResponse:
    status = 400 if request.method == "POST" else 200
    context = {
        "player": player,
        "form": form,
        "names": player_selectors.other_player_names(player=player),
    }
    return render(request, "matches/player_merge.html", context, status=status)


def _merge_confirmed(request: HtmxHttpRequest, player: Player) -> HttpResponse:
    confirm = PlayerMergeConfirmForm(request.POST)
    form = PlayerMergeForm({"other": request.POST.get("other", "")})
    if confirm.is_valid():
        other = confirm.cleaned_data["other"].strip()
        try:
            record = player_services.player_merge(
                keep_id=player.pk,
                other_name=other,
                other_id=confirm.cleaned_data["other_id"],
                show_hidden=confirm.cleaned_data["show_hidden"],
                by=request.user,
            )
        except RuleError as error:
            if error.code == Refusal.MERGE_SHOWS_HIDDEN:
                # The same page again, with the box to tick named.
                try:
                    return _confirmation(request, player, other, error=error.message)
                except RuleError as later:
                    error = later
            form.is_valid()
            form.add_error(None, error.message)
        else:
            refs = {"other": feedback.absorbed_ref(record), "name": feedback.player_ref(player)}
            messages.success(request, str(MERGED) % refs)
            return redirect("matches:player", player_id=player.pk)
    else:
        form.is_valid()
        form.add_error(None, str(MERGE_NOT_CONFIRMED))
    return _merge_form(request, player, form)


@organiser_required(PLAYERS_ARE_THE_ORGANISERS)
@require_POST
def player_merge_undo(request: HtmxHttpRequest, merge_id: int) -> HttpResponse:
    """Take a merge back; a refusal is said on the page the host came from, nothing changed."""
    record = get_object_or_404(PlayerMerge, pk=merge_id)
    try:
        record = player_services.player_merge_undo(merge_id=record.pk, by=request.user)
    except RuleError as error:
        messages.error(request, feedback.refusal_message(error))
    else:
        refs = {"other": feedback.absorbed_ref(record), "name": feedback.player_ref(record.kept)}
        messages.success(request, str(UNMERGED) % refs)
    if (
        request.POST.get("back") == "merges"
        or not Player.objects.filter(pk=record.kept_id).exists()
    ):
        return redirect("matches:player_merges")
    return redirect("matches:player", player_id=record.kept_id)


@host_required
@require_safe
def player_merges(request: HtmxHttpRequest) -> HttpResponse:
    """Every merge, newest first, with who did it, and an undo for those that stand."""
    page = player_selectors.merges_page(page=request.GET.get("page"))
    return render(request, "matches/player_merges.html", {"page": page})


@host_required
@require_safe
def player_list(request: HtmxHttpRequest) -> HttpResponse:
    """The league's players, searchable by name, a page at a time."""
    query = request.GET.get("q", "")[:NAME_MAX_LENGTH]
    page = player_selectors.players_page(query=query, page=request.GET.get("page"))
    return render(request, "matches/players.html", {"page": page, "query": query.strip()})
