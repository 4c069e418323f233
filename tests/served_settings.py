"""Settings for an app server the tests start in a process of its own (tests/test_streams.py):
the project's, on plain HTTP and with static files served without a collectstatic manifest."""

from brag_tables.settings import *  # noqa: F403

STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
