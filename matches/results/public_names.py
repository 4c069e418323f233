"""Players' names in public: a host sets the name the public reads ("Zoë M.") or hides a
player ("Player 17"); an admin erases a player, whose name then goes from every page, file
and record the app keeps ("Former player 17"), while every result stays as it was. Who reads
which name is rules.names.shown_player_name; every page showing it is refreshed at once."""

import json
from collections.abc import Iterable
from importlib import import_module
from typing import cast

from django.apps import apps
from django.conf import settings
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.contrib.messages.storage.cookie import MessageDecoder, MessageEncoder
from django.contrib.messages.storage.session import SessionStorage
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import gettext_lazy as _

from matches.core import kept
from matches.core.errors import RuleError
from matches.core.stamp import tables_bump
from matches.models import HostProfile, Player, PlayerMerge, Table
from matches.org.hosts import User
from matches.org.roles import PLAYERS_ARE_THE_ORGANISERS, require_organiser
from matches.results.players.services import names_logged, player_lock, player_pages_refresh
from matches.rules.limits import NAME_MAX_LENGTH
from matches.rules.names import (
    PLAYER_NAME_TOO_LONG,
    clean_typed_name,
    erased_player_key,
    erased_player_name,
    name_key,
    normalise_name,
    reads_as_a_record,
    redact,
)

ALREADY_ERASED = _("This player was erased: there is no name left to show or hide.")
PUBLIC_NAME_TAKEN = _(
    "“%(name)s” is another player’s name: the public would take one for the other. "
    "Choose a different public name."
)
PUBLIC_NAME_POSES = _(
    "“%(name)s” reads as the public reads a hidden or erased player: the public would take "
    "one for the other. Choose a different public name."
)
# What the admin's history says of the changes made here (its own words, not a person's).
LOGGED_PUBLIC_NAME = "Changed how the player is shown in public."
LOGGED_ERASURE = "Erased the player's name (results kept)."
# Where django.contrib.messages keeps a session's waiting messages.
MESSAGES_KEY = SessionStorage.session_key


def _log(player: Player, by: User, message: str) -> None:
    LogEntry.objects.create(
        user_id=cast("int", by.pk),
        content_type=ContentType.objects.get_for_model(Player),
        object_id=str(player.pk),
        object_repr=str(player)[:200],
        action_flag=CHANGE,
        change_message=message,
    )


def player_public_name_clean(*, name: str, player_id: int) -> str:
    """A public name as stored ("" for none: the name as entered), or a RuleError: the
    player names' rules (rules.names), never another player's name, and never what the
    public reads of a hidden or erased player."""
    if not normalise_name(name):
        return ""
    try:
        name = clean_typed_name(
            name, max_length=NAME_MAX_LENGTH, empty="", too_long=PLAYER_NAME_TOO_LONG
        )
    except ValidationError as error:
        raise RuleError(error.messages[0]) from None
    if reads_as_a_record(name):
        raise RuleError(PUBLIC_NAME_POSES, name=name)
    key = name_key(name)
    if Player.objects.filter(key=key).exclude(pk=player_id).exists():
        raise RuleError(PUBLIC_NAME_TAKEN, name=name)
    # Nor another player's public name: public names have no key column, and the few set
    # are compared as names are (case, width and spacing ignored).
    others = Player.objects.exclude(pk=player_id).exclude(public_name="")
    if any(name_key(other) == key for other in others.values_list("public_name", flat=True)):
        raise RuleError(PUBLIC_NAME_TAKEN, name=name)
    return name


@transaction.atomic
def player_set_public_name(*, player_id: int, public_name: str, hidden: bool, by: User) -> Player:
    """Set the name the public reads of a player (empty: the name as entered) and whether
    they are hidden from the public ("Player N"); hosts keep reading the name as entered."""
    require_organiser(by, refusal=PLAYERS_ARE_THE_ORGANISERS)
    player = player_lock(player_id)
    if player.erased_at is not None:
        raise RuleError(ALREADY_ERASED)
    player.public_name = player_public_name_clean(name=public_name, player_id=player.pk)
    player.hidden = hidden
    player.save(update_fields=["public_name", "hidden"])
    player_pages_refresh([player.pk])
    _log(player, by, LOGGED_PUBLIC_NAME)
    return player


