"""The plain floor of the render benchmark: httpx, `iter_lines`, `json.loads`, print each delta.

    python bench/plain_floor.py URL OUT.json

No app code at all (not even its decoder): what any Python client streaming Chat Completions
and printing each text delta as it arrives costs, the reference `bench_render.py` compares the
app with. It writes each delta to the terminal and flushes, then its CPU seconds,
the time of its last write and its peak memory as JSON to OUT. Run by `bench_render.py` in the
same kind of tmux terminal as the app; not part of the test run.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import httpx


def main(base_url: str, out: Path) -> None:
    write, flush = sys.stdout.write, sys.stdout.flush
    body = {"model": "bench", "stream": True, "messages": [{"role": "user", "content": "go"}]}
    started = time.process_time()
    with (
        httpx.Client(timeout=600) as client,
        client.stream("POST", f"{base_url}/chat/completions", json=body) as response,
    ):
        for line in response.iter_lines():
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                break
            for choice in json.loads(payload).get("choices") or ():
                text = (choice.get("delta") or {}).get("content")
                if text:
                    write(text)
                    flush()
    last_write = time.time()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    report = {
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "stream_cpu": time.process_time() - started,
        "last_write": last_write,
        "peak_rss_mb": usage.ru_maxrss / 1024,
    }
    out.write_text(json.dumps(report), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
