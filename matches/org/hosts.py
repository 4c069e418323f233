"""Who may do what: the first host account, who may change a table, and the one check that
a write is made by a host."""

from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AbstractUser, AnonymousUser
from django.db import transaction
from django.db.models.signals import post_delete, post_migrate
from django.utils.translation import gettext_lazy as _

from matches.core import kept
from matches.core.errors import RuleError
from matches.models import Table

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise

FIRST_HOST_EXISTS = _("A host account already exists: log in with it.")

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


def may_change_table(user: User, table: Table) -> bool:
    """The host who launched a table acts on it, and so do admins and hosts given the
    "change table" permission (for a second host sharing the table)."""
    return bool(
        user.is_authenticated
        and (
            user.pk == table.created_by_id
            or getattr(user, "is_superuser", False)
            or user.has_perm("matches.change_table")
        )
    )


@transaction.atomic
def first_host_create(*, user: AbstractBaseUser) -> AbstractBaseUser:
    """Save the first host account, an admin; refused once any account exists, however many
    setup requests arrive at once."""
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
