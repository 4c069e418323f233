"""What a process keeps in memory: small most-recently-used stores (kept renderings and
reads), thread-safe, and one registry of everything kept, so a test can start from what a
new process knows."""

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

_forgetters: list[Callable[[], None]] = []


def register(forget: Callable[[], None]) -> None:
    """Call forget() in forget_all(): for what a module keeps outside a Kept store."""
    _forgetters.append(forget)


def forget_all() -> None:
    """Forget everything this process keeps, as a new process starts."""
    for forget in _forgetters:
        forget()


class Kept:
    """What this process keeps of what it read or rendered, most recently used last, at
    most size items. Safe with any number of processes as long as every key names the
    state it was made from (a version in the database), never "the latest"."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[tuple, Any] = OrderedDict()
        self.lock = threading.Lock()
        self.fills: dict[tuple, list] = {}  # key: [its lock, threads holding or wanting it]
        register(self.clear)

    def get(self, key: tuple) -> Any:
        with self.lock:
            item = self.items.get(key)
            if item is not None:
                self.items.move_to_end(key)
            return item

    def put(self, key: tuple, item: Any) -> None:
        with self.lock:
            self.items[key] = item
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()

    @contextlib.contextmanager
    def filling(self, key: tuple):
        """Held while one thread makes what key names: another thread filling the same key
        waits here, then finds it kept. Each key's lock lives while someone holds or wants it."""
        with self.lock:
            entry = self.fills.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self.lock:
                entry[1] -= 1
                if not entry[1]:
                    del self.fills[key]
