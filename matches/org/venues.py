"""Venues and who runs them: the organiser adds and renames venues and lists the sites that
may frame a venue's standings; a venue's managers (and the organiser) invite hosts by a link
that expires and works once, and remove them; the organiser makes managers and organisers.
Every role change is written to the admin's history (LogEntry) with who made it."""

import datetime
import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from matches.core.errors import Refusal, RuleError
from matches.models import HostInvitation, HostProfile, Venue, VenueRole
from matches.org.hosts import User, host_display_name_clean, is_host, public_host_name
from matches.org.roles import forget_roles, is_organiser, may_manage_venue, require_organiser
from matches.rules.limits import VENUE_NAME_MAX_LENGTH, VENUE_SLUG_MAX_LENGTH
from matches.rules.names import clean_typed_name, name_key

if TYPE_CHECKING:
    # settings.AUTH_USER_MODEL: Django's own.
    from django.contrib.auth.models import User as Account

NOT_ORGANISER = _("Only the league’s organiser may do this: nothing was changed.")
NOT_VENUE_MANAGER = _(
    "Only %(venue)s’s managers and the organiser may do this: nothing was changed."
)
VENUE_NAME_EMPTY = _("Type the venue’s name.")
# The form says it too, and a form's length error knows no %(name)s.
VENUE_NAME_TOO_LONG = _("Venue names are at most %(limit_value)s characters.")
VENUE_NAME_TAKEN = _("A venue named “%(name)s” already exists: choose another name.")
ORIGIN_INVALID = _(
    "“%(origin)s” is not a site’s address: write each as scheme://host or scheme://host:port, "
    "for example https://thecrown.example, one per line."
)
INVITATION_UNKNOWN = _(
    "This invitation link is not known: check that it was copied whole, or ask for a new one."
)
INVITATION_EXPIRED = _("This invitation expired on %(date)s: ask for a new one.")
INVITATION_USED = _("This invitation has already been used: ask for a new one.")
ALREADY_AT_VENUE = _("You already host at %(venue)s: the invitation is left for someone else.")
USERNAME_TAKEN = _("A user with that username already exists.")
NOT_AT_VENUE = _("%(name)s does not host at %(venue)s: nothing was changed.")
NOT_YOURSELF = _("You cannot remove yourself: another manager or the organiser can.")
MANAGER_BY_ORGANISER = _("Only the organiser may remove a manager: nothing was changed.")
ALREADY_MANAGER = _("%(name)s already manages %(venue)s.")
ALREADY_ORGANISER = _("%(name)s is already an organiser.")
NOT_ACTIVE = _("%(name)s’s account is no longer active: nothing was changed.")

# A site's origin as a browser sends it: http(s), a host name or address, an optional port.
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_ORIGIN = re.compile(
    rf"^https?://(?:\[[0-9a-f:.]+\]|{_LABEL}(?:\.{_LABEL})*)(?::(?P<port>[0-9]{{1,5}}))?$"
)


def _pk(user: User) -> int:
    return cast(int, user.pk)


def _refuse_unless_organiser(by: User) -> None:
    require_organiser(by, refusal=NOT_ORGANISER)


def _refuse_unless_manager(by: User, venue: Venue) -> None:
    if not may_manage_venue(by, venue.pk):
        raise RuleError(NOT_VENUE_MANAGER, code=Refusal.NOT_VENUE_MANAGER, venue=venue.name)


def _log(by: User, target: Any, flag: int, message: list[dict]) -> None:
    """One line in target's admin history, made by by (the admin's JSON message format, so
    the history reads in the viewer's language)."""
    LogEntry.objects.log_actions(
        user_id=_pk(by),
        queryset=[target],
        action_flag=flag,
        change_message=json.dumps(message),
        single_object=True,
    )


def _role_message(verb: str, role: VenueRole) -> list[dict]:
    return [{verb: {"name": "venue role", "object": str(role)}}]


# --- Venues ---


