"""Error pages Django is told to use instead of its technical ones."""

from django.http import HttpResponse
from django.shortcuts import render

from matches.web.htmx import HtmxHttpRequest


def csrf_failure(request: HtmxHttpRequest, reason: str = "") -> HttpResponse:
    """A clear page instead of Django's technical one; nothing was saved."""
    return render(request, "matches/csrf_failure.html", status=403)
