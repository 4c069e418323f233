"""First-host setup: the one page that creates the first host account."""

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from matches.core.errors import RuleError
from matches.org.hosts import first_host_create
from matches.web.forms.accounts import FirstHostForm
from matches.web.htmx import HtmxHttpRequest


@require_http_methods(["GET", "POST"])
def setup(request: HtmxHttpRequest) -> HttpResponse:
    """Create the first host account; once one exists this page is gone."""
    if get_user_model().objects.exists():
        raise Http404
    form = FirstHostForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = first_host_create(
                user=form.save(commit=False), display_name=form.cleaned_data["display_name"]
            )
        except RuleError as error:  # another first host won the race
            messages.info(request, error.message)
            return redirect("login")
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("matches:home")
    return render(request, "matches/setup.html", {"form": form})
