"""The admin's backups page: the automatic copies kept, why none are made if they are off,
and the latest one to download (the organiser's only: a copy holds every account)."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from matches.core import autobackup
from matches.org.roles import BACKUPS_ARE_THE_ORGANISERS, is_organiser


def _organiser_or_403(request: HttpRequest) -> None:
    # The admin lets in any staff account; the backups are the organiser's alone.
    if not is_organiser(request.user):
        raise PermissionDenied(str(BACKUPS_ARE_THE_ORGANISERS))


@require_safe
def admin_backups(request: HttpRequest) -> HttpResponse:
    _organiser_or_403(request)
    context = {
        **admin.site.each_context(request),
        "title": _("Backups"),
        "backups": autobackup.backups_list(),
        "folder": autobackup.backup_folder(),
        "off": autobackup.automatic_backups_off(),
        "failure": autobackup.last_failure(),
    }
    return render(request, "admin/backups.html", context)


@require_safe
def admin_backup_download(request: HttpRequest) -> FileResponse:
    _organiser_or_403(request)
    latest = next(iter(autobackup.backups_list()), None)
    if latest is None:
        raise Http404(_("No backup has been made yet."))
    response = FileResponse(
        latest.path.open("rb"),
        as_attachment=True,
        filename=latest.name,
        content_type="application/octet-stream",
    )
    response["Cache-Control"] = "private, no-store"
    return response
