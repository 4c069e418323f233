"""A small most-recently-used store, per process and thread-safe: kept renderings and reads."""

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
