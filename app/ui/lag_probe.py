"""Event-loop lag probe for the render benchmark, enabled by `TRIPTYCH_LAG_LOG=path`.

A 10 ms asyncio sleep loop records how late each wake-up is (a stand-in for keypress latency);
`TRIPTYCH_LAG_EVERY=seconds` sets another period. The loop itself costs about 3% of a core at
10 ms (a bare asyncio loop, measured), which a floor measured beside the app does not pay:
bench/bench_render.py wakes it every 250 ms, as often as it samples.
Every quarter second it also samples (wall time, CPU seconds, parts received, frames drawn, RSS
MB), from which the benchmark derives the CPU cost per token early and late in a long answer, how
often the screen was updated while tokens arrived and when memory peaked. At exit the lag
percentiles, the process's CPU seconds and peak memory, the samples, and the wall-clock times of
the frames drawn once each stream had ended are written as JSON to the path.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LAG_LOG_ENV = "TRIPTYCH_LAG_LOG"
LAG_EVERY_ENV = "TRIPTYCH_LAG_EVERY"
INTERVAL = 0.01
SAMPLE_EVERY = 0.25


def rss_mb() -> float:
    """The process's resident memory now (Linux; 0 elsewhere), to see when the peak happens."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def thread_cpu() -> dict[str, float]:
    """CPU seconds of each live thread (Linux; empty elsewhere): the main thread's share of
    the process's is what drawing and decoding cost, the rest the store's writer, Textual's
    input and output threads."""
    tick = os.sysconf("SC_CLK_TCK")
    seconds: dict[str, float] = {}
    for thread in threading.enumerate():
        try:
            stat = Path(f"/proc/self/task/{thread.native_id}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            seconds[thread.name] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return seconds


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


@dataclass(slots=True)
class LagProbe:
    path: Path
    progress: Callable[[], int] = lambda: 0
    ticks: Callable[[], int] = lambda: 0  # render clock ticks so far (frames drawn)
    lags: list[float] = field(default_factory=list)
    samples: list[tuple[float, float, int, int, float]] = field(default_factory=list)
    final_frames: list[float] = field(default_factory=list)  # time.time() of settled frames
    # every full (oldest-generation) collection: time.time() it ended, ms it took, objects freed
    collections: list[tuple[float, float, int]] = field(default_factory=list)
    stalls: list[tuple[float, float]] = field(default_factory=list)  # (time.time(), ms) > 100 ms
    interval: float = INTERVAL  # seconds between the loop's wake-ups
    _task: asyncio.Task[None] | None = None
    _collecting: float = 0.0

    @classmethod
    def from_env(cls) -> LagProbe | None:
        value = os.environ.get(LAG_LOG_ENV, "")
        if not value:
            return None
        try:
            every = float(os.environ.get(LAG_EVERY_ENV, "") or INTERVAL)
        except ValueError:
            every = INTERVAL
        return cls(Path(value), interval=every if 0.001 <= every <= 1.0 else INTERVAL)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())
        gc.callbacks.append(self._collected)

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._collecting = time.perf_counter()
            return
        took = (time.perf_counter() - self._collecting) * 1000
        self.collections.append((time.time(), took, info["collected"]))

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_sample = 0.0
        while True:
            before = loop.time()
            await asyncio.sleep(self.interval)
            after = loop.time()
            lag = max(0.0, after - before - self.interval)
            self.lags.append(lag)
            if lag > 0.1:  # the loop was held up: when, to match with what ran then
                self.stalls.append((time.time(), lag * 1000))
            if after >= next_sample:
                next_sample = after + SAMPLE_EVERY
                self.samples.append(
                    (time.time(), time.process_time(), self.progress(), self.ticks(), rss_mb())
                )

    def frame_settled(self) -> None:
        self.final_frames.append(time.time())

    def write(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._collected in gc.callbacks:
            gc.callbacks.remove(self._collected)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        report = {
            "lag_samples": len(self.lags),
            "lag_p50_ms": percentile(self.lags, 0.50) * 1000,
            "lag_p95_ms": percentile(self.lags, 0.95) * 1000,
            "lag_p99_ms": percentile(self.lags, 0.99) * 1000,
            "lag_max_ms": max(self.lags, default=0.0) * 1000,
            "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "peak_rss_mb": usage.ru_maxrss / 1024,
            "thread_cpu_seconds": thread_cpu(),
            "full_collections": self.collections,
            "stalls": self.stalls,
            "final_frames": self.final_frames,
            "samples": self.samples,
        }
        self.path.write_text(json.dumps(report, indent=2), encoding="utf-8")


__all__ = ["LAG_LOG_ENV", "LagProbe", "percentile"]
