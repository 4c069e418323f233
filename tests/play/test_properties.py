"""Random sequences of launch, tap, undo, roster edit, close and correction on several tables
keep every rule, and places and points always equal what a simple reference model computes
(an undo after a correction takes back the player the correction put in the tap's place)."""

import uuid
from dataclasses import dataclass, field

import pytest
from django.db import transaction
from hypothesis import given, settings

from matches.core import errors
from matches.integrity import integrity_problems
from matches.models import Table
from matches.play import corrections
from matches.play.services.tables import match_set_roster, table_close, table_launch
from matches.play.services.tap import match_eliminate
from matches.play.services.undo import table_undo_last
from matches.rules.scoring import points_for
from tests.strategies import corrected_operations, table_operations

pytestmark = pytest.mark.django_db


@dataclass
class RefMatch:
    roster: list[str]
    out: list[str] = field(default_factory=list)
    winner: str | None = None

    def places(self) -> dict[str, int | None]:
        result = dict.fromkeys(self.roster)
        for index, name in enumerate(self.out):
            result[name] = len(self.roster) - index
        if self.winner:
            result[self.winner] = 1
        return result


@dataclass
class RefTable:
    mode: str
    matches: list[RefMatch]
    closed: bool = False
    taps: list[int] = field(default_factory=list)  # match index of each live tap, in order

    @property
    def current(self) -> RefMatch | None:
        if self.closed or self.matches[-1].winner:
            return None
        return self.matches[-1]

    def tap(self, name: str) -> bool:
        match = self.current
        seated = [n for n in match.roster if n.casefold() == name.casefold()] if match else []
        if not seated or seated[0] in match.out:
            return False
        name = seated[0]
        match.out.append(name)
        self.taps.append(len(self.matches) - 1)
        standing = [n for n in match.roster if n not in match.out]
        if len(standing) == 1:
            match.winner = standing[0]
            self.matches.append(RefMatch(roster=list(match.roster)))
        return True

    def undo(self) -> bool:
        if self.closed or not self.taps:
            return False
        index = self.taps.pop()
        if index != len(self.matches) - 1:  # the crowning: its next match goes
            self.matches.pop()
        match = self.matches[index]
        match.winner = None
        match.out.pop()
        return True

    def set_roster(self, names: list[str]) -> bool:
        match = self.current
        folded = [n.casefold() for n in names]
        if (
            match is None
            or match.out
            or len(set(folded)) != len(folded)
            or not 3 <= len(names) <= 10
        ):
            return False
        match.roster = list(names)
        return True

    def correct(self, shift: int) -> tuple[int, list[str], bool]:
        """The latest filed match's order turned round by shift: its index, the new order
        (first out first), and whether that changes it. (-1, [], False) when none is filed."""
        filed = [index for index, match in enumerate(self.matches) if match.winner]
        if not filed:
            return -1, [], False
        match = self.matches[filed[-1]]
        order = [*match.out, match.winner]
        turn = shift % len(order)
        new = order[turn:] + order[:turn]
        if new != order:
            match.out, match.winner = new[:-1], new[-1]
        return filed[-1], new, new != order

    def close(self) -> bool:
        if self.closed:
            return False
        if self.current is not None:
            self.matches.pop()
        self.closed = True
        return True


def fold(places: dict[str, int | None]) -> dict[str, int | None]:
    return {name.casefold(): place for name, place in places.items()}


def db_state(table: Table) -> list[dict[str, int | None]]:
    result = []
    for match in table.matches.live().order_by("number").prefetch_related("seats__player"):
        result.append(fold({s.player.name: s.place for s in match.seats.all()}))
    return result


@settings(max_examples=150)
@given(ops=table_operations)
def test_random_play_matches_the_reference_model(host, ops):
    with transaction.atomic():
        play(host, ops)
        transaction.set_rollback(True)


@settings(max_examples=100)
@given(ops=corrected_operations)
def test_random_play_with_corrections_matches_the_reference_model(host, ops):
    with transaction.atomic():
        play(host, ops)
        transaction.set_rollback(True)


def play(host, ops) -> None:
    tables: list[tuple[Table, RefTable]] = []
    for op in ops:
        if op[0] == "launch":
            table = table_launch(name="T", player_names=op[2], mode=op[1], by=host)
            tables.append((table, RefTable(mode=op[1], matches=[RefMatch(roster=list(op[2]))])))
            continue
        if not tables:
            continue
        table, ref = tables[op[1] % len(tables)]
        # The open match (after an undone crowning, the reopened one, not the newer match
        # that was discarded); at a closed table, its last match (the tap is refused anyway).
        match = table.matches.open().first() or table.matches.order_by("-id").first()
        try:
            if op[0] == "tap":
                expected = ref.tap(op[2])
                player = (
                    match.seats.filter(player__key=op[2].casefold())
                    .values_list("player_id", flat=True)
                    .first()
                )
                match_eliminate(
                    table_id=table.pk,
                    match_id=match.pk,
                    player_id=player or 0,
                    key=uuid.uuid4(),
                    by=host,
                )
            elif op[0] == "undo":
                expected = ref.undo()
                # The host confirms whatever the undo asks about (a roster change it drops).
                table_undo_last(table_id=table.pk, tap_id=None, by=host, drop_roster=True)
            elif op[0] == "correct":
                index, names, expected = ref.correct(op[2])
                # With nothing filed, match 1 is refused (in play, or discarded by a close).
                corrections.match_correct(
                    table_id=table.pk, number=index + 1 if names else 1, names=names, by=host
                )
            elif op[0] == "roster":
                expected = ref.set_roster(op[2])
                match_set_roster(table_id=table.pk, match_id=match.pk, player_names=op[2], by=host)
            else:
                expected = ref.close()
                table_close(
                    table_id=table.pk, by=host, discard_match_id=match.pk if match else None
                )
            applied = True
        except errors.RuleError:
            applied = False
        assert applied == expected, (op, ref)
        assert db_state(table) == [fold(m.places()) for m in ref.matches], (op, ref)

    for table, ref in tables:
        table.refresh_from_db()
        for number, (match, model) in enumerate(
            zip(table.matches.filed().order_by("number"), ref.matches, strict=False), 1
        ):
            assert match.number == number
            assert match.winner.name.casefold() == model.winner.casefold()
            points = {
                s.player.name.casefold(): points_for(table.mode, s.place)
                for s in match.seats.select_related("player")
            }
            expected = {n.casefold(): points_for(ref.mode, p) for n, p in model.places().items()}
            assert points == expected
    assert integrity_problems() == []


def test_a_worked_run_with_corrections_undos_and_a_close(host):
    """The reference model's path through corrections, as the random runs rarely file enough
    matches to take it often: correct, undo the crowning, tap again, correct back, close."""
    play(
        host,
        [
            ("launch", "ranked", ["Ann", "Bo", "Cy", "Di"]),
            ("tap", 0, "Bo"), ("tap", 0, "Cy"), ("tap", 0, "Di"),  # Ann wins match 1
            ("correct", 0, 1),  # Cy, Di, Ann out, Bo wins
            ("undo", 0),  # Ann (2nd in the corrected order) stands again with Bo
            ("tap", 0, "Bo"),  # Bo 2nd this time: Ann wins
            ("correct", 0, 2),
            ("tap", 0, "Ann"), ("undo", 0), ("undo", 0), ("undo", 0),
            ("correct", 0, 3),
            ("close", 0),
            ("correct", 0, 1),
        ],
    )  # fmt: skip
