"""`triptych serve`: the same app in a browser, through textual-serve (the optional extra
`triptych[serve]`). Each browser tab gets its own `triptych` process, started with the command
line given here, speaking Textual's web driver over a WebSocket.

textual-serve has no authentication of its own, and browsers let any page open a WebSocket to
localhost: so every request is checked (`serve_guard`) before textual-serve sees it, as Jupyter
does it. The aiohttp side is in `serve_web`, imported only when serving.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import socket
import sys
from collections.abc import Sequence
from importlib.util import find_spec
from urllib.parse import urlsplit

from app.ui.serve_guard import LOCAL_HOSTS, Guard, origin_of

WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
INSTALL_HINT = "`triptych serve` needs textual-serve: pip install 'triptych[serve]'"
# The token goes into the printed URL as it is, so it is kept to what a URL carries unescaped.
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9._~-]+")


def serve_available() -> bool:
    return find_spec("textual_serve") is not None


def app_command(arguments: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser tab: this Python, this app."""
    return shlex.join([sys.executable, "-m", "app", *arguments])


def new_token() -> str:
    """256 random bits, URL-safe: a new one at each start, so an old URL stops working."""
    return secrets.token_urlsafe(32)


def valid_token(token: str) -> bool:
    return TOKEN_PATTERN.fullmatch(token) is not None


def default_public_url(host: str, port: int) -> str:
    """The served origin when no proxy stands in front: the bind address (IPv6 bracketed)."""
    name = f"[{host}]" if ":" in host else host
    return f"http://{name}:{port}"


def valid_public_url(url: str) -> bool:
    """An http(s) URL with a host (a path is fine: textual-serve puts its own after it)."""
    parts = urlsplit(url)
    return origin_of(url) is not None and not (parts.query or parts.fragment or "@" in parts.netloc)


def check_address(host: str, port: int) -> None:
    """Raise OSError now if the address is taken: the URL to open is printed as the server
    starts, before aiohttp binds, and must not be printed for a server that never listens."""
    for family, kind, proto, _, address in socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    ):
        with socket.socket(family, kind, proto) as probe:
            if os.name == "posix":  # as asyncio binds: a port left in TIME_WAIT is free
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            probe.bind(address)


def run_server(
    arguments: Sequence[str], host: str, port: int, public_url: str | None, token: str
) -> None:
    """Serve until Ctrl+C. Raises OSError when the address cannot be listened on."""
    from app.ui.serve_web import GuardedServer

    check_address(host, port)
    guard = Guard(token, port, (public_url or default_public_url(host, port)).rstrip("/"))
    GuardedServer(app_command(arguments), host, port, guard).serve()


__all__ = [
    "INSTALL_HINT",
    "LOCAL_HOSTS",
    "WILDCARD_HOSTS",
    "Guard",
    "app_command",
    "default_public_url",
    "new_token",
    "run_server",
    "serve_available",
    "valid_public_url",
    "valid_token",
]
