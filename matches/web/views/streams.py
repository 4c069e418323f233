"""The streams' address when Django itself answers it: under `make dev` (Django's
development server) or any WSGI server, where brag_tables.asgi's router does not stand in
front. 204 is the server-sent-events spec's "do not reconnect": the page polls as before,
with no error in its console."""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache


@never_cache
def no_stream(request: HttpRequest, rest: str = "") -> HttpResponse:
    return HttpResponse(status=204)
