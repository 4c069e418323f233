"""brag_tables.asgi's application with the body cap around Django's handler
(brag_tables.asgi_limits), as brag_tables/asgi.py is to build it: tests/test_serving.py runs
uvicorn on this."""

from django.core.asgi import get_asgi_application

from brag_tables import asgi  # sets Django up
from brag_tables.asgi_limits import limit_bodies

application = asgi.build(limit_bodies(get_asgi_application()))
