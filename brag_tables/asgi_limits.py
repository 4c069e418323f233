"""The request-body cap, kept under ASGI: Django's ASGI handler reads a request's whole body
(into a temporary file past 64 KiB) before any middleware runs, so RequestBodyLimitMiddleware
alone would refuse a 300 MB upload only once all of it had arrived.

limit_bodies() wraps Django's handler (brag_tables.asgi puts it there) using nothing but the
ASGI specification (https://asgi.readthedocs.io/en/latest/specs/www.html):

- a body the app refuses from its headers alone (multipart, or a Content-Length over
  REQUEST_BODY_MAX_BYTES) reaches Django empty, unread: RequestBodyLimitMiddleware then
  answers 415 or 413 from the headers, in the reader's language, as it always has;
- a body of no declared length (chunked) is read here up to the cap; past it, Django gets the
  request with the bytes counted so far as its Content-Length and no body, and refuses it 413.
  Nothing past the cap is read or kept.

Everything else (and any non-HTTP scope) passes through untouched."""

from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
# Any ASGI application: Django's handler types its own arguments more loosely.
ASGIApp = Callable[..., Awaitable[None]]


def limit_bodies(app: ASGIApp) -> ASGIApp:
    """app, with request bodies over the cap never read (see the module's docstring)."""

    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        limit = settings.REQUEST_BODY_MAX_BYTES
        headers = {name.lower(): value for name, value in scope["headers"]}
        content_type = headers.get(b"content-type", b"").lstrip().lower()
        length = headers.get(b"content-length")
        if content_type.startswith(b"multipart/") or declared_over(length, limit):
            await app(scope, _unread(receive), send)
            return
        if length is not None or b"transfer-encoding" not in headers:
            await app(scope, receive, send)
            return
        body, more, disconnected = await _read_up_to(receive, limit)
        if disconnected:
            return  # the client left: nobody to answer
        if more or len(body) > limit:
            scope = dict(scope)
            scope["headers"] = [
                *(
                    (name, value)
                    for name, value in scope["headers"]
                    if name.lower() != b"transfer-encoding"
                ),
                (b"content-length", str(len(body)).encode()),
            ]
            await app(scope, _unread(receive), send)
            return
        await app(scope, _replayed(body, receive), send)

    return limited


def declared_over(length: bytes | None, limit: int) -> bool:
    """Whether a Content-Length header says more than limit (any number of digits)."""
    digits = (length or b"").strip().lstrip(b"0")
    if not digits.isdigit():
        return False
    return len(digits) > len(str(limit)) or int(digits) > limit


async def _read_up_to(receive: Receive, limit: int) -> tuple[bytes, bool, bool]:
    """The body's first bytes, up to just past limit: (bytes, more to come, client gone)."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return bytes(body), False, True
        body += message.get("body", b"")
        more = bool(message.get("more_body", False))
        if not more or len(body) > limit:
            return bytes(body), more, False


def _unread(receive: Receive) -> Receive:
    """A receive whose body is empty; afterwards it waits for the client to leave, passing
    over (never keeping) whatever of the body the client still sends."""
    sent = False

    async def empty() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return message

    return empty


def _replayed(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body already read, whole, then is receive again."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
