"""How a typed name becomes a stored one: the same person whatever the case, width, accent
encoding or spacing, and never a name with invisible characters. Players', tables' and
seasons' names all follow these rules; only their limits and words differ."""

import re
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import translation
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


# --- Near names: a typed name that may be meant as a known player's ---

# One letter apart is asked about only between names at least this long: "Ann" and "Ian"
# are two people far more often than a typo.
NEAR_MIN_LETTERS = 5


def fold_key(name: str) -> str:
    """name_key without accents: "Zoë", "ZOE" and full-width "Zoe" all fold to "zoe"."""
    decomposed = unicodedata.normalize("NFKD", name_key(name))
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return unicodedata.normalize("NFC", bare)


def _letters(folded: str) -> int:
    return sum(1 for char in folded if not char.isspace())


def one_edit_apart(first: str, second: str) -> bool:
    """True when one letter changed, added or taken away turns one string into the other."""
    if first == second or abs(len(first) - len(second)) > 1:
        return False
    if len(first) > len(second):
        first, second = second, first
    # first is the shorter (or as long): skip the common prefix, then the rest must agree
    # after one substitution (same length) or one insertion into first.
    i = 0
    while i < len(first) and first[i] == second[i]:
        i += 1
    if len(first) == len(second):
        return first[i + 1 :] == second[i + 1 :]
    return first[i:] == second[i + 1 :]


def _only_numbers_differ(first: str, second: str) -> bool:
    """'Player 3' and 'Player 2', 'Table 12' and 'Table 1': numbered names are told apart
    by their number, never a typo of each other."""
    digits = str.maketrans("", "", "0123456789")
    return first.translate(digits) == second.translate(digits)


def _first_name(folded: str) -> str | None:
    words = folded.split(" ")
    return words[0] if len(words) > 1 else None


def near_names(typed: str, known: Iterable[str]) -> list[str]:
    """The known names a typed name may be meant as, most likely first, or none when the
    typed name is a known one (name_key: same case, width, spacing). Close is: the same once
    accents are dropped too ("Zoe" for "Zoë"); one letter apart, both names at least
    NEAR_MIN_LETTERS long ("Margret" for "Margaret"), unless only a number tells them apart
    ("Player 3", "Player 2"); or a one-word name that is the first name of exactly one
    known player ("Zoë" for "Zoë Martins")."""
    key, folded = name_key(typed), fold_key(typed)
    names = list(dict.fromkeys(known))
    if any(name_key(name) == key for name in names):
        return []
    same, typo, first = [], [], []
    first_names: dict[str, list[str]] = {}
    for name in names:
        other = fold_key(name)
        if other == folded:
            same.append(name)
        elif (
            min(_letters(folded), _letters(other)) >= NEAR_MIN_LETTERS
            and one_edit_apart(folded, other)
            and not _only_numbers_differ(folded, other)
        ):
            typo.append(name)
        first_name = _first_name(other)
        if first_name is not None:
            first_names.setdefault(first_name, []).append(name)
    if " " not in folded and len(first_names.get(folded, [])) == 1:
        first = first_names[folded]
    ordered = sorted(same, key=fold_key) + sorted(typo, key=fold_key) + first
    return list(dict.fromkeys(ordered))


# What the public is shown instead of a hidden player's name, and what everyone is shown of
# an erased player: the id names the record, never the person.
PLAYER_HIDDEN = _("Player %(id)s")
PLAYER_ERASED = _("Former player %(id)s")


def shown_player_name(
    *, player_id: int, name: str, public_name: str, hidden: bool, erased: bool, real: bool
) -> str:
    """The one rule for which name of a player a viewer reads: an erased player is "Former
    player N" to everyone; a host (real) reads the name as entered; the public reads
    "Player N" for a hidden player, else the public name, else the name as entered."""
    if erased:
        return str(PLAYER_ERASED) % {"id": player_id}
    if real:
        return name
    if hidden:
        return str(PLAYER_HIDDEN) % {"id": player_id}
    return public_name or name


NAME_POSES_AS_A_RECORD = _(
    "“%(name)s” reads as an erased player’s record: everyone would take one for the other. "
    "Choose a different name."
)


def reads_as_a_record(name: str, *, hidden: bool = True) -> bool:
    """Whether a name reads as what everyone reads of an erased player ("Former player 17",
    "Antigo participante 17") or, hidden, as what the public reads of a hidden one ("Player
    17"), in any of the site's languages, case or accents: one person would be taken for
    another. (A name as entered may be "Player 3": hosts type it for a stranger.)"""
    key = fold_key(name)
    for code, _language in settings.LANGUAGES:
        with translation.override(code):
            for shown in (PLAYER_HIDDEN, PLAYER_ERASED) if hidden else (PLAYER_ERASED,):
                prefix, _id, suffix = str(shown).partition("%(id)s")
                pattern = (
                    re.escape(fold_key(prefix)) + r"\s*[0-9]+\s*" + re.escape(fold_key(suffix))
                )
                if re.fullmatch(pattern, key):
                    return True
    return False


def erased_player_name(player_id: int) -> str:
    """What an erased player's record stores instead of the name: never shown as it is (it
    reads "Former player N" in the viewer's language), and no person's name."""
    return f"Former player {player_id}"


def erased_player_key(player_id: int) -> str:
    """An erased player's matching key: it starts with a zero-width space, which no clean
    name holds, so no name typed later is ever matched to the erased record."""
    return f"\u200berased {player_id}"


def _fold(char: str) -> str:
    """A character as names are compared when they are erased: case, width and accents
    set aside ("Zoë", "ZOE" and full-width "Zoe" read the same)."""
    decomposed = unicodedata.normalize("NFKD", char.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def redact(text: str, names: list[str], replacement: str) -> str:
    """text with every whole-word occurrence of any of names, in any case, width or accents,
    replaced (an erasure: "zoe marques" goes with "Zoë Marques", "Zoëlla" stays)."""
    wanted = [folded for folded in ("".join(_fold(c) for c in name) for name in names) if folded]
    if not text or not wanted:
        return text
    # The folded text, with where each folded character came from in text.
    folded_chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for piece in _fold(char):
            folded_chars.append(piece)
            origin.append(index)
    folded = "".join(folded_chars)
    spans: list[tuple[int, int]] = []
    for name in sorted(set(wanted), key=len, reverse=True):
        start = folded.find(name)
        while start != -1:
            end = start + len(name)
            before = folded[start - 1] if start else " "
            after = folded[end] if end < len(folded) else " "
            if not before.isalnum() and not after.isalnum():
                first, last = origin[start], origin[end - 1] + 1
                if not any(first < b and a < last for a, b in spans):
                    spans.append((first, last))
            start = folded.find(name, start + 1)
    for first, last in sorted(spans, reverse=True):
        text = text[:first] + replacement + text[last:]
    return text
