"""Know whether streamed Markdown ends inside an open code fence, and how long that fence is.

Textual re-highlights a whole fence on every append, so appending a long growing fence at the
render clock's full rate costs time proportional to its length on every tick. `FencePacer` spaces
the flushes of such a fence out in proportion to its length, which keeps the cost per token
roughly constant however long the fence gets. Text outside a fence always flushes on the next tick,
and the caller always flushes everything when the stream ends (finish, stop or error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})(.*)$")

MIN_INTERVAL = 0.05  # seconds: the render clock's own period
MAX_INTERVAL = 1.0  # a fence is never held back longer than this
SECONDS_PER_LINE = 0.0025  # about ten times the measured highlight cost of one line
SHORT_FENCE_LINES = 20  # below this a fence is cheap enough to flush every tick


@dataclass(slots=True)
class FenceTracker:
    """Feed text as it arrives; `open_lines` is the open fence's length in lines, or None."""

    _partial: str = ""
    _marker: str = ""  # the opening run of ` or ~ while a fence is open
    open_lines: int | None = None

    def feed(self, text: str) -> None:
        if "\n" not in text:
            self._partial += text
            return
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line)

    def _line(self, line: str) -> None:
        match = _FENCE.match(line)
        if self._marker:
            if (
                match
                and match.group(1)[0] == self._marker[0]
                and len(match.group(1)) >= len(self._marker)
                and not match.group(2).strip()
            ):
                self._marker, self.open_lines = "", None
            else:
                self.open_lines = (self.open_lines or 0) + 1
        elif match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            self._marker, self.open_lines = match.group(1), 0


@dataclass(slots=True)
class FencePacer:
    """Decides, tick by tick, whether pending answer text should be appended now."""

    tracker: FenceTracker
    last_flush: float = float("-inf")

    def due(self, now: float) -> bool:
        lines = self.tracker.open_lines
        if lines is None or lines < SHORT_FENCE_LINES:
            return True
        interval = min(MAX_INTERVAL, max(MIN_INTERVAL, lines * SECONDS_PER_LINE))
        return now - self.last_flush >= interval

    def flushed(self, now: float) -> None:
        self.last_flush = now


def new_pacer() -> FencePacer:
    return FencePacer(FenceTracker())


__all__ = ["FencePacer", "FenceTracker", "new_pacer"]