def venue_name_clean(name: str, *, venue_id: int | None = None) -> str:
    """A venue's name as stored, or a RuleError: the names' rules, and no other venue of
    the same name ignoring case and spacing."""
    try:
        name = clean_typed_name(
            name,
            max_length=VENUE_NAME_MAX_LENGTH,
            empty=VENUE_NAME_EMPTY,
            too_long=VENUE_NAME_TOO_LONG,
        )
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None
    others = Venue.objects.filter(key=name_key(name))
    if venue_id is not None:
        others = others.exclude(pk=venue_id)
    if others.exists():
        raise RuleError(VENUE_NAME_TAKEN, name=name)
    return name


def _free_slug(name: str) -> str:
    """The slug of name, with "-2", "-3"… when another venue has it."""
    base = slugify(name)[:VENUE_SLUG_MAX_LENGTH].strip("-") or "venue"
    taken = set(Venue.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    slug, n = base, 1
    while slug in taken:
        n += 1
        suffix = f"-{n}"
        slug = base[: VENUE_SLUG_MAX_LENGTH - len(suffix)].rstrip("-") + suffix
    return slug


@transaction.atomic
def venue_create(*, name: str, by: User) -> Venue:
    """Add a venue to the league (the organiser only); its slug, for its URLs, is made from
    the name and kept for good."""
    _refuse_unless_organiser(by)
    name = venue_name_clean(name)
    venue = Venue(name=name, slug=_free_slug(name))
    try:
        with transaction.atomic():
            venue.save()
    except IntegrityError:
        # Another request took the name (or its slug) between the checks and the insert.
        raise RuleError(VENUE_NAME_TAKEN, name=name) from None
    _log(by, venue, ADDITION, [{"added": {}}])
    return venue


@transaction.atomic
def venue_rename(*, venue_id: int, name: str, by: User) -> Venue:
    """Rename a venue (the organiser only). Its slug stays: its addresses (the TV's, the
    embedded standings') must not change under a pub's screens and website."""
    _refuse_unless_organiser(by)
    venue = Venue.objects.select_for_update().get(pk=venue_id)
    venue.name = venue_name_clean(name, venue_id=venue.pk)
    try:
        with transaction.atomic():
            venue.save(update_fields=["name", "key"])
    except IntegrityError:
        raise RuleError(VENUE_NAME_TAKEN, name=venue.name) from None
    _log(by, venue, CHANGE, [{"changed": {"fields": ["venue name"]}}])
    return venue


def frame_origins_clean(text: str) -> list[str]:
    """The origins typed one per line, lower-cased, without repeats; a RuleError names the
    first line that is not scheme://host[:port]."""
    origins: list[str] = []
    for line in text.splitlines():
        origin = line.strip().rstrip("/").lower()
        if not origin:
            continue
        matched = _ORIGIN.match(origin)
        if matched is None or int(matched["port"] or 0) > 65535:
            raise RuleError(ORIGIN_INVALID, origin=line.strip())
        if origin not in origins:
            origins.append(origin)
    return origins


def venue_frame_origins(venue: Venue) -> list[str]:
    """The sites allowed to frame the venue's standings, as stored (one per line)."""
    return [line for line in venue.frame_origins.splitlines() if line]


@transaction.atomic
def venue_frame_origins_set(*, venue_id: int, origins: str, by: User) -> Venue:
    """List the sites that may frame the venue's standings (the organiser only)."""
    _refuse_unless_organiser(by)
    venue = Venue.objects.select_for_update().get(pk=venue_id)
    venue.frame_origins = "\n".join(frame_origins_clean(origins))
    venue.save(update_fields=["frame_origins"])
    _log(by, venue, CHANGE, [{"changed": {"fields": ["sites that may embed the standings"]}}])
    return venue


# --- Hosts ---


@dataclass(frozen=True)
class VenueHost:
    """A host as the venue's page lists them for its managers."""

    user_id: int
    username: str
    display_name: str  # what the public sees ("host" when they chose none)
    kind: str
    role: str  # the kind as the reader's language says it
    is_organiser: bool


def venue_hosts(*, venue_id: int) -> list[VenueHost]:
    """The venue's hosts and managers, by username: one query."""
    roles = (
        VenueRole.objects.filter(venue_id=venue_id)
        .select_related("user__host_profile")
        .order_by("user__username")
    )
    return [
        VenueHost(
            user_id=role.user_id,
            username=role.user.get_username(),
            display_name=public_host_name(role.user),
            kind=role.kind,
            role=role.get_kind_display(),
            is_organiser=bool(role.user.is_superuser and role.user.is_active),
        )
        for role in roles
    ]


def _user_locked(user_id: int) -> "Account":
    return get_user_model().objects.select_for_update().get(pk=user_id)


@dataclass(frozen=True)
class Removal:
    """A host taken off a venue: who, and whether their account was closed (no role left)."""

    user: "Account"
    deactivated: bool


@transaction.atomic
def venue_role_remove(*, venue_id: int, user_id: int, by: User) -> Removal:
    """Take a host's role at a venue away (its managers remove hosts; the organiser anyone).
    Everything they recorded stays, under their display name; an account left with no role
    anywhere (and not an organiser's) is deactivated, so it can no longer log in."""
    venue = Venue.objects.get(pk=venue_id)
    _refuse_unless_manager(by, venue)
    # The user before the role, as a grant takes them: two changes to one person queue.
    user = _user_locked(user_id)
    role = VenueRole.objects.select_for_update().filter(venue=venue, user=user).first()
    if role is None:
        raise RuleError(NOT_AT_VENUE, name=user.get_username(), venue=venue.name)
    if user.pk == by.pk:
        raise RuleError(NOT_YOURSELF)
    if role.kind == VenueRole.Kind.MANAGER and not is_organiser(by):
        raise RuleError(MANAGER_BY_ORGANISER, code=Refusal.NOT_THE_ORGANISER)
    described = str(role)
    role.delete()
    message: list[dict] = [{"deleted": {"name": "venue role", "object": described}}]
    deactivated = False
    if (
        user.is_active
        and not user.is_superuser
        and not VenueRole.objects.filter(user_id=user.pk).exists()
    ):
        user.is_active = False
        user.save(update_fields=["is_active"])
        message.append({"changed": {"fields": ["Active"]}})
        deactivated = True
    _log(by, user, CHANGE, message)
    return Removal(user=user, deactivated=deactivated)


@transaction.atomic
def venue_manager_grant(*, venue_id: int, user_id: int, by: User) -> VenueRole:
    """Make a host of the venue one of its managers (the organiser only)."""
    _refuse_unless_organiser(by)
    venue = Venue.objects.get(pk=venue_id)
    user = _user_locked(user_id)
    role = VenueRole.objects.select_for_update().filter(venue=venue, user=user).first()
    if role is None:
        raise RuleError(NOT_AT_VENUE, name=user.get_username(), venue=venue.name)
    if role.kind == VenueRole.Kind.MANAGER:
        raise RuleError(ALREADY_MANAGER, name=user.get_username(), venue=venue.name)
    role.kind = VenueRole.Kind.MANAGER
    role.save(update_fields=["kind"])
    _log(
        by,
        user,
        CHANGE,
        [{"changed": {"name": "venue role", "object": str(role), "fields": ["role"]}}],
    )
    return role


@transaction.atomic
def organiser_grant(*, user_id: int, by: User) -> "Account":
    """Make an active account an organiser of the league (the organiser only): Django's
    superuser and staff flags, so the admin opens to them too."""
    _refuse_unless_organiser(by)
    user = _user_locked(user_id)
    if not user.is_active:
        raise RuleError(NOT_ACTIVE, name=user.get_username())
    if user.is_superuser:
        raise RuleError(ALREADY_ORGANISER, name=user.get_username())
    user.is_superuser = user.is_staff = True
    user.save(update_fields=["is_superuser", "is_staff"])
    _log(by, user, CHANGE, [{"changed": {"fields": ["Superuser status", "Staff status"]}}])
    return user


# --- Invitations ---


@dataclass(frozen=True)
class NewInvitation:
    """An invitation just made, with the one copy of its token there will ever be."""

    invitation: HostInvitation
    token: str


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def invitation_create(*, venue_id: int, by: User) -> NewInvitation:
    """A link that lets one person join the venue as a host, valid for
    settings.BRAG_INVITATION_DAYS days; only its hash is stored (the venue's managers and
    the organiser)."""
    venue = Venue.objects.get(pk=venue_id)
    _refuse_unless_manager(by, venue)
    token = secrets.token_urlsafe(32)
    invitation = HostInvitation.objects.create(
        venue=venue,
        kind=VenueRole.Kind.HOST,
        token_hash=_token_hash(token),
        created_by_id=_pk(by),
        expires_at=timezone.now() + datetime.timedelta(days=settings.BRAG_INVITATION_DAYS),
    )
    return NewInvitation(invitation=invitation, token=token)


def _usable(token: str, *, lock: bool) -> HostInvitation:
    invitations = HostInvitation.objects.select_related("venue")
    if lock:
        invitations = invitations.select_for_update()
    invitation = invitations.filter(token_hash=_token_hash(token)).first()
    if invitation is None:
        raise RuleError(INVITATION_UNKNOWN, code=Refusal.INVITATION_UNKNOWN)
    if invitation.used_at is not None:
        raise RuleError(INVITATION_USED, code=Refusal.INVITATION_SPENT)
    if invitation.expires_at <= timezone.now():
        expired = date_format(timezone.localtime(invitation.expires_at).date())
        raise RuleError(INVITATION_EXPIRED, code=Refusal.INVITATION_SPENT, date=expired)
    return invitation


def invitation_find(token: str) -> HostInvitation:
    """The invitation a link names, or a RuleError: unknown (INVITATION_UNKNOWN), expired or
    used (INVITATION_SPENT)."""
    return _usable(token, lock=False)


def _invitation_use(invitation: HostInvitation, user: "Account") -> VenueRole:
    role = VenueRole.objects.create(user=user, venue=invitation.venue, kind=invitation.kind)
    invitation.used_at = timezone.now()
    invitation.used_by = user
    invitation.save(update_fields=["used_at", "used_by"])
    # The grant is the inviter's: they chose to let this person in.
    inviter = get_user_model()(pk=invitation.created_by_id)
    _log(inviter, user, CHANGE, _role_message("added", role))
    return role


@transaction.atomic
def invitation_accept(*, token: str, by: User) -> VenueRole:
    """A logged-in host takes an invitation: a role at its venue. The invitation's row is
    locked, so of two uses at once only one succeeds."""
    if not is_host(by):
        raise RuleError(INVITATION_UNKNOWN, code=Refusal.INVITATION_UNKNOWN)
    invitation = _usable(token, lock=True)
    if VenueRole.objects.filter(user_id=_pk(by), venue_id=invitation.venue_id).exists():
        raise RuleError(ALREADY_AT_VENUE, venue=invitation.venue.name)
    role = _invitation_use(invitation, cast("Account", by))
    forget_roles(by)
    return role


@transaction.atomic
def invitation_join(*, token: str, user: "Account", display_name: str = "") -> "Account":
    """A newcomer takes an invitation: their account (user, not saved yet, its password
    set and checked by the form), its display name, and a role at the venue; nothing of it
    if the invitation is spent, however many use it at once."""
    invitation = _usable(token, lock=True)
    display_name = host_display_name_clean(display_name, usernames=[user.get_username()])
    user.is_staff = user.is_superuser = False
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise RuleError(USERNAME_TAKEN) from None
    if display_name:
        HostProfile.objects.create(user_id=user.pk, display_name=display_name)
    _invitation_use(invitation, user)
    return user


def venues_with_open_counts() -> list[Venue]:
    """Every venue by name, each with open_tables (its tables not closed): one query."""
    return list(
        Venue.objects.annotate(
            open_tables=Count("tables", filter=Q(tables__closed_at__isnull=True))
        ).order_by("key")
    )
