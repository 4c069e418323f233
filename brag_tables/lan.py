"""Reaching the app from the pub's wifi: `make run HOST=0.0.0.0` serves every interface, and
the machine's LAN addresses are then allowed as host names and printed (with a QR code) so a
tablet can open the app without anyone editing DJANGO_ALLOWED_HOSTS."""

import contextlib
import ipaddress
import socket
from collections.abc import Iterable

# Bind addresses that mean "every interface".
WILDCARDS = {"0.0.0.0", "::", "[::]"}  # noqa: S104 (names, not a bind)


def _is_lan(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, best guess first. The UDP
    "connect" only asks the kernel which interface a route would use; nothing is sent."""
    found: list[str] = []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routed like any address, never sent to
        found.append(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    with contextlib.suppress(OSError):
        found.extend(socket.gethostbyname_ex(socket.gethostname())[2])
    return list(dict.fromkeys(a for a in found if _is_lan(a)))


def host_names(bind: str, addresses: Iterable[str]) -> list[str]:
    """The names a tablet may use for a server bound to `bind`: the LAN addresses when it
    binds every interface, the address itself when it binds one, nothing for loopback."""
    bind = bind.strip()
    if bind in WILDCARDS:
        return [a for a in addresses if _is_lan(a)]
    if _is_lan(bind.strip("[]")):
        return [bind]
    return []


def allowed_hosts(configured: list[str], *, bind: str, addresses: Iterable[str]) -> list[str]:
    """DJANGO_ALLOWED_HOSTS plus what `host_names` adds, each once, configured first."""
    return list(dict.fromkeys([*configured, *host_names(bind, addresses)]))


def urls(bind: str, port: int | str, addresses: Iterable[str]) -> list[str]:
    """Where tablets open the app: http://<LAN address>:<port>/ (plain HTTP on a LAN)."""
    return [
        f"http://[{name}]:{port}/" if ":" in name and not name.startswith("[") else
        f"http://{name}:{port}/"
        for name in host_names(bind, addresses)
    ]  # fmt: skip
