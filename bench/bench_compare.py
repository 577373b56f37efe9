"""Compare benchmark: several panes streaming at once through the real app in a real terminal.

    python bench/bench_compare.py                      # both measurements, defaults below
    python bench/bench_compare.py --cpu-tokens 20000 --lag-tokens 2000 --repeat 3

1. CPU. The same Markdown answer (bench_render's) at full speed, to one pane alone (the normal
   chat screen, `triptych --provider p1`) and to three panes at once (`triptych --compare
   p1,p2,p3`). Target: three panes cost at most 1.5x the CPU of one. Beside it, the same
   ratio for a plain client (the app's own ProviderClient and decoder in one process, keeping
   the text, drawing nothing) streaming three answers at once against one: what the network
   and decoding alone cost per extra stream.
2. Lag. Four panes (`--compare p1,p2,p3,p4`), each answer paced at 100 tokens/s. Target:
   event-loop lag under 50 ms at p95 and 500 ms at worst.
3. Paced CPU. The same 20,000-token answer paced at 200 tokens/s, to one pane and to
   three panes at once (each at 200 tokens/s), in the same run: what the screen costs at a
   speed models stream at, rather than network and decoding at full speed. Target: three panes
   at most 2.5x the CPU of one, and every pane keeping real time: from a pane's last byte to
   the final text on screen under 1 s: the n-th pane to get its last byte paired with the n-th
   of the app's last settled frames (`end ms`, the slowest pane's), and the last pane's as
   tmux shows it (`tmux ms`: every pane's end mark and `complete` on screen, polled every
   20 ms; the ranking line, which waits for every answer's off-screen part too, comes after).
   About 100 s per run.

The answers come from one loopback server in this process (the tests' HTTP core, real chunked
SSE in the Chat Completions shape), so the app's CPU is the app's alone. The app (`python -m app`
from this checkout, like bench_render) runs in tmux at 160x48 with TRIPTYCH_LAG_LOG
(app/ui/lag_probe.py), which samples wall time and CPU every quarter second and records the wall
time of every settled frame. "stream CPU" is the CPU spent
from the first request reaching the server to the last pane's final frame (interpolated between
samples); "run CPU" is the whole process, and "idle" the same start and quit with no prompt,
so "run - idle" is what answering cost, wherever it fell (streaming, settling, collecting).
Lag percentiles are over the whole run (start-up included). Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from bench_render import (
    END_MARK,
    WALL_OFFSET,
    Tmux,
    answer_tokens,
    base_env,
    env_command,
    last_byte_wall,
    serve,
)

LAG_KEYS = ("lag_p50_ms", "lag_p95_ms", "lag_p99_ms", "lag_max_ms")


@dataclass
class Run:
    name: str
    panes: int
    run_cpu: float
    stream_cpu: float
    stream_seconds: float
    peak_mb: float
    lag: dict[str, float]
    to_screen: float | None = None  # s: the slowest pane's last byte -> its settled frame
    to_tmux: float | None = None  # s: the last pane's last byte -> tmux showing the end
    stagger: float | None = None  # s: the panes' last bytes from first to last


def cpu_at(samples: list[list[float]], wall: float) -> float:
    """Process CPU seconds at a wall time, interpolated between the probe's samples."""
    before = [s for s in samples if s[0] <= wall]
    after = [s for s in samples if s[0] >= wall]
    if not before:
        return float(after[0][1])
    if not after:
        return float(before[-1][1])
    (w0, c0, *_), (w1, c1, *_) = before[-1], after[0]
    return float(c0 if w1 == w0 else c0 + (c1 - c0) * (wall - w0) / (w1 - w0))


