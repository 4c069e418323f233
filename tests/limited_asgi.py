"""Django's ASGI handler with the body cap around it (brag_tables.asgi_limits), as
brag_tables.asgi serves it: tests/test_serving.py runs uvicorn on this."""

import os

from django.core.asgi import get_asgi_application

from brag_tables.asgi_limits import limit_bodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")
application = limit_bodies(get_asgi_application())
