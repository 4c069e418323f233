"""make lint: mypy over matches and brag_tables, held to a written baseline.

Packages that type-check cleanly (STRICT below) must stay at zero errors. Elsewhere an error
is allowed only if mypy-baseline.txt lists it: one line per error, `path: error: message
[code]`, sorted, line numbers stripped so that moving code does not break it. The same error
twice in one file is listed twice. A new error fails (exit 1) and is printed with its line;
a listed error that is gone is reported in one line, so the baseline can be shrunk.

    python tools/mypy_check.py                    (what make lint runs)
    python tools/mypy_check.py --write-baseline   (after fixing errors: rewrite the baseline)
"""

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "mypy-baseline.txt"
TARGETS = ["matches", "brag_tables"]
STRICT = ("matches/rules/", "matches/core/", "matches/play/", "matches/ratings/")
# path:line[:column]: error: message  [code]
ERROR = re.compile(r"^(?P<path>[^:\s]+\.pyi?):\d+(?::\d+)?: error: (?P<message>.*?)\s*$")
CODE = re.compile(r"\s+(\[[a-z0-9-]+\])$")


def run_mypy() -> list[tuple[str, str]]:
    """(baseline line, mypy's own line) for every error; exits 2 when mypy could not check."""
    result = subprocess.run(  # noqa: S603 (this Python's own mypy, fixed arguments)
        [sys.executable, "-m", "mypy", "--no-pretty", "--no-error-summary", *TARGETS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    errors, unreadable = [], []
    for line in result.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            path = match["path"].replace("\\", "/")
            message = CODE.sub(r" \1", match["message"])
            errors.append((f"{path}: error: {message}", line))
        elif ": error:" in line or line.startswith("mypy:"):
            unreadable.append(line)
    if result.returncode not in (0, 1) or unreadable or (result.returncode == 1 and not errors):
        print(f"mypy did not finish its check (exit {result.returncode}):", file=sys.stderr)
        print(result.stdout + result.stderr, file=sys.stderr, end="")
        sys.exit(2)
    return errors


def read_baseline() -> Counter[str]:
    if not BASELINE.exists():
        return Counter()
    lines = BASELINE.read_text(encoding="utf-8").splitlines()
    return Counter(line for line in lines if line.strip() and not line.startswith("#"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--write-baseline", action="store_true", help="write the current errors as the baseline"
    )
    args = parser.parse_args()
    errors = run_mypy()
    strict = [line for key, line in errors if key.startswith(STRICT)]
    if strict:
        print(f"mypy: {len(strict)} error(s) in {', '.join(STRICT)}, which allow none:")
        print("\n".join(strict))
    found = Counter(key for key, _ in errors if not key.startswith(STRICT))
    if args.write_baseline:
        if strict:
            return 1
        BASELINE.write_text("".join(f"{key}\n" for key in sorted(found.elements())), "utf-8")
        print(f"mypy: wrote {found.total()} error(s) to {BASELINE.name}")
        return 0
    baseline = read_baseline()
    new = found - baseline
    if new:
        # A message listed fewer times than it occurs: every occurrence is shown.
        print(f"mypy: {new.total()} error(s) not in {BASELINE.name}:")
        print("\n".join(line for key, line in errors if key in new))
    fixed = baseline - found
    if fixed:
        print(
            f"mypy: {fixed.total()} error(s) in {BASELINE.name} are fixed; shrink it with "
            "`python tools/mypy_check.py --write-baseline`."
        )
    if strict or new:
        return 1
    print(f"mypy: no new errors ({found.total()} known, in {BASELINE.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
