"""Every id an aria-describedby names is on the page, with or without errors."""

import re

import pytest
from django.urls import reverse

from tests.factories import make_table

pytestmark = pytest.mark.django_db


def dangling_descriptions(html: str) -> list[str]:
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    named = [i for value in re.findall(r'aria-describedby="([^"]+)"', html) for i in value.split()]
    return [i for i in named if i not in ids]


@pytest.mark.parametrize("with_error", [False, True])
def test_the_launch_form(host_client, with_error):
    url = reverse("matches:table_new")
    if with_error:
        response = host_client.post(url, {"name": "Front", "mode": "ranked", "players": "Ann"})
        assert response.status_code == 200 and "field-error" in response.content.decode()
    else:
        response = host_client.get(url)
    html = response.content.decode()
    assert 'aria-describedby="' in html
    assert dangling_descriptions(html) == []


@pytest.mark.parametrize("with_error", [False, True])
def test_the_roster_form(host_client, with_error):
    table = make_table()
    url = reverse("matches:roster", args=[table.pk])
    if with_error:
        match = table.matches.get()
        response = host_client.post(url, {"match": match.pk, "players": "Ann\nAnn"})
    else:
        response = host_client.get(url)
    html = response.content.decode()
    assert 'aria-describedby="' in html
    assert dangling_descriptions(html) == []
