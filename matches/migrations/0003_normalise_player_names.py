"""Existing players' names and keys normalised as new ones are (NFKC, whitespace collapsed,
invisible characters dropped). Players whose names collapse to one key are all kept: the
earliest keeps the key, each later one gets its key suffixed with its id, and
check_integrity reports them until an admin renames or merges them. A name that would be
empty or too long is left as it was (check_integrity reports it too)."""

import unicodedata

from django.db import migrations

# A frozen copy of the rules in matches.models, as they were when this migration was written.
NAME_MAX_LENGTH = 40
KEY_MAX_LENGTH = 120
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Co", "Cs"}
BLANK_LETTERS = set("\u115f\u1160\u3164\uffa0\u2800")
# Invisible, so no clean name's key can ever end in it.
COLLISION_MARK = "\u2063"


def normalise(name: str) -> str:
    visible = "".join(
        c for c in name if unicodedata.category(c) not in INVISIBLE_CATEGORIES
        and c not in BLANK_LETTERS
    )  # fmt: skip
    return " ".join(unicodedata.normalize("NFKC", visible).split())


def key_of(name: str) -> str:
    return unicodedata.normalize("NFKC", " ".join(unicodedata.normalize("NFKC", name).split()).casefold())


def normalise_player_names(apps, schema_editor) -> None:
    Player = apps.get_model("matches", "Player")
    players = list(Player.objects.order_by("id"))
    # Cleared first so the unique index never sees two rows mid-way.
    for player in players:
        player.key = f"{COLLISION_MARK}{player.pk}"
    Player.objects.bulk_update(players, ["key"], batch_size=500)
    taken: set[str] = set()
    collapsed = 0
    for player in players:
        name = normalise(player.name)
        if name and len(name) <= NAME_MAX_LENGTH:
            player.name = name
        key = key_of(player.name)
        if key in taken:
            suffix = f"{COLLISION_MARK}{player.pk}"
            key = key[: KEY_MAX_LENGTH - len(suffix)] + suffix
            collapsed += 1
        taken.add(key)
        player.key = key
    Player.objects.bulk_update(players, ["name", "key"], batch_size=500)
    if collapsed:
        print(
            f"\n  {collapsed} player(s) now read the same as an earlier one; all are kept. "
            "Run `manage.py check_integrity` to list them, then rename or merge them."
        )


class Migration(migrations.Migration):
    dependencies = [("matches", "0002_rename_standings_models")]

    operations = [migrations.RunPython(normalise_player_names, migrations.RunPython.noop)]
