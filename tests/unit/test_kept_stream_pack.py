"""Keeping an answer's stream with it (app/providers/kept_stream.py) costs memory in proportion
to one line of its recording, not to the whole of it (packing a 20,000-token answer
built its recording four times over, at the moment the answer ended)."""

from __future__ import annotations

import json
import tracemalloc

from app.providers.capture import ExchangeCapture
from app.providers.kept_stream import pack, recording_of
from app.providers.record import recording_text

READS = 20_000


def long_exchange() -> ExchangeCapture:
    capture = ExchangeCapture("POST", "http://127.0.0.1:9/v1/chat/completions", {}, {"m": 1})
    capture.response(200, {"content-type": "text/event-stream"})
    for n in range(READS):
        delta = {"choices": [{"index": 0, "delta": {"content": f" word{n % 97}"}}]}
        capture.data(f"data: {json.dumps(delta)}\n\n".encode(), at_ms=float(n))
    capture.end("done")
    return capture


def test_packing_a_long_stream_never_holds_its_whole_recording() -> None:
    exchange = long_exchange().exchange
    text = recording_text(exchange)
    assert text.count("\n") == READS + 3  # request, response, the reads, end
    tracemalloc.start()
    try:
        blob = pack(exchange)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert recording_of(blob) == text  # the same recording, compressed
    assert peak < len(text) // 4, f"peak {peak:,} bytes for a {len(text):,}-character recording"
