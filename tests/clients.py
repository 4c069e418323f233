"""The test client posting as a browser posts our forms."""

from django.test import Client
from django.utils.http import urlencode

FORM = "application/x-www-form-urlencoded"
# The header htmx sends with each of its requests.
HTMX = {"HTTP_HX_REQUEST": "true"}


class FormClient(Client):
    """Posts a dict urlencoded, as a browser posts a form with no file in it, where Django's
    client posts multipart by default: the app refuses multipart bodies (no form of ours
    takes a file; tests/web/test_request_limits.py)."""

    def post(self, path, data=None, content_type=FORM, *args, **kwargs):
        if content_type == FORM and (data is None or isinstance(data, dict)):
            data = urlencode(data or {}, doseq=True)
        return super().post(path, data, content_type, *args, **kwargs)
