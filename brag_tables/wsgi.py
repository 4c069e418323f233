import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")
django_application = get_wsgi_application()

# Imported once Django is set up: a spectator's poll is answered from the stack's own answer
# before Django's handler (matches.web.polls), everything else by Django.
from matches.web.polls import SpectatorPolls  # noqa: E402

application = SpectatorPolls(django_application)
