"""Capture benchmark: what keeping the inspector's data (every frame, its time, the events it
produced, the raw reads) costs the decoding of a 20,000-event stream, per wire format.

Three ways over the same bytes, fed in network-sized reads as the client feeds them:

- engine:  `StreamEngine` + `Turn`, nothing kept (the decode benchmark's engine column);
- capture: the same with an `ExchangeCapture` told of every read and tapped for every frame,
           as `ProviderClient` does for every answer (a local server: no secrets to redact);
- secret:  the same with a provider key, so every read and frame goes through the redactor.

It prints the time of each and its ratio to the engine, and the memory the captured exchange
holds (tracemalloc). Not part of the test run.

    .venv/bin/python bench/bench_capture.py [--events 20000] [--read 256] [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import tracemalloc
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.providers.capture import ExchangeCapture
from app.wire import Api, StreamEngine, Turn
from bench.bench_decode import best_times, chat_stream, messages_stream, responses_stream, split

KEY = "sk-bench-0123456789abcdefghijklmnopqrstuv"
STREAMS = {Api.CHAT: chat_stream, Api.MESSAGES: messages_stream, Api.RESPONSES: responses_stream}


def run(api: Api, pieces: list[bytes], capture: ExchangeCapture | None) -> Turn:
    engine = StreamEngine(api)
    if capture is not None:
        engine.tap = capture.tap
    turn = Turn()
    for piece in pieces:
        if capture is not None:
            capture.data(piece)
        turn.apply_all(engine.feed(piece))
        if engine.done:
            break
    turn.apply_all(engine.close())
    turn.end()
    if capture is not None:
        capture.end("done")
    return turn


def make(secrets: tuple[str, ...]) -> ExchangeCapture:
    headers = {"Authorization": f"Bearer {KEY}"} if secrets else {}
    return ExchangeCapture("POST", "http://127.0.0.1/v1", headers, {"model": "m"}, secrets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--read", type=int, default=256, help="bytes per network read")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'format':<10} {'engine':>9} {'capture':>9} {'×':>6} {'secret':>9} {'×':>6} "
          f"{'frames':>7} {'memory':>9}")  # fmt: skip
    for api, make_stream in STREAMS.items():
        body = make_stream(args.events)
        pieces = split(body, args.read)
        times = best_times(
            args.repeat,
            {
                "engine": partial(run, api, pieces, None),
                "capture": lambda api=api, pieces=pieces: run(api, pieces, make(())),
                "secret": lambda api=api, pieces=pieces: run(api, pieces, make((KEY,))),
            },
        )
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        capture = make(())
        turn = run(api, pieces, capture)
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert turn.text
        assert capture.exchange.raw == body
        engine, kept, secret = times["engine"], times["capture"], times["secret"]
        print(
            f"{api.value:<10} {engine:>8.3f}s {kept:>8.3f}s {kept / engine:>5.2f}× "
            f"{secret:>8.3f}s {secret / engine:>5.2f}× {len(capture.exchange.frames):>7} "
            f"{held / 1e6:>7.1f}MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
