from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from matches.web.forms.accounts import LoginForm
from matches.web.views import backups

urlpatterns = [
    # Before the admin's own URLs, which end in a catch-all; staff only (the admin's login).
    path("admin/backups/", admin.site.admin_view(backups.admin_backups), name="admin_backups"),
    path(
        "admin/backups/latest/",
        admin.site.admin_view(backups.admin_backup_download),
        name="admin_backup_download",
    ),
    path("admin/", admin.site.urls),
    # Only the two auth pages the app uses: no password reset (no mail is set up) or change
    # (hosts are managed in the admin).
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(authentication_form=LoginForm),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("matches.urls")),
]
