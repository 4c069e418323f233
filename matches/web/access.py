"""Who may reach a write view. Who may change a given table is org.roles.may_change_table."""

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from matches.org.hosts import is_host
from matches.org.roles import is_organiser
from matches.web.htmx import HtmxHttpRequest

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise


def host_required(view: Callable) -> Callable:
    """Only a logged-in host writes; anyone else is sent to log in and nothing changes."""

    @wraps(view)
    def wrapped(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
        if is_host(request.user):
            return view(request, *args, **kwargs)
        # After logging in, land on the page the write was made from, never on a POST URL.
        after = request.get_full_path()
        if request.method != "GET":
            after = (
                reverse("matches:table", args=[kwargs["table_id"]])
                if "table_id" in kwargs
                else reverse("matches:home")
            )
        response = redirect_to_login(after)
        if request.htmx:
            return HttpResponseClientRedirect(response.url)
        return response

    return wrapped


def organiser_required(refusal: "str | StrPromise") -> Callable[[Callable], Callable]:
    """The organiser's pages (seasons, players' records, backups): anonymous visitors are
    sent to log in, a venue's host or manager is answered 403 with refusal, nothing changed."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def organiser_only(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
            if not is_organiser(request.user):
                raise PermissionDenied(str(refusal))
            return view(request, *args, **kwargs)

        return host_required(organiser_only)

    return decorator


def client_ip(request: HtmxHttpRequest) -> str:
    """The address a request came from, for the login lockout (django-axes).

    Behind the reverse proxy of docs/operating.md (DJANGO_BEHIND_PROXY=1) every request comes from the
    proxy, which appends the address it saw to X-Forwarded-For: the last entry is that one
    (earlier entries are whatever the client sent). Without a proxy the header is ignored,
    since any client can send one."""
    if settings.BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").rsplit(",", 1)[-1].strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR", "")
