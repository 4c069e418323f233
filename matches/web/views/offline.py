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

from matches.web.htmx import HtmxHttpRequest

# What a table page needs to draw itself with no network: every script and style it loads,
# and the icons.
SHELL_STATIC = [
    "css/app.css",
    "js/app.js",
    "js/live.js",
    "js/tap-queue.js",
    "htmx/htmx.min.js",
    "img/icon.svg",
    "img/icon-192.png",
    "img/icon-512.png",
]
# The design tokens' --brand and --bg (static/css/app.css): the installed app's colours.
THEME_COLOUR = "#14613f"
BACKGROUND_COLOUR = "#f4f1ea"
FAVICON = Path(settings.BASE_DIR) / "static" / "img" / "favicon.ico"


def hashed_static() -> bool:
    """Whether static URLs carry their content's hash (the production storage): they are
    then immutable and served from the worker's cache first."""
    return isinstance(staticfiles_storage, ManifestFilesMixin)


def shell_urls() -> list[str]:
    return [static(path) for path in SHELL_STATIC] + [
        reverse("matches:manifest"),
        reverse("matches:favicon"),
    ]


def shell_version(urls: list[str], extra: str = "") -> str:
    """The worker's version: it changes whenever a shell file's hashed name does, so a new
    deployment changes the worker's bytes and the browser installs it."""
    return hashlib.blake2s("\n".join([*urls, extra]).encode(), digest_size=8).hexdigest()


@cache
def _contents_digest() -> str:
    """Without hashed names (a development run) the files' contents stand in for them."""
    digest = hashlib.blake2s(digest_size=8)
    for path in SHELL_STATIC:
        found = finders.find(path)
        if found:
            digest.update(Path(found).read_bytes())
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
