"""A host's flash message waits in the session until a page shows it: a message naming a
player keeps a reference, not the name, and reads the name when it is shown, so an erasure
(or a rename) in between is what the host reads; any message that did write a name out is
scrubbed from every waiting session by the erasure. What the session holds, what the page
shows, and the query the names take."""

import json
import unicodedata
import uuid

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import MessageEncoder
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeData

from matches.models import Player
from matches.results.players import services as players
from matches.web import feedback
from tests.factories import make_table, open_match, seat_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def sessions() -> str:
    """Every session as it is stored, decoded."""
    return fold(json.dumps([s.get_decoded() for s in Session.objects.all()], ensure_ascii=False))


def tap_without_js(client, table, name):
    match = open_match(table)
    form = {"match": match.pk, "player": seat_of(match, name).player_id, "key": uuid.uuid4()}
    response = client.post(reverse("matches:tap", args=[table.pk]), form)
    assert response.status_code == 302  # the message waits for the next page
    return response


@pytest.fixture
def table(host):
    return make_table(host=host, players=["Ann", "Gonçalo", "Priya", "Zoe"])


def page_of(client, table) -> str:
    return client.get(reverse("matches:table", args=[table.pk])).content.decode()


class TestAMessageWaitingThroughAnErasure:
    def test_a_tap_s_message_reads_the_erased_name_when_shown(
        self, host_client, admin_client, table
    ):
        tap_without_js(host_client, table, "Priya")
        assert "priya" not in sessions()
        priya = Player.objects.get(name="Priya")
        assert admin_client.post(reverse("matches:player_erase", args=[priya.pk])).status_code == (
            302
        )
        page = page_of(host_client, table)
        assert f"<bdi>Former player {priya.pk}</bdi> is out, 4th." in page
        assert "priya" not in fold(page)

    def test_a_refusal_s_message_too(self, host_client, admin_client, table):
        tap_without_js(host_client, table, "Priya")
        page_of(host_client, table)  # shown and gone
        match = open_match(table)
        again = {"match": match.pk, "player": seat_of(match, "Priya").player_id}
        host_client.post(reverse("matches:tap", args=[table.pk]), {**again, "key": uuid.uuid4()})
        assert "priya" not in sessions()
        priya = Player.objects.get(name="Priya")
        admin_client.post(reverse("matches:player_erase", args=[priya.pk]))
        page = page_of(host_client, table)
        assert f"Former player {priya.pk} is already out; nothing was changed." in page
        assert "priya" not in fold(page)

    def test_a_rename_s_message_reads_the_name_at_the_time_it_is_shown(
        self, host, host_client, table
    ):
        priya = Player.objects.get(name="Priya")
        url = reverse("matches:player_rename", args=[priya.pk])
        assert host_client.post(url, {"name": "Priya Shah"}).status_code == 302
        players.player_rename(player_id=priya.pk, name="P. Shah", by=host)
        page = host_client.get(reverse("matches:player", args=[priya.pk])).content.decode()
        assert "Renamed to “P. Shah”." in page

    def test_a_message_that_wrote_the_name_out_is_scrubbed_from_the_session(
        self, host_client, admin_client, table
    ):
        session = host_client.session
        written = [Message(constants.INFO, "Priya rang: she is on her way.")]
        session["_messages"] = json.dumps(written, cls=MessageEncoder)
        session.save()
        expiry = Session.objects.get(pk=session.session_key).expire_date
        assert "priya" in sessions()
        priya = Player.objects.get(name="Priya")
        admin_client.post(reverse("matches:player_erase", args=[priya.pk]))
        assert "priya" not in sessions()
        assert Session.objects.get(pk=session.session_key).expire_date == expiry
        page = page_of(host_client, table)
        assert f"Former player {priya.pk} rang: she is on her way." in page


class TestNamesReadWhenShown:
    def test_every_name_of_a_message_in_one_query(self, table, django_assert_num_queries):
        ann, zoe = Player.objects.get(name="Ann"), Player.objects.get(name="Zoe")
        text = f"{feedback.player_ref(ann)} and {feedback.player_ref(zoe)} ({feedback.public_ref(zoe)})"
        Player.objects.filter(pk=zoe.pk).update(hidden=True)
        with django_assert_num_queries(1):
            shown = feedback.with_names(text, real_names=True)
        assert shown == f"Ann and Zoe (Player {zoe.pk})"
        with django_assert_num_queries(0):
            assert feedback.with_names("No one named.", real_names=True) == "No one named."

    def test_a_name_is_escaped_in_a_message_marked_safe(self, host, table):
        players.player_rename(player_id=Player.objects.get(name="Zoe").pk, name="Zoe <b>", by=host)
        zoe = Player.objects.get(name="Zoe <b>")
        message = format_html("<bdi>{}</bdi>", feedback.player_ref(zoe))
        shown = feedback.with_names(message, real_names=True)
        assert isinstance(shown, SafeData) and shown == "<bdi>Zoe &lt;b&gt;</bdi>"
