"""The production static files storage: whitenoise's compressed files with hashed names, and
the imports between the tap queue's JavaScript modules named by their hashed names."""

from whitenoise.storage import CompressedManifestStaticFilesStorage

# The tap queue's native modules (static/js/tap-queue.js and static/js/tap-queue/) and how
# they import each other: `import {…} from "./x.js";` and `import "../x.js";`, relative.
TAP_QUEUE_MODULES = "js/tap-queue*.js"
MODULE_IMPORTS = (
    (
        r"""(?P<matched>import(?s:(?P<import>[\s\{].*?))\s*from\s*['"](?P<url>\.{1,2}/.*?)["']\s*;)""",
        """import%(import)s from "%(url)s";""",
    ),
    (
        r"""(?P<matched>import\s*['"](?P<url>\.{1,2}/.*?)["']\s*;)""",
        """import "%(url)s";""",
    ),
)


class ModuleManifestStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Each import in the tap queue's modules is rewritten to the hashed file, as url() is in
    CSS. Without it a hashed module imports the unhashed name: a page could mix two
    deployments' modules, and the service worker, which keeps the hashed names, would lack
    the imports on a reload without network. Django's own switch for this
    (support_js_module_import_aggregation) reads every app's JavaScript, and django-htmx's
    SSE extension names a bare "htmx" there that no file answers, so the rewrite is limited
    to our modules."""

    patterns = (
        *CompressedManifestStaticFilesStorage.patterns,
        (TAP_QUEUE_MODULES, MODULE_IMPORTS),
    )
