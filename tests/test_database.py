"""How the app's database connections are set up."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PRAGMAS = ("journal_mode", "synchronous", "busy_timeout", "cache_size", "mmap_size")


def pragmas_of_a_new_connection(database: Path) -> list[str]:
    """What a fresh process's first SQLite connection reports, whatever database the tests
    themselves run on."""
    reads = "; ".join(f"c.execute('PRAGMA {name}'); print(c.fetchone()[0])" for name in PRAGMAS)
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'brag_tables.settings'; "
        "django.setup(); from django.db import connection; c = connection.cursor(); " + reads
    )
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}"}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


class TestSqliteConnections:
    def test_a_new_connection_has_the_league_sized_page_cache(self, tmp_path):
        journal, synchronous, busy, cache, mmap = pragmas_of_a_new_connection(
            tmp_path / "league.sqlite3"
        )
        assert (journal, synchronous, busy) == ("wal", "1", "20000")  # NORMAL is 1
        # 32 MiB of page cache per connection (negative: KiB), not SQLite's 2 MB, and reads
        # mapped from the system's file cache.
        assert int(cache) == -32 * 1024
        assert int(mmap) == 256 * 1024 * 1024
