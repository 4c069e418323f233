"""The import rule's parts that import-linter cannot see (docs/architecture.md): imports
between the packages of matches/ are absolute and never name another package's private
names, and no module is left at an old flat path."""

import ast
from pathlib import Path

import matches

APP = Path(matches.__file__).resolve().parent
PACKAGES = {"rules", "models", "core", "org", "ratings", "results", "play", "web"}
# Where Django looks for them, and the package markers.
AT_THE_TOP = {"__init__.py", "admin.py", "apps.py", "integrity.py", "urls.py"}


def _modules():
    for path in sorted(APP.rglob("*.py")):
        relative = path.relative_to(APP)
        if relative.parts[0] == "migrations":
            continue
        yield relative, ast.parse(path.read_text(), filename=str(path))


def _package(relative: Path) -> str:
    return relative.parts[0] if len(relative.parts) > 1 else ""


def test_every_module_of_the_app_is_in_a_domain_package_or_where_django_looks():
    flat = [
        str(relative)
        for relative, _ in _modules()
        if len(relative.parts) == 1 and relative.name not in AT_THE_TOP
    ]
    assert flat == []
    assert {p.name for p in APP.iterdir() if (p / "__init__.py").exists()} == PACKAGES | {
        "management",
        "migrations",
        "templatetags",
    }


def test_imports_between_packages_are_absolute_and_public():
    found = []
    for relative, tree in _modules():
        mine = _package(relative)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:  # relative: only the management commands' own helper module
                if relative.parts[0] != "management":
                    found.append(f"{relative}:{node.lineno} relative import")
                continue
            parts = (node.module or "").split(".")
            if parts[0] != "matches" or len(parts) < 2 or parts[1] == mine:
                continue
            private = [alias.name for alias in node.names if alias.name.startswith("_")]
            private += [part for part in parts[2:] if part.startswith("_")]
            if private:
                found.append(f"{relative}:{node.lineno} imports {private} from {node.module}")
    assert found == []
