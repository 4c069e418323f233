"""The streams' address when Django itself answers it: under `make dev` (Django's
development server) or any WSGI server, where brag_tables.asgi's router does not stand in
front. 204 is the server-sent-events spec's "do not reconnect": the page polls as before,
with no error in its console."""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


@require_safe
@never_cache
def no_stream(request: HttpRequest) -> HttpResponse:
    return HttpResponse(status=204)
