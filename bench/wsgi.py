"""The app with make bench's two floors (bench/urls.py), for the real-browser row."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")
application = get_wsgi_application()
settings.ROOT_URLCONF = "bench.urls"
