"""The app's limits, defined once. Messages that state a limit take it as a placeholder
("at most %(max)s players"), so a changed limit can never leave a message saying the old one."""

TABLE_NAME_MAX_LENGTH = 80
NAME_MAX_LENGTH = 40
MIN_PLAYERS = 3
MAX_PLAYERS = 10
SHOWDOWN_MAX_HANDS = 10
SEASON_NAME_MAX_LENGTH = 60
HOST_NAME_MAX_LENGTH = 40
# The largest id (and match number) the databases store: a signed 64-bit integer. A larger
# one names nothing, and SQLite cannot even bind it.
ID_MAX = 2**63 - 1
VENUE_NAME_MAX_LENGTH = 60
# A venue's slug: its name's letters and digits joined by hyphens, kept short enough for a URL
# read aloud; a clash gets "-2", "-3"…
VENUE_SLUG_MAX_LENGTH = 50
