from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_migrate
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

# Whether a host account exists, remembered per process once it does: the app never deletes
# the last account (so true stays true), and each process learns it with one query. A
# deleted user, or a flushed database (post_migrate), makes it ask again.
_host_exists = False


def host_exists() -> bool:
    """Whether any account exists: one query until it does, none after."""
    global _host_exists
    if not _host_exists:
        _host_exists = get_user_model().objects.exists()
    return _host_exists


def forget_host(**kwargs) -> None:
    """Ask the database again on the next request (a user deleted, a database flushed)."""
    global _host_exists
    _host_exists = False


post_delete.connect(forget_host, sender=settings.AUTH_USER_MODEL, weak=False)
post_migrate.connect(forget_host, weak=False, dispatch_uid="matches.forget_host")


class FirstHostMiddleware:
    """Until the first host account exists, every page leads to the page that creates it:
    there is no default account or password to forget to change."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # No account means nobody is logged in, so the session is never read here: an
        # anonymous spectator's answer does not vary on cookies because of this check.
        setup_url = reverse("matches:setup")
        if (
            request.path not in _open_before_setup()
            and not request.path.startswith(settings.STATIC_URL)
            and not host_exists()
        ):
            return redirect(setup_url)
        return self.get_response(request)


def _open_before_setup() -> set[str]:
    """The setup page itself and what the browser fetches on its own for any page (the
    favicon, the manifest, the service worker): none of them may answer with a redirect."""
    names = ["setup", "favicon", "manifest", "service_worker"]
    return {reverse(f"matches:{name}") for name in names}


class LanguageNeutralMiddleware:
    """Drops the Vary: Accept-Language (and Content-Language) that LocaleMiddleware adds to
    every answer from an answer the same in every language (a view sets response.language_neutral), so a shared
    cache keeps one copy of it. Sits just above LocaleMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(response, "language_neutral", False) and response.has_header("Vary"):
            kept = [
                header.strip()
                for header in response["Vary"].split(",")
                if header.strip().lower() != "accept-language"
            ]
            if kept:
                response["Vary"] = ", ".join(kept)
            else:
                del response["Vary"]
        if getattr(response, "language_neutral", False):
            # Nor does it say a language: a cache may hand it to a reader of any.
            response.headers.pop("Content-Language", None)
        return response
