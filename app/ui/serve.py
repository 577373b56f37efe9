"""`triptych serve`: the same app in a browser, through textual-serve (the optional extra
`triptych[serve]`). Each browser tab gets its own `triptych` process, started with the command
line given here, speaking Textual's web driver over a WebSocket.

textual-serve has no authentication: whoever reaches the port uses the app with the keys in
this environment, so it binds to localhost unless told otherwise (and the CLI warns then).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from importlib.util import find_spec

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
INSTALL_HINT = "`triptych serve` needs textual-serve: pip install 'triptych[serve]'"


def serve_available() -> bool:
    return find_spec("textual_serve") is not None


def app_command(arguments: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser tab: this Python, this app."""
    return shlex.join([sys.executable, "-m", "app", *arguments])


def run_server(arguments: Sequence[str], host: str, port: int, public_url: str | None) -> None:
    """Serve until Ctrl+C. Raises OSError when the address cannot be listened on."""
    from textual_serve.server import Server

    server = Server(app_command(arguments), host=host, port=port, title="Triptych")
    if public_url is not None:
        server.public_url = public_url.rstrip("/")
    server.serve()


__all__ = ["INSTALL_HINT", "LOCAL_HOSTS", "app_command", "run_server", "serve_available"]
