import pytest

from tests.factories import make_table, tap

GAME = ["Alice", "Ben", "Cara", "Dev"]


@pytest.fixture
def table(host):
    """Match 1 filed (Alice, Ben, Cara out: Dev won); match 2 open."""
    table = make_table(host=host, players=GAME)
    for name in ["Alice", "Ben", "Cara"]:
        tap(table, name)
    return table
