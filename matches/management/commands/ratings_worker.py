import contextlib
import os
import signal
import sys

from django.core.management.base import BaseCommand

from matches.ratings import worker

# Added to the server's niceness (19 is the lowest priority): the scheduler gives the
# server's processes the CPU first, and the replay whatever they leave.
WORKER_NICENESS = 10


class Command(BaseCommand):
    help = (
        "Run the ratings replay whenever one is pending: re-rate the filed matches after an "
        "undo of an old crowning, a merge or a rebuild, in short steps. Each serving process "
        "starts one itself (--supervised); run it by hand only to replay without a server."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--supervised",
            action="store_true",
            help="Started by a serving process: woken by a byte on stdin, ended by its end.",
        )

    def handle(self, *args, **options) -> None:
        if options["supervised"]:
            # Ctrl+C reaches the whole foreground group: the server stops this worker
            # itself, after its step under way, by closing the pipe.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            # Beside its server, the replay takes the CPU that the requests and the streams
            # leave, so a tap reaches the screens about as fast during a replay as without.
            os.nice(WORKER_NICENESS)
            worker.run(wakes=sys.stdin.fileno())
        else:
            with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C: stop
                worker.run(wakes=None)
