"""How the night is served: uvicorn (ASGI) with the project's options, in one place.

`make run` runs `python -m brag_tables.serving --host HOST --port PORT`, which becomes
uvicorn (its documented command line, https://www.uvicorn.org/settings/). The tests that
start a real server, the load tests and the benchmarks build their command with command()
below, so every way we serve uses the same options:

- h11, uvicorn's pure-Python HTTP/1.1 parser, because it bounds a request's head
  (--h11-max-incomplete-event-size, HEAD_MAX_BYTES below: a longer head is answered 400);
  httptools keeps whatever head a client sends (a 200 MB header line grew one process by
  300 MB) and uvicorn has no option to bound it; a request cost the same CPU with either
  (about 1.5 ms, nearly all Django's). uvloop is the event loop;
- an IPv6 address (`make run HOST=::`) takes IPv4 clients too, as the LAN address printed
  for the tablets needs: main() binds that socket itself and hands it over with --fd;
- one worker process, or WEB_CONCURRENCY of them (uvicorn reads it itself);
- connections kept alive 5 s, longer than the spectators' 3 s poll, so the next poll finds
  its connection open;
- on a restart (a deployment) or Ctrl+C, 3 s for requests under way to finish: a request
  takes milliseconds, and the streams, which never finish, would otherwise hold the stop
  that long (their pages reconnect to the new server on their own);
- X-Forwarded-For and X-Forwarded-Proto believed only behind the reverse proxy
  (DJANGO_BEHIND_PROXY=1, settings.BEHIND_PROXY), and then only from the proxy's address
  (uvicorn's FORWARDED_ALLOW_IPS, loopback by default): anybody else could send them;
- no access log (a line per spectator's poll, every 3 s, costs more than the poll).

docs/operating.md says how to serve it yourself and what a proxy in front needs.
"""

import argparse
import os
import socket
import sys

APPLICATION = "brag_tables.asgi:application"
HTTP = "h11"
# A request's line and headers together; ours are under 4 KiB (cookies included).
HEAD_MAX_BYTES = 64 * 1024
KEEP_ALIVE_SECONDS = 5
GRACEFUL_SHUTDOWN_SECONDS = 3


def behind_proxy() -> bool:
    """settings.BEHIND_PROXY, as this environment sets it."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "brag_tables.settings")
    from django.conf import settings

    return bool(settings.BEHIND_PROXY)


def options(
    *,
    host: str,
    port: int,
    workers: int | None = None,
    log_level: str | None = None,
    fd: int | None = None,
) -> list[str]:
    """uvicorn's command-line options for serving on host:port (an IPv6 address as it is,
    no brackets), or on the listening socket fd. workers None: WEB_CONCURRENCY's, else one."""
    bind = ["--fd", str(fd)] if fd is not None else ["--host", host, "--port", str(port)]
    args = [
        *bind,
        "--http", HTTP,
        "--h11-max-incomplete-event-size", str(HEAD_MAX_BYTES),
        "--loop", "uvloop",
        "--timeout-keep-alive", str(KEEP_ALIVE_SECONDS),
        "--timeout-graceful-shutdown", str(GRACEFUL_SHUTDOWN_SECONDS),
        "--proxy-headers" if behind_proxy() else "--no-proxy-headers",
        "--no-access-log",
        "--no-server-header",
    ]  # fmt: skip
    if workers is not None:
        args += ["--workers", str(workers)]
    if log_level is not None:
        args += ["--log-level", log_level]
    return args


def command(
    *,
    host: str,
    port: int,
    workers: int | None = None,
    log_level: str | None = None,
    application: str = APPLICATION,
    fd: int | None = None,
) -> list[str]:
    """The whole command that serves application (module:name) with this Python's uvicorn."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        application,
        *options(host=host, port=port, workers=workers, log_level=log_level, fd=fd),
    ]


def dual_stack_socket(host: str, port: int) -> socket.socket:
    """A listening socket on an IPv6 address that takes IPv4 connections too, for uvicorn's
    --fd. `make run HOST=::` prints the machine's IPv4 LAN address for the tablets, but
    uvicorn (through asyncio) binds an IPv6 address for IPv6 alone."""
    sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    sock.bind((host, port))
    sock.set_inheritable(True)  # uvicorn, which takes this process's place, serves on it
    return sock


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Serve Brag Tables with uvicorn; any other option is uvicorn's own "
        "(--ssl-certfile, --ssl-keyfile, ...) and is passed on to it."
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=None)
    args, more = parser.parse_known_args(argv)
    listening = dual_stack_socket(args.host, args.port) if ":" in args.host else None
    fd = listening.fileno() if listening is not None else None
    argv_ = [*command(host=args.host, port=args.port, workers=args.workers, fd=fd), *more]
    # uvicorn takes this process's place: Ctrl+C and a supervisor's signals reach it directly.
    os.execv(argv_[0], argv_)  # noqa: S606


if __name__ == "__main__":
    main()
