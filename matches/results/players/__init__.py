"""The league's players: writes in services, reads in selectors."""
