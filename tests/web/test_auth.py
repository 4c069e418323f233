"""Accounts: the login lockout keyed on username and real client address, one
first host however the setup requests race, only the auth pages the app uses."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import override_settings
from django.urls import NoReverseMatch, reverse

from tests.clients import FormClient
from tests.factories import make_host

PASSWORD = "a-long-test-password"


def login(client: FormClient, password: str, **headers):
    return client.post(reverse("login"), {"username": "host", "password": password}, **headers)


@pytest.mark.django_db
class TestLockoutIsPerUsernameAndRealAddress:
    def lock_out(self, client: FormClient) -> None:
        for _ in range(5):
            login(client, "wrong")
        assert login(client, PASSWORD).status_code == 429

    @override_settings(BEHIND_PROXY=True)
    def test_behind_the_proxy_a_guesser_does_not_lock_out_the_real_host(self, host):
        # Both reach the app through the proxy: the same REMOTE_ADDR, their own forwarded one.
        guesser = FormClient(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")
        self.lock_out(guesser)
        real_host = FormClient(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
        assert login(real_host, PASSWORD).status_code == 302
        assert real_host.session["_auth_user_id"] == str(host.pk)

    @override_settings(BEHIND_PROXY=True)
    def test_behind_the_proxy_only_the_address_the_proxy_saw_counts(self, host):
        # A client-sent X-Forwarded-For comes first; the proxy appends the address it saw.
        guesser = FormClient(REMOTE_ADDR="127.0.0.1")
        for n in range(5):
            login(guesser, "wrong", HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, 203.0.113.9")
        response = login(guesser, PASSWORD, HTTP_X_FORWARDED_FOR="10.9.9.77, 203.0.113.9")
        assert response.status_code == 429

    def test_without_the_proxy_a_forwarded_header_is_ignored(self, host):
        guesser = FormClient(REMOTE_ADDR="192.168.1.50")
        for n in range(5):
            login(guesser, "wrong", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
        assert login(guesser, PASSWORD).status_code == 429
        tablet = FormClient(REMOTE_ADDR="192.168.1.20")
        assert login(tablet, PASSWORD).status_code == 302


@pytest.mark.django_db
def test_a_username_longer_than_any_account_is_a_wrong_login(host):
    # Found by the hostile suite: a 500 on PostgreSQL when django-axes recorded it.
    response = FormClient().post(reverse("login"), {"username": "h" * 300, "password": "x"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_four_simultaneous_setups_make_exactly_one_first_host():
    barrier = threading.Barrier(4)
    responses: list = [None] * 4

    def set_up(n: int) -> None:
        try:
            client = FormClient()
            data = {"username": f"host{n}", "password1": PASSWORD, "password2": PASSWORD}
            barrier.wait()
            responses[n] = client.post(reverse("matches:setup"), data)
        except Exception as error:  # the outcome under test, including a database error
            responses[n] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=set_up, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    users = get_user_model().objects.all()
    assert users.count() == 1
    assert users.get().is_superuser
    assert not [r for r in responses if isinstance(r, Exception)], responses
    codes = sorted(r.status_code for r in responses)
    assert codes.count(302) + codes.count(404) == 4
    home = [r for r in responses if r.status_code == 302 and r.url == reverse("matches:home")]
    assert len(home) == 1


@pytest.mark.django_db
class TestOnlyTheAuthPagesTheAppUses:
    def test_login_and_logout_keep_their_names(self, client):
        make_host()
        assert reverse("login") == "/accounts/login/"
        assert reverse("logout") == "/accounts/logout/"
        assert client.get(reverse("login")).status_code == 200

    @pytest.mark.parametrize(
        "name", ["password_reset", "password_change", "password_reset_done", "password_change_done"]
    )
    def test_password_pages_are_not_mounted(self, name):
        with pytest.raises(NoReverseMatch):
            reverse(name)

    @pytest.mark.parametrize(
        "path",
        [
            "/accounts/password_reset/",
            "/accounts/password_change/",
            "/accounts/reset/MQ/set-password/",
            "/accounts/password_reset/done/",
        ],
    )
    def test_their_paths_are_404(self, client, path):
        make_host()
        assert client.get(path).status_code == 404
        assert client.post(path, {"email": "a@example.org"}).status_code == 404


def test_the_login_form_is_private_and_never_stored(host, client):
    response = client.get(reverse("login"))
    directives = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= directives and "public" not in directives
    assert response.cookies["csrftoken"].value  # the form can be posted
