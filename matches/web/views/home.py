"""The home page: tonight's open tables and the closed ones."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from matches.play import selectors
from matches.web.htmx import HtmxHttpRequest


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    open_tables, closed_tables = selectors.home_tables()
    context = {"open_tables": open_tables, "closed_tables": closed_tables}
    return render(request, "matches/home.html", context)
