import pytest
from django.test import Client

from tests.factories import make_host


@pytest.fixture(autouse=True)
def _plain_http_and_static(settings):
    # Tests speak plain HTTP to the test client and do not need collectstatic's manifest;
    # production keeps both (see test_settings.py for the production values).
    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    settings.SECURE_HSTS_SECONDS = 0
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def host(db):
    return make_host()


@pytest.fixture
def host_client(host) -> Client:
    client = Client()
    client.force_login(host)
    return client


@pytest.fixture
def csrf_client(host) -> Client:
    """A logged-in browser that, like a real one, must send the CSRF token."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(host)
    return client
