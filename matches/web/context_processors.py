"""What every template rendered for a request knows of its viewer."""

from django.http import HttpRequest

from matches.org.names import sees_real_names


def player_names(request: HttpRequest) -> dict:
    """real_names: whether players' names are shown as entered (a logged-in host) or as the
    public reads them (`{{ seat.player|player_name:real_names }}`). A template rendered
    without a request, or a view that sets it False (the TV), shows the public's."""
    return {"real_names": sees_real_names(getattr(request, "user", None))}
