"""A small most-recently-used store, per process and thread-safe: kept renderings and reads."""

import contextlib
import threading
from collections import OrderedDict
from typing import Any


class Kept:
    """What this process keeps of what it read or rendered, most recently used last, at
    most size items. Safe with any number of processes as long as every key names the
    state it was made from (a version in the database), never "the latest"."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[tuple, Any] = OrderedDict()
        self.lock = threading.Lock()
        self.fills: dict[tuple, list] = {}  # key: [its lock, threads holding or wanting it]

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
