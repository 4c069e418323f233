import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")

# gunicorn.conf.py's worker puts matches.web.polls.SpectatorPolls around it.
application = get_wsgi_application()
