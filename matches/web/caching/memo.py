"""What a request works out once: a read or a validated form that its ETag, its kept
rendering and its view all ask for, shared by every caller in the request."""

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from django.http import HttpRequest

T = TypeVar("T")

# Kept in the request's own __dict__: it lives and dies with the request, and needs no
# attribute declared on HttpRequest.
_MEMOS = "_caching_memos"


def once(request: HttpRequest, name: str, build: Callable[[], T], part: Hashable = None) -> T:
    """build()'s answer for name (and part, such as a table's id), built at most once per
    request: None is an answer too."""
    memos = request.__dict__.setdefault(_MEMOS, {}).setdefault(name, {})
    if part not in memos:
        memos[part] = build()
    return memos[part]


def recalled(request: HttpRequest, name: str, part: Hashable = None) -> Any:
    """What once() built for name (and part) in this request, without building it (None if
    nothing was)."""
    return request.__dict__.get(_MEMOS, {}).get(name, {}).get(part)


def forget(request: HttpRequest, name: str) -> None:
    """The next once() for name, whatever its part, builds again (after a write in this
    request)."""
    request.__dict__.get(_MEMOS, {}).pop(name, None)
