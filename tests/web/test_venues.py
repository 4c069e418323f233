"""The venues' pages: the list and the organiser's new venue, a venue's page (its tables,
standings, TV and, for its managers and the organiser, its hosts), inviting, removing and
promoting hosts, the invitation link, each for anonymous, a host of another venue, a host of
this venue, a manager and the organiser: what they see, what they may do, what is saved."""

import datetime
import hashlib
import html
import re

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from matches.models import HostInvitation, HostProfile, Table, Venue, VenueRole
from matches.org import hosts
from tests.clients import FormClient
from tests.factories import (
    first_venue,
    make_host,
    make_table,
    other_venue,
    tap,
    venue_roles_form,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

NOT_ORGANISER = "Only the league’s organiser may do this: nothing was changed."
PASSWORD = "a-long-test-password"


def text(response) -> str:
    """The page's text as read: tags gone, entities decoded, spacing collapsed."""
    body = re.sub(r"<[^>]+>", " ", response.content.decode())
    return " ".join(html.unescape(body).split())


def logged_in(user) -> FormClient:
    client = FormClient()
    client.force_login(user)
    return client


class League:
    """Two venues; at the first, a manager and a host; at the second, a host; an organiser."""

    def __init__(self) -> None:
        self.pub = first_venue()
        self.anchor = other_venue("The Anchor")
        self.organiser = get_user_model().objects.create_superuser(
            username="boss", password=PASSWORD
        )
        self.manager = make_host("mia", venue=self.pub)
        VenueRole.objects.filter(user=self.manager).update(kind=VenueRole.Kind.MANAGER)
        self.host = make_host("hal", venue=self.pub)
        self.stranger = make_host("tom", venue=self.anchor)
        hosts.host_exists()
        self.clients: dict[str, FormClient] = {}

    def client(self, who: str) -> FormClient:
        """One browser per person, kept: a message from a write shows on their next page."""
        if who == "anonymous":
            return FormClient()
        if who not in self.clients:
            self.clients[who] = logged_in(getattr(self, who))
        return self.clients[who]


@pytest.fixture
def league() -> League:
    return League()


def written() -> tuple:
    return (
        list(Venue.objects.order_by("pk").values_list("name", "slug", "frame_origins")),
        list(VenueRole.objects.order_by("pk").values_list("user_id", "venue_id", "kind")),
        list(HostInvitation.objects.values_list("pk", "used_at")),
        list(
            get_user_model()
            .objects.order_by("pk")
            .values_list("username", "is_active", "is_superuser", "is_staff")
        ),
    )


def login_redirect(response) -> bool:
    return response.status_code == 302 and response["Location"].startswith(reverse("login"))


class TestVenueList:
    def test_everyone_sees_every_venue_linked_to_its_page(self, league):
        page = FormClient().get(reverse("matches:venues"))
        body = page.content.decode()
        assert page.status_code == 200
        assert f'href="/venues/{league.pub.slug}/"' in body
        assert 'href="/venues/the-anchor/">The Anchor</a>' in body
        assert "New venue" not in body

    @pytest.mark.parametrize("who", ["host", "manager", "stranger"])
    def test_only_the_organiser_is_offered_a_new_venue(self, league, who):
        assert "New venue" not in text(league.client(who).get(reverse("matches:venues")))
        page = text(league.client("organiser").get(reverse("matches:venues")))
        assert "New venue Venue name Add venue" in page

    def test_the_organiser_adds_a_venue_and_lands_on_its_page(self, league):
        client = league.client("organiser")
        response = client.post(reverse("matches:venue_new"), {"name": "  The  Crown "})
        assert response.status_code == 302
        assert response["Location"] == "/venues/the-crown/"
        venue = Venue.objects.get(slug="the-crown")
        assert venue.name == "The Crown"
        page = text(client.get(response["Location"]))
        assert "Venue “The Crown” added." in page
        entry = LogEntry.objects.get(object_id=str(venue.pk), content_type__model="venue")
        assert entry.user_id == league.organiser.pk and entry.is_addition()

    def test_a_slug_already_taken_gets_a_number(self, league):
        client = league.client("organiser")
        client.post(reverse("matches:venue_new"), {"name": "The Crown"})
        response = client.post(reverse("matches:venue_new"), {"name": "The Crown!"})
        assert response["Location"] == "/venues/the-crown-2/"
        response = client.post(reverse("matches:venue_new"), {"name": "The Crown?"})
        assert response["Location"] == "/venues/the-crown-3/"

    def test_a_name_taken_ignoring_case_is_refused_and_nothing_saved(self, league):
        client = league.client("organiser")
        before = written()
        response = client.post(reverse("matches:venue_new"), {"name": "THE ANCHOR"})
        assert response.status_code == 400
        assert "A venue named “THE ANCHOR” already exists: choose another name." in text(response)
        assert written() == before

    @pytest.mark.parametrize(
        ("name", "message"),
        [
            ("", "Type the venue’s name."),
            ("x" * 61, "Venue names are at most 60 characters"),
        ],
    )
    def test_a_bad_name_is_refused_with_a_sentence(self, league, name, message):
        before = written()
        response = league.client("organiser").post(reverse("matches:venue_new"), {"name": name})
        assert response.status_code == 400
        assert message in text(response)
        assert written() == before

    @pytest.mark.parametrize("who", ["host", "manager", "stranger"])
    def test_anyone_else_gets_403_and_nothing_is_saved(self, league, who):
        before = written()
        response = league.client(who).post(reverse("matches:venue_new"), {"name": "The Crown"})
        assert response.status_code == 403
        assert NOT_ORGANISER in text(response)
        assert written() == before

    def test_anonymous_is_sent_to_log_in(self, league):
        before = written()
        response = FormClient().post(reverse("matches:venue_new"), {"name": "The Crown"})
        assert login_redirect(response)
        assert written() == before


class TestVenuePage:
    def test_its_open_tables_standings_and_big_screen(self, league):
        make_table(host=league.host, name="Front bar")
        make_table(host=league.stranger, name="Snug")
        closed = make_table(host=league.host, name="Back room")
        Table.objects.filter(pk=closed.pk).update(closed_at=timezone.now())
        response = FormClient().get(reverse("matches:venue", args=[league.pub.slug]))
        body = response.content.decode()
        table = Table.objects.get(name="Front bar")
        assert f'href="/tables/{table.pk}/">Open Front bar</a>' in body
        assert "Open Snug" not in body and "Open Back room" not in body
        assert f'href="/standings/?venue={league.pub.slug}"' in body
        assert f'href="/venues/{league.pub.slug}/board/"' in body
        assert "Invite a host" not in body and "Remove" not in body

    def test_an_unknown_venue_is_404(self, league):
        assert FormClient().get("/venues/nowhere/").status_code == 404

    @pytest.mark.parametrize("who", ["anonymous", "host", "stranger"])
    def test_hosts_are_shown_to_managers_and_the_organiser_only(self, league, who):
        page = text(league.client(who).get(reverse("matches:venue", args=[league.pub.slug])))
        assert "Invite a host" not in page
        assert "hal" not in page

    def test_a_manager_sees_the_hosts_and_may_remove_hosts_only(self, league):
        page = text(league.client("manager").get(reverse("matches:venue", args=[league.pub.slug])))
        assert "Hosts host Username hal Role Host Remove hal" in page
        assert "host Username mia Role Manager Invite a host" in page  # no button for oneself
        assert "Make hal manager" not in page and "organiser" not in page

    def test_the_organiser_may_also_promote(self, league):
        client = league.client("organiser")
        page = text(client.get(reverse("matches:venue", args=[league.pub.slug])))
        assert "hal Role Host Make hal manager Make hal organiser Remove hal" in page
        assert "mia Role Manager Make mia organiser Remove mia" in page

    def test_the_venue_page_leads_with_its_own_standings(self, league):
        ours = make_table(host=league.host, name="Front", players=["Ann", "Bob", "Cy"])
        tap(ours, "Ann")
        tap(ours, "Bob")  # Cy wins, Bob 2nd, Ann 3rd: at this venue only
        elsewhere = make_table(host=league.stranger, name="Snug", players=["Dot", "Eve", "Fay"])
        tap(elsewhere, "Dot")
        tap(elsewhere, "Eve")
        page = text(FormClient().get(reverse("matches:venue", args=[league.pub.slug])))
        assert "Rank Player Played Wins Points 1 Cy 1 1 3 2 Bob 1 0 2 3 Ann 1 0 1" in page
        assert "Fay" not in page

    def test_a_display_name_is_what_the_list_leads_with(self, league):
        HostProfile.objects.create(user=league.host, display_name="Hal the Host")
        page = text(league.client("manager").get(reverse("matches:venue", args=[league.pub.slug])))
        assert "Hal the Host Username hal Role Host" in page

    def test_queries_are_flat_in_hosts_and_tables(self, league, django_assert_num_queries):
        client = league.client("organiser")
        url = reverse("matches:venue", args=[league.pub.slug])
        make_table(host=league.host, name="T0")
        client.get(url)
        # Session, user, the venue, its open tables, its hosts, the roles' menu, and its
        # standings' filters (the mode played most, tonight's season) and their stamp.
        with django_assert_num_queries(9) as few:
            client.get(url)
        warm = len(few.captured_queries)  # read now: the next request clears the log
        for n in range(1, 6):
            make_host(f"extra{n}", venue=league.pub)
            make_table(host=league.host, name=f"T{n}", players=["Ann", "Bob", f"P{n}"])
        client.get(url)  # the standings' cache, warm again after the launches moved its stamp
        with django_assert_num_queries(warm):
            page = text(client.get(url))
        assert "Open T5" in page and "Remove extra5" in page


class TestInvite:
    def invite(self, client, venue):
        return client.post(reverse("matches:venue_invite", args=[venue.slug]))

    @pytest.mark.parametrize("who", ["manager", "organiser"])
    def test_the_link_is_shown_once_with_its_expiry(self, league, who):
        client = league.client(who)
        response = self.invite(client, league.pub)
        assert response["Location"] == f"/venues/{league.pub.slug}/"
        shown = client.get(response["Location"])
        body = shown.content.decode()
        assert "It is shown only now, works once, and expires on:" in text(shown)
        assert "no-store" in shown["Cache-Control"]
        link = re.search(r'id="invitation-link" readonly value="([^"]+)"', body)[1]
        token = link.rsplit("/", 2)[-2]
        assert link == f"http://testserver/invitations/{token}/"
        invitation = HostInvitation.objects.get()
        assert invitation.token_hash == hashlib.sha256(token.encode()).hexdigest()
        assert token not in str(list(HostInvitation.objects.values_list()))
        assert invitation.venue == league.pub and invitation.kind == "host"
        assert invitation.created_by == getattr(league, who)
        days = (invitation.expires_at - invitation.created_at).total_seconds() / 86400
        assert round(days, 3) == 7
        again = client.get(response["Location"]).content.decode()
        assert token not in again and "invitation-link" not in again

    @pytest.mark.parametrize("who", ["host", "stranger"])
    def test_a_host_gets_403_and_no_invitation(self, league, who):
        response = self.invite(league.client(who), league.pub)
        assert response.status_code == 403
        assert (
            "Only Our pub’s managers and the organiser may do this: nothing was changed."
            in text(response)
        )
        assert not HostInvitation.objects.exists()

    def test_a_manager_of_another_venue_gets_403(self, league):
        VenueRole.objects.filter(user=league.stranger).update(kind=VenueRole.Kind.MANAGER)
        assert self.invite(league.client("stranger"), league.pub).status_code == 403
        assert not HostInvitation.objects.exists()

    def test_anonymous_is_sent_to_log_in(self, league):
        assert login_redirect(self.invite(FormClient(), league.pub))
        assert not HostInvitation.objects.exists()


def new_token(league, venue=None, *, by=None) -> str:
    from matches.org import venues

    return venues.invitation_create(
        venue_id=(venue or league.pub).pk, by=by or league.manager
    ).token


class TestInvitationLink:
    def join(self, client, token, **data):
        form = {"username": "newbie", "password1": PASSWORD, "password2": PASSWORD}
        return client.post(reverse("matches:invitation", args=[token]), {**form, **data})

    def test_a_newcomer_makes_an_account_and_hosts_at_the_venue(self, league):
        token = new_token(league)
        client = FormClient()
        page = text(client.get(reverse("matches:invitation", args=[token])))
        assert "You are invited to host at Our pub." in page
        assert "Username" in page and "Display name (optional)" in page
        response = self.join(client, token, display_name="Nia")
        assert response["Location"] == f"/venues/{league.pub.slug}/"
        newbie = get_user_model().objects.get(username="newbie")
        assert not newbie.is_superuser and not newbie.is_staff and newbie.is_active
        assert newbie.host_profile.display_name == "Nia"
        assert list(newbie.venue_roles.values_list("venue_id", "kind")) == [(league.pub.pk, "host")]
        invitation = HostInvitation.objects.get()
        assert invitation.used_by == newbie and invitation.used_at is not None
        assert "Welcome: you host at Our pub now." in text(client.get(response["Location"]))
        # Logged in: the new host launches at their venue.
        assert client.get(reverse("matches:table_new")).status_code == 200
        entry = LogEntry.objects.get(object_id=str(newbie.pk))
        assert entry.user_id == league.manager.pk
        assert entry.get_change_message() == "Added venue role “newbie @ Our pub: host”."

    def test_a_weak_password_is_refused_and_nothing_saved(self, league):
        token = new_token(league)
        before = written()
        response = self.join(FormClient(), token, password1="password", password2="password")
        assert response.status_code == 400
        assert "This password is too common." in text(response)
        assert written() == before

    def test_a_taken_username_is_refused(self, league):
        token = new_token(league)
        before = written()
        response = self.join(FormClient(), token, username="HAL")
        assert response.status_code == 400
        assert "A user with that username already exists." in text(response)
        assert written() == before

    def test_a_used_link_is_gone_and_nothing_saved(self, league):
        token = new_token(league)
        self.join(FormClient(), token)
        before = written()
        for response in (
            FormClient().get(reverse("matches:invitation", args=[token])),
            self.join(FormClient(), token, username="second"),
        ):
            assert response.status_code == 410
            assert "This invitation has already been used: ask for a new one." in text(response)
        assert written() == before

    def test_an_expired_link_is_gone_and_nothing_saved(self, league):
        token = new_token(league)
        expired = timezone.now() - datetime.timedelta(minutes=1)
        HostInvitation.objects.update(expires_at=expired)
        before = written()
        response = self.join(FormClient(), token)
        assert response.status_code == 410
        day = timezone.localtime(expired).date()
        assert f"This invitation expired on {day.day} {day:%b %Y}: ask for a new one." in text(
            response
        )
        assert written() == before

    def test_an_unknown_link_is_404(self, league):
        before = written()
        for response in (
            FormClient().get(reverse("matches:invitation", args=["nope"])),
            self.join(FormClient(), "nope"),
        ):
            assert response.status_code == 404
            assert "This invitation link is not known" in text(response)
        assert written() == before

    def test_a_logged_in_host_accepts_with_a_button(self, league):
        token = new_token(league)
        client = league.client("stranger")
        page = text(client.get(reverse("matches:invitation", args=[token])))
        assert "You are logged in as tom. Accept to host at Our pub too." in page
        assert "Username" not in page
        response = client.post(reverse("matches:invitation", args=[token]))
        assert response["Location"] == f"/venues/{league.pub.slug}/"
        kinds = dict(league.stranger.venue_roles.values_list("venue__slug", "kind"))
        assert kinds == {league.pub.slug: "host", "the-anchor": "host"}
        assert HostInvitation.objects.get().used_by == league.stranger

    def test_a_host_already_there_leaves_the_invitation_unused(self, league):
        token = new_token(league)
        client = league.client("host")
        before = written()
        response = client.post(reverse("matches:invitation", args=[token]), follow=True)
        assert "You already host at Our pub: the invitation is left for someone else." in text(
            response
        )
        assert written() == before


class TestRemove:
    def remove(self, client, user, *, confirmed=True, venue=None):
        url = reverse("matches:venue_host_remove", args=[(venue or first_venue()).slug, user.pk])
        return client.post(url, {"confirmed": "yes"} if confirmed else {})

    def test_the_button_asks_first_and_changes_nothing(self, league):
        before = written()
        response = self.remove(league.client("manager"), league.host, confirmed=False)
        assert response.status_code == 200
        page = text(response)
        assert "Remove hal from Our pub?" in page
        assert "If they host nowhere else, their account is deactivated" in page
        assert written() == before

    def test_a_host_removed_keeps_their_records_and_cannot_log_in(self, league):
        table = make_table(host=league.host, name="Front bar")
        client = league.client("manager")
        response = self.remove(client, league.host)
        assert response["Location"] == f"/venues/{league.pub.slug}/"
        page = text(client.get(response["Location"]))
        assert "hal no longer hosts at Our pub. What they recorded stays." in page
        assert "hal hosts nowhere now, so their account was deactivated" in page
        hal = get_user_model().objects.get(pk=league.host.pk)
        assert not hal.is_active and not hal.venue_roles.exists()
        assert Table.objects.get(pk=table.pk).created_by_id == hal.pk
        login = FormClient().post(reverse("login"), {"username": "hal", "password": PASSWORD})
        assert login.status_code == 200  # the form again: refused
        entry = LogEntry.objects.get(object_id=str(hal.pk))
        assert entry.user_id == league.manager.pk
        assert entry.get_change_message() == (
            "Deleted venue role “hal @ Our pub: host”. Changed Active."
        )

    def test_a_host_of_two_venues_stays_active(self, league):
        VenueRole.objects.create(user=league.host, venue=league.anchor)
        response = self.remove(league.client("organiser"), league.host)
        page = text(league.client("organiser").get(response["Location"]))
        assert "hosts nowhere now" not in page
        hal = get_user_model().objects.get(pk=league.host.pk)
        assert hal.is_active
        assert list(hal.venue_roles.values_list("venue_id", flat=True)) == [league.anchor.pk]

    @pytest.mark.parametrize("who", ["host", "stranger"])
    def test_a_host_gets_403_and_nothing_changes(self, league, who):
        before = written()
        response = self.remove(league.client(who), league.host)
        assert response.status_code == 403
        assert "Only Our pub’s managers and the organiser may do this" in text(response)
        assert written() == before

    def test_only_the_organiser_removes_a_manager(self, league):
        other = make_host("max", venue=league.pub)
        VenueRole.objects.filter(user=other).update(kind=VenueRole.Kind.MANAGER)
        before = written()
        response = self.remove(league.client("manager"), other)
        assert response.status_code == 403
        assert "Only the organiser may remove a manager: nothing was changed." in text(response)
        assert written() == before
        self.remove(league.client("organiser"), other)
        assert not other.venue_roles.exists()

    def test_nobody_removes_themselves(self, league):
        before = written()
        response = self.remove(league.client("manager"), league.manager)
        page = text(league.client("manager").get(response["Location"]))
        assert "You cannot remove yourself" in page
        assert written() == before

    def test_the_organiser_is_never_deactivated(self, league):
        VenueRole.objects.create(user=league.organiser, venue=league.pub)
        other = make_host("max", venue=league.pub)
        get_user_model().objects.filter(pk=other.pk).update(is_superuser=True)
        self.remove(league.client("organiser"), other)
        assert get_user_model().objects.get(pk=other.pk).is_active

    def test_anonymous_is_sent_to_log_in(self, league):
        before = written()
        assert login_redirect(self.remove(FormClient(), league.host))
        assert written() == before

    def test_someone_not_at_the_venue_is_404(self, league):
        before = written()
        assert self.remove(league.client("organiser"), league.stranger).status_code == 404
        assert written() == before


class TestPromote:
    def post(self, client, name, user, *, confirmed=True):
        url = reverse(f"matches:{name}", args=[first_venue().slug, user.pk])
        return client.post(url, {"confirmed": "yes"} if confirmed else {})

    def test_the_organiser_makes_a_host_manager(self, league):
        asked = self.post(
            league.client("organiser"), "venue_manager_grant", league.host, confirmed=False
        )
        assert "Make hal a manager of Our pub?" in text(asked)
        assert VenueRole.objects.get(user=league.host).kind == "host"
        response = self.post(league.client("organiser"), "venue_manager_grant", league.host)
        assert "hal now manages Our pub." in text(
            league.client("organiser").get(response["Location"])
        )
        assert VenueRole.objects.get(user=league.host).kind == "manager"
        entry = LogEntry.objects.get(object_id=str(league.host.pk))
        assert entry.user_id == league.organiser.pk
        assert entry.get_change_message() == "Changed role for venue role “hal @ Our pub: manager”."

    def test_the_organiser_makes_an_organiser(self, league):
        response = self.post(league.client("organiser"), "organiser_grant", league.host)
        page = text(league.client("organiser").get(response["Location"]))
        assert "hal is now an organiser of the league." in page
        hal = get_user_model().objects.get(pk=league.host.pk)
        assert hal.is_superuser and hal.is_staff
        entry = LogEntry.objects.get(object_id=str(hal.pk))
        assert entry.user_id == league.organiser.pk
        assert entry.get_change_message() == "Changed Superuser status and Staff status."

    @pytest.mark.parametrize("who", ["host", "manager", "stranger"])
    @pytest.mark.parametrize("name", ["venue_manager_grant", "organiser_grant"])
    def test_anyone_else_gets_403(self, league, who, name):
        before = written()
        response = self.post(league.client(who), name, league.host)
        assert response.status_code == 403
        assert NOT_ORGANISER in text(response)
        assert written() == before
        assert not LogEntry.objects.exists()


class TestSettings:
    def test_the_organiser_renames_and_the_slug_stays(self, league):
        client = league.client("organiser")
        url = reverse("matches:venue_rename", args=[league.pub.slug])
        response = client.post(url, {"name": "The Crown"})
        assert response["Location"] == f"/venues/{league.pub.slug}/"
        assert Venue.objects.get(pk=league.pub.pk).name == "The Crown"
        assert "Venue renamed “The Crown”. Its addresses stay the same." in text(
            client.get(response["Location"])
        )

    def test_a_rename_to_another_venues_name_is_refused(self, league):
        before = written()
        url = reverse("matches:venue_rename", args=[league.pub.slug])
        response = league.client("organiser").post(url, {"name": "the anchor"})
        assert response.status_code == 400
        assert "A venue named “the anchor” already exists" in text(response)
        assert written() == before

    def test_frame_origins_are_checked_and_stored_one_per_line(self, league):
        client = league.client("organiser")
        url = reverse("matches:venue_frame_origins", args=[league.pub.slug])
        typed = "https://TheCrown.example/\n\nhttp://localhost:8080\nhttps://thecrown.example"
        response = client.post(url, {"origins": typed})
        assert response["Location"] == reverse("matches:venue_settings", args=[league.pub.slug])
        stored = Venue.objects.get(pk=league.pub.pk).frame_origins
        assert stored == "https://thecrown.example\nhttp://localhost:8080"
        page = client.get(response["Location"]).content.decode()
        assert "https://thecrown.example\nhttp://localhost:8080</textarea>" in page

    @pytest.mark.parametrize(
        "bad",
        [
            "thecrown.example",
            "https://thecrown.example/standings",
            "ftp://x.example",
            "https://a.example:99999",
        ],
    )
    def test_a_bad_origin_is_refused_and_nothing_saved(self, league, bad):
        before = written()
        url = reverse("matches:venue_frame_origins", args=[league.pub.slug])
        response = league.client("organiser").post(url, {"origins": f"https://ok.example\n{bad}"})
        assert response.status_code == 400
        assert f"“{bad}” is not a site’s address" in text(response)
        assert written() == before

    @pytest.mark.parametrize("who", ["host", "manager", "stranger"])
    def test_anyone_else_gets_403(self, league, who):
        client = league.client(who)
        before = written()
        assert (
            client.get(reverse("matches:venue_settings", args=[league.pub.slug])).status_code == 403
        )
        for name, data in (
            ("venue_rename", {"name": "X"}),
            ("venue_frame_origins", {"origins": ""}),
        ):
            response = client.post(reverse(f"matches:{name}", args=[league.pub.slug]), data)
            assert response.status_code == 403
            assert NOT_ORGANISER in text(response)
        assert written() == before


class TestNavigation:
    def venues_link(self, client) -> bool:
        return 'href="/venues/"' in client.get(reverse("matches:home")).content.decode()

    def test_the_organiser_and_managers_see_venues(self, league):
        assert self.venues_link(league.client("organiser"))
        assert self.venues_link(league.client("manager"))

    def test_a_host_of_one_venue_and_a_spectator_do_not(self, league):
        assert not self.venues_link(league.client("host"))
        assert not self.venues_link(FormClient())

    def test_a_host_of_two_venues_does(self, league):
        VenueRole.objects.create(user=league.host, venue=league.anchor)
        assert self.venues_link(league.client("host"))


class TestAdmin:
    def test_the_user_page_lists_their_venues(self, league):
        url = reverse("admin:auth_user_change", args=[league.host.pk])
        page = league.client("organiser").get(url).content.decode()
        assert "Venue roles" in page
        assert f'<option value="{league.pub.pk}" selected>Our pub</option>' in page

    def test_a_role_added_in_the_admin_is_in_the_users_history(self, league):
        url = reverse("admin:auth_user_change", args=[league.host.pk])
        data = {
            "username": "hal",
            "is_active": "on",
            "date_joined_0": "2026-12-01",
            "date_joined_1": "20:00:00",
            "host_profile-TOTAL_FORMS": "0",
            "host_profile-INITIAL_FORMS": "0",
            "host_profile-MIN_NUM_FORMS": "0",
            "host_profile-MAX_NUM_FORMS": "1",
            "_save": "Save",
            **venue_roles_form(league.host),
        }
        data |= {
            "venue_roles-TOTAL_FORMS": "2",
            "venue_roles-1-user": str(league.host.pk),
            "venue_roles-1-venue": str(league.anchor.pk),
            "venue_roles-1-kind": "manager",
        }
        response = league.client("organiser").post(url, data)
        assert response.status_code == 302
        kinds = dict(league.host.venue_roles.values_list("venue__slug", "kind"))
        assert kinds == {league.pub.slug: "host", "the-anchor": "manager"}
        entry = LogEntry.objects.get(object_id=str(league.host.pk))
        assert entry.user_id == league.organiser.pk
        assert "Added venue role “hal @ The Anchor: manager”." in entry.get_change_message()


class TestPortuguese:
    def test_the_venue_page_and_its_refusals_read_in_portuguese(self, league):
        pt = {"HTTP_ACCEPT_LANGUAGE": "pt"}
        client = league.client("manager")
        page = text(client.get(reverse("matches:venue", args=[league.pub.slug]), **pt))
        assert "Classificação em Our pub" in page
        assert "Retirar hal" in page and "Convidar um anfitrião" in page
        refused = league.client("host").post(
            reverse("matches:venue_invite", args=[league.pub.slug]), **pt
        )
        assert refused.status_code == 403
        assert "Só os gerentes de Our pub e o organizador podem fazer isto" in text(refused)
