"""The Textual floor of the render benchmark: the least a Textual app pays to show a stream.

    python bench/textual_floor.py URL OUT.json [PERIOD]

A Header, Textual's own `Log` widget (line API, scrolls without a layout, no wrapping, no
Markdown) and a Footer; an async httpx stream read with `aiter_lines` and `json.loads`, its
text deltas kept in a buffer that is written to the Log every PERIOD seconds (0.25: the slowest
frame rate the app allows). No app code. What it costs over `plain_floor.py` is what Textual
itself costs to draw the same text at that rate; the app cannot go below it without drawing
less often. When the stream ends it writes its CPU seconds, the time of its last write and its
peak memory as JSON to OUT and exits. Run by `bench_render.py`; not part of the test run.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import httpx
from textual import work
from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Log


class Floor(App[None]):
    def __init__(self, base_url: str, out: Path, period: float) -> None:
        super().__init__()
        self.base_url = base_url
        self.out = out
        self.period = period
        self.pending: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Log()
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(self.period, self.flush)
        self.stream()

    def flush(self) -> None:
        if self.pending:
            self.query_one(Log).write("".join(self.pending))
            self.pending.clear()

    @work(exclusive=True)
    async def stream(self) -> None:
        body = {"model": "bench", "stream": True, "messages": [{"role": "user", "content": "go"}]}
        started = time.process_time()
        async with (
            httpx.AsyncClient(timeout=600) as client,
            client.stream("POST", f"{self.base_url}/chat/completions", json=body) as response,
        ):
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    break
                for choice in json.loads(payload).get("choices") or ():
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        self.pending.append(text)
        self.flush()
        self.call_after_refresh(self.finish, started)

    def finish(self, started: float) -> None:
        last_write = time.time()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        report = {
            "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "stream_cpu": time.process_time() - started,
            "last_write": last_write,
            "peak_rss_mb": usage.ru_maxrss / 1024,
        }
        self.out.write_text(json.dumps(report), encoding="utf-8")
        self.set_timer(1.0, self.exit)  # the reader's poll sees the end first


if __name__ == "__main__":
    period = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
    Floor(sys.argv[1], Path(sys.argv[2]), period).run()
