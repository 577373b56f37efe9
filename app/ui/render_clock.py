"""One render clock for the whole app.

Workers only fill Turns; every ~50 ms this clock asks each live pane to draw what arrived since
the last tick, all inside one `App.batch_update()`, so the screen is composed once per tick
however many panes stream. Measured against a MarkdownStream per widget, this keeps event-loop
lag low with several panes (reference/textual.md, A2).

It also owns the garbage-collection policy: full collections were the long stalls while
streaming, so automatic GC is paused while any pane is live and one collection runs once all
are idle, after the final frame has been painted.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any, Protocol

from textual.app import App
from textual.timer import Timer

PERIOD = 0.05


class Drawable(Protocol):
    async def flush(self, now: float) -> bool:
        """Draw pending updates; True once the stream is over and everything is drawn."""
        ...


class RenderClock:
    def __init__(
        self,
        app: App[Any],
        *,
        clock: Callable[[], float] = time.monotonic,
        period: float = PERIOD,
        manage_gc: bool = True,
    ) -> None:
        self._app = app
        self._clock = clock
        self._period = period
        self._manage_gc = manage_gc
        self._live: dict[Drawable, None] = {}  # insertion-ordered set
        self._timer: Timer | None = None
        self._gc_paused = False
        self.ticks = 0

    @property
    def live(self) -> bool:
        return bool(self._live)

    def now(self) -> float:
        return self._clock()

    def add(self, item: Drawable) -> None:
        """Draw `item` on every tick until its `flush` reports it finished."""
        self._live[item] = None
        if self._manage_gc and not self._gc_paused:
            gc.disable()
            self._gc_paused = True
        if self._timer is None:
            self._timer = self._app.set_interval(self._period, self.tick, name="render-clock")
        else:
            self._timer.resume()

    async def tick(self) -> None:
        if not self._live:
            return
        self.ticks += 1
        now = self._clock()
        finished: list[Drawable] = []
        with self._app.batch_update():
            for item in list(self._live):
                if await item.flush(now):
                    finished.append(item)
        for item in finished:
            self._live.pop(item, None)
        if not self._live:
            self._idle()

    def _idle(self) -> None:
        if self._timer is not None:
            self._timer.pause()
        if self._gc_paused:
            self._gc_paused = False
            gc.enable()
            self._app.call_after_refresh(gc.collect)

    def stop(self) -> None:
        """At exit: GC back on whatever happened."""
        self._live.clear()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._gc_paused:
            self._gc_paused = False
            gc.enable()


__all__ = ["PERIOD", "Drawable", "RenderClock"]