async def plain_streams(url: str, count: int, out: Path) -> None:
    """The reference: one process that streams `count` answers at once with the app's own
    client and decoder, keeping the text and drawing nothing."""
    import asyncio
    import resource

    from app.providers.client import ProviderClient
    from app.settings.config import ProviderConfig
    from app.wire.conversation import Conversation
    from app.wire.engine import Api
    from app.wire.turn import Turn

    started = time.process_time()

    async def one(n: int) -> Turn:
        provider = ProviderConfig(name=f"p{n}", api=Api.CHAT, base_url=url, model="m")
        conversation = Conversation()
        conversation.add_user("go")
        turn = Turn()
        async with ProviderClient(provider, None) as client:
            await client.stream(conversation, turn, None, lambda event: None)
        return turn

    turns = await asyncio.gather(*(one(n) for n in range(count)))
    assert all(END_MARK in turn.text for turn in turns)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.write_text(
        json.dumps(
            {
                "cpu_seconds": usage.ru_utime + usage.ru_stime,
                "stream_cpu": time.process_time() - started,
            }
        ),
        encoding="utf-8",
    )


def run_plain(tokens: tuple[str, ...], count: int, work: Path) -> tuple[float, float]:
    """(whole-process CPU, streaming CPU) of `count` plain streams in a fresh interpreter."""
    server = serve(tokens, 0)
    out = work / f"plain-{uuid.uuid4().hex[:6]}.json"
    argv = [sys.executable, str(Path(__file__).resolve()), "--plain", str(count), server.url]
    try:
        subprocess.run([*argv, str(out)], check=True, env={**os.environ, **base_env(work)})
    finally:
        server.close()
    report = json.loads(out.read_text())
    return report["cpu_seconds"], report["stream_cpu"]


def write_config(work: Path, url: str, count: int) -> Path:
    lines = ['default = "p1"']
    for n in range(1, count + 1):
        lines += [f"[providers.p{n}]", 'api = "chat"', f'base_url = "{url}/v1"', 'model = "m"']
    path = work / "config.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_app(
    tokens: tuple[str, ...], rate: float, panes: int, work: Path, *, ask: bool = True
) -> Run:
    server = serve(tokens, rate)
    config = write_config(work, server.url, max(panes, 2))
    lag_log = work / f"lag-{uuid.uuid4().hex[:6]}.json"
    env = {**base_env(work), "TRIPTYCH_CONFIG": str(config), "TRIPTYCH_LAG_LOG": str(lag_log)}
    app = [sys.executable, "-m", "app"]  # this checkout (base_env sets PYTHONPATH)
    if panes == 1:
        argv = [*app, "--provider", "p1"]
    else:
        argv = [*app, "--compare", ",".join(f"p{n}" for n in range(1, panes + 1))]
    tmux = Tmux()
    try:
        tmux.start(env_command(env, argv))
        tmux.wait(lambda s: "Ask anything" in s, 20)
        first_request = time.time()
        last_bytes: list[float] = []
        seen = None
        if ask:
            tmux.keys("go", "Enter")
            deadline = time.monotonic() + 20
            while len(server.requests) < panes and time.monotonic() < deadline:
                time.sleep(0.01)
            first_request = min(r.received for r in server.requests) + WALL_OFFSET
            last_bytes = [last_byte_wall(request) for request in server.requests]
            if panes == 1:
                seen = tmux.wait(lambda s: END_MARK in s and "complete" in s, 600)
            else:  # every pane's end and its status word on screen; then the ranking line
                seen = tmux.wait(lambda s: s.count(END_MARK) == panes and ended(s, panes), 600)
                tmux.wait(lambda s: "ranking" in s, 600)
            time.sleep(0.5)  # the app stamps its settled frame just after the refresh seen
        else:
            time.sleep(1.0)
        tmux.keys("C-q")
        deadline = time.monotonic() + 20
        while not lag_log.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        report = json.loads(lag_log.read_text())
        if keep := os.environ.get("BENCH_KEEP_LOGS"):  # a folder: the probe's report, to read
            report["last_bytes_wall"] = last_bytes
            (Path(keep) / f"compare-{panes}-{lag_log.name}").write_text(json.dumps(report))
    finally:
        tmux.close()
        server.close()
    frames = report["final_frames"]  # panes settling in one tick share a frame
    assert frames or not ask, "no settled frame was recorded"
    last_frame = max(frames, default=first_request)
    samples = report["samples"]
    speed = "full speed" if not rate else f"{rate:g} tok/s each"
    what = f"{len(tokens)} tok, {speed}" if ask else "idle (start, quit)"
    return Run(
        name=f"{panes} pane{'s' if panes > 1 else ''}, {what}",
        panes=panes,
        run_cpu=report["cpu_seconds"],
        stream_cpu=cpu_at(samples, last_frame) - cpu_at(samples, first_request),
        stream_seconds=last_frame - first_request,
        peak_mb=report["peak_rss_mb"],
        lag={k: report[k] for k in LAG_KEYS},
        to_screen=settle_delay(last_bytes, frames) if last_bytes else None,
        to_tmux=seen - max(last_bytes) if seen is not None and last_bytes else None,
        stagger=max(last_bytes) - min(last_bytes) if last_bytes else None,
    )


