"""The app with make bench's two floors (bench/urls.py), for the real-browser row, served by
uvicorn as the night is (brag_tables/serving.py)."""

import os

from django.conf import settings
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")
application = get_asgi_application()
settings.ROOT_URLCONF = "bench.urls"
