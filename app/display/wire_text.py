"""The words the inspector shows for the wire: a frame on one line, a frame whole, raw bytes as
what they are. Plain strings only: the widget shows them literally, never as markup.

A frame's data is untrusted: control characters are made visible here (`\\x1b`, `\\r`) so
nothing a server sends can move the cursor, and a line is cut to the width before it is drawn.
"""

from __future__ import annotations

import json
from typing import Any

from app.display.sanitize import HIDDEN

BIG = 64 * 1024  # characters of data past which a one-line view does not parse the frame
GAP = 1.0  # seconds of silence the frame list marks between two frames
_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r", 0x5C: "\\\\"}
_ELLIPSIS = "…"


def escaped_bytes(data: bytes) -> str:
    """The exact bytes, readable: printable ASCII as it is, `\\r` `\\n` `\\t`, a UTF-8 BOM as
    `\\ufeff`, valid UTF-8 beyond ASCII as its characters, anything else as `\\xNN`."""
    out: list[str] = []
    index = 0
    if data.startswith(b"\xef\xbb\xbf"):
        out.append("\\ufeff")
        index = 3
    while index < len(data):
        byte = data[index]
        if byte in _NAMED:
            out.append(_NAMED[byte])
            index += 1
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
            index += 1
        elif byte >= 0xC2:
            size = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            char = _decode(data[index : index + size])
            if char is None:
                out.append(f"\\x{byte:02x}")
                index += 1
            else:
                out.append(visible(char))
                index += size
        else:
            out.append(f"\\x{byte:02x}")
            index += 1
    return "".join(out)


def _decode(piece: bytes) -> str | None:
    try:
        text = piece.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if len(text) == 1 else None


def visible(text: str) -> str:
    """Text with every control character (and a lone surrogate) shown as an escape."""
    if text.isprintable() and HIDDEN.isdisjoint(text):
        return text
    out: list[str] = []
    for char in text:
        code = ord(char)
        if code in _NAMED and char != "\\":
            out.append(_NAMED[code])
        elif code < 0x20 or 0x7F <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        elif char in HIDDEN or not char.isprintable():
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def compact(data: str, limit: int | None = None) -> str:
    """A frame's data on one line: JSON re-dumped compactly, anything else as it came. With a
    `limit`, a huge frame is not parsed at all: only what fits is shown."""
    if limit is not None and len(data) > BIG:
        return visible(data[:limit].replace("\n", " "))
    parsed = _json(data)
    if parsed is None:
        return visible(data)
    return visible(json.dumps(parsed, ensure_ascii=False, separators=(",", ":")))


def pretty(data: str) -> str:
    """A frame's data whole: JSON indented, anything else as it came (escaped)."""
    parsed = _json(data)
    if parsed is None:
        return "\n".join(visible(line) for line in data.split("\n"))
    return "\n".join(visible(line) for line in json.dumps(parsed, indent=2).split("\n"))


def _json(data: str) -> Any | None:
    if not data.lstrip().startswith(("{", "[")):
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def cut(text: str, width: int) -> str:
    """At most `width` characters, an ellipsis marking what was cut."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + _ELLIPSIS


def event_name(event: str | None) -> str:
    """An SSE item's name as shown: `message` (the default) when it had no `event:` line, `:`
    for a comment line (a keepalive, OpenRouter's `: OPENROUTER PROCESSING`)."""
    if event is None:
        return ":"
    return visible(event) if event else "message"


def frame_line(at_ms: float, event: str | None, data: str, size: int, width: int) -> str:
    """One frame as the list shows it: `  1234 ms  event  {"compact":…}  312 B`, cut to width
    (the data gives way first; the size stays)."""
    head = f"{round(at_ms):>7} ms  {event_name(event):<24.24}  "
    tail = f"  {size_text(size)}"
    room = width - len(head) - len(tail)
    if room < 8:
        return cut(head + compact(data, width), width)
    return head + cut(compact(data, room + 1), room).ljust(room) + tail


def gap_line(seconds: float, width: int) -> str:
    """The mark between two frames the stream was silent between."""
    return cut(f"{'':>7}    ┄┄ {seconds:.1f} s silent ┄┄", width)


__all__ = [
    "GAP",
    "compact",
    "cut",
    "escaped_bytes",
    "event_name",
    "frame_line",
    "gap_line",
    "pretty",
    "size_text",
    "visible",
]
