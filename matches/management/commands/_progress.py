"""Progress of a long command on a terminal: one line on stderr, rewritten in place. Quiet
when stderr is not a terminal (a cron job's log, a pipe, the tests), so logs keep only the
command's outcome."""

import time

from django.core.management.base import OutputWrapper


class Progress:
    """Rewrites one status line on stderr, at most every interval seconds (the last one
    always), and ends it with a newline when the command is done."""

    def __init__(self, stderr: OutputWrapper, *, interval: float = 0.2) -> None:
        self.stderr = stderr
        self.on = stderr.isatty()
        self.interval = interval
        self.shown_at = 0.0
        self.shown = False

    def show(self, text: str, *, force: bool = False) -> None:
        if not self.on:
            return
        now = time.monotonic()
        if not force and self.shown and now - self.shown_at < self.interval:
            return
        self.shown_at, self.shown = now, True
        # \x1b[K clears what a longer line before left at its end.
        self.stderr.write(f"\r{text}\x1b[K", style_func=_plain, ending="")
        self.stderr.flush()

    def count(self, what: str, done: int, total: int) -> None:
        """ "seeding matches 40,000/100,000"."""
        self.show(f"{what} {done:,}/{total:,}", force=done >= total)

    def end(self) -> None:
        if self.on and self.shown:
            self.stderr.write("", style_func=_plain)
            self.shown = False


def _plain(text: str) -> str:
    return text
