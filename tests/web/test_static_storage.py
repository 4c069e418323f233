"""The production static storage: the tap queue's modules import each other by hashed name,
so a page never mixes two deployments' modules and the service worker, which keeps the hashed
names, holds every file a reload without network imports."""

import json
import posixpath
import re
from pathlib import Path

from django.core.management import call_command

IMPORTED = re.compile(r"""\bimport\b[^;]*?["'](\.{1,2}/[^"']+)["']\s*;""", re.S)


def test_each_module_imports_the_hashed_files_collectstatic_wrote(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "matches.web.static_storage.ModuleManifestStaticFilesStorage"},
    }
    call_command("collectstatic", interactive=False, verbosity=0)
    hashed = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    modules = {name: hashed[name] for name in hashed if re.match(r"js/tap-queue.*\.js$", name)}
    assert "js/tap-queue.js" in modules and "js/tap-queue/send.js" in modules, sorted(hashed)

    imported = set()
    for hashed_name in modules.values():
        source = (tmp_path / hashed_name).read_text()
        for url in IMPORTED.findall(source):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(hashed_name), url))
            assert target in hashed.values(), f"{hashed_name} imports {url}, not a hashed file"
            imported.add(target)
    # Every module but the entry one is reached through an import of its hashed name.
    assert imported >= {modules[name] for name in modules if name != "js/tap-queue.js"}


def test_the_offline_shell_keeps_every_module_the_queue_imports():
    """A reload without network fails whole on one missing import: every module of the tap
    queue, and what they import, is in the service worker's list."""
    from matches.web.views.offline import SHELL_STATIC

    root = Path(__file__).resolve().parents[2] / "static"
    modules = {path.relative_to(root).as_posix() for path in root.glob("js/tap-queue*.js")}
    modules |= {path.relative_to(root).as_posix() for path in root.glob("js/tap-queue/*.js")}
    imported = {
        posixpath.normpath(posixpath.join(posixpath.dirname(name), url))
        for name in modules
        for url in IMPORTED.findall((root / name).read_text())
    }
    assert modules | imported <= set(SHELL_STATIC)
