"""Merging a hidden player into one the public reads by name publishes the hidden player's
results under that name: the confirmation says so and asks, and nothing is merged until the
host ticks the box (the merge itself refuses without it, whoever calls it)."""

import re

import pytest
from django.urls import reverse

from matches.core.errors import Refusal, RuleError
from matches.models import Player, PlayerMerge, Seat
from matches.results.players import services as player_records
from matches.results.public_names import player_set_public_name
from tests.clients import FormClient
from tests.factories import make_table, tap, the_organiser

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work merging and naming players is (org.roles)."""
    return organiser


@pytest.fixture
def league(host):
    """Ann plays at Front bar; Zed, hidden from the public, won twice at Back room."""
    front = make_table(host=host, players=["Ann", "Ben", "Cy"])
    for name in ["Cy", "Ben"]:
        tap(front, name)
    back = make_table(host=host, players=["Zed", "Bo", "Eve"], name="Back room")
    for _ in range(2):
        for name in ["Bo", "Eve"]:
            tap(back, name)
    zed = Player.objects.get(name="Zed")
    player_set_public_name(player_id=zed.pk, public_name="", hidden=True, by=the_organiser())
    return Player.objects.get(name="Ann"), Player.objects.get(name="Zed")


def merge_url(player):
    return reverse("matches:player_merge", args=[player.pk])


def shown(client, player, other: str) -> str:
    response = client.post(merge_url(player), {"other": other})
    assert response.status_code == 200
    return response.content.decode()


def confirm(client, player, other: Player, **extra):
    body = {"other": other.name, "other_id": other.pk, "confirm": "1", **extra}
    return client.post(merge_url(player), body)


def seats_of(player: Player) -> int:
    """The player's seats in filed matches."""
    return Seat.objects.filter(player_id=player.pk, match__status="filed").count()


def standings_names(client) -> list[str]:
    html = client.get(reverse("matches:standings")).content.decode()
    return re.findall(r'<a href="/players/\d+/">([^<]+)</a>', html)


class TestTheConfirmationAsks:
    def test_the_page_says_whose_results_go_public_and_asks(self, league, host_client):
        ann, zed = league
        page = shown(host_client, ann, "Zed")
        assert (
            f"The public does not read “Zed”’s name: spectators, the TV and the files show "
            f"“Player {zed.pk}”. After the merge its 2 filed matches are shown to everyone "
            f"under “Ann”." in page
        )
        assert re.search(
            r'<input type="checkbox" name="show_hidden" value="1" required> '
            r"Show “Zed”’s results in public under “Ann”</label>",
            page,
        )

    def test_confirming_without_the_box_merges_nothing_and_asks_again(
        self, league, host_client, client
    ):
        ann, zed = league
        before = standings_names(client)
        response = confirm(host_client, ann, zed)
        page = response.content.decode()
        assert response.status_code == 400
        assert (
            "The public does not read “Zed”’s name: tick the box to show their results in "
            "public under “Ann”, or cancel; nothing was changed." in page
        )
        assert 'name="show_hidden"' in page and ">Confirm merge</button>" in page
        assert not PlayerMerge.objects.exists()
        assert Player.objects.get(pk=zed.pk).hidden
        assert (seats_of(ann), seats_of(zed)) == (1, 2)
        assert standings_names(client) == before
        assert f"Player {zed.pk}" in before

    def test_ticked_the_merge_is_made(self, league, host_client, client):
        ann, zed = league
        response = confirm(host_client, ann, zed, show_hidden="1")
        assert response.status_code == 302
        assert PlayerMerge.objects.filter(kept=ann, absorbed_id=zed.pk).exists()
        assert seats_of(ann) == 3 and not Player.objects.filter(pk=zed.pk).exists()
        assert f"Player {zed.pk}" not in standings_names(client)

    def test_in_portuguese(self, league, host_client):
        ann, _zed = league
        page = host_client.post(
            merge_url(ann), {"other": "Zed"}, HTTP_ACCEPT_LANGUAGE="pt"
        ).content.decode()
        assert "O público não vê o nome de «Zed»" in page
        assert "as suas 2 partidas terminadas passam a ser mostradas a todos como «Ann»" in page
        assert "Mostrar em público os resultados de «Zed» como «Ann»" in page

    def test_a_record_hidden_after_the_page_was_shown_is_not_merged(
        self, league, host, host_client
    ):
        ann, zed = league
        player_set_public_name(player_id=zed.pk, public_name="", hidden=False, by=the_organiser())
        page = shown(host_client, ann, "Zed")
        assert 'name="show_hidden"' not in page
        player_set_public_name(player_id=zed.pk, public_name="", hidden=True, by=the_organiser())
        response = confirm(host_client, ann, zed)
        assert response.status_code == 400
        assert 'name="show_hidden"' in response.content.decode()
        assert not PlayerMerge.objects.exists()

    def test_no_question_when_nothing_goes_public(self, league, host, host_client):
        ann, zed = league
        # Both hidden: the results stay under "Player N".
        player_set_public_name(player_id=ann.pk, public_name="", hidden=True, by=the_organiser())
        assert 'name="show_hidden"' not in shown(host_client, ann, "Zed")
        # The other way round: Ann's results go under a hidden record's "Player N".
        player_set_public_name(player_id=ann.pk, public_name="", hidden=False, by=the_organiser())
        assert 'name="show_hidden"' not in shown(host_client, zed, "Ann")
        assert confirm(host_client, zed, ann).status_code == 302

    def test_a_visitor_gets_no_confirmation(self, league):
        ann, _zed = league
        response = FormClient().post(merge_url(ann), {"other": "Zed"})
        assert response.status_code in (302, 403)
        assert not PlayerMerge.objects.exists()


class TestTheMergeRefuses:
    def test_without_the_hosts_word(self, league, host):
        ann, zed = league
        with pytest.raises(RuleError) as refused:
            player_records.player_merge(keep_id=ann.pk, other_name="Zed", by=the_organiser())
        assert refused.value.code == Refusal.MERGE_SHOWS_HIDDEN
        assert not PlayerMerge.objects.exists() and Player.objects.filter(pk=zed.pk).exists()
        player_records.player_merge(
            keep_id=ann.pk, other_name="Zed", by=the_organiser(), show_hidden=True
        )
        assert not Player.objects.filter(pk=zed.pk).exists()
