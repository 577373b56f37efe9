"""Render benchmark: a long Markdown answer streamed through the real app in a real terminal.

    python bench/bench_render.py                 # 20,000 tokens: full speed and 200 tok/s
    python bench/bench_render.py --tokens 5000 --rates 0,200
    python bench/bench_render.py --code-lines 500 --rates 200 --short 0   # one long code block
    python bench/bench_render.py --tokens 5000 --rates 200 --short 0 --no-floor \
        --wrap "py-spy record -r 200 -f raw -o prof.txt --"     # profile the app

The app is run as `python -m app` from this checkout (PYTHONPATH), so a git worktree measures
its own code rather than whatever the venv's editable install points at.

For each speed the answer is served by a loopback server (the tests' shared HTTP core, real
chunked SSE in the Chat Completions shape) to `triptych` running in tmux, and then to a floor:
a plain client that prints each delta to the same kind of terminal. A short answer measures the
end-of-stream latency on its own. Reported per run: CPU seconds of the process (whole run and
stream only), last byte sent -> final text on screen (as the app reports its settled frame and
as tmux shows it), peak memory, event-loop lag percentiles (TRIPTYCH_LAG_LOG), and the CPU cost
per token near token 1,000 and near the last token. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.demo.frames import Answer, frames
from app.demo.loopback import LoopbackServer, Pause, Reply, SeenRequest, Send, Step
from app.display.fences import FenceTracker
from app.wire.engine import Api

END_MARK = "END-OF-ANSWER-7F3A"
SSE = (("Content-Type", "text/event-stream"),)
_TOKEN = re.compile(r"\s*\S+|\s+")
WALL_OFFSET = time.time() - time.monotonic()  # server times are monotonic, app times are wall
TREE = Path(__file__).resolve().parents[1]  # the app measured is this checkout's, not the install's


# -- the answer ----------------------------------------------------------------------------------


def section(n: int) -> str:
    words = " ".join(f"word{(n * 7 + i) % 97}" for i in range(60))
    code = "\n".join(
        f"    total_{i} = compute(value_{i}, factor={i}) + offset  # step {i}" for i in range(14)
    )
    return (
        f"## Section {n}\n\n{words} with **bold**, `inline code` and *emphasis*.\n\n"
        f"- first point about item {n}\n- second point with `code`\n- third point\n"
        f"  - nested detail {n}\n- fourth point\n\n"
        f"```python\ndef step_{n}(value: int) -> int:\n{code}\n    return total_0\n```\n\n"
    )


def answer_tokens(count: int) -> tuple[str, ...]:
    """About `count` tokens of Markdown (one word with its leading space per token)."""
    tokens: list[str] = []
    n = 0
    while len(tokens) < count - 8:
        tokens.extend(_TOKEN.findall(section(n)))
        n += 1
    del tokens[count - 10 :]
    fences = FenceTracker()
    fences.feed("".join(tokens) + "\n")
    if fences.open_lines is not None:  # never end inside a code block
        tokens.append("\n```")
    tokens.extend(_TOKEN.findall(f"\n\nThat is all.\n\n{END_MARK}\n"))
    return tuple(tokens)


def code_file_tokens(lines: int) -> tuple[str, ...]:
    """An answer that is one long Python code block of `lines` lines (`--code-lines`)."""
    code = "".join(
        f"    total_{i} = compute(value_{i}, factor={i}) + offset  # step {i}\n"
        for i in range(lines)
    )
    text = f"Here is the file:\n\n```python\ndef big():\n{code}```\n\nThat is all.\n\n{END_MARK}\n"
    return tuple(_TOKEN.findall(text))


def reply_for(tokens: tuple[str, ...], rate: float) -> Reply:
    sent = frames(Api.CHAT, Answer(text=tokens))
    steps: list[Step] = []
    pause = 1.0 / rate if rate else 0.0
    for frame in sent:
        if pause and steps:
            steps.append(Pause(pause))
        steps.append(Send(frame))
    return Reply(200, SSE, tuple(steps))


# -- a terminal --------------------------------------------------------------------------------


class Tmux:
    def __init__(self) -> None:
        self.socket = f"bench-{uuid.uuid4().hex[:8]}"

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True)
        return done.stdout

    def start(self, command: str) -> None:
        self.run("new-session", "-d", "-s", "b", "-x", "160", "-y", "48", command)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "b")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "b", *keys)

    def alive(self) -> bool:
        return "b" in self.run("list-sessions", "-F", "#{session_name}")

    def wait(self, predicate: Any, timeout: float, poll: float = 0.02) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.screen()):
                return time.time()
            time.sleep(poll)
        raise TimeoutError(self.screen())

    def close(self) -> None:
        self.run("kill-server")


def env_command(env: dict[str, str], argv: list[str]) -> str:
    pairs = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"env {pairs} " + " ".join(shlex.quote(a) for a in argv)


def base_env(home: Path) -> dict[str, str]:
    return {
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TRIPTYCH_DATA_DIR": str(home / "data"),
        "PYTHONPATH": str(TREE),
    }


# -- one run -----------------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    cpu: float
    stream_cpu: float
    last_byte_to_screen_ms: float  # as the process itself reports it
    last_byte_to_tmux_ms: float  # as tmux shows it (polled every 20 ms)
    peak_mb: float
    lag: dict[str, float]
    cost_early_us: float | None  # CPU microseconds per token around token 1,000
    cost_late_us: float | None  # ... over the last 1,000 tokens
    frames_per_s: float | None = None  # render clock ticks per second while tokens arrived


def cost_per_token(samples: list[list[float]], low: int, high: int) -> float | None:
    """CPU microseconds per token between two token counts, from samples taken while tokens
    were arriving (the work after the last byte is the end latency, reported apart)."""
    inside = [s for s in samples if low <= s[2] <= high]
    if len(inside) < 2 or inside[-1][2] == inside[0][2]:
        return None
    return (inside[-1][1] - inside[0][1]) / (inside[-1][2] - inside[0][2]) * 1e6


def serve(tokens: tuple[str, ...], rate: float) -> LoopbackServer:
    return LoopbackServer(lambda request: reply_for(tokens, rate))


def last_byte_wall(request: SeenRequest) -> float:
    """When the last frame went out: the reply ends right after it, or the client, having read
    the terminal event, hangs up before the closing chunk (both within a millisecond)."""
    request.done.wait(600)
    ended = request.finished or request.disconnected
    assert ended is not None, "the reply did not end"
    return ended + WALL_OFFSET


def run_app(
    tokens: tuple[str, ...], rate: float, label: str, work: Path, wrap: list[str] | None = None
) -> Result:
    server = serve(tokens, rate)
    config = work / "config.toml"
    config.write_text(
        f'default = "bench"\n[providers.bench]\napi = "chat"\nbase_url = "{server.url}/v1"\n'
        'model = "bench-model"\n',
        encoding="utf-8",
    )
    lag_log = work / f"lag-{uuid.uuid4().hex[:6]}.json"
    env = {**base_env(work), "TRIPTYCH_CONFIG": str(config), "TRIPTYCH_LAG_LOG": str(lag_log)}
    argv = [sys.executable, "-m", "app"]
    tmux = Tmux()
    try:
        tmux.start(env_command(env, [*(wrap or []), *argv]))
        tmux.wait(lambda s: "Ask anything" in s, 20)
        tmux.keys("go", "Enter")
        while not server.requests:
            time.sleep(0.01)
        last_byte = last_byte_wall(server.requests[-1])
        on_screen = tmux.wait(lambda s: END_MARK in s and "complete" in s, 600)
        time.sleep(0.5)  # the app stamps its settled frame just after the refresh we just saw
        tmux.keys("C-q")
        deadline = time.monotonic() + 20
        while not lag_log.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        report = json.loads(lag_log.read_text())
        while wrap and tmux.alive() and time.monotonic() < deadline:  # let a profiler write
            time.sleep(0.1)
    finally:
        tmux.close()
        server.close()
    samples = report["samples"]
    streaming = [s for s in samples if s[2] > 0]
    stream_cpu = streaming[-1][1] - streaming[0][1] if len(streaming) > 1 else 0.0
    arriving = [s for s in streaming if s[2] < streaming[-1][2]] or streaming
    span = arriving[-1][0] - arriving[0][0]
    frames_per_s = (arriving[-1][3] - arriving[0][3]) / span if span > 0.5 else None
    total = len(tokens)
    return Result(
        label,
        report["cpu_seconds"],
        stream_cpu,
        (report["final_frames"][-1] - last_byte) * 1000,
        (on_screen - last_byte) * 1000,
        report["peak_rss_mb"],
        {k: report[k] for k in ("lag_p50_ms", "lag_p95_ms", "lag_p99_ms", "lag_max_ms")},
        cost_per_token(samples, 500, 1500),
        cost_per_token(samples, total - 1000, total - 1),
        frames_per_s,
    )


def run_floor(tokens: tuple[str, ...], rate: float, label: str, work: Path) -> Result:
    server = serve(tokens, rate)
    out = work / f"floor-{uuid.uuid4().hex[:6]}.json"
    env = base_env(work)
    argv = [sys.executable, str(Path(__file__).resolve()), "--floor", server.url + "/v1", str(out)]
    tmux = Tmux()
    try:
        tmux.start(env_command(env, argv) + "; sleep 5")
        while not server.requests:
            time.sleep(0.01)
        last_byte = last_byte_wall(server.requests[-1])
        on_screen = tmux.wait(lambda s: END_MARK in s, 600)
        deadline = time.monotonic() + 20
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        report = json.loads(out.read_text())
    finally:
        tmux.close()
        server.close()
    return Result(
        label,
        report["cpu_seconds"],
        report["stream_cpu"],
        (report["last_write"] - last_byte) * 1000,
        (on_screen - last_byte) * 1000,
        report["peak_rss_mb"],
        {},
        None,
        None,
    )


# -- the floor: print each delta ----------------------------------------------------------------


async def floor_client(base_url: str, out: Path) -> None:
    from app.providers.client import ProviderClient
    from app.settings.config import ProviderConfig
    from app.wire.conversation import Conversation
    from app.wire.events import Event, TextDelta
    from app.wire.turn import Turn

    provider = ProviderConfig(name="bench", api=Api.CHAT, base_url=base_url, model="bench")
    conversation = Conversation()
    conversation.add_user("go")
    write, flush = sys.stdout.write, sys.stdout.flush

    def show(event: Event) -> None:
        if type(event) is TextDelta:
            write(event.text)
            flush()

    started = time.process_time()
    async with ProviderClient(provider, None) as client:
        await client.stream(conversation, Turn(), None, show)
    last_write = time.time()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.write_text(
        json.dumps(
            {
                "cpu_seconds": usage.ru_utime + usage.ru_stime,
                "stream_cpu": time.process_time() - started,
                "last_write": last_write,
                "peak_rss_mb": usage.ru_maxrss / 1024,
            }
        )
    )


# -- report --------------------------------------------------------------------------------------


def show(results: list[Result]) -> None:
    head = (
        f"{'run':<28} {'cpu s':>7} {'stream':>7} {'end ms':>8} {'tmux ms':>8} {'peak MB':>8}"
        f" {'lag p50':>8} {'p95':>7} {'p99':>7} {'max':>7} {'us/tok@1k':>10} {'@last':>8}"
        f" {'frames/s':>8}"
    )
    print(head)
    for r in results:
        lag = [r.lag.get(k) for k in ("lag_p50_ms", "lag_p95_ms", "lag_p99_ms", "lag_max_ms")]
        lags = " ".join(f"{v:>7.1f}" if v is not None else f"{'-':>7}" for v in lag)
        early = f"{r.cost_early_us:>10.0f}" if r.cost_early_us else f"{'-':>10}"
        late = f"{r.cost_late_us:>8.0f}" if r.cost_late_us else f"{'-':>8}"
        fps = f"{r.frames_per_s:>8.1f}" if r.frames_per_s else f"{'-':>8}"
        print(
            f"{r.name:<28} {r.cpu:>7.2f} {r.stream_cpu:>7.2f} {r.last_byte_to_screen_ms:>8.0f}"
            f" {r.last_byte_to_tmux_ms:>8.0f} {r.peak_mb:>8.1f} {lags:>32} {early} {late} {fps}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--rates", default="0,200", help="tokens/s, comma separated; 0 = full")
    parser.add_argument("--short", type=int, default=60, help="tokens of the short answer")
    parser.add_argument(
        "--wrap", default="", help='command prefix for the app, e.g. "py-spy record -o p.svg --"'
    )
    parser.add_argument("--no-floor", action="store_true", help="measure the app only")
    parser.add_argument(
        "--code-lines", type=int, default=0, help="answer with one code block this long instead"
    )
    parser.add_argument("--floor", nargs=2, metavar=("URL", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        asyncio.run(floor_client(args.floor[0], Path(args.floor[1])))
        return
    if not shutil.which("tmux"):
        sys.exit("tmux is needed")
    wrap = shlex.split(args.wrap)
    results: list[Result] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for rate in (float(r) for r in args.rates.split(",")):
            tokens = (
                code_file_tokens(args.code_lines) if args.code_lines else answer_tokens(args.tokens)
            )
            speed = "full speed" if not rate else f"{rate:g} tok/s"
            name = f"{len(tokens)} tok, {speed}"
            results.append(run_app(tokens, rate, f"app   {name}", work, wrap))
            if not args.no_floor:
                results.append(run_floor(tokens, rate, f"floor {name}", work))
        if args.short:
            short = answer_tokens(args.short)
            results.append(run_app(short, 200, f"app   {len(short)} tok, 200 tok/s", work, wrap))
            if not args.no_floor:
                results.append(run_floor(short, 200, f"floor {len(short)} tok, 200 tok/s", work))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    show(results)


if __name__ == "__main__":
    main()
