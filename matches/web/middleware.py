import codecs
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext_lazy as _

from matches.core import autobackup, warm
from matches.org import hosts

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise


UPLOADS_REFUSED = _("This site takes no file uploads.")
TOO_LARGE = _("This request is too large.")
CHARSET_REFUSED = _("This request's character set cannot be read; send it as UTF-8.")


class NightlyBackupMiddleware:
    """Once a night, the first request after noon starts the nightly backup (in a thread of
    its own, core.autobackup); every other request pays one comparison."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        autobackup.backup_nightly_if_due()
        return response


class RequestBodyLimitMiddleware:
    """The first middleware: refuses a multipart body (no form of ours takes a file), a
    body declared longer than REQUEST_BODY_MAX_BYTES and a form declared in a character set
    other than UTF-8, before anything reads a byte of it, so nothing is parsed or spooled to
    a temporary file. The largest form we take (a roster of ten names, the showdown judge's
    JSON) is a few KB."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        content_type = request.META.get("CONTENT_TYPE", "").lstrip().lower()
        if content_type.startswith("multipart/"):
            return self.refuse(request, UPLOADS_REFUSED, status=415)
        if _declared_length_over(
            request.META.get("CONTENT_LENGTH"), settings.REQUEST_BODY_MAX_BYTES
        ):
            return self.refuse(request, TOO_LARGE, status=413)
        if not _form_charset_readable(request):
            # Django refuses such a form (BadRequest) wherever it is first read, and its
            # 400 and 500 pages read it again through the CSRF check: a 500 and a long
            # chain of tracebacks for each request, to anyone. Now Django's one line
            # ("Bad Request: /path"), as for the refusals above.
            return self.refuse(request, CHARSET_REFUSED, status=400)
        return self.get_response(request)

    @staticmethod
    def refuse(request: HttpRequest, message: "StrPromise", *, status: int) -> HttpResponse:
        # Before LocaleMiddleware: the reader's language from the cookie or Accept-Language.
        with translation.override(translation.get_language_from_request(request)):
            response = HttpResponse(
                str(message), status=status, content_type="text/plain; charset=utf-8"
            )
        response["X-Content-Type-Options"] = "nosniff"
        return permissions_policy(response)


def _form_charset_readable(request: HttpRequest) -> bool:
    """A urlencoded form is read as UTF-8 (as Django reads one, RFC 1866): true when it
    declares no charset or a name of UTF-8 ("utf8" too, then read as "utf-8"); false for any
    other, real or made up. Other bodies are read by the views that take them."""
    charset = request.content_params.get("charset") if request.content_params else None
    if request.content_type != "application/x-www-form-urlencoded" or charset is None:
        return True
    try:
        if codecs.lookup(charset).name != "utf-8":
            return False
    except LookupError:
        return False
    request.encoding = "utf-8"  # the spelling Django's form parser takes
    return True


def _declared_length_over(content_length: str | None, limit: int) -> bool:
    """The Content-Length header says more than limit. A length with more digits than int()
    converts (4,300) is over it, not a 500; a malformed one is the server's to refuse
    (Django reads no body for it)."""
    digits = (content_length or "").strip().lstrip("0")
    if not (digits.isascii() and digits.isdigit()):
        return False
    return len(digits) > len(str(limit)) or int(digits) > limit


def permissions_policy(response: HttpResponse) -> HttpResponse:
    """Denies the answer every browser feature the app never uses (settings'
    PERMISSIONS_POLICY_DENIED)."""
    response.headers.setdefault("Permissions-Policy", _permissions_policy())
    return response


@warm.register
@functools.cache
def _permissions_policy() -> str:
    return ", ".join(f"{feature}=()" for feature in settings.PERMISSIONS_POLICY_DENIED)


@receiver(setting_changed)
def _forget_permissions_policy(*, setting: str, **kwargs) -> None:
    if setting == "PERMISSIONS_POLICY_DENIED":
        _permissions_policy.cache_clear()


class PermissionsPolicyMiddleware:
    """Sends the Permissions-Policy header, built once per process, on every answer (beside
    SecurityMiddleware's headers)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return permissions_policy(self.get_response(request))


class CachePrivacyMiddleware:
    """Who may keep an answer, decided last, once every cookie is set (it sits above
    SessionMiddleware and CsrfViewMiddleware, which set theirs on the way out):

    - an answer read by a logged-in host (their name, their buttons) is `private`;
    - an answer that sets a cookie is `private` too, never `public`: a shared cache would hand
      this browser's cookie (a fresh CSRF token, a dead session's deletion) to everyone. The
      cookie is kept, so the browser's next request is a plain spectator's again, shared;
    - an answer rendered with the CSRF token (a form: Django renews the token's cookie on
      every such answer) is also `no-store`.

    Directives already set are kept (`public` gives way to `private`); nothing is weakened."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.cookies or _read_by_a_host(request):
            patch_cache_control(response, private=True)
            token = response.cookies.get(settings.CSRF_COOKIE_NAME)
            if token is not None and token.value:
                patch_cache_control(response, no_store=True)
        return response


def _read_by_a_host(request: HttpRequest) -> bool:
    """Whether the answer was made for a logged-in user. Who is logged in is in the session:
    an answer that never read it is the same for everyone, and costs no query here."""
    session = getattr(request, "session", None)
    if session is None or not session.accessed:
        return False
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


class FirstHostMiddleware:
    """Until the first host account exists, every page leads to the page that creates it:
    there is no default account or password to forget to change."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # No account means nobody is logged in, so the session is never read here: an
        # anonymous spectator's answer does not vary on cookies because of this check.
        # Once a host is known to exist (every request after the first, per process) nothing
        # is looked up at all: no query and no reverse(), which cost more than a poll's 304.
        if hosts.host_known():
            return self.get_response(request)
        if (
            request.path not in _open_before_setup()
            and not request.path.startswith(settings.STATIC_URL)
            and not hosts.host_exists()
        ):
            return redirect(reverse("matches:setup"))
        return self.get_response(request)


def _open_before_setup() -> set[str]:
    """The setup page itself and what the browser fetches on its own for any page (the
    favicon, the manifest, the service worker): none of them may answer with a redirect."""
    names = ["setup", "favicon", "manifest", "service_worker"]
    return {reverse(f"matches:{name}") for name in names}


def language_neutral(response: HttpResponseBase) -> None:
    """Mark an answer as the same in every language, for LanguageNeutralMiddleware."""
    response.language_neutral = True  # type: ignore[attr-defined]


class LanguageNeutralMiddleware:
    """Drops the Vary: Accept-Language (and Content-Language) that LocaleMiddleware adds to
    every answer from an answer the same in every language (a view marks it with language_neutral()), so a shared
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
