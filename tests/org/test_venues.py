"""org.venues: the services behind the venues' pages, their refusals by code, and an
invitation used once however many use it at once (real threads on a real database)."""

from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model

from matches.core.errors import Refusal, RuleError
from matches.models import HostInvitation, Venue, VenueRole
from matches.org import venues
from tests.factories import first_venue, make_host, other_venue
from tests.races import run_at_once


def organiser():
    return get_user_model().objects.create_superuser(username="boss", password="a-long-pw-1")


@pytest.mark.django_db
class TestVenueCreate:
    def test_the_name_is_cleaned_and_the_slug_made_from_it(self):
        venue = venues.venue_create(name=" Café   Ré ", by=organiser())
        assert (venue.name, venue.slug) == ("Café Ré", "cafe-re")

    def test_a_name_with_no_latin_letter_still_gets_a_slug(self):
        boss = organiser()
        assert venues.venue_create(name="酒吧", by=boss).slug == "venue"
        assert venues.venue_create(name="居酒屋", by=boss).slug == "venue-2"

    def test_a_long_name_keeps_its_numbered_slug_within_the_limit(self):
        boss = organiser()
        first = venues.venue_create(name="a" * 60, by=boss)
        second = venues.venue_create(name="a" * 59 + "!", by=boss)
        assert first.slug == "a" * 50
        assert second.slug == "a" * 48 + "-2"

    def test_only_the_organiser(self):
        with pytest.raises(RuleError) as refused:
            venues.venue_create(name="The Crown", by=make_host())
        assert refused.value.code == Refusal.NOT_THE_ORGANISER
        assert not Venue.objects.filter(slug="the-crown").exists()

    def test_a_rename_keeps_the_slug_and_may_change_only_case(self):
        boss = organiser()
        venue = venues.venue_create(name="The Crown", by=boss)
        venue = venues.venue_rename(venue_id=venue.pk, name="THE CROWN", by=boss)
        assert (venue.name, venue.slug) == ("THE CROWN", "the-crown")


class TestFrameOrigins:
    @pytest.mark.parametrize(
        ("typed", "stored"),
        [
            ("https://a.example", ["https://a.example"]),
            ("HTTPS://A.Example:8443/", ["https://a.example:8443"]),
            ("http://[::1]:8000\nhttp://127.0.0.1", ["http://[::1]:8000", "http://127.0.0.1"]),
            ("  \n", []),
        ],
    )
    def test_origins_as_a_browser_sends_them(self, typed, stored):
        assert venues.frame_origins_clean(typed) == stored

    @pytest.mark.parametrize(
        "bad",
        [
            "a.example",
            "https://",
            "https://a.example/path",
            "https://a.example?x=1",
            "javascript:alert(1)",
            "https://a_b.example",
            "https://a.example:70000",
            "https://*.example",
            "'self'",
        ],
    )
    def test_anything_else_is_named_in_the_refusal(self, bad):
        with pytest.raises(RuleError) as refused:
            venues.frame_origins_clean(f"https://ok.example\n{bad}")
        assert refused.value.message.startswith(f"“{bad}” is not a site’s address")

    @pytest.mark.django_db
    def test_stored_one_per_line_and_read_back(self):
        venue = first_venue()
        venues.venue_frame_origins_set(
            venue_id=venue.pk, origins="https://a.example\n\nhttps://b.example", by=organiser()
        )
        venue.refresh_from_db()
        assert venues.venue_frame_origins(venue) == ["https://a.example", "https://b.example"]


@pytest.mark.django_db
class TestInvitations:
    def test_a_manager_of_another_venue_may_not_invite(self):
        host = make_host("tom", venue=other_venue())
        VenueRole.objects.filter(user=host).update(kind=VenueRole.Kind.MANAGER)
        with pytest.raises(RuleError) as refused:
            venues.invitation_create(venue_id=first_venue().pk, by=host)
        assert refused.value.code == Refusal.NOT_VENUE_MANAGER
        assert not HostInvitation.objects.exists()

    def test_codes_tell_unknown_from_spent(self):
        boss = organiser()
        made = venues.invitation_create(venue_id=first_venue().pk, by=boss)
        with pytest.raises(RuleError) as unknown:
            venues.invitation_find(made.token + "x")
        assert unknown.value.code == Refusal.INVITATION_UNKNOWN
        venues.invitation_accept(token=made.token, by=make_host("tom", venue=other_venue()))
        with pytest.raises(RuleError) as spent:
            venues.invitation_find(made.token)
        assert spent.value.code == Refusal.INVITATION_SPENT

    def test_a_display_name_that_is_a_username_is_refused_and_nothing_saved(self):
        make_host("hal")
        made = venues.invitation_create(venue_id=first_venue().pk, by=organiser())
        newbie = get_user_model()(username="newbie")
        newbie.set_password("a-long-test-password")
        with pytest.raises(RuleError):
            venues.invitation_join(token=made.token, user=newbie, display_name="HAL")
        assert not get_user_model().objects.filter(username="newbie").exists()
        assert HostInvitation.objects.get().used_at is None


@pytest.mark.django_db(transaction=True)
class TestOneUseUnderARace:
    def test_two_newcomers_at_once_make_one_account(self):
        venue = first_venue()
        boss = organiser()
        for round_ in range(10):
            made = venues.invitation_create(venue_id=venue.pk, by=boss)

            def join(name: str, token: str = made.token) -> Callable[[], object]:
                def call():
                    user = get_user_model()(username=name)
                    user.set_password("a-long-test-password")
                    return venues.invitation_join(token=token, user=user)

                return call

            results = run_at_once(join(f"ann{round_}"), join(f"bob{round_}"))
            refused = [r for r in results if isinstance(r, RuleError)]
            assert len(refused) == 1, results
            assert refused[0].code == Refusal.INVITATION_SPENT
            joined = get_user_model().objects.filter(username__in=[f"ann{round_}", f"bob{round_}"])
            assert joined.count() == 1
            used = HostInvitation.objects.get(pk=made.invitation.pk)
            assert used.used_by == joined.get()
            assert list(VenueRole.objects.filter(user__in=joined).values_list("venue_id")) == [
                (venue.pk,)
            ]

    def test_two_hosts_accepting_at_once_one_role(self):
        venue = first_venue()
        boss = organiser()
        anchor = other_venue()
        one, two = make_host("one", venue=anchor), make_host("two", venue=anchor)
        for _ in range(10):
            token = venues.invitation_create(venue_id=venue.pk, by=boss).token
            results = run_at_once(
                lambda token=token: venues.invitation_accept(token=token, by=one),
                lambda token=token: venues.invitation_accept(token=token, by=two),
            )
            assert sum(isinstance(r, VenueRole) for r in results) == 1, results
            assert VenueRole.objects.filter(venue=venue).count() == 1
            VenueRole.objects.filter(venue=venue).delete()