def ended(screen: str, panes: int) -> bool:
    """Every pane's status line says it is complete (side by side: one row holds them)."""
    return any(row.count("complete ·") == panes for row in screen.splitlines())


def settle_delay(last_bytes: list[float], frames: list[float]) -> float:
    """The slowest pane's last byte -> final frame. The n-th pane to get its last byte is taken
    to settle in the n-th of the last settled frames; panes that settled in one tick share a
    frame, and then each pane is given the first frame after its last byte."""
    ends, settled = sorted(last_bytes), sorted(frames)
    if len(settled) >= len(ends):
        pairs = zip(ends, settled[-len(ends) :], strict=True)
        return max(frame - end for end, frame in pairs)
    return max(min((f for f in settled if f >= end), default=settled[-1]) - end for end in ends)


def show(runs: list[Run]) -> None:
    print(
        f"{'run':<40} {'run cpu':>8} {'stream cpu':>11} {'stream s':>9} {'peak MB':>8}"
        f" {'lag p50':>8} {'p95':>7} {'p99':>7} {'max':>7} {'end ms':>7} {'tmux ms':>8}"
        f" {'stagger':>8}"
    )

    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value * 1000:.0f}"

    for r in runs:
        lags = " ".join(f"{r.lag[k]:>7.1f}" for k in LAG_KEYS)
        print(
            f"{r.name:<40} {r.run_cpu:>8.2f} {r.stream_cpu:>11.2f} {r.stream_seconds:>9.2f}"
            f" {r.peak_mb:>8.1f} {lags:>32} {ms(r.to_screen):>7} {ms(r.to_tmux):>8}"
            f" {ms(r.stagger):>8}"
        )


