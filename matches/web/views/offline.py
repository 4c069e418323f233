"""The app as an installable, offline-capable shell: the service worker (a view, so it can
name the hashed static files of this deployment and change with them), the web app manifest
and the favicon."""

import hashlib
import json
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from matches.core import warm
from matches.web.htmx import HtmxHttpRequest

# What a table page needs to draw itself with no network: every script and style it loads,
# and the icons.
SHELL_STATIC = [
    "css/app.css",
    "js/app.js",
    "js/fit-names.js",
    "js/live.js",
    "js/stream.js",
    "js/tap-logic.js",
    "js/tap-queue.js",
    # The tap queue's modules, which tap-queue.js imports: a reload without network fails
    # whole on one missing import.
    "js/tap-queue/state.js",
    "js/tap-queue/store.js",
    "js/tap-queue/draw.js",
    "js/tap-queue/send.js",
    "htmx/htmx.min.js",
    "img/icon.svg",
    "img/icon-192.png",
    "img/icon-512.png",
]
# The design tokens' --brand and --bg (static/css/app.css): the installed app's colours.
THEME_COLOUR = "#14613f"
BACKGROUND_COLOUR = "#f4f1ea"
FAVICON = Path(settings.BASE_DIR) / "static" / "img" / "favicon.ico"
# Every page the worker keeps is rendered from these: a deployment that changes a template
# (or the worker's own code, templates/matches/sw.js) must change the worker's bytes too, or
# the tablet keeps serving copies whose markup the new scripts no longer read.
TEMPLATES_ROOT = Path(settings.BASE_DIR) / "templates"


def hashed_static() -> bool:
    """Whether static URLs carry their content's hash (the production storage): they are
    then immutable and served from the worker's cache first."""
    return isinstance(staticfiles_storage, ManifestFilesMixin)


def _static_url(path: str) -> str | None:
    """The file's URL, or None if this deployment has no such file: the worker's install
    fails whole on one missing URL, so a file not (yet) shipped is left out, not named."""
    if hashed_static():
        try:
            return static(path)
        except ValueError:  # not in the manifest
            return None
    return static(path) if finders.find(path) else None


def shell_urls() -> list[str]:
    present = [url for url in map(_static_url, SHELL_STATIC) if url is not None]
    return [*present, reverse("matches:manifest"), reverse("matches:favicon")]


def shell_version(urls: list[str], extra: str = "") -> str:
    """The worker's version: it changes whenever a shell file's hashed name does, or any
    template, so a new deployment changes the worker's bytes and the browser installs it."""
    parts = [*urls, extra, _templates_digest()]
    return hashlib.blake2s("\n".join(parts).encode(), digest_size=8).hexdigest()


@warm.register
@cache
def _templates_digest() -> str:
    """Every file under templates/ (sw.js among them), by path and contents: once per process."""
    digest = hashlib.blake2s(digest_size=8)
    for path in sorted(p for p in TEMPLATES_ROOT.rglob("*") if p.is_file()):
        digest.update(path.relative_to(TEMPLATES_ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@cache
def _contents_digest() -> str:
    """Without hashed names (a development run) the files' contents stand in for them."""
    digest = hashlib.blake2s(digest_size=8)
    for path in SHELL_STATIC:
        found = finders.find(path)
        if found:
            digest.update(path.encode() + b"\0" + Path(found).read_bytes())
    return digest.hexdigest()


@require_safe
@cache_control(no_cache=True)
def service_worker(request: HtmxHttpRequest) -> HttpResponse:
    urls = shell_urls()
    hashed = hashed_static()
    version = shell_version(urls, "" if hashed else _contents_digest())
    body = render_to_string(
        "matches/sw.js",
        {
            "version": version,
            "shell": json.dumps(urls),
            "static_prefix": json.dumps(
                settings.STATIC_URL
                if settings.STATIC_URL.startswith("/")
                else "/" + settings.STATIC_URL
            ),
            "hashed": json.dumps(hashed),
        },
    )
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
@cache_control(max_age=86400)
def manifest(request: HtmxHttpRequest) -> JsonResponse:
    """The web app manifest: the table page installs full screen on a tablet."""
    data = {
        "name": "Brag Tables",
        "short_name": "Brag Tables",
        "start_url": reverse("matches:home"),
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [
            {"src": static("img/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("img/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": static("img/icon-512.png"), "sizes": "512x512", "type": "image/png",
             "purpose": "maskable"},
            {"src": static("img/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }  # fmt: skip
    return JsonResponse(data, content_type="application/manifest+json")


@cache
def _favicon_bytes() -> bytes:
    return FAVICON.read_bytes()


@require_safe
@cache_control(max_age=86400)
def favicon(request: HtmxHttpRequest) -> HttpResponse:
    return HttpResponse(_favicon_bytes(), content_type="image/x-icon")
