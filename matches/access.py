"""Who may reach a write view. Who may change a given table is Table.can_be_changed_by."""

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect


def host_required(view: Callable) -> Callable:
    """Only a logged-in host writes; anyone else is sent to log in and nothing changes."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.user.is_authenticated and request.user.is_active:
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
