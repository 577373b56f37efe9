"""Bytes → SSE frames → per-format decoder → events → Turn. Pure: no I/O, no UI imports."""

from app.wire.engine import Api, StreamEngine, decode_bytes
from app.wire.events import Event
from app.wire.turn import ToolCall, Turn, TurnStatus

__all__ = ["Api", "Event", "StreamEngine", "ToolCall", "Turn", "TurnStatus", "decode_bytes"]
