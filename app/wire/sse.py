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
the network split it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Frame:
    """One dispatched event. `event` is "" when the frame had no `event:` line."""

    event: str
    data: str
    id: str = ""


@dataclass(frozen=True, slots=True)
class Comment:
    """A `:` line. Providers send these as keepalives while the model is silent."""

    text: str


class EventTooLarge(Exception):
    """One event grew past the reader's limit; the stream cannot be trusted after it.

    `frames` holds what the same `feed` call completed before the oversized event, so a caller
    loses nothing that arrived intact (and the outcome does not depend on read boundaries).
    """

    def __init__(self, limit: int, frames: list[Frame | Comment] | None = None) -> None:
        super().__init__(f"one server-sent event exceeded {limit:,} bytes")
        self.limit = limit
        self.frames: list[Frame | Comment] = frames if frames is not None else []


@dataclass(slots=True)
class _Block:
    """The fields of the event being read, reset at each blank line."""

    data: list[bytes] = field(default_factory=list)
    event: bytes = b""
    size: int = 0  # raw bytes of this event's lines, for the memory bound


class SSEReader:
    """Feed it byte pieces with `feed`; call `close` at end of stream."""

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self.max_event_bytes = max_event_bytes
        self._head: bytes | None = b""  # bytes seen before the BOM check; None once done
        self._skip_lf = False  # the last piece ended in CR: a leading LF belongs to it
        self._partial: list[bytes] = []  # pieces of a line not yet terminated
        self._partial_size = 0
        self._block = _Block()
        self._last_id = b""
        self._broken = False  # an event was too large: nothing after it is read

    def feed(self, chunk: bytes) -> list[Frame | Comment]:
        """Return every frame and comment completed by this piece.

        Raises `EventTooLarge` (carrying the frames completed before it) when one event passes
        the limit; later calls return nothing.
        """
        if self._broken:
            return []
        if self._head is not None:
            chunk = self._strip_bom(chunk)
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[0] == 0x0A:
                chunk = chunk[1:]
        if b"\r" in chunk:
            self._skip_lf = chunk[-1] == 0x0D
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        out: list[Frame | Comment] = []
        if b"\n" not in chunk:
            if chunk:
                self._partial.append(chunk)
                self._partial_size += len(chunk)
                self._check_partial(out)
            return out
        lines = chunk.split(b"\n")
        if self._partial:
            self._partial.append(lines[0])
            lines[0] = b"".join(self._partial)
            self._partial = []
            self._partial_size = 0
        rest = lines.pop()
        self._lines(lines, out)
        if rest:
            self._partial.append(rest)
            self._partial_size = len(rest)
            self._check_partial(out)
        return out

    def close(self) -> bool:
        """End of stream. True when an event was left unterminated (a truncation signal)."""
        pending = bool(self._partial) or bool(self._block.data) or bool(self._block.event)
        self._partial = []
        self._partial_size = 0
        self._block = _Block()
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
        probe._block = _Block(list(self._block.data), self._block.event, self._block.size)
        probe._last_id = self._last_id
        try:
            items = probe.feed(b"".join(self._partial) + b"\n\n")
        except EventTooLarge:
            return None
        frames = [item for item in items if type(item) is Frame]
        return frames[-1] if frames else None

    def _lines(self, lines: list[bytes], out: list[Frame | Comment]) -> None:
        """The WHATWG line rules, with the common `data:` line first and inline (hot path)."""
        block = self._block
        limit = self.max_event_bytes
        for line in lines:
            if line.startswith(b"data:"):
                block.size += len(line) + 1
                if block.size > limit:
                    self._overflow(out)
                block.data.append(line[6:] if line[5:6] == b" " else line[5:])
            elif not line or not line.strip(b" \t"):
                if block.size + len(line) > limit:
                    self._overflow(out)
                if block.data:
                    data = block.data
                    raw = data[0] if len(data) == 1 else b"\n".join(data)
                    out.append(
                        Frame(
                            block.event.decode("utf-8", "replace"),
                            raw.decode("utf-8", "replace"),
                            self._last_id.decode("utf-8", "replace") if self._last_id else "",
                        )
                    )
                    block.data = []
                block.event = b""
                block.size = 0
            else:
                block.size += len(line) + 1
                if block.size > limit:
                    self._overflow(out)
                if line[0] == 0x3A:
                    out.append(Comment(line[1:].strip().decode("utf-8", "replace")))
                    continue
                name, colon, value = line.partition(b":")
                if colon and value[:1] == b" ":
                    value = value[1:]
                if name == b"event":
                    block.event = value
                elif name == b"data":  # "data" with no colon: an empty data line
                    block.data.append(value)
                elif name == b"id" and b"\x00" not in value:
                    self._last_id = value
                # `retry:` and unknown fields (names are case-sensitive) are ignored.

    def _check_partial(self, out: list[Frame | Comment]) -> None:
        # The finished line will be at least this long, so failing early changes no outcome.
        if self._block.size + self._partial_size > self.max_event_bytes:
            self._overflow(out)

    def _overflow(self, out: list[Frame | Comment]) -> None:
        self._broken = True
        self._partial = []
        self._partial_size = 0
        self._block = _Block()
        raise EventTooLarge(self.max_event_bytes, out)

    def _strip_bom(self, chunk: bytes) -> bytes:
        assert self._head is not None
        head = self._head + chunk
        if len(head) < len(_BOM) and _BOM.startswith(head):
            self._head = head
            return b""
        self._head = None
        return head[len(_BOM) :] if head.startswith(_BOM) else head


__all__ = ["DEFAULT_MAX_EVENT_BYTES", "Comment", "EventTooLarge", "Frame", "SSEReader"]
