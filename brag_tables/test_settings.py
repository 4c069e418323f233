"""Settings for the test suite only: the project's settings with a fast password hasher.

Nearly every test creates a host, and Django's default PBKDF2 hash is slow on purpose; a test
proves nothing about its cost. Production keeps Django's default hashers (brag_tables.settings).
"""

from brag_tables.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
