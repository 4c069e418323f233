"""Cache-Control on the answers a shared cache or the browser may keep."""

from collections.abc import Callable
from functools import wraps

from django.http import HttpResponse
from django.utils.cache import patch_cache_control

from matches.web.htmx import HtmxHttpRequest

# Under the 3 s poll: a spectator's browser or a micro-cache answers at most one poll alone.
SPECTATOR_MAX_AGE = 2


def shared_cache(*, when: Callable[[HtmxHttpRequest], bool] | None = None):
    """Cache-Control: public with a short max-age (a shared cache or the browser may answer
    a poll on its own for SPECTATOR_MAX_AGE s) when every viewer gets these bytes (when(),
    asked before the view runs), else private and revalidated every time."""

    def decorator(view):
        @wraps(view)
        def inner(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
            public = when is None or when(request)
            response = view(request, *args, **kwargs)
            if public:
                patch_cache_control(response, public=True, max_age=SPECTATOR_MAX_AGE)
            else:
                patch_cache_control(response, private=True, no_cache=True)
            return response

        return inner

    return decorator
