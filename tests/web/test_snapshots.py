"""One snapshot per read: the board, the TV and the JSON each come from one state of the
table, and the ETag sent with them names that state's version."""

import random
import re
import threading
import time
import uuid

import pytest
from django.db import connection
from django.urls import reverse

from matches.core import stamp as core_stamp
from matches.models import Table
from matches.play import selectors
from matches.play.services.tap import match_eliminate
from matches.play.services.undo import table_undo_last
from matches.web import exports
from matches.web.caching import renderings
from tests.clients import FormClient
from tests.factories import make_table, open_match, tap

TAG_VERSION = re.compile(r"\.v(\d+)\.")


def tag_version(response) -> int:
    return int(TAG_VERSION.search(response["ETag"]).group(1))


class TestTableSnapshot:
    pytestmark = pytest.mark.django_db

    def test_a_clean_read_takes_one_try(self, host):
        table = make_table()
        snapshot = core_stamp.table_snapshot(
            table_id=table.pk, read=lambda row: exports.table_api(table=row)
        )
        assert snapshot.tries == 1
        assert snapshot.table.version == Table.objects.get().version

    def test_a_write_between_the_version_reads_is_read_again(self, host):
        """A tap lands after the board was read: the first read is thrown away."""
        table = make_table()
        reads = []

        def read(row: Table) -> dict:
            document = exports.table_api(table=row)
            if not reads:
                tap(table, "Ben")
            reads.append(document)
            return document

        snapshot = core_stamp.table_snapshot(table_id=table.pk, read=read)
        assert snapshot.tries == 2 and len(reads) == 2
        assert snapshot.content["current_match"]["out"] == [{"player": "Ben", "place": 4}]
        assert snapshot.table.version == Table.objects.get().version

    def test_a_table_that_keeps_changing_is_read_under_its_lock(self, host):
        table = make_table()
        names = iter(["Ben", "Alice", "Cara"])  # the third tap crowns Dev

        def read(row: Table) -> dict:
            document = exports.table_api(table=row)
            if (name := next(names, None)) is not None:
                tap(table, name)
            return document

        snapshot = core_stamp.table_snapshot(table_id=table.pk, read=read)
        assert snapshot.tries == core_stamp.SNAPSHOT_TRIES + 1
        assert snapshot.content["matches"][0]["winner"] == "Dev"
        assert snapshot.content["current_match"]["number"] == 2
        assert snapshot.table.version == Table.objects.get().version

    def test_no_such_table(self, db):
        assert (
            core_stamp.table_snapshot(table_id=404, read=lambda row: exports.table_api(table=row))
            is None
        )

    def test_the_tag_names_the_snapshot_not_an_earlier_read(self, host, client, monkeypatch):
        """The ETag function read version v; a tap lands before the body is read: the
        answer carries the tap and names v + 1."""
        table = make_table()
        real = core_stamp.table_snapshot
        landed = []

        def with_a_tap_first(**kwargs):
            if not landed:
                landed.append(tap(table, "Ben"))
            return real(**kwargs)

        monkeypatch.setattr(core_stamp, "table_snapshot", with_a_tap_first)
        before = Table.objects.get().version
        response = client.get(reverse("matches:api_table", args=[table.pk]))
        assert response.json()["current_match"]["out"] == [{"player": "Ben", "place": 4}]
        assert tag_version(response) == before + 1 == Table.objects.get().version


def expected_states(table: Table) -> tuple[int, dict, tuple]:
    """The table's version, its JSON and its board as a spectator sees it (number,
    standing, out), read by the only writer right after its write."""
    row = core_stamp.stamped_table(table_id=table.pk)
    board = selectors.table_board(table=row.table)
    seen = (
        board.match.number if board.match else None,
        tuple(seat.player.name for seat in board.standing),
        tuple(seat.player.name for seat in board.out),
    )
    return row.version, exports.table_api(table=row.table), seen


