"""What backup and restore need to reach the database outside Django's connection."""

import os
import shutil

from django.core.management.base import CommandError
from django.db import connections


def postgres_command(tool: str, *args: str) -> tuple[list[str], dict[str, str]]:
    """The pg_dump/pg_restore command line for the default database, and its environment."""
    path = shutil.which(tool)
    if path is None:
        raise CommandError(
            f"{tool} was not found. Install PostgreSQL's client tools "
            "(Debian: apt-get install postgresql-client)."
        )
    db = connections["default"].settings_dict
    env = {**os.environ}
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = db["PASSWORD"]
    target = ["--dbname", db["NAME"]]
    for flag, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if db.get(key):
            target += [flag, str(db[key])]
    return [path, *target, *args], env
