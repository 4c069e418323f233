from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Brag tables")

    def ready(self) -> None:
        # The ratings replay runs beside the answers, in a worker each serving process
        # starts: a write here wakes it.
        from matches.ratings import supervisor

        supervisor.connect()
