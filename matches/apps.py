from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Brag tables")

    def ready(self) -> None:
        # The ratings replay runs beside the answers, in every serving process.
        from matches.ratings import worker

        worker.connect()