def paced(args: argparse.Namespace, work: Path, runs: list[Run]) -> list[str]:
    """Case 3: one pane and three, each answer paced at --paced-rate, and the idle runs."""
    tokens = answer_tokens(args.paced_tokens)
    one: list[Run] = []
    three: list[Run] = []
    idle_one: list[Run] = []
    idle_three: list[Run] = []
    for _ in range(args.paced_repeat):  # interleaved, so drifting load hits all alike
        one.append(run_app(tokens, args.paced_rate, 1, work))
        three.append(run_app(tokens, args.paced_rate, 3, work))
        idle_one.append(run_app(tokens, 0, 1, work, ask=False))
        idle_three.append(run_app(tokens, 0, 3, work, ask=False))
    runs += one + three + idle_one + idle_three

    def median(group: list[Run], field: str) -> float:
        return statistics.median(getattr(r, field) for r in group)

    answering = (median(three, "run_cpu") - median(idle_three, "run_cpu")) / (
        median(one, "run_cpu") - median(idle_one, "run_cpu")
    )
    whole = median(three, "run_cpu") / median(one, "run_cpu")
    stream = median(three, "stream_cpu") / median(one, "stream_cpu")
    met = "met" if answering <= 2.5 else "NOT met"
    ends = [r.to_screen for r in one + three if r.to_screen is not None]
    seen = [r.to_tmux for r in one + three if r.to_tmux is not None]
    worst = max(ends, default=float("inf"))
    kept = "met" if worst < 1.0 else "NOT met"
    rate = f"{args.paced_rate:g} tok/s"
    return [
        f"paced CPU, 3 panes / 1 pane at {rate} each, {len(tokens)} tokens (medians of "
        f"{args.paced_repeat}): run - idle {answering:.2f}x, whole run {whole:.2f}x, stream "
        f"window {stream:.2f}x; target <= 2.5x: {met}",
        f"paced, real time: last byte -> final frame at worst {worst * 1000:.0f} ms (tmux saw "
        f"it at worst {max(seen, default=float('inf')) * 1000:.0f} ms); target < 1 s: {kept}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cpu-tokens", type=int, default=20_000, help="answer for the CPU test")
    parser.add_argument("--lag-tokens", type=int, default=3_000, help="answer for the lag test")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each CPU case")
    parser.add_argument("--skip-cpu", action="store_true")
    parser.add_argument("--skip-lag", action="store_true")
    parser.add_argument("--skip-paced", action="store_true")
    parser.add_argument("--paced-tokens", type=int, default=20_000, help="answer, paced case")
    parser.add_argument("--paced-rate", type=float, default=200, help="tokens/s of each pane")
    parser.add_argument("--paced-repeat", type=int, default=1, help="runs of each paced case")
    parser.add_argument("--plain", nargs=3, metavar=("N", "URL", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.plain:
        import asyncio

        count, url, out = args.plain
        asyncio.run(plain_streams(url + "/v1", int(count), Path(out)))
        return
    if not shutil.which("tmux"):
        sys.exit("tmux is needed")
    runs: list[Run] = []
    verdicts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if not args.skip_cpu:
            tokens = answer_tokens(args.cpu_tokens)
            one: list[Run] = []
            three: list[Run] = []
            idle_one: list[Run] = []
            idle_three: list[Run] = []
            plain_one: list[tuple[float, float]] = []
            plain_three: list[tuple[float, float]] = []
            for _ in range(args.repeat):  # interleaved, so drifting load hits all alike
                plain_one.append(run_plain(tokens, 1, work))
                plain_three.append(run_plain(tokens, 3, work))
                one.append(run_app(tokens, 0, 1, work))
                three.append(run_app(tokens, 0, 3, work))
                idle_one.append(run_app(tokens, 0, 1, work, ask=False))
                idle_three.append(run_app(tokens, 0, 3, work, ask=False))
            runs += one + three + idle_one + idle_three

            def median(group: list[Run], field: str) -> float:
                return statistics.median(getattr(r, field) for r in group)

            stream = median(three, "stream_cpu") / median(one, "stream_cpu")
            whole = median(three, "run_cpu") / median(one, "run_cpu")
            answering = (median(three, "run_cpu") - median(idle_three, "run_cpu")) / (
                median(one, "run_cpu") - median(idle_one, "run_cpu")
            )
            plain_whole = statistics.median(w for w, _ in plain_three) / statistics.median(
                w for w, _ in plain_one
            )
            plain_stream = statistics.median(c for _, c in plain_three) / statistics.median(
                c for _, c in plain_one
            )
            verdicts.append(
                f"reference, plain client streaming 3 answers at once / 1 answer (medians of "
                f"{args.repeat}): whole process {plain_whole:.2f}x, streaming {plain_stream:.2f}x"
                f" (1 answer: {statistics.median(w for w, _ in plain_one):.2f} s whole, "
                f"{statistics.median(c for _, c in plain_one):.2f} s streaming)"
            )
            met = "met" if answering <= 1.5 else "NOT met"
            verdicts.append(
                f"CPU, 3 panes / 1 pane (medians of {args.repeat}): run - idle {answering:.2f}x, "
                f"whole run {whole:.2f}x, stream window {stream:.2f}x; target <= 1.5x: {met}"
            )
        if not args.skip_lag:
            lag_run = run_app(answer_tokens(args.lag_tokens), 100, 4, work)
            runs.append(lag_run)
            p95, worst = lag_run.lag["lag_p95_ms"], lag_run.lag["lag_max_ms"]
            met = "met" if p95 < 50 and worst < 500 else "NOT met"
            verdicts.append(
                f"lag, 4 panes at 100 tok/s: p95 {p95:.1f} ms, max {worst:.1f} ms; "
                f"target p95 < 50 ms and max < 500 ms: {met}"
            )
        if not args.skip_paced:
            verdicts += paced(args, work, runs)
    print(f"python {sys.version.split()[0]}")
    show(runs)
    for verdict in verdicts:
        print(verdict)


if __name__ == "__main__":
    main()