def _redact_everywhere(names: list[str], replacement: str, *, tables: bool) -> None:
    """Every name string the app keeps beyond the player's own row, with names in it (any
    case, width or accents, as whole words) replaced: the admin's history, tables' and
    seasons' names, a correction's orders (JSON), and any text or JSON field a model adds
    later. A host's display name is the host's own and stays. tables: the tables' names
    only (locked before the stamp); else everything else (after it, as a season's save
    takes its row)."""
    if tables:
        _redact_models([Table], names, replacement)
        return
    for entry in LogEntry.objects.only("object_repr", "change_message").iterator():
        repr_, message = (
            redact(entry.object_repr, names, replacement),
            redact(entry.change_message, names, replacement),
        )
        if (repr_, message) != (entry.object_repr, entry.change_message):
            LogEntry.objects.filter(pk=entry.pk).update(object_repr=repr_, change_message=message)
    others = [
        model
        for model in apps.get_app_config("matches").get_models()
        if model not in (Player, HostProfile, Table)
    ]
    _redact_models(others, names, replacement)


def _redact_models(
    models_: Iterable[type[models.Model]], names: list[str], replacement: str
) -> None:
    """The text and JSON fields of these models, with names in them replaced."""
    for model in models_:
        fields = [
            field.name
            for field in model._meta.get_fields()
            if isinstance(field, models.CharField | models.TextField | models.JSONField)
            and not getattr(field, "choices", None)
        ]
        for field in fields:
            changed = []
            rows = model._default_manager.values_list("pk", field)
            for pk, value in rows.iterator():
                cleaned = _redact_value(value, names, replacement)
                if cleaned != value:
                    if isinstance(cleaned, str):
                        cleaned = cleaned[: _limit(model, field)]
                    model._default_manager.filter(pk=pk).update(**{field: cleaned})
                    changed.append(pk)
            if model is Table and changed:
                tables_bump(table_ids=changed)


def _redact_value(value: object, names: list[str], replacement: str) -> object:
    """A text field's value, or every string inside a JSON one, redacted."""
    if isinstance(value, str):
        return redact(value, names, replacement)
    if isinstance(value, list):
        return [_redact_value(item, names, replacement) for item in value]
    if isinstance(value, dict):
        return {key: _redact_value(item, names, replacement) for key, item in value.items()}
    return value


def _limit(model: type[models.Model], field: str) -> int | None:
    return getattr(model._meta.get_field(field), "max_length", None)


def _merged_into(player_id: int) -> list[PlayerMerge]:
    """The standing merges into player, and into the records merged into it, and so on: a
    record merged into one merged since is the same person too, and undoing both merges in
    turn brings it back. An undone merge's record is another person's (not followed)."""
    found: list[PlayerMerge] = []
    kept_ids, seen = {player_id}, {player_id}
    while kept_ids:
        records = list(
            PlayerMerge.objects.select_for_update()
            .filter(kept_id__in=kept_ids, undone_at__isnull=True)
            .order_by("pk")
        )
        found += records
        kept_ids = {record.absorbed_id for record in records} - seen
        seen |= kept_ids
    return found


def _erase_absorbed(records: list[PlayerMerge]) -> list[str]:
    """Every record merged into the player (records, locked: _merged_into), as kept to undo
    the merge, made an erased record ("Former player N", its own id); the names they had."""
    names: list[str] = []
    now = timezone.now()
    for record in records:
        absorbed = dict(record.absorbed)
        names += [
            name
            for name in (record.absorbed_name, absorbed.get("name"), absorbed.get("public_name"))
            if isinstance(name, str) and name
        ]
        absorbed.update(
            name=erased_player_name(record.absorbed_id),
            key=erased_player_key(record.absorbed_id),
            public_name="",
            hidden=False,
            erased_at=now.isoformat(),
        )
        record.absorbed = absorbed
        record.absorbed_name = erased_player_name(record.absorbed_id)
        record.save(update_fields=["absorbed", "absorbed_name"])
    return names


def _history_of(records: set[int]):
    return LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Player),
        object_id__in=[str(pk) for pk in records],
    )


