"""Venues: the list, each venue's page (its tables, standings, TV and, for its managers and
the organiser, its hosts), the organiser's settings, and the invitation a new host follows."""

import datetime

from django.contrib import messages
from django.contrib.auth import login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from matches.core.errors import Refusal, RuleError
from matches.models import HostInvitation, Venue
from matches.org import venues
from matches.org.hosts import is_host
from matches.org.roles import is_organiser, may_manage_venue
from matches.play import selectors
from matches.results.standings import standings
from matches.web.access import host_required
from matches.web.caching.standings import cached
from matches.web.caching.venues import embed_filters, venue_embed_key
from matches.web.forms.venues import FrameOriginsForm, JoinForm, VenueForm
from matches.web.htmx import HtmxHttpRequest

VENUE_ADDED = _("Venue “%(name)s” added.")
VENUE_RENAMED = _("Venue renamed “%(name)s”. Its addresses stay the same.")
ORIGINS_SAVED = _("Sites that may embed the standings saved.")
HOST_REMOVED = _("%(name)s no longer hosts at %(venue)s. What they recorded stays.")
HOST_DEACTIVATED = _(
    "%(name)s hosts nowhere now, so their account was deactivated: it can no longer log in."
)
MANAGER_MADE = _("%(name)s now manages %(venue)s.")
ORGANISER_MADE = _("%(name)s is now an organiser of the league.")
JOINED = _("Welcome: you host at %(venue)s now.")

# The invitation link just made, shown once on the venue's page and then forgotten.
_NEW_INVITATION = "brag_new_invitation"


def _venue_or_404(slug: str) -> Venue:
    return get_object_or_404(Venue, slug=slug)


def _organiser_or_403(request: HtmxHttpRequest) -> None:
    if not is_organiser(request.user):
        raise PermissionDenied(venues.NOT_ORGANISER)


def _managed_or_403(request: HtmxHttpRequest, slug: str) -> Venue:
    venue = _venue_or_404(slug)
    if not may_manage_venue(request.user, venue.pk):
        raise PermissionDenied(str(venues.NOT_VENUE_MANAGER) % {"venue": venue.name})
    return venue


def _refused(error: RuleError) -> None:
    """A service's refusal of who is asking, as the 403 page; any other refusal returns."""
    if error.code in (Refusal.NOT_THE_ORGANISER, Refusal.NOT_VENUE_MANAGER):
        raise PermissionDenied(error.message)


def _list(request: HtmxHttpRequest, form: VenueForm | None, status: int = 200) -> HttpResponse:
    if form is None and is_organiser(request.user):
        form = VenueForm()
    context = {"venues": venues.venues_with_open_counts(), "form": form}
    return render(request, "matches/venues.html", context, status=status)


@require_safe
def venue_list(request: HtmxHttpRequest) -> HttpResponse:
    return _list(request, None)


@host_required
@require_POST
def venue_new(request: HtmxHttpRequest) -> HttpResponse:
    _organiser_or_403(request)
    form = VenueForm(request.POST)
    if form.is_valid():
        try:
            venue = venues.venue_create(name=form.cleaned_data["name"], by=request.user)
        except RuleError as error:
            _refused(error)
            form.add_error("name", error.message)
        else:
            messages.success(request, str(VENUE_ADDED) % {"name": venue.name})
            return redirect("matches:venue", slug=venue.slug)
    return _list(request, form, status=400)


# How many of the venue's standings its page shows; the standings page has them all.
LEADERS_SHOWN = 10


def _venue_leaders(request: HtmxHttpRequest, slug: str) -> dict:
    """The top of the venue's standings as its embed shows them (the same cached rows:
    tonight's season, the mode played most, the public's names)."""
    form = embed_filters(request, slug)
    if not form.is_valid():
        return {"rows": [], "wins_only": False}
    query = form.query
    rows = cached(venue_embed_key(request, slug), lambda: standings(query, real_names=False))
    return {"rows": rows[:LEADERS_SHOWN], "wins_only": query.wins_only}


@require_safe
def venue_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    venue = _venue_or_404(slug)
    manages = may_manage_venue(request.user, venue.pk)
    new_invitation = None
    if manages:
        shown = request.session.pop(_NEW_INVITATION, None)
        if shown and shown.get("venue") == venue.pk:
            expires_at = datetime.datetime.fromisoformat(shown["expires_at"])
            new_invitation = {"link": shown["link"], "expires_at": expires_at}
    context = {
        "venue": venue,
        "open_tables": selectors.venue_open_tables(venue_id=venue.pk),
        "leaders": _venue_leaders(request, venue.slug),
        "board_url": reverse("matches:venue_board", args=[venue.slug]),
        "standings_url": f"{reverse('matches:standings')}?venue={venue.slug}",
        "manages": manages,
        "organiser": is_organiser(request.user),
        "hosts": venues.venue_hosts(venue_id=venue.pk) if manages else [],
        "new_invitation": new_invitation,
    }
    response = render(request, "matches/venue.html", context)
    if new_invitation is not None:
        # The working link exists only on this page: no cache keeps a copy.
        patch_cache_control(response, private=True, no_store=True)
    return response


def _settings(
    request: HtmxHttpRequest,
    venue: Venue,
    *,
    name_form: VenueForm | None = None,
    origins_form: FrameOriginsForm | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "venue": venue,
        "name_form": name_form or VenueForm(initial={"name": venue.name}),
        "origins_form": origins_form or FrameOriginsForm(initial={"origins": venue.frame_origins}),
    }
    return render(request, "matches/venue_settings.html", context, status=status)


