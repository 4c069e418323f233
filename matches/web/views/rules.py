"""The rules page and the showdown judge (a page and a JSON API): they change nothing."""

from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST, require_safe

from matches.play import selectors
from matches.rules import showdown
from matches.web.caching.tags import real_names
from matches.web.exports import json_response
from matches.web.forms.showdown import ShowdownFormSet
from matches.web.htmx import HtmxHttpRequest


@require_safe
def rules(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "matches/rules.html")


@require_safe
def showdown_page(request: HtmxHttpRequest) -> HttpResponse:
    """Judge a showdown: a GET form (it changes nothing), so a result can be shared. It
    shows the rows needed: a table's standing players (?table=), or two; "Add a player"
    (add) shows the same form with one row more, judging nothing yet."""
    adding = "add" in request.GET
    submitted = not adding and any(key.startswith("hand_") for key in request.GET)
    names = selectors.standing_names(request.GET.get("table", ""), real_names=real_names(request))
    rows = ShowdownFormSet.rows_for(request.GET, names=names, adding=adding)
    if adding:
        initial = ShowdownFormSet.initial_from(request.GET, rows)
    else:
        initial = ShowdownFormSet.initial_for(names)
    formset = ShowdownFormSet(request.GET if submitted else None, rows=rows, initial=initial)
    verdict = formset.verdict if submitted and formset.is_valid() else None
    context = {"formset": formset, "verdict": verdict, "card_grid": showdown.card_grid()}
    status = 400 if submitted and not verdict else 200
    return render(request, "matches/showdown.html", context, status=status)


@csrf_exempt  # it changes nothing; scripts post JSON without a session
@require_POST
def api_showdown(request: HtmxHttpRequest) -> JsonResponse:
    try:
        showdown.refuse_declared_length(request.META.get("CONTENT_LENGTH"))
        verdict = showdown.judge_json(request.body)
    except showdown.ShowdownRequestError as error:
        return JsonResponse({"error": error.message}, status=400)
    return json_response(verdict.as_json())
