"""What every template rendered for a request knows of its viewer."""

from django.http import HttpRequest

from matches.models import VenueRole
from matches.org.names import sees_real_names
from matches.org.roles import is_organiser, venue_roles


def player_names(request: HttpRequest) -> dict:
    """real_names: whether players' names are shown as entered (a logged-in host) or as the
    public reads them (`{{ seat.player|player_name:real_names }}`). A template rendered
    without a request, or a view that sets it False (the TV), shows the public's."""
    return {"real_names": sees_real_names(getattr(request, "user", None))}


def venues_link(request: HttpRequest) -> dict:
    """show_venues: whether the menu offers the venues' pages, asked only when a page
    renders the menu. The organiser always (to add a venue); a host who manages a venue or
    hosts at several. Nobody else reads the venues, so a single pub's pages cost no query."""
    user = getattr(request, "user", None)

    def show() -> bool:
        if user is None or not user.is_authenticated:
            return False
        if is_organiser(user):
            return True
        roles = venue_roles(user)
        return len(roles) > 1 or VenueRole.Kind.MANAGER in roles.values()

    return {"show_venues": show}
