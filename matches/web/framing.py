"""Which sites may frame a page. Every page refuses (Content-Security-Policy frame-ancestors
'none' and X-Frame-Options DENY, from the settings); a venue's standings embed lets the
origins its organiser lists frame it, and no others."""

import re
from collections.abc import Callable
from functools import wraps

from csp.decorators import csp_replace
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.views.decorators.clickjacking import xframe_options_exempt

from matches.models import Venue
from matches.web.caching import memo
from matches.web.htmx import HtmxHttpRequest

# scheme://host[:port], nothing more: a line that is anything else (a path, a wildcard, a
# quote or a semicolon that would start another directive) is never sent.
_ORIGIN = re.compile(
    r"https?://[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?"
)


def frame_origins(text: str) -> list[str]:
    """The origins listed one per line (Venue.frame_origins), as a policy names them: each
    well-formed one once, in the order listed, a trailing slash dropped."""
    origins: list[str] = []
    for line in text.splitlines():
        origin = line.strip().lower().removesuffix("/")
        if _ORIGIN.fullmatch(origin) and origin not in origins:
            origins.append(origin)
    return origins


def venue_origins(request: HtmxHttpRequest, slug: str) -> list[str]:
    """The origins that may frame this venue's embed (none for no such venue), read once
    per request."""

    def read() -> list[str]:
        text = Venue.objects.filter(slug=slug).values_list("frame_origins", flat=True).first()
        return frame_origins(text or "")

    return memo.once(request, "venue frame origins", read, slug)


def framed_by_venue_origins(
    view: Callable[..., HttpResponse],
) -> Callable[..., HttpResponseBase]:
    """Let the venue's listed origins (the view's slug) frame its answer, a 304 included
    (a browser updates its kept copy's headers from it); with none listed the answer
    refuses framing as every page does."""

    @wraps(view)
    def inner(request: HtmxHttpRequest, slug: str) -> HttpResponseBase:
        response = view(request, slug=slug)
        origins = venue_origins(request, slug)
        if not origins:
            return response

        # The libraries' own decorators, around an answer already made.
        def made(_request: HttpRequest) -> HttpResponseBase:
            return response

        allowed = csp_replace({"frame-ancestors": origins})(made)
        return xframe_options_exempt(allowed)(request)

    return inner
