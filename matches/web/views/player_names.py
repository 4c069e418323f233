"""The organiser's pages for how a player is shown in public: the public name or hiding, and
the erasure (asked first, then a POST)."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from matches.core.errors import RuleError
from matches.models import Player
from matches.org.roles import PLAYERS_ARE_THE_ORGANISERS
from matches.results import public_names
from matches.web import feedback
from matches.web.access import organiser_required
from matches.web.forms.players import PlayerPublicNameForm
from matches.web.htmx import HtmxHttpRequest

PUBLIC_NAME_SAVED = _("Saved. The public now reads “%(shown)s”; hosts read “%(name)s”.")
ERASED = _("The name was erased: this player now reads “%(shown)s” everywhere.")


@organiser_required(PLAYERS_ARE_THE_ORGANISERS)
@require_http_methods(["GET", "POST"])
def player_public_name(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=player_id)
    if player.erased_at is not None:
        messages.error(request, public_names.ALREADY_ERASED)
        return redirect("matches:player", player_id=player.pk)
    initial = {"public_name": player.public_name, "hidden": player.hidden}
    form = PlayerPublicNameForm(request.POST or None, initial=initial, player_id=player.pk)
    if request.method == "POST" and form.is_valid():
        try:
            player = public_names.player_set_public_name(
                player_id=player.pk,
                public_name=form.cleaned_data["public_name"],
                hidden=form.cleaned_data["hidden"],
                by=request.user,
            )
        except RuleError as error:
            form.add_error(None, error.message)
        else:
            refs = {"shown": feedback.public_ref(player), "name": feedback.player_ref(player)}
            messages.success(request, str(PUBLIC_NAME_SAVED) % refs)
            return redirect("matches:player", player_id=player.pk)
    status = 400 if request.method == "POST" else 200
    context = {"player": player, "form": form}
    return render(request, "matches/player_public_name.html", context, status=status)


@organiser_required(PLAYERS_ARE_THE_ORGANISERS)
@require_http_methods(["GET", "POST"])
def player_erase(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    """GET asks for confirmation, saying what goes and what stays; POST erases."""
    player = get_object_or_404(Player, pk=player_id)
    if player.erased_at is not None:
        return redirect("matches:player", player_id=player.pk)
    if request.method == "GET":
        return render(request, "matches/player_erase.html", {"player": player})
    try:
        player = public_names.player_erase(player_id=player.pk, by=request.user)
    except RuleError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, str(ERASED) % {"shown": player.shown_name(real=True)})
    return redirect("matches:player", player_id=player.pk)
