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

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from app.wire.events import Event, ReasoningDelta, TextDelta


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
    reads: WireReads = field(default_factory=lambda: WireReads())
    frames: WireFrames = field(default_factory=lambda: WireFrames())
    outcome: str = ""
    detail: str = ""
    ended_ms: float | None = None
    total_bytes: int = 0
    kept_bytes: int = 0
    cut_frames: int = 0
    retried: CapturedExchange | None = None

    def __post_init__(self) -> None:
        self.frames.bind(self.reads)

    @property
    def cut(self) -> bool:
        return self.kept_bytes < self.total_bytes

    @property
    def done(self) -> bool:
        return bool(self.outcome)

    @property
    def raw(self) -> bytes:
        """Every byte kept, joined (the body as the server sent it, secrets redacted)."""
        return self.reads.joined()


class WireReads(Sequence[WireRead]):
    """Every read of one answer, kept as columns: one buffer of bytes, their ends and times.

    A long answer arrives in tens of thousands of reads; as objects they were that many more for
    every full garbage collection to walk while the answer streams. A `WireRead` is
    made when one is asked for."""

    __slots__ = ("_at", "_buffer", "_ends")

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._ends = array("q")
        self._at = array("d")

    def append(self, read: WireRead) -> None:
        self.add(read.at_ms, read.data)

    def add(self, at_ms: float, data: bytes) -> None:
        self._buffer += data
        self._ends.append(len(self._buffer))
        self._at.append(at_ms)

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> WireRead: ...
    @overload
    def __getitem__(self, index: slice) -> list[WireRead]: ...
    def __getitem__(self, index: int | slice) -> WireRead | list[WireRead]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("read index out of range")
        start = self._ends[index - 1] if index else 0
        return WireRead(self._at[index], bytes(self._buffer[start : self._ends[index]]))

    def __iter__(self) -> Iterator[WireRead]:
        return (self[i] for i in range(len(self)))

    def joined(self) -> bytes:
        return bytes(self._buffer)

    def end_of(self, index: int) -> int:
        """Where read `index` ends in the joined bytes."""
        return self._ends[index]

    def find(self, data: bytes, start: int, end: int) -> int:
        """Where `data` first lies wholly within [start, end) of the joined bytes, or -1."""
        return self._buffer.find(data, start, end)

    def text_at(self, start: int, length: int) -> str:
        """`length` bytes of the joined reads from `start`, as UTF-8 text."""
        return self._buffer[start : start + length].decode("utf-8")


# How a frame's events are kept: none, the one text or reasoning delta most frames carry (its
# string only), or anything else as the tuple itself.
_NO_EVENTS, _ONE_TEXT, _ONE_REASONING, _OTHER = 0, 1, 2, 3


class WireFrames(Sequence[WireFrame]):
    """Every SSE item of one answer, kept as columns (see `WireReads`): a 20,000-token answer
    held 80,000 objects as frames, their tuples and their text deltas; now a few lists of
    strings, which the collector does not track, and arrays. A `WireFrame` is made (with
    events equal to the decoded ones) when one is asked for.

    A frame's data is most often the very bytes of one `data:` line of the reads: then only
    where they are is kept, and the text is decoded from the reads again when asked for (the
    frames' copy of the body was half of what the capture held). Any other data (a
    multi-line `data:`, text that was not UTF-8, a redacted secret) is kept as it was given."""

    __slots__ = (
        "_at",
        "_cursor",
        "_data",
        "_data_at",
        "_data_len",
        "_events",
        "_kinds",
        "_names",
        "_other",
        "_reads",
        "_sizes",
        "_source",
    )

    def __init__(self) -> None:
        self._at = array("d")
        self._names: list[str | None] = []
        self._data: dict[int, str] = {}  # data not found in the reads, by frame
        self._data_at = array("q")  # where a frame's data starts in the reads' buffer, or -1
        self._data_len = array("q")
        self._sizes = array("q")
        self._reads = array("q")
        self._kinds = array("b")
        self._events: list[str] = []  # the text of a frame's one delta, else ""
        self._other: dict[int, tuple[Event, ...]] = {}
        self._source: WireReads | None = None  # the reads the frames were cut from
        self._cursor = 0  # no later frame's data starts before this byte of the reads

    def bind(self, reads: WireReads) -> None:
        """The reads these frames come from: data found in them is kept as a place only
        (frames moved to other reads take their data as text first)."""
        if self._source is not None and self._source is not reads:
            for index, at in enumerate(self._data_at):
                if at >= 0:
                    self._data[index] = self.data_of(index)
                    self._data_at[index] = -1
        self._source = reads

    def append(self, frame: WireFrame) -> None:
        self.add(frame.at_ms, frame.event, frame.data, frame.size, frame.read, frame.events)

    def add(
        self,
        at_ms: float,
        event: str | None,
        data: str,
        size: int,
        read: int,
        events: Sequence[Event] = (),
    ) -> None:
        self._at.append(at_ms)
        self._names.append(event)
        self._keep_data(data, read)
        self._sizes.append(size)
        self._reads.append(read)
        text = ""
        if not events:
            kind = _NO_EVENTS
        elif len(events) == 1 and type(events[0]) is TextDelta:
            kind, text = _ONE_TEXT, events[0].text
        elif len(events) == 1 and type(events[0]) is ReasoningDelta:
            kind, text = _ONE_REASONING, events[0].text
        else:
            kind = _OTHER
            self._other[len(self._kinds)] = tuple(events)
        self._kinds.append(kind)
        self._events.append(text)

    def _keep_data(self, data: str, read: int) -> None:
        """Find `data` in the reads, after the previous frame's: it was completed by read
        `read`, so it ends by that read's end, and no later frame's starts before that read.
        Whatever is found there is the same bytes, so decoding them gives `data` back."""
        found = -1
        source = self._source
        if source is not None and 0 <= read < len(source):
            end = source.end_of(read)
            try:
                encoded = data.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: not bytes the reads could hold
                encoded = None
            if encoded is not None:
                found = source.find(encoded, self._cursor, end)
            if found >= 0:
                self._cursor = found + len(encoded or b"")
            else:
                self._cursor = max(self._cursor, source.end_of(read - 1) if read else 0)
        if found < 0:
            self._data[len(self._data_at)] = data
        self._data_at.append(found)
        self._data_len.append(len(data) if found < 0 else len(encoded or b""))

    def data_of(self, index: int) -> str:
        """Frame `index`'s data, as it was given."""
        at = self._data_at[index]
        if at < 0 or self._source is None:
            return self._data[index]
        return self._source.text_at(at, self._data_len[index])

    def __len__(self) -> int:
        return len(self._kinds)

    @overload
    def __getitem__(self, index: int) -> WireFrame: ...
    @overload
    def __getitem__(self, index: slice) -> list[WireFrame]: ...
    def __getitem__(self, index: int | slice) -> WireFrame | list[WireFrame]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("frame index out of range")
        kind = self._kinds[index]
        events: tuple[Event, ...]
        if kind == _ONE_TEXT:
            events = (TextDelta(self._events[index]),)
        elif kind == _ONE_REASONING:
            events = (ReasoningDelta(self._events[index]),)
        elif kind == _OTHER:
            events = self._other[index]
        else:
            events = ()
        return WireFrame(
            self._at[index],
            self._names[index],
            self.data_of(index),
            self._sizes[index],
            self._reads[index],
            events,
        )

    def __iter__(self) -> Iterator[WireFrame]:
        return (self[i] for i in range(len(self)))


__all__ = ["CapturedExchange", "WireFrame", "WireFrames", "WireRead", "WireReads", "WireRequest"]
