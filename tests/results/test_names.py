"""Names that read the same are one player; invisible characters are refused."""

import importlib
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import translation

from matches.core import errors
from matches.models import Match, Player, Table
from matches.results.players import services as player_records
from matches.rules.names import name_key
from tests.factories import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    # Messages are asserted in English, whatever language an earlier request left active.
    with translation.override("en"):
        yield


NFC_JOSE = "Jos\u00e9"
NFD_JOSE = "Jose\u0301"
INVISIBLE = "contains an invisible or control character"


def counts():
    return Table.objects.count(), Match.objects.count(), Player.objects.count()


@pytest.mark.parametrize(
    "first, second",
    [
        (NFC_JOSE, NFD_JOSE),
        ("Ann Lee", "Ann  Lee"),
        ("Ann Lee", "Ann\u00a0Lee"),
        ("Ann", "\uff21\uff4e\uff4e"),  # full-width
    ],
)
def test_look_alikes_are_one_name(host, first, second):
    assert name_key(first) == name_key(second)
    with pytest.raises(errors.RuleError) as error:
        make_table(players=[first, second, "Bob"])
    assert "is listed twice" in error.value.message


@pytest.mark.parametrize(
    "name",
    ["\u200b", "Ann\u200b", "A\x01nn", "\u202eAnn", "Ann\u2066", "\u3164", "Ann\ufeff"],
)
def test_invisible_and_control_characters_are_refused_and_nothing_is_written(host, name):
    before = counts()
    with pytest.raises(errors.RuleError) as error:
        make_table(host=host, players=[name, "Bob", "Cy"])
    assert INVISIBLE in error.value.message
    assert counts() == before


def test_the_message_shows_the_name_without_its_invisible_characters(host):
    with pytest.raises(errors.RuleError) as error:
        make_table(host=host, players=["An\u200bn", "Bob", "Cy"])
    assert error.value.message == (
        "“Ann” contains an invisible or control character (such as a zero-width space or a "
        "direction mark); type the name again."
    )


def test_names_are_stored_normalised_and_found_again_in_any_spelling(host):
    make_table(host=host, players=["  Ann   Lee ", NFD_JOSE, "\uff22\uff4f\uff42"])
    assert sorted(Player.objects.values_list("name", flat=True)) == ["Ann Lee", "Bob", NFC_JOSE]
    make_table(host=host, players=["ANN LEE", NFC_JOSE.upper(), "bob"])
    assert Player.objects.count() == 3


def test_the_launch_form_shows_the_message_and_saves_nothing(host_client):
    before = counts()
    response = host_client.post(
        reverse("matches:table_new"),
        {"name": "Front", "mode": "ranked", "players": "Ann\nAnn\u200b\nBob"},
    )
    assert response.status_code == 200
    assert INVISIBLE in response.content.decode()
    assert counts() == before


class TestDataMigration:
    """Existing players get normalised names and keys; look-alikes that collapse are kept,
    the later one's key suffixed, and check_integrity names them."""

    def migrate(self):
        module = importlib.import_module("matches.migrations.0003_normalise_player_names")
        module.normalise_player_names(apps, None)

    def old_player(self, name):
        # As the old code stored them: the key only trimmed and case-folded.
        return Player.objects.bulk_create([Player(name=name, key=name.strip().casefold())])[0]

    def test_keys_and_names_are_normalised(self):
        lee = self.old_player("Ann  Lee")
        jose = self.old_player(NFD_JOSE)
        wide = self.old_player("\uff22\uff4f\uff42")
        self.migrate()
        for player, name in ((lee, "Ann Lee"), (jose, NFC_JOSE), (wide, "Bob")):
            player.refresh_from_db()
            assert (player.name, player.key) == (name, name_key(name))

    def test_players_that_collapse_are_kept_and_reported(self):
        ann = self.old_player("Ann")
        ghost = self.old_player("Ann\u200b")
        wide = self.old_player("\uff21\uff4e\uff4e")
        self.migrate()
        for player in (ann, ghost, wide):
            player.refresh_from_db()
        assert [p.name for p in (ann, ghost, wide)] == ["Ann", "Ann", "Ann"]
        assert ann.key == "ann"
        assert len({ann.key, ghost.key, wide.key}) == 3
        err = StringIO()
        with pytest.raises(CommandError):
            call_command("check_integrity", stderr=err, stdout=StringIO())
        report = err.getvalue()
        assert f"Players #{ghost.pk} and #{ann.pk} are both called “Ann”" in report
        assert f"Players #{wide.pk} and #{ann.pk} are both called “Ann”" in report
        # A host typing "Ann" gets the player who kept the key.
        assert player_records.players_resolve(names=["Ann"]) == [ann]

    def test_a_name_of_only_invisible_characters_is_kept_and_reported(self):
        blank = self.old_player("\u200b")
        self.migrate()
        blank.refresh_from_db()
        assert blank.name == "\u200b"
        err = StringIO()
        with pytest.raises(CommandError):
            call_command("check_integrity", stderr=err, stdout=StringIO())
        assert f"Player #{blank.pk}'s name is not a clean name" in err.getvalue()
