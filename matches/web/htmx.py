"""The request type views receive: django-htmx's middleware sets request.htmx on every one."""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
