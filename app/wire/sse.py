"""Incremental server-sent-events reader: bytes as the network delivers them in, frames out.

Follows the WHATWG event-stream rules. Lines are split on bytes at CR, LF and CRLF only — never
with `str.splitlines` (which also splits on U+2028, U+0085 and friends that are legal inside JSON
strings) and never with httpx's `iter_lines` (which does exactly that). A CRLF may straddle two
reads, as may a UTF-8 character or the leading BOM. Invalid UTF-8 is replaced, not fatal.

One leniency beyond WHATWG: a line of only spaces or tabs ends an event like an empty line. The
Kimi streaming page shows its frames separated by `" "` lines; read strictly they would glue every
chunk into one unparsable event, and such a line has no meaning as a field anyway.

Cost is linear in the bytes: a line that arrives over many reads is kept as a list of pieces and
joined once, never re-copied per read. Memory for one event is bounded by `max_event_bytes`,
counted over the raw lines of the event, so whether an event is too large never depends on how
the network split it. Work per read is bounded too: a huge read is taken in 1 MiB slices, and
more than 4 MiB with no frame or comment at all (blank lines, lines that name nothing) ends the
stream as broken, as an oversized event does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
MAX_EVENTLESS_BYTES = 4 * 1024 * 1024  # providers send an event or a keepalive far sooner
_SLICE = 1024 * 1024  # a larger read (a decompressed one can be 64 MiB) is taken in slices
_BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class Frame:
    """One dispatched event. `event` is "" when the frame had no `event:` line.

    Not frozen: one is built per event on the hot path, and a frozen dataclass costs twice as
    much to construct. Nothing holds on to frames after decoding them.
    """

    event: str
    data: str
    id: str = ""
    # Bytes of its lines and the blank line ending it (a line end counts one); not part of
    # what the frame means, so equal frames split differently stay equal.
    size: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Comment:
    """A `:` line. Providers send these as keepalives while the model is silent."""

    text: str
    size: int = field(default=0, compare=False)  # bytes of the line and its line end


class EventTooLarge(Exception):
    """One event grew past the reader's limit; the stream cannot be trusted after it.

    `frames` holds what the same `feed` call completed before the oversized event, so a caller
    loses nothing that arrived intact (and the outcome does not depend on read boundaries).
    """

    def __init__(
        self, limit: int, frames: list[Frame | Comment] | None = None, *, eventless: bool = False
    ) -> None:
        if eventless:
            message = f"the provider sent more than {limit:,} bytes without a single event"
        else:
            message = f"one server-sent event exceeded {limit:,} bytes"
        super().__init__(message)
        self.limit = limit
        self.eventless = eventless
        self.frames: list[Frame | Comment] = frames if frames is not None else []


class SSEReader:
    """Feed it byte pieces with `feed`; call `close` at end of stream."""

    def __init__(
        self,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_eventless_bytes: int = MAX_EVENTLESS_BYTES,
    ) -> None:
        self.max_event_bytes = max_event_bytes
        self.max_eventless_bytes = max_eventless_bytes
        self._eventless = 0  # bytes of lines since the last frame or comment (blank runs)
        self._head: bytes | None = b""  # bytes seen before the BOM check; None once done
        self._skip_lf = False  # the last piece ended in CR: a leading LF belongs to it
        self._partial: list[bytes] = []  # pieces of a line not yet terminated
        self._partial_size = 0
        # The event being read, reset at each blank line.
        self._data: list[bytes] = []
        self._event = b""
        self._size = 0  # raw bytes of this event's lines, for the memory bound
        self._id = ""  # last event id: persists across events, as the spec says
        self._broken = False  # an event was too large: nothing after it is read
        self._unusual = True  # any of: BOM check pending, an LF owed to a CR, broken

    def feed(self, chunk: bytes) -> list[Frame | Comment]:
        """Return every frame and comment completed by this piece.

        Raises `EventTooLarge` (carrying the frames completed before it) when one event passes
        the limit, or when more than `max_eventless_bytes` pass with no frame or comment at all
        (a body of blank lines, maybe a small gzip that expands a thousandfold); later calls
        return nothing.
        """
        if len(chunk) > _SLICE:  # bounded work per slice: a split never changes the frames
            out: list[Frame | Comment] = []
            for start in range(0, len(chunk), _SLICE):
                try:
                    out += self.feed(chunk[start : start + _SLICE])
                except EventTooLarge as exc:
                    exc.frames[:0] = out
                    raise
            return out
        if self._unusual:  # rare states kept off the per-read path
            chunk = self._prelude(chunk)
        if b"\r" in chunk:
            self._skip_lf = self._unusual = chunk[-1] == 0x0D
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        partial = self._partial
        if b"\n" not in chunk:
            if chunk:
                partial.append(chunk)
                self._partial_size += len(chunk)
                if self._size + self._partial_size > self.max_event_bytes:
                    self._overflow([])
            return []
        lines = chunk.split(b"\n")
        if partial:
            partial.append(lines[0])
            lines[0] = b"".join(partial)
            self._partial = partial = []
        rest = lines.pop()
        out = []
        self._lines(lines, out)
        if rest:
            partial.append(rest)
            self._partial_size = len(rest)
            # The finished line will be at least this long, so failing early changes no outcome.
            if self._size + len(rest) > self.max_event_bytes:
                self._overflow(out)
        else:
            self._partial_size = 0
        return out

    def _prelude(self, chunk: bytes) -> bytes:
        """The leading BOM (maybe split over reads), an LF owed to a CR, a broken stream."""
        if self._broken:
            return b""
        if self._head is not None:
            chunk = self._strip_bom(chunk)
        if chunk and self._skip_lf:
            self._skip_lf = False
            if chunk[0] == 0x0A:
                chunk = chunk[1:]
        self._unusual = self._head is not None or self._skip_lf or self._broken
        return chunk

    def close(self) -> bool:
        """End of stream. True when an event was left unterminated (a truncation signal)."""
        pending = bool(self._partial or self._data or self._event)
        self._partial = []
        self._partial_size = 0
        self._data, self._event, self._size = [], b"", 0
        return pending and not self._broken

    def unterminated(self) -> Frame | None:
        """The event the body ended inside, read as if its blank line had come; None if none.

        The spec discards it. The engine looks at it only to accept a terminal or error event
        whose final blank line a proxy dropped — a cut frame never becomes content.
        """
        if self._broken:
            return None
        probe = SSEReader(self.max_event_bytes)  # a copy, so this reader's state is untouched
        probe._head = None
        probe._data, probe._event, probe._size = list(self._data), self._event, self._size
        probe._id = self._id
        try:
            items = probe.feed(b"".join(self._partial) + b"\n\n")
        except EventTooLarge:
            return None
        frames = [item for item in items if type(item) is Frame]
        return frames[-1] if frames else None

    def _lines(self, lines: list[bytes], out: list[Frame | Comment]) -> None:
        """The WHATWG line rules. Hot path: state in locals, `data: ` and blank lines first."""
        data, event, size = self._data, self._event, self._size
        limit = self.max_event_bytes
        eventless = self._eventless
        for line in lines:
            if line.startswith(b"data: "):
                size += len(line) + 1
                data.append(line[6:])
            elif not line:
                if data:
                    raw = data[0] if len(data) == 1 else b"\n".join(data)
                    name = event.decode("utf-8", "replace") if event else ""
                    out.append(Frame(name, raw.decode("utf-8", "replace"), self._id, size + 1))
                    data = []
                    eventless = 0
                else:  # a blank line that ends nothing: count it, and the lines before it
                    eventless += size + 1
                    if eventless > self.max_eventless_bytes:
                        self._overflow(out, eventless=True)
                event, size = b"", 0
                continue
            elif line.startswith(b"event:"):
                size += len(line) + 1
                event = line[7:] if line[6:7] == b" " else line[6:]
            elif not line.strip(b" \t"):  # a line of blanks ends the event too (Kimi)
                if size + len(line) > limit:
                    self._overflow(out)
                if data:
                    self._data, self._event = data, event
                    self._dispatch(out, size + len(line) + 1)
                    data = []
                    eventless = 0
                else:
                    eventless += size + len(line) + 1
                    if eventless > self.max_eventless_bytes:
                        self._overflow(out, eventless=True)
                event, size = b"", 0
                continue
            else:
                size += len(line) + 1
                if line[0] == 0x3A:
                    out.append(Comment(line[1:].strip().decode("utf-8", "replace"), len(line) + 1))
                    eventless = 0
                else:
                    name_, colon, value = line.partition(b":")
                    if colon and value[:1] == b" ":
                        value = value[1:]
                    if name_ == b"data":  # also "data" with no colon: an empty data line
                        data.append(value)
                    elif name_ == b"event":  # "event" with no colon: no name
                        event = value
                    elif name_ == b"id" and b"\x00" not in value:
                        self._id = value.decode("utf-8", "replace")
                    # `retry:` and unknown fields (names are case-sensitive) are ignored.
            if size > limit:
                self._overflow(out)
        self._data, self._event, self._size = data, event, size
        self._eventless = eventless

    def _dispatch(self, out: list[Frame | Comment], size: int) -> None:
        data = self._data
        raw = data[0] if len(data) == 1 else b"\n".join(data)
        name = self._event.decode("utf-8", "replace") if self._event else ""
        out.append(Frame(name, raw.decode("utf-8", "replace"), self._id, size))

    def _overflow(self, out: list[Frame | Comment], *, eventless: bool = False) -> None:
        self._broken = self._unusual = True
        self._partial = []
        self._partial_size = 0
        self._data, self._event, self._size = [], b"", 0
        limit = self.max_eventless_bytes if eventless else self.max_event_bytes
        raise EventTooLarge(limit, out, eventless=eventless)

    def _strip_bom(self, chunk: bytes) -> bytes:
        assert self._head is not None
        head = self._head + chunk
        if len(head) < len(_BOM) and _BOM.startswith(head):
            self._head = head
            return b""
        self._head = None
        return head[len(_BOM) :] if head.startswith(_BOM) else head


__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "MAX_EVENTLESS_BYTES",
    "Comment",
    "EventTooLarge",
    "Frame",
    "SSEReader",
]
