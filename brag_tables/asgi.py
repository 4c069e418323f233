"""The ASGI application uvicorn serves: server-sent event streams (/events/...) answered on
the event loop by brag_tables.streams, everything else by Django's own handler. Streams never
pass through Django's handler, which would hold a thread for each one's whole life."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")
django_application = get_asgi_application()

from brag_tables import streams  # noqa: E402  (imports models: after Django's setup)

hub = streams.Hub(django_application)


async def application(scope: dict, receive, send) -> None:  # type: ignore[no-untyped-def]
    if scope["type"] == "http" and streams.follows(scope["path"]):
        await hub.serve(scope, receive, send)
    elif scope["type"] == "lifespan":
        await _lifespan(receive, send)
    else:
        await django_application(scope, receive, send)


async def _lifespan(receive, send) -> None:  # type: ignore[no-untyped-def]
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await hub.close()
            await send({"type": "lifespan.shutdown.complete"})
            return
