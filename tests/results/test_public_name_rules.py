"""A public name is never one the public already reads for another player."""

import pytest
from django.urls import reverse

from matches.models import Player
from tests.factories import make_table


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


class TestPublicNameUnique:
    def test_a_public_name_another_player_has_as_theirs_is_refused(self, host_client):
        make_table(players=["Zoë Marques", "Zoe Martins", "Ben"])
        marques = Player.objects.get(name="Zoë Marques")
        martins = Player.objects.get(name="Zoe Martins")
        url = reverse("matches:player_public_name", args=[marques.pk])
        host_client.post(url, {"public_name": "Zoë M."})

        response = host_client.post(
            reverse("matches:player_public_name", args=[martins.pk]), {"public_name": "ZOË  m."}
        )

        assert response.status_code == 400
        assert "another player’s name" in response.content.decode()
        martins.refresh_from_db()
        assert martins.public_name == ""

    def test_a_rename_to_another_players_public_name_is_refused(self, host_client):
        make_table(players=["Zoë Marques", "Zoe Martins", "Ben"])
        marques = Player.objects.get(name="Zoë Marques")
        martins = Player.objects.get(name="Zoe Martins")
        host_client.post(
            reverse("matches:player_public_name", args=[marques.pk]), {"public_name": "Zoë M."}
        )

        response = host_client.post(
            reverse("matches:player_rename", args=[martins.pk]), {"name": "zoë m."}
        )

        assert response.status_code == 400
        assert "Another player is already called “zoë m.”" in response.content.decode()
        martins.refresh_from_db()
        assert martins.name == "Zoe Martins"