def check_document(document: dict, players: set[str]) -> None:
    """A state that can exist: the open match follows the filed ones, its standing and out
    players are the seats exactly, places distinct."""
    numbers = [match["number"] for match in document["matches"]]
    assert numbers == list(range(1, len(numbers) + 1))
    current = document["current_match"]
    assert current["number"] == len(numbers) + 1
    out = [row["player"] for row in current["out"]]
    assert sorted(current["standing"] + out) == sorted(players)
    places = [row["place"] for row in current["out"]]
    assert len(set(places)) == len(places)
    for match in document["matches"]:
        assert len({row["place"] for row in match["results"]}) == len(players)


BOARD = re.compile(
    r"<h2>Match (\d+)</h2>.*?<ul class=\"standing-names\">(.*?)</ul>(?:.*?<ul class=\"out-list\">(.*?)</ul>)?",
    re.S,
)
NAMES = re.compile(r"<li>(?:<span class=\"name\">)?([^<]+)<")


def board_state(html: str) -> tuple:
    found = BOARD.search(html)
    number, standing, out = found.group(1), found.group(2), found.group(3) or ""
    return int(number), tuple(NAMES.findall(standing)), tuple(NAMES.findall(out))


@pytest.mark.django_db(transaction=True)
class TestReadersRacingWriters:
    WRITES = 120

    def test_every_answer_is_a_state_that_existed_and_its_tag_names_it(self, host, monkeypatch):
        # Keep no rendering, so every read takes its own snapshot while the writer runs.
        monkeypatch.setattr(renderings.kept, "size", 0)
        tries: list[int] = []
        real = core_stamp.table_snapshot

        def counted(**kwargs):
            snapshot = real(**kwargs)
            tries.append(snapshot.tries)
            return snapshot

        monkeypatch.setattr(core_stamp, "table_snapshot", counted)
        table = make_table()
        players = {"Alice", "Ben", "Cara", "Dev"}
        states: dict[int, tuple] = {}
        version, document, board = expected_states(table)
        states[version] = (document, board)
        done = threading.Event()
        errors: list[BaseException] = []
        answers: dict[str, list] = {"json": [], "board": []}

        def writer() -> None:
            rng = random.Random(7)
            try:
                for _ in range(self.WRITES):
                    match = open_match(table)
                    standing = list(match.seats.filter(place__isnull=True))
                    if rng.random() < 0.3 and match.number + len(standing) > 5:
                        table_undo_last(table_id=table.pk, tap_id=None, by=host)
                    else:
                        seat = rng.choice(standing)
                        match_eliminate(
                            table_id=table.pk,
                            match_id=match.pk,
                            player_id=seat.player_id,
                            key=uuid.uuid4(),
                            by=host,
                        )
                    version, document, board = expected_states(table)
                    states[version] = (document, board)
            except BaseException as error:  # the test reports it
                errors.append(error)
            finally:
                done.set()
                connection.close()

        def reader(kind: str) -> None:
            client = FormClient()
            url = (
                reverse("matches:api_table", args=[table.pk])
                if kind == "json"
                else reverse("matches:table", args=[table.pk])
            )
            extra = {} if kind == "json" else {"HTTP_HX_REQUEST": "true"}
            try:
                while not done.is_set():
                    response = client.get(url, **extra)
                    assert response.status_code == 200
                    body = response.json() if kind == "json" else response.content.decode()
                    answers[kind].append((tag_version(response), body))
                    time.sleep(0.001)
            except BaseException as error:  # the test reports it
                errors.append(error)
            finally:
                connection.close()

        threads = [threading.Thread(target=writer)] + [
            threading.Thread(target=reader, args=(kind,)) for kind in ("json", "board")
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not errors, errors
        assert len(answers["json"]) > 10 and len(answers["board"]) > 10
        for version, document in answers["json"]:
            check_document(document, players)
            assert document == states[version][0]  # the tag names exactly this state
        for version, html in answers["board"]:
            number, standing, out = board_state(html)
            assert sorted(standing + out) == sorted(players)
            assert (number, standing, out) == states[version][1]
        print(
            f"{connection.vendor}: {len(answers['json'])} documents, "
            f"{len(answers['board'])} boards, {len(states)} states, "
            f"{sum(t > 1 for t in tries)} reads retried, "
            f"{sum(t > core_stamp.SNAPSHOT_TRIES for t in tries)} under the lock"
        )
