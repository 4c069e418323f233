"""Which name of a player each viewer reads: logged-in hosts read the name as entered, the
public (anonymous pages, the TV, the JSON and CSV a spectator fetches) the public name, or
"Player N" for a hidden player; an erased player is "Former player N" to everyone. The rule
itself is rules.names.shown_player_name; this is who counts as which viewer."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from matches.org.hosts import User, is_host


def sees_real_names(viewer: User | AbstractBaseUser | AnonymousUser | None) -> bool:
    """Whether this viewer reads players' names as entered: a logged-in host does."""
    return viewer is not None and is_host(viewer)  # type: ignore[arg-type]
