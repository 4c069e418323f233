"""Correcting a filed match from its page: the form, its refusals, and the confirmation
every correction asks for (the new places and points, and how many later matches' ratings
are counted again): only the confirmation saves."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from matches.core.errors import RuleError
from matches.models import Match, Table
from matches.org.roles import may_change_table
from matches.play import corrections, selectors
from matches.rules.scoring import place_label
from matches.web.access import host_required
from matches.web.forms.filed import CorrectionForm
from matches.web.htmx import HtmxHttpRequest


@host_required
@require_http_methods(["GET", "POST"])
def match_correct(request: HtmxHttpRequest, table_id: int, number: int) -> HttpResponse:
    """GET shows the filed match's order to correct; POST shows what the correction would
    do and asks to confirm it, saving nothing; POST with confirm saves it."""
    table = get_object_or_404(Table.objects.select_related("venue"), pk=table_id)
    match = selectors.match_detail(table=table, number=number)
    if match is None:
        raise Http404
    if not may_change_table(request.user, table):
        # Another venue's table: read-only to this host.
        raise PermissionDenied(str(corrections.NOT_YOURS) % {"venue": table.venue.name})
    if match.status != Match.Status.FILED:
        messages.error(request, str(corrections.IN_PLAY) % {"number": number})
        return redirect("matches:match", table_id=table.pk, number=number)
    order = corrections.went_out(list(match.seats.all()))
    form = CorrectionForm(
        request.POST or None,
        initial={"players": "\n".join(seat.player.name for seat in order)},
    )
    if request.method == "POST" and form.is_valid():
        names = form.cleaned_data["players"]
        try:
            if not form.cleaned_data["confirm"]:
                preview = corrections.correction_preview(
                    table=table, number=number, names=names, by=request.user
                )
                context = {"table": table, "match": match, "preview": preview}
                return render(request, "matches/correct_confirm.html", context)
            corrections.match_correct(
                table_id=table.pk, number=number, names=names, by=request.user, confirmed=True
            )
        except RuleError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Match %(number)s corrected.") % {"number": number})
            return redirect("matches:match", table_id=table.pk, number=number)
    context = {
        "table": table,
        "match": match,
        "form": form,
        "order": order,
        "labels": [place_label(table.mode, place) for place in range(len(order), 0, -1)],
        "night_closed": corrections.night_closed(match=match),
    }
    return render(request, "matches/correct.html", context)
