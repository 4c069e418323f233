"""The project's URLconf read as a list, for the tests that must cover every URL of a kind
(the role matrix, the API's documentation)."""

from django.urls import URLPattern, URLResolver, get_resolver


def url_names() -> dict[str, str]:
    """Every named URL of the project, as "namespace:name" -> its pattern."""
    found: dict[str, str] = {}

    def walk(patterns, namespace: str, prefix: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                inner = f"{namespace}:{entry.namespace}" if entry.namespace else namespace
                walk(entry.url_patterns, inner, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern) and entry.name:
                found[f"{namespace}:{entry.name}".lstrip(":")] = prefix + str(entry.pattern)

    walk(get_resolver().url_patterns, "", "")
    return found
