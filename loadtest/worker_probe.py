"""gunicorn settings for the spectator load test: the project's own (gunicorn.conf.py), plus
a probe that adds up the worker's CPU per answer status. Each request's thread CPU, from
reading the request to sending the answer, is counted under its status; every half second
the totals go to the file named by BRAG_PROBE_FILE, which the load test reads between steps.
The worker's other CPU (accepting connections, waiting on them) is not in any status."""

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
                spent = time.thread_time() - started
                with _lock:
                    total = _totals.setdefault(_seen.status, [0, 0.0])
                    total[0] += 1
                    total[1] += spent

    worker.handle, worker.wsgi = counted_handle, counted_wsgi
    threading.Thread(target=_write, args=(os.environ["BRAG_PROBE_FILE"],), daemon=True).start()


def _write(path: str) -> None:
    while True:
        time.sleep(0.5)
        with _lock:
            text = json.dumps(_totals)
        Path(path + ".new").write_text(text)
        os.replace(path + ".new", path)
