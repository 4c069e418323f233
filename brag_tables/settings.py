"""Brag Tables settings: one module, driven by environment variables (see .env.example)."""

import os
import secrets
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from brag_tables import lan

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _local_secret_key() -> str:
    # A local install gets its own random key, kept beside the code and git-ignored, so
    # `make run` works with nothing set and no key is ever shared between installs.
    path = BASE_DIR / ".secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        key = secrets.token_urlsafe(50)
        path.write_text(key)
        path.chmod(0o600)
        return key


DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _local_secret_key()
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
# `make run HOST=0.0.0.0` sets BRAG_BIND_HOST: the machine's LAN addresses are then allowed
# too, so tablets on the pub's wifi get in with nothing else to configure.
BIND_HOST = os.environ.get("BRAG_BIND_HOST", "")
if BIND_HOST:
    ALLOWED_HOSTS = lan.allowed_hosts(
        ALLOWED_HOSTS,
        bind=BIND_HOST,
        addresses=lan.lan_addresses() if BIND_HOST in lan.WILDCARDS else [],
    )
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.forms",  # the form renderer below finds Django's own widget templates here
    "django_htmx",
    "template_partials",
    "js_lib_htmx",
    "csp",
    "axes",
    "matches",
]

MIDDLEWARE = [
    # First, before anything reads the body: no multipart, nothing over the cap below
    # (under ASGI, brag_tables.asgi_limits keeps Django's handler from reading it first).
    "matches.web.middleware.RequestBodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "matches.web.middleware.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise: a static file is no request of the night's.
    "matches.web.middleware.NightlyBackupMiddleware",
    # Above the session and CSRF middleware, so it sees the cookies they set on the way out.
    "matches.web.middleware.CachePrivacyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "matches.web.middleware.LanguageNeutralMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-csp's own: the policy below on every answer, a view's csp_update() and the like.
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "matches.web.middleware.FirstHostMiddleware",
    # Last, as django-axes asks: it turns a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Widgets render through the project's templates, so templates/django/forms/ can replace
# Django's select (it includes a template per option: most of the standings page's cost).
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"

ROOT_URLCONF = "brag_tables.urls"
WSGI_APPLICATION = "brag_tables.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "matches.web.context_processors.player_names",
                "matches.web.context_processors.venues_link",
            ],
        },
    },
]

# SQLite is the embedded default; DATABASE_URL (postgres://...) selects PostgreSQL.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Under ASGI every request runs in a thread of its own (Django's handler), so a
        # connection kept per thread is never used again: Django's docs say to disable
        # persistent connections there and use the backend's pool (below, PostgreSQL).
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
    "BRAG_DB_POOL", True
):
    # psycopg's pool, one per process: a request borrows a connection instead of opening one.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2,
        "max_size": int(os.environ.get("BRAG_DB_POOL_SIZE", "20")),
        "timeout": 20,
    }
if os.environ.get("BRAG_DATABASE_NAME"):
    # Set by a serving process for the ratings worker it starts (matches/ratings/supervisor.py):
    # the database that process uses, which in the tests is the test database.
    DATABASES["default"]["NAME"] = os.environ["BRAG_DATABASE_NAME"]
SQLITE_CACHE_KIB = -32 * 1024  # PRAGMA cache_size: negative is KiB, per connection
SQLITE_MMAP_BYTES = 256 * 1024 * 1024
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers take the lock at BEGIN (IMMEDIATE), so two tablets never deadlock upgrading a
    # read lock; WAL lets spectators read while a tap is written; the timeout makes a writer
    # wait its turn instead of failing with "database is locked". Each request opens its
    # own connection (ASGI, above); the pragmas below are part of that cost.
    # SQLite's page cache is per connection and 2 MB by default, which a big league's
    # standings read outgrows. 32 MiB each (negative: KiB) holds the running totals and
    # tallies one read touches; pages are taken only as read, so a small league's
    # connection stays small. The memory map (256 MiB) lets reads come straight from the
    # system's file cache, shared by every connection, which a new connection finds warm.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;"
            f" PRAGMA cache_size={SQLITE_CACHE_KIB}; PRAGMA mmap_size={SQLITE_MMAP_BYTES};"
        ),
    }
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test_db.sqlite3")}

# Server-sent event streams (brag_tables/streams.py): at most this many open streams per
# process, and per client address (a pub's NAT shares one among all its phones); past either
# a page polls instead. A heartbeat every BRAG_STREAM_HEARTBEAT seconds keeps idle streams
# open through NAT and proxies (a proxy's read timeout must be longer); a dropped stream
# reconnects after BRAG_STREAM_RETRY_MS plus up to 2 s of jitter.
# Streams live under this prefix, then the path of the page they follow.
BRAG_STREAM_PREFIX = "/events"
BRAG_STREAMS_MAX = int(os.environ.get("BRAG_STREAMS_MAX", "20000"))
BRAG_STREAMS_PER_ADDRESS = int(os.environ.get("BRAG_STREAMS_PER_ADDRESS", "200"))
BRAG_STREAM_HEARTBEAT = int(os.environ.get("BRAG_STREAM_HEARTBEAT", "30"))
BRAG_STREAM_RETRY_MS = int(os.environ.get("BRAG_STREAM_RETRY_MS", "3000"))