def _names_in_history(records: set[int]) -> list[str]:
    """Every name the admin's history gave these records: each line about one of them was
    titled with its name at the time, and a line written here names a record with its id
    (a rename, a merge and its undo: players.services.names_logged)."""
    names = list(_history_of(records).values_list("object_repr", flat=True))
    for message in LogEntry.objects.filter(change_message__contains="(#").values_list(
        "change_message", flat=True
    ):
        names += names_logged(message, records)
    return names


def _history_renamed(records: set[int]) -> None:
    """The admin's history of each record is titled with what it reads as now."""
    for pk in records:
        _history_of({pk}).update(object_repr=erased_player_name(pk))


def _redact_pending_messages(names: list[str], replacement: str) -> None:
    """The flash messages waiting in hosts' sessions (django.contrib.messages keeps them
    in the session until a page shows them), with names in them replaced. The app's own
    messages name players by reference and read the name when shown (web.feedback); this
    catches any message that wrote a name out."""
    sessions = Session.objects.filter(expire_date__gt=timezone.now())
    for session in sessions.iterator():
        waiting = session.get_decoded().get(MESSAGES_KEY)
        if not waiting:
            continue
        kept = json.loads(waiting, cls=MessageDecoder) if isinstance(waiting, str) else waiting
        changed = False
        for message in kept:
            text = redact(str(message.message), names, replacement)
            if text != str(message.message):
                safe = isinstance(message.message, SafeData)
                message.message = mark_safe(text) if safe else text  # noqa: S308
                changed = True
        if changed:
            # Saved through the configured engine, so a cached copy follows.
            store = import_module(settings.SESSION_ENGINE).SessionStore(session.session_key)
            store[MESSAGES_KEY] = json.dumps(kept, cls=MessageEncoder)
            store.set_expiry(session.expire_date)  # no longer than it had
            store.save()


def _forget_renderings() -> None:
    """What this process keeps in memory (renderings, reads, rows) may hold the name: gone.
    Other processes never serve theirs again (every key named the state before) and drop
    them as they fill up, or at their next restart."""
    kept.forget_all()
    cache.clear()


@transaction.atomic
def player_erase(*, player_id: int, by: User) -> Player:
    """Erase a player's name for good: the record stays with every seat, result, rating and
    head-to-head count (so nobody else's standings move), but reads "Former player N" on
    every page, file and record; the admin's history keeps that it was done, and by whom.
    Backups taken before are not rewritten."""
    require_organiser(by, refusal=PLAYERS_ARE_THE_ORGANISERS)
    # The merges into the player before the player, as player_merge_undo locks them
    # (docs/architecture.md): taken the other way round, an erasure and an undo of a merge
    # into that player would wait on each other in a circle on PostgreSQL.
    merges = _merged_into(player_id)
    records = {player_id, *(merge.absorbed_id for merge in merges)}
    # A merge of one of these records undone since keeps the record as it was then (its
    # name then, perhaps an earlier one): locked with the others, before the player.
    given_back = list(
        PlayerMerge.objects.select_for_update()
        .filter(absorbed_id__in=records, undone_at__isnull=False)
        .order_by("pk")
    )
    player = player_lock(player_id)
    if player.erased_at is not None:
        return player
    names = [name for name in (player.name, player.public_name) if name]
    # Records merged into this one are the same person: their names go too, and a merge
    # undone later brings such a record back erased.
    names += _erase_absorbed(merges) + _erase_absorbed(given_back)
    # Every name the records had before (a rename, a merge), as the admin's history kept it.
    names += _names_in_history(records)
    # An erased record's placeholder is no name to take out of the text.
    names = [name for name in dict.fromkeys(names) if not reads_as_a_record(name, hidden=False)]
    replacement = erased_player_name(player.pk)
    # One lock order (docs/architecture.md): the player (claimed), tables, the stamp; then
    # the seasons and the player's new key (the row's strongest lock, see player_lock).
    _redact_everywhere(names, replacement, tables=True)
    player_pages_refresh([player.pk])
    _redact_everywhere(names, replacement, tables=False)
    player.name = replacement
    player.public_name = ""
    player.hidden = False
    player.erased_at = timezone.now()
    player.key = erased_player_key(player.pk)
    player.save(update_fields=["name", "key", "public_name", "hidden", "erased_at"])
    _history_renamed(records)
    _redact_pending_messages(names, replacement)
    _log(player, by, LOGGED_ERASURE)
    transaction.on_commit(_forget_renderings)
    return player
