"""gunicorn's settings for every way we run it (it reads ./gunicorn.conf.py on its own; flags
on the command line, such as --bind and --workers, still win). docs/operating.md says why
these workers."""

# One process per worker, a few threads each, and connections kept alive: a spectator's page
# polls every 3 s over the connection it already has (browsers keep them for minutes, and a
# reverse proxy keeps its own to us), instead of the sync worker's new TCP connection per
# poll. The threads share the process's kept renderings and overlap the database's round
# trips; the GIL keeps the CPU work one core's worth, so a "worker" is still one process.
worker_class = "gthread"
threads = 4
# Longer than the 3 s poll, so the next poll finds its connection still open.
keepalive = 5
# Open connections one worker holds (idle kept-alive ones cost a file descriptor, no thread).
worker_connections = 10000
