"""How a typed name becomes a stored one: the same person whatever the case, width, accent
encoding or spacing, and never a name with invisible characters. Players', tables' and
seasons' names all follow these rules; only their limits and words differ."""

import unicodedata
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from matches.rules.limits import NAME_MAX_LENGTH

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise

PLAYER_NAME_EMPTY = _("A player name cannot be empty.")
PLAYER_NAME_TOO_LONG = _(
    "Player names are at most %(limit_value)s characters: “%(name)s” is too long."
)
PLAYER_NAME_INVISIBLE = _(
    "“%(name)s” contains an invisible or control character (such as a zero-width space or a "
    "direction mark); type the name again."
)
NAME_ONLY_INVISIBLE = _(
    "The name typed contains an invisible or control character (such as a zero-width space "
    "or a direction mark) and nothing else; type the name again."
)
# Control, format (zero-width, bidi overrides), private-use and surrogate code points, and
# the letters that render as blank space.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs"})
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def normalise_name(name: str) -> str:
    """A name as it is stored: NFKC (full-width "Ann" is "Ann", a decomposed "José" is the
    composed one) with every run of whitespace made one space and none at the ends."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def is_invisible(char: str) -> bool:
    return unicodedata.category(char) in INVISIBLE_CATEGORIES or char in BLANK_LETTERS


def clean_typed_name(
    name: str, *, max_length: int, empty: "str | StrPromise", too_long: "str | StrPromise"
) -> str:
    """Any typed name as stored, or a ValidationError saying what is wrong: invisible or
    control characters (two names must never read the same, and a name must never be an
    invisible link), empty, or longer than max_length (too_long may use %(limit_value)s and
    %(name)s)."""
    name = normalise_name(name)
    if any(is_invisible(char) for char in name):
        visible = normalise_name("".join(char for char in name if not is_invisible(char)))
        if not visible:
            raise ValidationError(NAME_ONLY_INVISIBLE, code="invisible")
        raise ValidationError(PLAYER_NAME_INVISIBLE, code="invisible", params={"name": visible})
    if not name:
        raise ValidationError(empty, code="empty")
    if len(name) > max_length:
        raise ValidationError(
            too_long, code="too_long", params={"name": name, "limit_value": max_length}
        )
    return name


def clean_name(name: str) -> str:
    """A player's name as stored, or a ValidationError saying what is wrong."""
    return clean_typed_name(
        name, max_length=NAME_MAX_LENGTH, empty=PLAYER_NAME_EMPTY, too_long=PLAYER_NAME_TOO_LONG
    )


def name_key(name: str) -> str:
    """How a name is matched: "alice", "Alice" and "ALICE" are one player, and so are "Åsa"
    and "åsa" (Unicode case folding, which SQLite's LOWER() does not do), "Ann  Lee" and
    "Ann Lee", and full-width "Ann" and "Ann" (NFKC, again after folding, as Unicode's
    NFKC_Casefold does)."""
    return unicodedata.normalize("NFKC", normalise_name(name).casefold())
