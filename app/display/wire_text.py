"""The words the inspector shows for the wire: a frame on one line, a frame whole, raw bytes as
what they are. Plain strings only: the widget shows them literally, never as markup.

A frame's data is untrusted: control characters are made visible here (`\\x1b`, `\\r`) so
nothing a server sends can move the cursor, and a line is cut to the width before it is drawn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from app.display.sanitize import HIDDEN
from app.wire.events import (
    EndOfStream,
    Event,
    Finish,
    Keepalive,
    ReasoningDelta,
    ReasoningSignature,
    ServerToolUse,
    Sources,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)

BIG = 64 * 1024  # characters of data past which a one-line view does not parse the frame
GAP = 1.0  # seconds of silence the frame list marks between two frames
_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r", 0x5C: "\\\\"}
_ELLIPSIS = "…"
_LABEL_ROOM = 18  # a row's label keeps this much before the event name gives way


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
    indented = json.dumps(parsed, indent=2, ensure_ascii=False)  # `é` as sent, not `\u00e9`
    return "\n".join(visible(line) for line in indented.split("\n"))


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


def frame_label(
    events: Sequence[Event], data: str, tools: Mapping[int, str], limit: int = 400
) -> str:
    """What a frame decoded to, as its row says it: `text "amet, "`, `reasoning "…"`,
    `tool lookup args +4 B`, `usage 12/105`, `finish stop`, `keepalive`, `error …`, joined
    with ` · `; a frame that decoded to nothing shows its data (compact). `tools` names the
    tool calls by index (an arguments delta carries only the index). At most about `limit`
    characters of any text are looked at, so a 16 MiB delta costs what a line costs."""
    if not events:
        return compact(data, limit)
    return " · ".join(_event_label(event, tools, limit) for event in events)


def _event_label(event: Event, tools: Mapping[int, str], limit: int) -> str:
    if isinstance(event, TextDelta):
        return f"text {_quoted(event.text, limit)}"
    if isinstance(event, ReasoningDelta):
        return f"reasoning {_quoted(event.text, limit)}"
    if isinstance(event, ToolCallStart):
        return f"tool {visible(event.name[:limit])} start {visible(event.id[:limit])}".rstrip()
    if isinstance(event, ToolCallArgsDelta):
        name = tools.get(event.index, f"#{event.index}")
        return f"tool {visible(name[:limit])} args +{_utf8_size(event.fragment)}"
    if isinstance(event, ToolCallEnd):
        return f"tool {visible(tools.get(event.index, f'#{event.index}')[:limit])} end"
    if isinstance(event, Usage):
        return f"usage {_count(event.input_tokens)}/{_count(event.output_tokens)}"
    if isinstance(event, Finish):
        detail = f" ({visible(event.detail[:limit])})" if event.detail else ""
        return f"finish {visible(event.reason[:limit])}{detail}"
    if isinstance(event, StreamError):
        code = f"{visible(event.code[:limit])}: " if event.code else ""
        return f"error {code}{visible(event.message[:limit])}"
    if isinstance(event, Keepalive):
        return "keepalive"
    if isinstance(event, EndOfStream):
        return "end of stream"
    if isinstance(event, ServerToolUse):
        return f"server tool {visible(event.name[:limit])}"
    if isinstance(event, Sources):
        return f"sources {len(event.items)}"
    if isinstance(event, ReasoningSignature):
        return f"reasoning signature {_utf8_size(event.signature)}"
    return f"redacted reasoning {_utf8_size(event.data)}"


def _quoted(text: str, limit: int) -> str:
    """A delta's text in double quotes, escaped as JSON writes it (`\\n`, `\\"`), every other
    control character visible; cut to `limit` characters (an ellipsis inside the quotes)."""
    shown = json.dumps(text[:limit], ensure_ascii=False)
    if len(text) > limit:
        shown = shown[:-1] + _ELLIPSIS + '"'
    return visible(shown)


def _utf8_size(text: str) -> str:
    return size_text(len(text.encode("utf-8", "surrogatepass")))


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)


def frame_line(
    at_ms: float, event: str | None, label: str, size: int, width: int, name_width: int = 24
) -> str:
    """One frame as the list shows it: `  1234 ms  event  text "amet, "  312 B`, cut to width.
    The event name gives way first (its end kept), then the label, then the time; the size
    always stays, right-aligned. `label` is one line, already made visible."""
    tail = f"  {size_text(size)}"
    if width <= len(tail):
        return size_text(size)[-width:].rjust(width) if width > 0 else ""
    clock = f"{round(at_ms):>7} ms  "
    room = width - len(tail) - len(clock)
    if room < 4:  # too narrow for the time: the size, and what fits of the label
        return cut(label, width - len(tail)).ljust(width - len(tail)) + tail
    column = min(name_width, room - _LABEL_ROOM - 2)
    if column < 4:  # too narrow for a name beside the label: the label says more
        return clock + cut(label, room).ljust(room) + tail
    name = event_name(event)
    if len(name) > column:  # the end tells Responses' names apart (`…summary_text.delta`)
        name = _ELLIPSIS + name[len(name) - column + 1 :]
    head = clock + name.ljust(column) + "  "
    room = width - len(head) - len(tail)
    if room < 1:
        return (head[: width - len(tail)]).ljust(width - len(tail)) + tail
    return head + cut(label, room).ljust(room) + tail


def gap_line(seconds: float, width: int) -> str:
    """The mark between two frames the stream was silent between."""
    return cut(f"{'':>7}    ┄┄ {seconds:.1f} s silent ┄┄", width)


__all__ = [
    "GAP",
    "compact",
    "cut",
    "escaped_bytes",
    "event_name",
    "frame_label",
    "frame_line",
    "gap_line",
    "pretty",
    "size_text",
    "visible",
]
