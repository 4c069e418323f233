"""The ASGI application uvicorn serves: server-sent event streams (/events/...) answered on
the event loop by brag_tables.streams, everything else by Django's own handler. Streams never
pass through Django's handler, which would hold a thread for each one's whole life."""

import os
from collections.abc import Callable
from typing import cast

import django
from asgiref.sync import sync_to_async
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")
django.setup(set_prefix=False)  # as get_asgi_application does: before the streams' models

from brag_tables import streams  # noqa: E402
from brag_tables.asgi_limits import limit_bodies  # noqa: E402
from matches.core.warm import warm  # noqa: E402
from matches.ratings.supervisor import Supervisor, supervisor_start  # noqa: E402

ASGIApp = streams.ASGIApp


def build(django_application: ASGIApp | None = None) -> ASGIApp:
    """The application with a hub of its own (one per server; the tests start several,
    each loading the middleware under the settings it runs with, and serving static files
    with staticfiles' handler)."""
    # The body cap goes around Django's handler, which reads a whole body before any
    # middleware runs (asgi_limits.py).
    handler: ASGIApp = django_application or cast(ASGIApp, limit_bodies(get_asgi_application()))
    hub = streams.Hub(handler)

    async def application(scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and streams.follows(scope["path"]):
            await hub.serve(scope, receive, send)
        elif scope["type"] == "lifespan":
            await _lifespan(hub, receive, send)
        else:
            await handler(scope, receive, send)

    application.hub = hub  # type: ignore[attr-defined]
    return application


async def _lifespan(hub: streams.Hub, receive: Callable, send: Callable) -> None:
    ratings: Supervisor | None = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            # Everything a first request would otherwise pay for (matches/core/warm.py),
            # before uvicorn takes requests. It reads the database: in a thread.
            await sync_to_async(warm, thread_sensitive=False)()
            # The ratings replay, in a process of its own (matches/ratings/supervisor.py):
            # rating in this one would hold the interpreter the streams are served from.
            ratings = await sync_to_async(supervisor_start, thread_sensitive=False)()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await hub.close()
            if ratings is not None:
                await sync_to_async(ratings.stop, thread_sensitive=False)()
            await send({"type": "lifespan.shutdown.complete"})
            return


application = build()
