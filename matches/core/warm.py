"""What a serving process makes once, before it takes requests, so that no request after a
start pays for it: the URLconf imported (every view, form and service with it) and its
resolvers filled, every template compiled, each language's catalogue and formats loaded,
and what the packages keep per process from the settings or the database, which each
registers here (as core.kept has them register what they forget).

The server calls warm() once in each process, after Django is set up and before the first
request: the ASGI application's lifespan startup (brag_tables.asgi). Without it, the first requests after every start (a deployment, a restart)
each paid for some of this, and all at once: seconds each under a pub's first polls."""

import contextlib
import logging
import time
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TypeVar

from django.conf import settings
from django.core import checks
from django.core.cache import caches
from django.core.files.storage import storages
from django.db import connections
from django.template import TemplateDoesNotExist, engines
from django.template.utils import get_app_template_dirs
from django.urls import reverse
from django.utils import formats, translation
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)

_warmers: list[Callable[[], object]] = []

# One name in each namespace: reversing it fills that namespace's whole reverse map.
_URL_NAMES = ("matches:home", "login", "admin:index")
_TEMPLATE_SUFFIXES = (".html", ".js", ".svg", ".txt")
_LOADED_WHEN_USED = ("admin/",)


Warmer = TypeVar("Warmer", bound=Callable[[], object])


def register(warmer: Warmer) -> Warmer:
    """Have warm() call warmer(): for what a module would otherwise make on its first use
    in a process (a memo from the settings, a flag from the database)."""
    _warmers.append(warmer)
    return warmer


def warm() -> None:
    """Make everything the first requests would each make: call once per serving process,
    before it takes requests, in a thread that may use the database (from an event loop:
    through asgiref's sync_to_async). Closes the connections it opened: Django's ASGI
    handler runs each request in a thread of its own, never this one."""
    started = time.perf_counter()
    for step in [_urls, _templates, _named_in_settings, *_warmers]:
        try:
            step()
        except Exception as error:
            # A database not reachable or not migrated yet, say: the server starts all the
            # same, and the first request that needs it makes it and reports what is wrong
            # in full. One line here.
            name = getattr(step, "__name__", step)
            logger.warning("Warming %s failed: %s: %s", name, type(error).__name__, error)
    for alias in connections:
        # Not one a caller's transaction holds (a test's).
        if not connections[alias].in_atomic_block:
            connections[alias].close()
    logger.info("Warmed in %.0f ms", (time.perf_counter() - started) * 1000)


def _urls() -> None:
    """The URLconf imported and every pattern compiled (the URL checks walk them all), and
    each namespace's reverse map filled, which is kept per language."""
    checks.run_checks(tags=[checks.Tags.urls])
    for code, _name in settings.LANGUAGES:
        with translation.override(code):  # loads the language's catalogues too
            for name in _URL_NAMES:
                reverse(name)
            formats.get_format("DATE_FORMAT", lang=code)


def _named_in_settings() -> None:
    """What the settings name and Django imports or makes on its first use in a request:
    the messages' storage, the sessions' engine and serializer, the caches, the static
    files' storage (in production, with its manifest of hashed names)."""
    import_string(settings.MESSAGE_STORAGE)
    import_string(settings.SESSION_SERIALIZER)
    import_module(settings.SESSION_ENGINE)
    for alias in settings.CACHES:
        caches[alias]
    storages["staticfiles"]


def _templates() -> None:
    """Every template the project and its apps ship, compiled into the cached loader (the
    forms' widgets among them), and the context processors imported; the admin's own pages
    load when the admin is first used."""
    # The apps' folders by name: django-template-partials sets the loaders itself, so an
    # engine's template_dirs lists only the project's.
    folders = [Path(folder) for folder in get_app_template_dirs("templates")]
    for engine in engines.all():
        getattr(getattr(engine, "engine", None), "template_context_processors", None)
        for root in [*map(Path, engine.template_dirs), *folders]:
            for path in sorted(root.rglob("*")):
                name = path.relative_to(root).as_posix()
                if not path.is_file() or path.suffix not in _TEMPLATE_SUFFIXES:
                    continue
                if name.startswith(_LOADED_WHEN_USED):
                    continue
                with contextlib.suppress(TemplateDoesNotExist):  # not this engine's
                    engine.get_template(name)
