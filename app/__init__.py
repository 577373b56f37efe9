"""Triptych: a terminal chat app that shows exactly what an LLM provider streams back."""

import sys

__version__ = "0.1.0"

# httpx's own __init__ imports its command-line client whenever click is installed (the mcp
# extra and the dev tools bring it): click, rich's progress bars and more, about 3 MB and 40
# modules at the first request, for a command this app never runs (encode/httpx#3547, open).
# Marked absent before anything here imports httpx, httpx takes the fallback it has for an
# install without click. A process that imported httpx already keeps what it has.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
