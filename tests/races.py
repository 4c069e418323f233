"""Writes raced against each other, as two tablets or two browsers send them at once."""

import threading
from collections.abc import Callable

from django.db import OperationalError, connection


def run_at_once(*calls: Callable[[], object]) -> list[object]:
    """Run the calls in threads released together; each returns its result or its error."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def worker(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # the outcome under test, including any database error
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(isinstance(r, OperationalError) for r in results), results
    return results
