"""Headers every answer carries: HSTS preload only when asked for, and a
Permissions-Policy denying the features the app never uses."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_table

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
ROOT = Path(__file__).resolve().parents[2]


def settings_in_a_fresh_process(code: str, **env: str) -> str:
    environment = {
        **os.environ,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "x" * 20 + uuid.uuid4().hex + uuid.uuid4().hex,
        "DJANGO_ALLOWED_HOSTS": "example.org",
    }
    for name in ("DJANGO_HTTPS", "DJANGO_HSTS_PRELOAD"):
        environment.pop(name, None)
    environment.update(env)
    if code.startswith("manage.py"):
        command = [sys.executable, *code.split()]
    else:
        command = [
            sys.executable,
            "-c",
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'brag_tables.settings'; "
            f"django.setup(); from django.conf import settings as s; print({code})",
        ]
    result = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


class TestHstsPreloadIsOptInAndEveryAnswerHasAPermissionsPolicy:
    """HSTS preload was once on with DJANGO_HTTPS=1, a commitment on the pub's parent
    domain; and no Permissions-Policy was sent."""

    def test_preload_only_when_asked_for(self):
        hsts = "s.SECURE_HSTS_SECONDS > 0, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD"
        assert settings_in_a_fresh_process(hsts) == "True True False"
        assert settings_in_a_fresh_process(hsts, DJANGO_HSTS_PRELOAD="1") == "True True True"

    @pytest.mark.parametrize("preload", ["0", "1"])
    def test_check_deploy_passes_either_way(self, preload):
        settings_in_a_fresh_process(
            "manage.py check --deploy --fail-level WARNING", DJANGO_HSTS_PRELOAD=preload
        )

    def test_every_answer_denies_the_features_the_app_never_uses(self, host, host_client, client):
        table = make_table()
        answers = [
            client.get(reverse("matches:home")),
            client.get(reverse("matches:table", args=[table.pk])),
            client.get(reverse("matches:api_table", args=[table.pk])),
            client.get(reverse("matches:table", args=[table.pk]) + "x/"),  # 404
            client.get(reverse("login")),
            host_client.get(reverse("matches:table", args=[table.pk])),
            host_client.post(reverse("matches:tap", args=[table.pk]), {}),  # refused
            Client().post(reverse("login"), {"username": "x"}),  # 415, multipart
        ]
        etag = answers[1]["ETag"]
        answers.append(
            client.get(reverse("matches:table", args=[table.pk]), HTTP_IF_NONE_MATCH=etag)
        )
        assert answers[-1].status_code == 304
        for response in answers:
            parts = [part.strip() for part in response["Permissions-Policy"].split(",")]
            assert all(part.endswith("=()") for part in parts)
            denied = {part.removesuffix("=()") for part in parts}
            assert {"camera", "microphone", "geolocation", "payment", "usb"} <= denied
