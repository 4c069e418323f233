"""Seasons: the public list with each season's podium, and the organiser's pages to define them."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from matches.core.errors import Refusal, RuleError
from matches.models import Season
from matches.org.roles import SEASONS_ARE_THE_ORGANISERS
from matches.play import finals_boards
from matches.results import qualifiers, season_rules, seasons
from matches.web.access import organiser_required
from matches.web.caching.tags import real_names
from matches.web.exports import json_response
from matches.web.forms.seasons import SeasonForm, SeasonRulesForm
from matches.web.htmx import HtmxHttpRequest

SEASON_SAVED = _("Season “%(name)s” saved.")
SEASON_DELETED = _("Season “%(name)s” deleted. No result changed.")
RULES_SAVED = _("The qualification rules of “%(name)s” are saved.")
RULES_UNCHANGED = _("The qualification rules of “%(name)s” are as they were: nothing changed.")


@require_safe
def season_list(request: HtmxHttpRequest) -> HttpResponse:
    overview = seasons.seasons_overview(real_names=real_names(request))
    context = {
        "overview": overview,
        # Every season's finals night and champion at once, not one read per season.
        "seasons_finals": finals_boards.seasons_finals(seasons=[item.season for item in overview]),
    }
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


@require_safe
def season_detail(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    real = real_names(request)
    context = {
        "season": season,
        "status": qualifiers.season_status(season),
        "rules": season_rules.rules_in_words(season.qualifying_rules),
        "history": season_rules.rules_history(season, real_names=real, viewer=request.user),
    }
    return render(request, "matches/season.html", context)


@organiser_required(SEASONS_ARE_THE_ORGANISERS)
@require_http_methods(["GET", "POST"])
def season_rules_edit(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    form = SeasonRulesForm(
        request.POST or None, season=season, initial=SeasonRulesForm.initial_of(season)
    )
    if request.method == "POST" and form.is_valid():
        rules = form.rules()
        try:
            saved = season_rules.season_rules_save(
                season_id=season.pk,
                rules=rules,
                by=request.user,
                confirm=form.cleaned_data["confirm"] or None,
            )
        except RuleError as error:
            if error.code != Refusal.RULES_UNCONFIRMED:
                form.add_error(None, error.message)
            else:
                # Shown what the change does, and asked: only that confirmation saves.
                change = season_rules.rules_change(season, rules, real_names=real_names(request))
                confirm = SeasonRulesForm(
                    season=season,
                    initial={**form.cleaned_data, "confirm": change.token},
                )
                context = {
                    "season": season,
                    "change": change,
                    "confirm": confirm,
                    "error": error.message if form.cleaned_data["confirm"] else None,
                }
                return render(request, "matches/season_rules_confirm.html", context)
        else:
            done = RULES_SAVED if saved else RULES_UNCHANGED
            messages.success(request, str(done) % {"name": season.name})
            return redirect("matches:season", season.pk)
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "season": season, "started": season.first_day}
    return render(request, "matches/season_rules.html", context, status=status)


@require_safe
def season_qualifiers(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    result = qualifiers.season_qualifiers(season, real_names=real_names(request))
    context = {
        "season": season,
        "result": result,
        "rules": season_rules.rules_in_words(result.rules),
    }
    return render(request, "matches/qualifiers.html", context)


@require_safe
def api_season_qualifiers(request: HtmxHttpRequest, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    with translation.override(None):  # the same document in every language
        result = qualifiers.season_qualifiers(season, real_names=real_names(request))
        return json_response(qualifiers.qualifiers_json(result))
