from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse


class FirstHostMiddleware:
    """Until the first host account exists, every page leads to the page that creates it:
    there is no default account or password to forget to change."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        setup_url = reverse("matches:setup")
        if (
            not request.user.is_authenticated
            and request.path != setup_url
            and not request.path.startswith("/static/")
            and not get_user_model().objects.exists()
        ):
            return redirect(setup_url)
        return self.get_response(request)
