"""gunicorn settings for the spectator load test: the project's own (gunicorn.conf.py), plus
a probe that adds up the worker's CPU per answer status. Each request's thread CPU, from
reading the request to sending the answer, is counted under its status ("main 304" for a
poll the worker's main thread answered from what it knew); every half second the totals go
to the file named by BRAG_PROBE_FILE, which the load test reads between steps. The worker's
other CPU (accepting connections, waiting on them, reading requests in the main loop) is
not in any status."""

import json
import os
import runpy
import threading
import time
from pathlib import Path

_project = runpy.run_path(str(Path(__file__).resolve().parent.parent / "gunicorn.conf.py"))
globals().update({name: value for name, value in _project.items() if not name.startswith("_")})

_totals: dict[str, list[float]] = {}  # status: [requests, CPU seconds]
_lock = threading.Lock()
_seen = threading.local()


def post_worker_init(worker) -> None:
    handle, wsgi = worker.handle, worker.wsgi

    def counted_wsgi(environ, start_response):
        def start(status, headers, exc_info=None):
            _seen.status = status[:3]
            return start_response(status, headers, exc_info)

        return wsgi(environ, start)

    def counted_handle(*args, **kwargs):
        _seen.status = None
        started = time.thread_time()
        try:
            return handle(*args, **kwargs)
        finally:
            if _seen.status is not None:  # a kept connection closed by the client: no request
                _count(_seen.status, time.thread_time() - started)

    worker.handle, worker.wsgi = counted_handle, counted_wsgi
    threading.Thread(target=_write, args=(os.environ["BRAG_PROBE_FILE"],), daemon=True).start()
    if getattr(worker, "polls", None) is None:
        return  # the sync worker (--close-connections): every request is handle()'s
    look, serve_here = worker.polls.look, worker.serve_here

    def seen_look(environ, rows=None):
        answer, seen = look(environ, rows)
        if answer is not None:
            _seen.status = "main " + answer[0][:3]
        return answer, seen

    def counted_serve_here(*args):
        # Only a poll answered on the main thread counts here: one handed to a pool thread
        # is counted there (its reading here is in no status).
        _seen.status = None
        started = time.thread_time()
        try:
            return serve_here(*args)
        finally:
            if _seen.status is not None:
                _count(_seen.status, time.thread_time() - started)

    worker.polls.look, worker.serve_here = seen_look, counted_serve_here


def _count(status: str, spent: float) -> None:
    with _lock:
        total = _totals.setdefault(status, [0, 0.0])
        total[0] += 1
        total[1] += spent


def _write(path: str) -> None:
    while True:
        time.sleep(0.5)
        with _lock:
            text = json.dumps(_totals)
        Path(path + ".new").write_text(text)
        os.replace(path + ".new", path)