# Automatic backups (matches.core.autobackup, docs/operating.md): after each table closes and
# once a night, a checked copy of the database goes into BACKUP_DIR, in a thread of its own.
BACKUP_DIR = Path(os.environ.get("BRAG_BACKUP_DIR") or BASE_DIR / "backups")
BACKUP_AUTO = env_bool("BRAG_BACKUP_AUTO", True)
# The tests set False to run each copy in the request's own thread, so they can wait for it.
BACKUP_IN_BACKGROUND = True

# Each process keeps its own small cache (computed standings); nothing to run beside the app.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "OPTIONS": {"MAX_ENTRIES": 2000},
    }
}

# The standings' covering index INCLUDEs its counts on PostgreSQL; SQLite cannot, and has a
# second index with every column as a key instead (see models.DailyTally).
SILENCED_SYSTEM_CHECKS = ["models.W040"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The venue an install starts with (and an existing single-pub league migrates to, holding
# every table): the organiser renames it on its page. A single venue shows no venue choice.
BRAG_FIRST_VENUE_NAME = os.environ.get("BRAG_FIRST_VENUE_NAME", "Our pub")
# How long a host's invitation link works (once).
BRAG_INVITATION_DAYS = 7

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # Counts failed logins and refuses a locked-out username from the same address.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("DJANGO_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 0.25  # hours: a locked-out login may try again after 15 minutes
# Per username and address together: a guesser is stopped without locking the real host out
# of the tablet next to them.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# The real client address: REMOTE_ADDR, or behind the proxy the address it forwarded.
AXES_CLIENT_IP_CALLABLE = "matches.web.access.client_ip"
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "matches:home"
LOGOUT_REDIRECT_URL = "matches:home"

LANGUAGE_CODE = "en"
# Each language is offered in its own name; European Portuguese is Django's "pt".
LANGUAGES = [("en", "English"), ("pt", "Português")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# English is British English (en-GB dates and 24-hour times) and Portuguese is Portugal's.
FORMAT_MODULE_PATH = ["brag_tables.formats"]
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "Europe/London")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # whitenoise's CompressedManifestStaticFilesStorage, with module imports hashed too.
    "staticfiles": {"BACKEND": "matches.web.static_storage.ModuleManifestStaticFilesStorage"},
}

# The app takes no uploads and no form of ours comes near 64 KiB (ten 40-letter names, the
# showdown judge's 16 KB of JSON): a bigger body is refused unread (RequestBodyLimitMiddleware),
# and Django's own limits agree, with any file kept in memory, never in a temporary file.
REQUEST_BODY_MAX_BYTES = 64 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
FILE_UPLOAD_HANDLERS = ["django.core.files.uploadhandler.MemoryFileUploadHandler"]

MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

# An undo of an old crowning, a merge or a rebuild re-rates the later matches after the
# answer, in short steps a worker process runs beside each server (matches/ratings/supervisor.py).
# "inline" runs them at once in the write's own transaction: the tests' mode, where a test
# reads the ratings right after the write; never for serving (it holds the write lock).
# "manual" leaves them to whoever calls them (the replay's own tests, `check_integrity`).
RATINGS_REPLAY = os.environ.get("BRAG_RATINGS_REPLAY", "background")
if RATINGS_REPLAY not in {"background", "inline", "manual"}:
    raise ImproperlyConfigured("BRAG_RATINGS_REPLAY must be background, inline or manual")

# HTTPS hardening is on by default; DJANGO_HTTPS=0 switches it off for a plain-LAN install
# where the tablets reach the server by http://<ip>:8000 (see docs/operating.md).
HTTPS = env_bool("DJANGO_HTTPS", True)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000")) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
# Preloading is a commitment for the whole parent domain (every subdomain, https only, for
# browsers' built-in lists, slow to undo), so a pub's install asks for it by name.
SECURE_HSTS_PRELOAD = HTTPS and env_bool("DJANGO_HSTS_PRELOAD", False)
if HTTPS and not SECURE_HSTS_PRELOAD:
    SILENCED_SYSTEM_CHECKS.append("security.W021")  # "preload is not set": on purpose
# A reverse proxy in front (see docs/operating.md): it terminates TLS and appends the client's address
# to X-Forwarded-For, which only then is trusted (the login lockout keys on it).
BEHIND_PROXY = env_bool("DJANGO_BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
# Sent on every answer (matches.web.middleware.PermissionsPolicyMiddleware): the browser
# features the app never uses are denied to it and to anything injected into it.
PERMISSIONS_POLICY_DENIED = [
    "accelerometer",
    "camera",
    "display-capture",
    "geolocation",
    "gyroscope",
    "hid",
    "magnetometer",
    "microphone",
    "midi",
    "payment",
    "publickey-credentials-get",
    "serial",
    "usb",
    "xr-spatial-tracking",
]
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
CSRF_FAILURE_VIEW = "matches.web.views.errors.csrf_failure"

# No inline script or style anywhere: htmx and our one script come from our own static files,
# and htmx is told not to inject its indicator styles (see templates/base.html).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        # The service worker (/sw.js) and the web app manifest, both from our own origin.
        "worker-src": [SELF],
        "manifest-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "object-src": [NONE],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
