"""The language switcher: a plain link-like GET that sets the language cookie, so a
spectator's page needs no CSRF token (and stays the same bytes for every spectator)."""

from django.conf import settings
from django.http import HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from matches.web.htmx import HtmxHttpRequest


@require_safe
@never_cache
def language_switch(request: HtmxHttpRequest) -> HttpResponse:
    """Remember the chosen language in its cookie and go back to the page it was chosen on.
    Harmless without a token: it sets a preference, and goes back only to this site."""
    code = request.GET.get("language", "")
    target = request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("matches:home")
    response = HttpResponseRedirect(target)
    if code in dict(settings.LANGUAGES):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            code,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response
