"""Wire benchmark: what the inspector and the replay cost a long answer.

    python bench/bench_wire.py                      # about 5 minutes at 200 tok/s
    python bench/bench_wire.py --tokens 5000 --repeat 3
    python bench/bench_wire.py --skip open --wrap "py-spy record -r 100 -f raw -o p.txt --"

Three measurements, each on bench_render.py's answer (20,000 tokens of Markdown, one token per
Chat Completions event) and with its harness (the app as `python -m app` from this checkout in
tmux, a loopback server, the app's own probe TRIPTYCH_LAG_LOG):

1. `closed` / `open`: the answer at `--rate` tok/s with the inspector closed, then with it open
   (F2 once the request has arrived): CPU seconds of the process, last byte -> final text on
   screen (the app's stamp of its settled frame, and as tmux shows it), peak RSS. Targets: open
   costs at most 1.3x the CPU of closed, and keeps real time (final text under 1 s after the
   last byte).
2. `frames`: the memory 20,000 stored frames hold: the answer's bytes decoded with the capture
   the client keeps for every answer (bench_capture.py's run, tracemalloc), and the peak-RSS
   difference between `open` and `closed` (what showing them adds). Target: at most 30 MB.
3. `live` / `replay`: the answer at full speed, live (typed in the prompt), then recorded with
   `triptych ask --record` and replayed with `triptych replay FILE --ui --speed max` (which
   opens the inspector): the time from the prompt showing to the final text on screen, as tmux
   sees it. Target: the replay settles within 2x the live stream.

Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.frames import Answer, frames
from app.demo.loopback import LoopbackServer
from app.wire.engine import Api
from bench.bench_capture import make
from bench.bench_capture import run as decode_with_capture
from bench.bench_decode import split
from bench.bench_render import (
    END_MARK,
    TREE,
    Result,
    ScreenWatch,
    Tmux,
    answer_tokens,
    base_env,
    env_command,
    parse_size,
    read_report,
    run_app,
    serve,
)


def stored_frames_mb(tokens: tuple[str, ...]) -> tuple[int, float]:
    """(frames, MB) the capture of this answer holds once decoded, as the client keeps it."""
    body = b"".join(frames(Api.CHAT, Answer(text=tokens)))
    pieces = split(body, 16 * 1024)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    capture = make(())
    turn = decode_with_capture(Api.CHAT, pieces, capture)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert END_MARK in turn.text
    return len(capture.exchange.frames), held / 1e6


def record(tokens: tuple[str, ...], work: Path) -> Path:
    """The answer at full speed through `triptych ask --record` (the app's own recorder)."""
    server = serve(tokens, 0)
    path = work / f"recording-{uuid.uuid4().hex[:6]}.jsonl"
    env = {**os.environ, **base_env(work)}
    argv = [sys.executable, "-m", "app", "ask", "--api", "chat", "--base-url"]
    argv += [f"{server.url}/v1", "--model", "bench-model", "--record", str(path), "go"]
    try:
        subprocess.run(argv, env=env, cwd=TREE, check=True, capture_output=True, timeout=300)
    finally:
        server.close()
    return path


def settle_time(argv: list[str], work: Path, size: tuple[int, int], typed: bool) -> float:
    """Seconds from the prompt showing ("Ask anything") to the final text and "complete" on
    screen, as tmux sees it; `typed`: the bench types the prompt (a live run), else the app
    asks by itself (a replay)."""
    tmux = Tmux()
    done = ScreenWatch(tmux, lambda s: END_MARK in s and "complete" in s)
    lag_log = work / f"lag-{uuid.uuid4().hex[:6]}.json"
    env = {**base_env(work), "TRIPTYCH_LAG_LOG": str(lag_log)}
    try:
        tmux.start(env_command(env, argv), size)
        shown = tmux.wait(lambda s: "Ask anything" in s, 30, poll=0.01)
        done.start()
        if typed:
            tmux.keys("go", "Enter")
        on_screen = done.wait_done(600)
        tmux.keys("C-q")
        read_report(lag_log, time.monotonic() + 20)
    finally:
        done.stop()
        tmux.close()
    return on_screen - shown


def live_config(tokens: tuple[str, ...], work: Path) -> tuple[list[str], LoopbackServer]:
    server = serve(tokens, 0)
    config = work / f"config-{uuid.uuid4().hex[:6]}.toml"
    config.write_text(
        f'default = "bench"\n[providers.bench]\napi = "chat"\nbase_url = "{server.url}/v1"\n'
        'model = "bench-model"\n',
        encoding="utf-8",
    )
    return [sys.executable, "-m", "app", "--config", str(config)], server


def row(name: str, r: Result) -> str:
    return (
        f"{name:<10} {r.cpu:>7.2f} {r.stream_cpu:>7.2f} {r.last_byte_to_screen_ms:>7.0f}"
        f" {r.last_byte_to_tmux_ms:>7.0f} {r.peak_mb:>7.1f} {r.lag.get('lag_p95_ms', 0):>7.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--rate", type=float, default=200.0, help="tok/s of the closed/open runs")
    parser.add_argument("--size", default="200x50")
    parser.add_argument("--repeat", type=int, default=1, help="runs per row (medians)")
    parser.add_argument("--skip", default="", help="leave out: closed,open,frames,replay")
    parser.add_argument("--wrap", default="", help="command prefix for the app (a profiler)")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    size = parse_size(args.size)
    wrap = shlex.split(args.wrap)
    tokens = answer_tokens(args.tokens)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(TREE / "app")], check=True)
    results: dict[str, list[Result]] = {"closed": [], "open": []}
    times: dict[str, list[float]] = {"live": [], "replay": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _ in range(args.repeat):  # rounds interleaved: the machine's load drifts
            for name, keys in (("closed", ()), ("open", ("F2",))):
                if name not in skip:
                    label = f"{name} {args.rate:g} tok/s"
                    result = run_app(tokens, args.rate, label, work, wrap, size, TREE, keys)
                    results[name].append(result)
            if "replay" not in skip:
                argv, server = live_config(tokens, work)
                try:
                    times["live"].append(settle_time(argv, work, size, typed=True))
                finally:
                    server.close()
                path = record(tokens, work)
                replay = [sys.executable, "-m", "app", "replay", str(path), "--ui"]
                times["replay"].append(
                    settle_time([*replay, "--speed", "max"], work, size, typed=False)
                )
    load = os.getloadavg()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load[0]:.1f}"
        f" {load[1]:.1f} {load[2]:.1f}, {len(tokens)} tokens, {args.size},"
        f" {args.repeat} run(s) per row (medians)"
    )
    medians: dict[str, Result] = {}
    if results["closed"] or results["open"]:
        print(f"{'run':<10} {'cpu s':>7} {'stream':>7} {'end ms':>7} {'tmux ms':>7}"
              f" {'peak MB':>7} {'lag p95':>7}")  # fmt: skip
        for name, runs in results.items():
            if runs:
                if len(runs) > 1:
                    for number, run in enumerate(runs, 1):
                        print(row(f"{name} #{number}", run))
                medians[name] = pick_median(runs)
                print(row(name, medians[name]))
    if "closed" in medians and "open" in medians:
        closed, opened = medians["closed"], medians["open"]
        ratio = opened.cpu / closed.cpu
        print(
            f"open/closed CPU = {ratio:.2f}x (target <= 1.3x): {verdict(ratio <= 1.3)};"
            f" open keeps real time: end {opened.last_byte_to_screen_ms:.0f} ms"
            f" (target < 1000): {verdict(opened.last_byte_to_screen_ms < 1000)}"
        )
        print(f"peak RSS open - closed = {opened.peak_mb - closed.peak_mb:+.1f} MB")
    if "frames" not in skip:
        count, held = stored_frames_mb(tokens)
        met = verdict(held <= 30)
        print(f"stored frames: {count} frames hold {held:.1f} MB (target <= 30): {met}")
    if times["live"] and times["replay"]:
        live, replay = statistics.median(times["live"]), statistics.median(times["replay"])
        print(
            f"full speed: live {live:.2f} s, replay --speed max {replay:.2f} s ="
            f" {replay / live:.2f}x (target <= 2x): {verdict(replay <= 2 * live)}"
        )
    return 0


def pick_median(runs: list[Result]) -> Result:
    """The run with the median CPU (its other figures with it)."""
    return sorted(runs, key=lambda r: r.cpu)[len(runs) // 2]


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


if __name__ == "__main__":
    raise SystemExit(main())
