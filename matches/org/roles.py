"""Who may do what where. The organiser (an account with Django's superuser flag: the first
host, and whoever an organiser makes one) runs the league and may act at every venue. A venue
manager runs one or more venues: their hosts and their tables. A venue host launches and runs
tables at their venues only; everywhere else they read as a spectator does. Every write checks
these here, whatever page or program sent it."""

from typing import TYPE_CHECKING, cast

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from matches.core.errors import Refusal, RuleError
from matches.models import Table, Venue, VenueRole
from matches.org.hosts import User, is_host

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise

# What a venue's host or manager reads when they try the organiser's work: who may.
PLAYERS_ARE_THE_ORGANISERS = _(
    "Only the league’s organiser may rename, merge, name in public or erase players; "
    "nothing was changed."
)
SEASONS_ARE_THE_ORGANISERS = _(
    "Only the league’s organiser may add, change or delete seasons; nothing was changed."
)
BACKUPS_ARE_THE_ORGANISERS = _("Only the league’s organiser may see and download the backups.")

# A user's roles, read once per request and kept on the user object; and rights to single
# venues learnt on the way (a write's bump reads its own: core.stamp.table_bump_returning).
_ROLES_ATTRIBUTE = "_brag_venue_roles"
_RIGHTS_ATTRIBUTE = "_brag_venue_rights"


def is_organiser(user: User) -> bool:
    """The league's organiser: an active account with the superuser flag."""
    return bool(is_host(user) and getattr(user, "is_superuser", False))


def require_organiser(user: User, *, refusal: "str | StrPromise") -> None:
    """Refuse a write (RuleError with refusal, saying who may) unless the organiser makes it."""
    if not is_organiser(user):
        raise RuleError(refusal, code=Refusal.NOT_THE_ORGANISER)


def venue_roles(user: User) -> dict[int, str]:
    """The venues this user hosts or manages at, by id, with the role (VenueRole.Kind): one
    query per request, none for an anonymous visitor."""
    if not is_host(user):
        return {}
    roles = getattr(user, _ROLES_ATTRIBUTE, None)
    if roles is None:
        user_id = cast(int, user.pk)  # a host's account (is_host above)
        roles = dict(VenueRole.objects.filter(user_id=user_id).values_list("venue_id", "kind"))
        setattr(user, _ROLES_ATTRIBUTE, roles)
    return roles


def forget_roles(user: User) -> None:
    """Read the roles again (a role granted or taken back during this request)."""
    for attribute in (_ROLES_ATTRIBUTE, _RIGHTS_ATTRIBUTE):
        if hasattr(user, attribute):
            delattr(user, attribute)


def rights_asker(user: User) -> int | None:
    """The account whose role at a table's venue a write's bump should read along (None:
    nobody's need be: an organiser may change every table, an anonymous visitor none)."""
    if not is_host(user) or is_organiser(user) or hasattr(user, _ROLES_ATTRIBUTE):
        return None
    return user.pk


def remember_right(user: User, venue_id: int, hosted: bool | None) -> None:
    """Keep what a write's bump read of the user's role at a venue, for this request."""
    if hosted is not None:
        rights = getattr(user, _RIGHTS_ATTRIBUTE, None) or {}
        rights[venue_id] = hosted
        setattr(user, _RIGHTS_ATTRIBUTE, rights)


def may_host_at(user: User, venue_id: int) -> bool:
    """Whether the user may launch and run tables at this venue."""
    if is_organiser(user):
        return True
    known = getattr(user, _RIGHTS_ATTRIBUTE, None)
    if known is not None and venue_id in known and not hasattr(user, _ROLES_ATTRIBUTE):
        return known[venue_id]
    return venue_id in venue_roles(user)


def may_manage_venue(user: User, venue_id: int) -> bool:
    """Whether the user may invite and remove this venue's hosts."""
    return is_organiser(user) or venue_roles(user).get(venue_id) == VenueRole.Kind.MANAGER


def may_change_table(user: User, table: Table) -> bool:
    """Whether the user may tap, undo, seat, close, reopen and correct at this table: a host
    of its venue, its managers and the organiser."""
    return may_host_at(user, table.venue_id)


def hosted_venues(user: User) -> QuerySet[Venue]:
    """The venues this user may launch a table at, by name."""
    if is_organiser(user):
        return Venue.objects.all()
    return Venue.objects.filter(pk__in=list(venue_roles(user)))


def managed_venue_ids(user: User) -> set[int]:
    """The venues whose hosts this user runs (the organiser runs every venue's)."""
    if is_organiser(user):
        return set(Venue.objects.values_list("pk", flat=True))
    return {pk for pk, kind in venue_roles(user).items() if kind == VenueRole.Kind.MANAGER}
