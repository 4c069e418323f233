"""A season's finals night: the organiser's page to create it from the qualifiers, its page
(the draw, the heats, the final and the champion) and its TV board, live."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import condition, require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.core.errors import RuleError
from matches.models import Season, Venue
from matches.org.roles import is_organiser
from matches.play import finals_boards
from matches.play.services import finals
from matches.results.qualifiers import season_finalists
from matches.rules.nights import night_of
from matches.web.access import organiser_required
from matches.web.caching.finals import finals_board_etag, finals_board_state
from matches.web.caching.headers import shared_cache
from matches.web.caching.tags import real_names
from matches.web.forms.finals import FinalsForm
from matches.web.htmx import HtmxHttpRequest
from matches.web.views import tables

FINALS_CREATED = _("The finals night of %(season)s is on: %(heats)s heats are open.")


@organiser_required(finals.FINALS_ARE_THE_ORGANISERS)
@require_http_methods(["GET", "POST"])
def finals_new(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    """The organiser creates the season's finals night from its qualifiers."""
    season = get_object_or_404(Season, pk=season_id)
    if finals_boards.finals_of(season_id=season.pk) is not None:
        return redirect("matches:finals", season_id=season.pk)
    finalists = season_finalists(season)
    venue = Venue.objects.order_by("pk").first()
    form = FinalsForm(request.POST or None, initial=FinalsForm.initial_for(len(finalists), venue))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            event = finals.finals_create(
                season_id=season.pk,
                finalists=finalists,
                heats=data["heats"],
                runners_up=data["runners_up"],
                seeding=data["seeding"],
                mode=data["mode"],
                venue_id=data["venue"].pk,
                by=request.user,
            )
        except RuleError as error:
            form.add_error(None, error.message)
        else:
            text = str(FINALS_CREATED) % {"season": season.name, "heats": event.heat_count}
            messages.success(request, text)
            return redirect("matches:finals", season_id=season.pk)
    context = {
        "season": season,
        "form": form,
        "finalists": finalists,
        "too_early": night_of() <= season.last_day,
    }
    return render(request, "matches/finals_new.html", context, status=400 if form.errors else 200)


@require_safe
def finals_page(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    """The finals night: the draw, each heat and the final with their tables, the champion."""
    season = get_object_or_404(Season, pk=season_id)
    state = finals_boards.finals_state(season_id=season.pk)
    if state is None:
        if is_organiser(request.user):
            return redirect("matches:finals_new", season_id=season.pk)
        raise Http404
    context = {
        "season": season,
        "event": state.event,
        "board": finals_boards.finals_board(state=state),
        "draw": finals_boards.finals_draw(event=state.event),
        "real_names": real_names(request),
    }
    return render(request, "matches/finals.html", context)


@require_safe
@vary_on_headers("HX-Request", "Cookie")
@shared_cache()
@condition(etag_func=finals_board_etag)
def finals_board(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    """The finals night's TV: every heat side by side, live, then the final, then the
    champion. No login; follows its stream or polls, and refreshes itself without
    JavaScript."""
    state = finals_board_state(request, season_id)
    if state is None:
        raise Http404
    context = {
        "season": state.event.season,
        "event": state.event,
        "board": finals_boards.finals_board(state=state),
        "poll_seconds": tables.POLL_SECONDS,
        # The pub's screen: the public's names, even in a host's browser.
        "real_names": False,
    }
    template = "matches/finals_board.html#board" if request.htmx else "matches/finals_board.html"
    return render(request, template, context)
