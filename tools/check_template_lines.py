#!/usr/bin/env python3
"""Fails when a template has a line too long to read or review (pre-commit, via `make lint`).

Markup is split over lines where it nests; a long line is only ever one sentence that must stay
one message for translators. A view that needs a row's HTML renders the row's partial instead
of splitting a page's HTML on its tags, so no template has to keep markup on one line for it.
"""

import sys
from pathlib import Path

MAX_CHARACTERS = 600


def main(paths: list[str]) -> int:
    failed = 0
    for path in paths:
        for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
            if len(line) > MAX_CHARACTERS:
                print(f"{path}:{number}: {len(line)} characters (at most {MAX_CHARACTERS})")
                failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
