"""Who may do what: the first host account, who may change a table, and the one check that
a write is made by a host; and what the public is shown of a host."""

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AbstractUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.signals import post_delete, post_migrate
from django.utils.translation import gettext_lazy as _

from matches.core import kept, warm
from matches.core.errors import RuleError
from matches.models import HostProfile
from matches.rules.limits import HOST_NAME_MAX_LENGTH
from matches.rules.names import clean_typed_name, normalise_name

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise

FIRST_HOST_EXISTS = _("A host account already exists: log in with it.")
# What the public is shown of a host who chose no display name.
HOST_WORD = _("host")
HOST_NAME_TOO_LONG = _(
    "Display names are at most %(limit_value)s characters: “%(name)s” is too long."
)
HOST_NAME_IS_A_USERNAME = _(
    "Everyone sees the display name, so it cannot be a host’s username: choose another."
)

# Whoever makes a request: a host's account (settings.AUTH_USER_MODEL is Django's own User,
# with its permissions) or an anonymous visitor.
User = AbstractUser | AnonymousUser


def is_host(user: User) -> bool:
    """A logged-in, active account: every account is a host's."""
    return bool(user.is_authenticated and user.is_active)


def require_host(user: User, *, refusal: "str | StrPromise") -> None:
    """Refuse a write (RuleError with refusal, the write's own words) unless a host makes it."""
    if not is_host(user):
        raise RuleError(refusal)


def host_display_name_clean(name: str, *, usernames: Iterable[str] = ()) -> str:
    """A display name as stored ("" for none), or a RuleError: the names' rules (rules.names),
    and never an account's username (nor one of usernames, an account not saved yet), which
    it exists to keep from the public."""
    if not normalise_name(name):
        return ""
    try:
        name = clean_typed_name(
            name, max_length=HOST_NAME_MAX_LENGTH, empty=HOST_WORD, too_long=HOST_NAME_TOO_LONG
        )
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None
    users = get_user_model()
    taken = {username.casefold() for username in usernames if username}
    if (
        name.casefold() in taken
        or users.objects.filter(**{f"{users.USERNAME_FIELD}__iexact": name}).exists()
    ):
        raise RuleError(HOST_NAME_IS_A_USERNAME)
    return name


def public_host_name(user: AbstractBaseUser | None) -> str:
    """What the public is shown of a host: the display name they chose, else "host". Reads
    nothing when the profile came with the user (select_related("…__host_profile"))."""
    # A missing profile raises RelatedObjectDoesNotExist, an AttributeError.
    profile = getattr(user, "host_profile", None)
    return (profile.display_name if profile is not None else "") or str(HOST_WORD)


def host_name_for(user: AbstractBaseUser | None, *, viewer: User) -> str:
    """A host as viewer may see them: logged-in hosts see who (the username), everyone else
    the public name (a username is half of a credential)."""
    if user is None:
        return ""
    return user.get_username() if is_host(viewer) else public_host_name(user)


@transaction.atomic
def first_host_create(*, user: AbstractBaseUser, display_name: str = "") -> AbstractBaseUser:
    """Save the first host account, an admin, with its display name; refused once any
    account exists, however many setup requests arrive at once."""
    users = get_user_model()
    connection = transaction.get_connection()
    if connection.vendor == "postgresql":
        # Serialises the check and the insert below; the lock conflicts with itself only.
        with connection.cursor() as cursor:
            table = connection.ops.quote_name(users._meta.db_table)
            cursor.execute(f"LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE")
    # On SQLite the IMMEDIATE transaction already holds the database's one write lock.
    if users.objects.exists():
        raise RuleError(FIRST_HOST_EXISTS)
    user.is_staff = user.is_superuser = True  # type: ignore[attr-defined]
    user.save()
    display_name = host_display_name_clean(display_name, usernames=[user.get_username()])
    if display_name:
        HostProfile.objects.create(user_id=user.pk, display_name=display_name)
    return user


# Whether a host account exists, remembered per process once it does: the app never deletes
# the last account (so true stays true), and each process learns it with one query. A
# deleted user, or a flushed database (post_migrate), makes it ask again.
_host_exists = False


def host_known() -> bool:
    """Whether this process already knows a host exists (no query)."""
    return _host_exists


def host_exists() -> bool:
    """Whether any account exists: one query until it does, none after."""
    global _host_exists
    if not _host_exists:
        _host_exists = get_user_model().objects.exists()
    return _host_exists


def forget_host(**kwargs: object) -> None:
    """Ask the database again on the next request (a user deleted, a database flushed)."""
    global _host_exists
    _host_exists = False


post_delete.connect(forget_host, sender=settings.AUTH_USER_MODEL, weak=False)
post_migrate.connect(forget_host, weak=False, dispatch_uid="matches.forget_host")
kept.register(forget_host)
warm.register(host_exists)  # learnt before the first request, not by it
