"""Incremental server-sent-events reader: bytes as the network delivers them in, frames out.

Follows the WHATWG event-stream rules. Lines are split on bytes at CR, LF and CRLF only — never
with `str.splitlines` (which also splits on U+2028, U+0085 and friends that are legal inside JSON
strings) and never with httpx's `iter_lines` (which does exactly that). A CRLF may straddle two
reads, as may a UTF-8 character or the leading BOM. Invalid UTF-8 is replaced, not fatal.

Cost is linear in the bytes: a line that arrives over many reads is kept as a list of pieces and
joined once, never re-copied per read.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    """One event grew past the reader's limit; the stream cannot be trusted after it."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"one server-sent event exceeded {limit:,} bytes")
        self.limit = limit


class SSEReader:
    """Feed it byte pieces with `feed`; call `close` at end of stream."""

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self.max_event_bytes = max_event_bytes
        self._head: bytes | None = b""  # bytes seen before the BOM check; None once done
        self._skip_lf = False  # the last piece ended in CR: a leading LF belongs to it
        self._partial: list[bytes] = []  # pieces of a line not yet terminated
        self._partial_size = 0
        self._data: list[bytes] = []
        self._data_size = 0
        self._event = b""
        self._last_id = b""

    def feed(self, chunk: bytes) -> list[Frame | Comment]:
        """Return every frame and comment completed by this piece."""
        if self._head is not None:
            chunk = self._strip_bom(chunk)
            if not chunk:
                return []
        if self._skip_lf:
            if not chunk:
                return []
            self._skip_lf = False
            if chunk[0] == 0x0A:
                chunk = chunk[1:]
        if b"\r" in chunk:
            self._skip_lf = chunk.endswith(b"\r")
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if b"\n" not in chunk:
            if chunk:
                self._partial.append(chunk)
                self._partial_size += len(chunk)
                self._check_size()
            return []
        lines = chunk.split(b"\n")
        if self._partial:
            self._partial.append(lines[0])
            lines[0] = b"".join(self._partial)
            self._partial = []
            self._partial_size = 0
        rest = lines.pop()
        if rest:
            self._partial.append(rest)
            self._partial_size = len(rest)
        out: list[Frame | Comment] = []
        for line in lines:
            self._line(line, out)
        self._check_size()
        return out

    def close(self) -> bool:
        """End of stream. True when an event was left unterminated (a truncation signal)."""
        pending = bool(self._partial) or bool(self._data)
        self._partial = []
        self._data = []
        return pending

    def _line(self, line: bytes, out: list[Frame | Comment]) -> None:
        if line.startswith(b"data:"):
            value = line[6:] if line[5:6] == b" " else line[5:]
            self._data.append(value)
            self._data_size += len(value) + 1
        elif not line:
            if self._data:
                out.append(
                    Frame(
                        self._event.decode("utf-8", "replace"),
                        b"\n".join(self._data).decode("utf-8", "replace"),
                        self._last_id.decode("utf-8", "replace"),
                    )
                )
                self._data = []
                self._data_size = 0
            self._event = b""
        elif line[0] == 0x3A:
            out.append(Comment(line[1:].strip().decode("utf-8", "replace")))
        else:
            name, colon, value = line.partition(b":")
            if colon and value[:1] == b" ":
                value = value[1:]
            if name == b"event":
                self._event = value
            elif name == b"data":  # "data" with no colon: an empty data line
                self._data.append(value)
                self._data_size += len(value) + 1
            elif name == b"id" and b"\x00" not in value:
                self._last_id = value
            # `retry:` and unknown fields are ignored, as the spec says.

    def _check_size(self) -> None:
        if self._data_size + self._partial_size > self.max_event_bytes:
            self._data = []
            self._partial = []
            raise EventTooLarge(self.max_event_bytes)

    def _strip_bom(self, chunk: bytes) -> bytes:
        assert self._head is not None
        head = self._head + chunk
        if len(head) < len(_BOM) and _BOM.startswith(head):
            self._head = head
            return b""
        self._head = None
        return head[len(_BOM) :] if head.startswith(_BOM) else head


__all__ = ["DEFAULT_MAX_EVENT_BYTES", "Comment", "EventTooLarge", "Frame", "SSEReader"]