@host_required
@require_safe
def venue_settings(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    _organiser_or_403(request)
    return _settings(request, _venue_or_404(slug))


@host_required
@require_POST
def venue_rename(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    _organiser_or_403(request)
    venue = _venue_or_404(slug)
    form = VenueForm(request.POST)
    if form.is_valid():
        try:
            venue = venues.venue_rename(
                venue_id=venue.pk, name=form.cleaned_data["name"], by=request.user
            )
        except RuleError as error:
            _refused(error)
            form.add_error("name", error.message)
        else:
            messages.success(request, str(VENUE_RENAMED) % {"name": venue.name})
            return redirect("matches:venue", slug=venue.slug)
    return _settings(request, venue, name_form=form, status=400)


@host_required
@require_POST
def venue_frame_origins(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    _organiser_or_403(request)
    venue = _venue_or_404(slug)
    form = FrameOriginsForm(request.POST)
    if form.is_valid():
        try:
            venues.venue_frame_origins_set(
                venue_id=venue.pk, origins=form.cleaned_data["origins"], by=request.user
            )
        except RuleError as error:
            _refused(error)
            form.add_error("origins", error.message)
        else:
            messages.success(request, ORIGINS_SAVED)
            return redirect("matches:venue_settings", slug=venue.slug)
    return _settings(request, venue, origins_form=form, status=400)


@host_required
@require_POST
def venue_invite(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    venue = _managed_or_403(request, slug)
    made = venues.invitation_create(venue_id=venue.pk, by=request.user)
    link = request.build_absolute_uri(reverse("matches:invitation", args=[made.token]))
    request.session[_NEW_INVITATION] = {
        "venue": venue.pk,
        "link": link,
        "expires_at": made.invitation.expires_at.isoformat(),
    }
    return redirect("matches:venue", slug=venue.slug)


def _host_change(request: HtmxHttpRequest, slug: str, user_id: int, confirm: str, change):
    """A change to one host of the venue: asked for once more (the confirm page), then made."""
    venue = _venue_or_404(slug)
    host = next((h for h in venues.venue_hosts(venue_id=venue.pk) if h.user_id == user_id), None)
    if host is None:
        raise Http404
    if request.POST.get("confirmed") != "yes":
        context = {"venue": venue, "host": host, "confirm": confirm}
        return render(request, "matches/venue_host_confirm.html", context)
    try:
        done = change(venue)
    except RuleError as error:
        _refused(error)
        messages.error(request, error.message)
    else:
        for message in done:
            messages.success(request, message)
    return redirect("matches:venue", slug=venue.slug)


@host_required
@require_POST
def venue_host_remove(request: HtmxHttpRequest, slug: str, user_id: int) -> HttpResponse:
    _managed_or_403(request, slug)

    def remove(venue: Venue) -> list[str]:
        removal = venues.venue_role_remove(venue_id=venue.pk, user_id=user_id, by=request.user)
        name = removal.user.get_username()
        done = [str(HOST_REMOVED) % {"name": name, "venue": venue.name}]
        if removal.deactivated:
            done.append(str(HOST_DEACTIVATED) % {"name": name})
        return done

    return _host_change(request, slug, user_id, "remove", remove)


@host_required
@require_POST
def venue_manager_grant(request: HtmxHttpRequest, slug: str, user_id: int) -> HttpResponse:
    _organiser_or_403(request)

    def grant(venue: Venue) -> list[str]:
        role = venues.venue_manager_grant(venue_id=venue.pk, user_id=user_id, by=request.user)
        return [str(MANAGER_MADE) % {"name": role.user.get_username(), "venue": venue.name}]

    return _host_change(request, slug, user_id, "manager", grant)


@host_required
@require_POST
def organiser_grant(request: HtmxHttpRequest, slug: str, user_id: int) -> HttpResponse:
    _organiser_or_403(request)

    def grant(venue: Venue) -> list[str]:
        user = venues.organiser_grant(user_id=user_id, by=request.user)
        return [str(ORGANISER_MADE) % {"name": user.get_username()}]

    return _host_change(request, slug, user_id, "organiser", grant)


def _gone(request: HtmxHttpRequest, error: RuleError) -> HttpResponse:
    status = 404 if error.code == Refusal.INVITATION_UNKNOWN else 410
    return render(request, "matches/invitation_gone.html", {"error": error}, status=status)


@never_cache
@require_http_methods(["GET", "POST"])
def invitation(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A newcomer makes their account here and joins the venue; a logged-in host accepts."""
    try:
        found: HostInvitation = venues.invitation_find(token)
    except RuleError as error:
        return _gone(request, error)
    form = None if is_host(request.user) else JoinForm(request.POST or None)
    if request.method == "POST":
        try:
            if form is None:
                role = venues.invitation_accept(token=token, by=request.user)
                venue = role.venue
            elif form.is_valid():
                user = venues.invitation_join(
                    token=token,
                    user=form.save(commit=False),
                    display_name=form.cleaned_data["display_name"],
                )
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                venue = found.venue
            else:
                venue = None
        except RuleError as error:
            if error.code in (Refusal.INVITATION_UNKNOWN, Refusal.INVITATION_SPENT):
                return _gone(request, error)
            if form is None:
                messages.error(request, error.message)
                return redirect("matches:venue", slug=found.venue.slug)
            form.add_error(None, error.message)
            venue = None
        if venue is not None:
            messages.success(request, str(JOINED) % {"venue": venue.name})
            return redirect("matches:venue", slug=venue.slug)
    status = 400 if request.method == "POST" else 200
    context = {"invitation": found, "form": form}
    return render(request, "matches/invitation.html", context, status=status)
