"""Path converters: ids in URLs."""

from matches.rules.limits import ID_MAX


class IdConverter:
    """An id or match number in a path: digits within the databases' signed 64-bit range. Anything
    larger does not match, so its URL is a 404 without touching the database (raw SQL on
    SQLite could not bind it: a 500)."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        # The length first: int() of thousands of digits is slow, and over 4,300 refused.
        if len(value.lstrip("0")) > len(str(ID_MAX)) or int(value) > ID_MAX:
            raise ValueError("beyond any id")
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
