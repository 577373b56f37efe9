"""Bytes → SSE frames → per-format decoder → events → Turn. Pure: no I/O, no UI imports.

The names below are loaded when first asked for (PEP 562): importing any `app.wire` module,
for its `Api` say, does not load the engine and its three decoders (start-up)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from app.wire.api import Api

if TYPE_CHECKING:
    from app.wire.engine import StreamEngine, decode_bytes
    from app.wire.events import Event
    from app.wire.turn import ToolCall, Turn
    from app.wire.turn_status import TurnStatus

_LAZY = {
    "StreamEngine": "app.wire.engine",
    "decode_bytes": "app.wire.engine",
    "Event": "app.wire.events",
    "ToolCall": "app.wire.turn",
    "Turn": "app.wire.turn",
    "TurnStatus": "app.wire.turn_status",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'app.wire' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = ["Api", "Event", "StreamEngine", "ToolCall", "Turn", "TurnStatus", "decode_bytes"]
