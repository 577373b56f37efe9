"""One render clock for the whole app.

Workers only fill Turns; on each tick this clock asks every live pane to draw what arrived since
the last one, all inside one `App.batch_update()`, so the screen is laid out and painted once
per tick however many panes stream. Measured against a MarkdownStream per widget, this keeps
event-loop lag low with several panes (reference/textual.md, A2).

The period adapts between a ceiling of 15 frames a second while drawing is cheap and a floor of
4 (250 ms, the bare Textual floor's rate in bench/bench_render.py) while the process uses more
than a fifth of a core, since every tick that changes the layout costs a whole-screen Textual
reflow and a repaint, whose cost grows with the screen's size; the floor keeps the text moving
(a frame at least every 250 ms, bench/README.md). Against a floor of 5 it cost 13-19% less CPU
(6,000 tokens, 200x50).
The final frame of a stream is drawn at once, not on the next tick.

The clock also owns the garbage-collection policy. Python's automatic full (oldest-generation)
collections were the long stalls while streaming, at moments nobody chose, so they are turned off
while any pane is live; instead the clock runs one itself every few seconds, right after a frame,
and once more after the last stream ends. Young collections keep running. Turning GC off
altogether let a 20,000-token stream grow the heap past 350 MB. When the first stream starts,
what the process holds by then (modules, classes, the screens: alive for good) is moved out of
the collector's sight (`gc.freeze`), and so is what survives each of the clock's collections:
each one walks only what was made since the last, not every answer on screen again. Three panes
of 20,000 tokens made that walk 450 ms long by their end (bench/bench_compare.py's probe), a
stall every five seconds, and one just as the streams ended held their final frames past a
second. What was frozen and died since is freed by one full collection (unfrozen,
then frozen again) a second after the last stream ends, once the final frames are out (an
answer too short for the clock's own collections needs only a young one then): Textual
writes from a thread, which a collection would hold up. Frames make almost no cyclic garbage
(app/ui/widgets/markdown_view.py, `fitted`), so little waits for it.

Each of the clock's collections also empties the memo caches that Textual and Rich key on a
region or a line's text (`Region.intersection`, `union`, `grow`, … and Rich's `cached_cell_len`).
A growing answer scrolls every region to new coordinates and every line is new text, so those
entries are almost never asked for again, yet they fill to their bounds (4,096 each): 24,000
entries, about 7 MB, 100 s into the 20,000-token answer, against the 80 MB target.
What a frame needs again is back in them by the next frame.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any, Protocol

from rich.cells import cached_cell_len
from textual.app import App
from textual.geometry import Region
from textual.timer import Timer

NO_FULL_COLLECTIONS = 1_000_000_000  # gen-2 threshold while streaming
FULL_COLLECTION_EVERY = 5.0  # seconds of streaming between the clock's own full collections
IDLE_COLLECTION_DELAY = 1.0  # seconds after the last stream ends
PERIOD = 1 / 15  # the ceiling: 15 frames a second is as fast as anyone reads
MAX_PERIOD = 0.25  # the floor: text keeps moving at least 4 times a second
BUSY = 0.2  # share of one core above which the period is stretched
IDLE = 0.1  # ... and below which it shrinks back


# Memo caches keyed on a region or a line of text, which a stream fills with one-off entries.
POSITION_CACHES: tuple[Callable[..., Any], ...] = (
    Region.intersection,
    Region.union,
    Region.grow,
    Region.shrink,
    Region.translate,
    Region.overlaps,
    Region.contains_region,
    Region.__contains__,
    Region.split,
    Region.split_vertical,
    Region.split_horizontal,
    cached_cell_len,
)


def trim_position_caches() -> None:
    for cache in POSITION_CACHES:
        cache.cache_clear()  # type: ignore[attr-defined]


class Drawable(Protocol):
    async def flush(self, now: float) -> bool:
        """Draw pending updates; True once the stream is over and everything is drawn."""
        ...


def next_period(period: float, load: float, longest: float = MAX_PERIOD) -> float:
    """The period after a tick that saw `load` (CPU seconds per wall second)."""
    if load > BUSY:
        return min(longest, period * 1.5)
    if load < IDLE:
        return max(PERIOD, period / 1.5)
    return period


class RenderClock:
    def __init__(
        self,
        app: App[Any],
        *,
        clock: Callable[[], float] = time.monotonic,
        cpu_clock: Callable[[], float] = time.process_time,
        manage_gc: bool = True,
        on_live: Callable[[bool], None] | None = None,
    ) -> None:
        self._app = app
        self._on_live = on_live  # told when the first stream starts and the last one ends
        self._clock = clock
        self._cpu_clock = cpu_clock
        self._manage_gc = manage_gc
        self._live: dict[Drawable, None] = {}  # insertion-ordered set
        self._timer: Timer | None = None
        self._gc_paused = False
        self._gc_thresholds = gc.get_threshold()
        self._frozen = False  # what was alive at the first stream is out of the collector's sight
        self._swept = True  # nothing frozen by the clock's own collections waits for a sweep
        self._collected_at = 0.0
        self._ticking = False
        self._again = False
        self._last = (0.0, 0.0)  # (wall, cpu) at the previous tick
        self.period = PERIOD
        # The longest period under load; a screen whose ticks cost more (several panes side by
        # side, each layout walking all of them) may allow a longer one while it shows.
        self.max_period = MAX_PERIOD
        self.ticks = 0

    @property
    def live(self) -> bool:
        return bool(self._live)

    def now(self) -> float:
        return self._clock()

    def add(self, item: Drawable) -> None:
        """Draw `item` on every tick until its `flush` reports it finished."""
        if not self._live and self._on_live is not None:
            self._on_live(True)
        self._live[item] = None
        if self._manage_gc and not self._gc_paused:
            self._gc_thresholds = gc.get_threshold()
            young, middle, _ = self._gc_thresholds
            gc.set_threshold(young, middle, NO_FULL_COLLECTIONS)
            self._gc_paused = True
            if not self._frozen:
                self._frozen = True
                gc.freeze()
            self._collected_at = time.monotonic()
        self._last = (time.monotonic(), self._cpu_clock())
        self._start(PERIOD)

    def tick_now(self) -> None:
        """Draw soon, without waiting for the period (a stream just ended)."""
        self._app.call_later(self.tick)

    def _start(self, period: float) -> None:
        if self._timer is not None and period == self.period:
            self._timer.resume()
            return
        if self._timer is not None:
            self._timer.stop()
        self.period = period
        self._timer = self._app.set_interval(period, self.tick, name="render-clock")

    async def tick(self) -> None:
        if self._ticking:
            self._again = True
            return
        self._ticking = True
        try:
            await self._draw()
            while self._again:
                self._again = False
                await self._draw()
        finally:
            self._ticking = False
        if not self._live:
            self._idle()
            return
        self._adapt()
        if self._gc_paused and time.monotonic() - self._collected_at >= FULL_COLLECTION_EVERY:
            self._collected_at = time.monotonic()
            self._app.call_after_refresh(self.collect_and_freeze)

    async def _draw(self) -> None:
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

    def _adapt(self) -> None:
        wall, cpu = time.monotonic(), self._cpu_clock()
        last_wall, last_cpu = self._last
        if wall - last_wall < 0.5:  # judge the load over half a second at least
            return
        self._last = (wall, cpu)
        load = (cpu - last_cpu) / (wall - last_wall)
        period = next_period(self.period, load, self.max_period)
        if period != self.period:
            self._start(period)

    def _idle(self) -> None:
        if self._on_live is not None:
            self._on_live(False)
        if self._timer is not None:
            self._timer.pause()
        if self._gc_paused:
            self._resume_gc()
            self._app.set_timer(IDLE_COLLECTION_DELAY, self._collect_all)

    def collect_and_freeze(self) -> None:
        """A full collection of what is in sight, and what survives it out of sight; the
        position caches emptied first."""
        trim_position_caches()
        gc.collect()
        gc.freeze()
        self._swept = False

    def _collect_all(self) -> None:
        """After the last stream: if the clock froze what its own collections left, everything
        in the collector's sight again for one full collection, then out of it; else (a short
        answer) a collection of what is in sight is enough. Not while a stream has started
        since (it would be the stall this policy avoids)."""
        if self._live:
            return
        if self._swept or not self._frozen:
            gc.collect()
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._swept = True

    def stop(self) -> None:
        """At exit: GC back on whatever happened."""
        self._live.clear()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._gc_paused:
            self._resume_gc()
        if self._frozen:
            self._frozen = False
            gc.unfreeze()

    def _resume_gc(self) -> None:
        self._gc_paused = False
        gc.set_threshold(*self._gc_thresholds)


__all__ = [
    "MAX_PERIOD",
    "PERIOD",
    "POSITION_CACHES",
    "Drawable",
    "RenderClock",
    "next_period",
    "trim_position_caches",
]
