import os
import random

import hypothesis
import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from hypothesis import HealthCheck

from matches.core import kept
from matches.org import hosts
from tests.clients import FormClient
from tests.factories import make_host, make_organiser

# The property tests' settings. Most of them drive the database through pytest-django's
# function-scoped fixtures (one transaction rolled back per example) and take their time on
# purpose, so neither health check applies and no example has a deadline. Not derandomized:
# each run tries new examples, and .hypothesis/ replays any that failed. A test that needs
# another count says so in one line, @settings(max_examples=N). HYPOTHESIS_PROFILE names
# another registered profile.
hypothesis.settings.register_profile(
    "brag",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=False,
)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "brag"))


def pytest_configure(config):
    """One random number for the whole run, drawn before pytest-xdist starts its workers (which
    inherit it), for tests that parametrize on random draws: every worker must collect the
    same tests."""
    os.environ.setdefault("BRAG_RUN_RANDOM", str(random.SystemRandom().randrange(2**31)))


@pytest.fixture(autouse=True, scope="session")
def _plain_http_and_static():
    """Tests speak plain HTTP (the test client and the live server for the browser) and need
    no collectstatic manifest. Session-wide, so the live server starts with it. Production
    keeps HTTPS on; test_security.py checks those values in a fresh process."""
    from django.conf import settings

    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(
        SECURE_SSL_REDIRECT=False,
        SESSION_COOKIE_SECURE=False,
        CSRF_COOKIE_SECURE=False,
        SECURE_HSTS_SECONDS=0,
        STORAGES=storages,
        # The ratings replay runs in the write's own transaction, so a test reads settled
        # ratings right after a write; tests/ratings/test_steps.py drives the steps.
        RATINGS_REPLAY="inline",
        # No automatic backups into the checkout: tests/test_backup.py turns them on, in a
        # folder of the test's own, run in the request's thread.
        BACKUP_AUTO=False,
    ):
        yield


@pytest.fixture(autouse=True)
def _fresh_process_memory():
    """Each test starts as a new process does: a rolled-back test deletes its users and tables
    without a signal, so what a process remembers (a host exists, kept renderings) is reset."""
    from django.utils import translation

    kept.forget_all()
    # The test client's requests activate their language in this thread and leave it on; a
    # test comparing a message from another thread must not depend on the test before it.
    translation.deactivate()


@pytest.fixture
def client() -> FormClient:
    """pytest-django's client, posting dicts urlencoded as a browser does."""
    return FormClient()


@pytest.fixture
def host(db):
    host = make_host()
    hosts.host_exists()  # learnt, as a running process has: no query per request
    return host


@pytest.fixture
def organiser(db):
    """The organiser, named "host" as the host fixture's account is: a module whose host does
    the organiser's work (seasons, renaming, merging, public names) takes this one as host."""
    organiser = make_organiser("host")
    hosts.host_exists()
    return organiser


@pytest.fixture
def host_client(host) -> FormClient:
    client = FormClient()
    client.force_login(host)
    return client


@pytest.fixture
def csrf_client(host) -> FormClient:
    """A logged-in browser that, like a real one, must send the CSRF token."""
    client = FormClient(enforce_csrf_checks=True)
    client.force_login(host)
    return client


@pytest.fixture
def english():
    """Messages asserted in English, whatever language an earlier request left active; a
    module asks for it with pytest.mark.usefixtures("english")."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture
def admin_client(db):
    """A superuser's browser (in place of pytest-django's admin_client)."""
    boss = get_user_model().objects.create_superuser(username="boss", password="a-long-password-1")
    client = FormClient()
    client.force_login(boss)
    return client
