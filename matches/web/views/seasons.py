"""Seasons: the public list with each season's podium, and the organiser's pages to define them."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from matches.core.errors import RuleError
from matches.models import Season
from matches.org.roles import SEASONS_ARE_THE_ORGANISERS
from matches.results import seasons
from matches.web.access import organiser_required
from matches.web.caching.tags import real_names
from matches.web.forms.seasons import SeasonForm
from matches.web.htmx import HtmxHttpRequest

SEASON_SAVED = _("Season “%(name)s” saved.")
SEASON_DELETED = _("Season “%(name)s” deleted. No result changed.")


@require_safe
def season_list(request: HtmxHttpRequest) -> HttpResponse:
    context = {"overview": seasons.seasons_overview(real_names=real_names(request))}
    return render(request, "matches/seasons.html", context)


def _season_form(request: HtmxHttpRequest, season: Season | None) -> HttpResponse:
    initial = {}
    if season is not None:
        initial = {
            "name": season.name,
            "first_day": season.first_day,
            "last_day": season.last_day,
            "best_nights": season.best_nights,
            "min_nights": season.min_nights or None,
        }
    form = SeasonForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            saved = seasons.season_save(
                season_id=season.pk if season else None,
                name=form.cleaned_data["name"],
                first_day=form.cleaned_data["first_day"],
                last_day=form.cleaned_data["last_day"],
                best_nights=form.cleaned_data["best_nights"],
                min_nights=form.cleaned_data["min_nights"] or 0,
                by=request.user,
            )
        except RuleError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, str(SEASON_SAVED) % {"name": saved.name})
            return redirect("matches:seasons")
    status = 400 if request.method == "POST" else 200
    return render(
        request, "matches/season_form.html", {"form": form, "season": season}, status=status
    )


@organiser_required(SEASONS_ARE_THE_ORGANISERS)
@require_http_methods(["GET", "POST"])
def season_new(request: HtmxHttpRequest) -> HttpResponse:
    return _season_form(request, None)


@organiser_required(SEASONS_ARE_THE_ORGANISERS)
@require_http_methods(["GET", "POST"])
def season_edit(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    return _season_form(request, get_object_or_404(Season, pk=season_id))


@organiser_required(SEASONS_ARE_THE_ORGANISERS)
@require_POST
def season_delete(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    try:
        seasons.season_delete(season_id=season.pk, by=request.user)
    except RuleError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, str(SEASON_DELETED) % {"name": season.name})
    return redirect("matches:seasons")
