"""What one answer looked like on the wire: the data behind the inspector.

A `CapturedExchange` holds the request as sent (redacted), the response status and headers,
every network read with its arrival time (the exact bytes, redacted), and every SSE item the
reader completed, in order, each linked to the events the decoder made of it. It is filled by
the client as the answer streams (app/providers/capture.py), kept on the `Turn`
(`turn.exchange`), stored with the answer in the history and written as a recording.

Times are milliseconds since the request was sent. Whatever a server sent is kept as it came:
a comment, a `data:` line with nothing in it, an event name with control characters, text that
was not UTF-8 (the frame shows U+FFFD, the raw read keeps the bytes). Showing it safely is the
viewer's job (app/display/wire_text.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.wire.events import Event


@dataclass(slots=True)
class WireFrame:
    """One SSE item as it arrived: an event (`event` is its name, "" when it had no `event:`
    line) or a comment line (`event` is None, `data` the comment's text).

    `size` counts the bytes of its lines (line ends as one byte each). `read` is the index in
    `CapturedExchange.reads` of the network read that completed it: its raw bytes are there.
    `events` is what Triptych decoded from it (a keepalive, a text delta, usage, …)."""

    at_ms: float
    event: str | None
    data: str
    size: int
    read: int
    events: tuple[Event, ...] = ()

    @property
    def is_comment(self) -> bool:
        return self.event is None


@dataclass(frozen=True, slots=True)
class WireRequest:
    """The request as sent, with every secret already redacted."""

    method: str
    url: str
    headers: dict[str, str]
    body: Any
    time: str = ""  # when it was sent, ISO 8601 UTC (for a recording's request line)


@dataclass(frozen=True, slots=True)
class WireRead:
    """One network read: when it arrived and its exact bytes (secrets redacted)."""

    at_ms: float
    data: bytes


@dataclass(slots=True)
class CapturedExchange:
    """One request and everything that came back, as it arrived.

    `kept_bytes` of `total_bytes` were kept: past the per-answer limit nothing more is kept
    (`cut` says so; `cut_frames` counts the frames not kept). `outcome` is the recording's
    word for how the exchange ended (`done`, `eof`, `stopped`, `error`), "" while it streams.
    `retried` holds an earlier exchange of the same answer that was asked again (a server that
    refused `stream_options`)."""

    request: WireRequest
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    response_ms: float | None = None
    reads: list[WireRead] = field(default_factory=list)
    frames: list[WireFrame] = field(default_factory=list)
    outcome: str = ""
    detail: str = ""
    ended_ms: float | None = None
    total_bytes: int = 0
    kept_bytes: int = 0
    cut_frames: int = 0
    retried: CapturedExchange | None = None

    @property
    def cut(self) -> bool:
        return self.kept_bytes < self.total_bytes

    @property
    def done(self) -> bool:
        return bool(self.outcome)

    @property
    def raw(self) -> bytes:
        """Every byte kept, joined (the body as the server sent it, secrets redacted)."""
        return b"".join(read.data for read in self.reads)


__all__ = ["CapturedExchange", "WireFrame", "WireRead", "WireRequest"]
