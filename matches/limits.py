"""The app's limits, defined once. Messages that state a limit in words ("at most 10
players") are written out in full in their modules, so translators see whole sentences."""

TABLE_NAME_MAX_LENGTH = 80
NAME_MAX_LENGTH = 40
MIN_PLAYERS = 3
MAX_PLAYERS = 10
SHOWDOWN_MAX_HANDS = 10
SEASON_NAME_MAX_LENGTH = 60
