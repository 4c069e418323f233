"""What the ratings tests share."""

import pytest

from matches.ratings import steps


@pytest.fixture
def manual(settings):
    settings.RATINGS_REPLAY = "manual"
    steps._kept.clear()  # what a process remembers between steps: a fresh process
    yield
    steps._kept.clear()
