"""Render benchmark: a long Markdown answer streamed through the real app in a real terminal.

    python bench/bench_render.py                 # 20,000 tokens: full speed and 200 tok/s, 2 sizes
    python bench/bench_render.py --tokens 5000 --rates 200 --sizes 200x50
    python bench/bench_render.py --code-lines 500 --rates 200 --short 0   # one long code block
    python bench/bench_render.py --tree before=/tmp/base   # another checkout beside this one
    python bench/bench_render.py --tokens 5000 --rates 200 --short 0 --no-floor \
        --wrap "py-spy record -r 200 -f raw -o prof.txt --"     # profile the app

The app is run as `python -m app` from this checkout (PYTHONPATH), so a git worktree measures
its own code rather than whatever the venv's editable install points at; `--tree NAME=PATH`
measures other checkouts too, in the same run (before/after).

For each terminal size and speed the answer is served by a loopback server (the tests' shared
HTTP core, real chunked SSE in the Chat Completions shape, one token per event) to `triptych`
running in tmux, and then to two floors in the same kind of terminal:

- `plain`: bench/plain_floor.py, httpx + `iter_lines` + `json.loads`, each delta written and
  flushed, no app code. The reference: ratios `xplain` are the app's CPU over this one's.
- `textual`: bench/textual_floor.py, a bare Textual app (Header, Textual's `Log`, Footer) fed
  by async httpx + `json.loads`, its buffer written to the Log every 0.25 s: what Textual itself
  costs to show the same text at the slowest frame rate the app allows (4 a second).
  Ratios `xtextual`.
- `client`: the app's own `ProviderClient` and decoder printing each delta (heavier than the
  plain one: it is what the app pays before drawing anything). Ratios `xclient`.

A short answer measures the end-of-stream latency on its own. Reported per run (medians over
`--repeat` runs): CPU seconds of the process (whole run and stream only), last byte sent ->
final text on screen (as the app stamps its settled frame, and as tmux shows it), peak RSS,
event-loop lag percentiles and render-clock ticks per second (the app's own probe,
TRIPTYCH_LAG_LOG), and two figures read from the terminal itself: how often the screen changed
while text arrived (`scr/s`) and the longest time it stood still (`still ms`). Those come from
polling `tmux capture-pane` every 25 ms from the request to the last byte (changes of the rows
above the app's status bar, or of the whole pane for a floor): what a reader sees, whatever the
app believes it drew; a change faster than the poll counts once, so `scr/s` reads at most 40.
Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
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

    def start(self, command: str, size: tuple[int, int] = (160, 48), cwd: Path = TREE) -> None:
        """`cwd`: `python -m` puts it first on sys.path, ahead of PYTHONPATH."""
        width, height = size
        self.run(
            "new-session", "-d", "-s", "b", "-c", str(cwd), "-x", str(width), "-y", str(height),
            command,
        )  # fmt: skip

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


class ScreenWatch(threading.Thread):
    """Polls the pane every POLL seconds from the start of a run, noting when what it shows
    changes (the rows above the bottom `ignore_bottom`, to leave out a status bar's clock),
    until `done` is true of the whole screen or `stop` is called."""

    POLL = 0.025

    def __init__(self, tmux: Tmux, done: Any, ignore_bottom: int = 0) -> None:
        super().__init__(daemon=True)
        self.tmux = tmux
        self.done = done
        self.ignore_bottom = ignore_bottom
        self.changes: list[float] = []  # wall times the watched rows changed
        self.seen_done: float | None = None
        self._halt = threading.Event()

    def run(self) -> None:
        previous = None
        while not self._halt.is_set():
            screen = self.tmux.screen()
            now = time.time()
            rows = screen.split("\n")
            watched = "\n".join(
                rows[: len(rows) - self.ignore_bottom] if self.ignore_bottom else rows
            )
            if previous is not None and watched != previous:
                self.changes.append(now)
            previous = watched
            if self.done(screen):
                self.seen_done = now
                return
            self._halt.wait(self.POLL)

    def wait_done(self, timeout: float) -> float:
        self.join(timeout)
        if self.seen_done is None:
            self._halt.set()
            raise TimeoutError(self.tmux.screen())
        return self.seen_done

    def stop(self) -> None:
        self._halt.set()

    def motion(self, start: float, end: float) -> tuple[float | None, float | None]:
        """(screen changes per second, longest still stretch in ms) between the first change
        after `start` (the first text shown) and `end` (the last byte sent)."""
        inside = [t for t in self.changes if start <= t <= end]
        if len(inside) < 2 or end - inside[0] < 0.5:
            return None, None
        points = [*inside, end]
        still = max(b - a for a, b in itertools.pairwise(points))
        return len(inside) / (end - inside[0]), still * 1000


def env_command(env: dict[str, str], argv: list[str]) -> str:
    pairs = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"env {pairs} " + " ".join(shlex.quote(a) for a in argv)


def base_env(home: Path, tree: Path = TREE) -> dict[str, str]:
    return {
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TRIPTYCH_DATA_DIR": str(home / "data"),
        "PYTHONPATH": str(tree),
    }


# -- one run -----------------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    cpu: float
    stream_cpu: float
    last_byte_to_screen_ms: float  # as the process itself reports it
    last_byte_to_tmux_ms: float  # as tmux shows it (polled every 25 ms)
    peak_mb: float
    lag: dict[str, float]
    cost_early_us: float | None  # CPU microseconds per token around token 1,000
    cost_late_us: float | None  # ... over the last 1,000 tokens
    frames_per_s: float | None = None  # render clock ticks per second while tokens arrived
    screens_per_s: float | None = None  # screen changes per second, as tmux showed them
    still_ms: float | None = None  # the longest the screen stood still while text arrived
    kind: str = "app"  # app, plain, client
    group: str = ""  # the runs compared with each other: size and answer


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


def read_report(path: Path, deadline: float) -> Any:
    """The JSON a process writes as it ends, once it is all there (it may exist half written)."""
    while True:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


# The app's lag probe wakes every 250 ms, as often as it samples: its default 10 ms loop costs
# about 3% of a core (app/ui/lag_probe.py), which the floors do not pay. Lag figures here are
# then the lateness of 4 wake-ups a second.
LAG_EVERY = 0.25
APP_BOTTOM_ROWS = 5  # the status bar, the prompt's three rows and the footer


def run_app(
    tokens: tuple[str, ...],
    rate: float,
    label: str,
    work: Path,
    wrap: list[str] | None = None,
    size: tuple[int, int] = (160, 48),
    tree: Path = TREE,
    keys: tuple[str, ...] = (),
) -> Result:
    """`keys`: pressed once the request has arrived (e.g. F2, the inspector, bench_wire.py)."""
    server = serve(tokens, rate)
    config = work / "config.toml"
    config.write_text(
        f'default = "bench"\n[providers.bench]\napi = "chat"\nbase_url = "{server.url}/v1"\n'
        'model = "bench-model"\n',
        encoding="utf-8",
    )
    lag_log = work / f"lag-{uuid.uuid4().hex[:6]}.json"
    env = {
        **base_env(work, tree),
        "TRIPTYCH_CONFIG": str(config),
        "TRIPTYCH_LAG_LOG": str(lag_log),
        "TRIPTYCH_LAG_EVERY": str(LAG_EVERY),
    }
    argv = [sys.executable, "-m", "app"]
    tmux = Tmux()
    watch = ScreenWatch(tmux, lambda s: END_MARK in s and "complete" in s, APP_BOTTOM_ROWS)
    try:
        tmux.start(env_command(env, [*(wrap or []), *argv]), size, tree)
        tmux.wait(lambda s: "Ask anything" in s, 20)
        watch.start()
        tmux.keys("go", "Enter")
        while not server.requests:
            time.sleep(0.01)
        if keys:
            tmux.keys(*keys)
        asked = server.requests[-1].received + WALL_OFFSET
        last_byte = last_byte_wall(server.requests[-1])
        on_screen = watch.wait_done(600)
        time.sleep(0.5)  # the app stamps its settled frame just after the refresh we just saw
        tmux.keys("C-q")
        deadline = time.monotonic() + 20
        report = read_report(lag_log, deadline)
        while wrap and tmux.alive() and time.monotonic() < deadline:  # let a profiler write
            time.sleep(0.1)
    finally:
        watch.stop()
        tmux.close()
        server.close()
    samples = report["samples"]
    if keep := os.environ.get("BENCH_KEEP_LOGS"):  # a folder: the probe's report, to read
        shutil.copy(lag_log, Path(keep) / f"{label.split()[0]}-{lag_log.name}")
    streaming = [s for s in samples if s[2] > 0]
    stream_cpu = streaming[-1][1] - streaming[0][1] if len(streaming) > 1 else 0.0
    arriving = [s for s in streaming if s[2] < streaming[-1][2]] or streaming
    span = arriving[-1][0] - arriving[0][0]
    frames_per_s = (arriving[-1][3] - arriving[0][3]) / span if span > 0.5 else None
    total = len(tokens)
    screens, still = watch.motion(asked, last_byte)
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
        screens,
        still,
    )


def run_floor(
    tokens: tuple[str, ...],
    rate: float,
    label: str,
    work: Path,
    size: tuple[int, int] = (160, 48),
    kind: str = "client",
    textual_period: float = 0.25,
    wrap: list[str] | None = None,
) -> Result:
    """A floor in tmux: `plain` (bench/plain_floor.py, no app code), `textual` (the least a
    Textual app draws it with, bench/textual_floor.py) or `client` (the app's own client)."""
    server = serve(tokens, rate)
    out = work / f"floor-{uuid.uuid4().hex[:6]}.json"
    env = base_env(work)
    if kind in ("plain", "textual"):
        env.pop("PYTHONPATH")
        script = [str(Path(__file__).resolve().with_name(f"{kind}_floor.py"))]
    else:
        script = [str(Path(__file__).resolve()), "--floor"]
    argv = [*(wrap or []), sys.executable, *script, server.url + "/v1", str(out)]
    if kind == "textual":
        argv.append(str(textual_period))
    tmux = Tmux()
    watch = ScreenWatch(tmux, lambda s: END_MARK in s)
    try:
        tmux.start(env_command(env, argv) + "; sleep 5", size)
        watch.start()
        while not server.requests:
            time.sleep(0.01)
        asked = server.requests[-1].received + WALL_OFFSET
        last_byte = last_byte_wall(server.requests[-1])
        on_screen = watch.wait_done(600)
        report = read_report(out, time.monotonic() + 20)
        if wrap:
            time.sleep(3)  # the floor exits a second after its report; let a profiler write
    finally:
        watch.stop()
        tmux.close()
        server.close()
    screens, still = watch.motion(asked, last_byte)
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
        None,
        screens,
        still,
        kind=kind,
    )


# -- the app-client floor: the app's client and decoder, each delta printed --------------------


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


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def median_result(runs: list[Result]) -> Result:
    """Each figure's median over repeated runs of one row."""
    first = runs[0]

    def med(name: str) -> Any:
        return _median([getattr(r, name) for r in runs])

    lag = {k: _median([r.lag.get(k) for r in runs]) for k in first.lag}
    return Result(
        first.name,
        med("cpu"),
        med("stream_cpu"),
        med("last_byte_to_screen_ms"),
        med("last_byte_to_tmux_ms"),
        med("peak_mb"),
        {k: v for k, v in lag.items() if v is not None},
        med("cost_early_us"),
        med("cost_late_us"),
        med("frames_per_s"),
        med("screens_per_s"),
        med("still_ms"),
        first.kind,
        first.group,
    )


def _cell(value: float | None, width: int, digits: int = 0) -> str:
    return f"{value:>{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


def show(results: list[Result]) -> None:
    head = (
        f"{'run':<38} {'cpu s':>7} {'stream':>7} {'xplain':>6} {'xtextual':>8} {'xclient':>7}"
        f" {'end ms':>7}"
        f" {'tmux ms':>7} {'peak MB':>7} {'scr/s':>5} {'still ms':>8} {'ticks/s':>7}"
        f" {'lag p95':>7} {'max':>6} {'us/tok@1k':>9} {'@last':>6}"
    )
    print(head)
    for r in results:
        peers = [p for p in results if p.group == r.group]
        plain = next((p.cpu for p in peers if p.kind == "plain"), None)
        client = next((p.cpu for p in peers if p.kind == "client"), None)
        textual = next((p.cpu for p in peers if p.kind == "textual"), None)
        print(
            f"{r.name:<38} {r.cpu:>7.2f} {r.stream_cpu:>7.2f}"
            f" {_cell(r.cpu / plain if plain else None, 6, 2)}"
            f" {_cell(r.cpu / textual if textual else None, 8, 2)}"
            f" {_cell(r.cpu / client if client else None, 7, 2)}"
            f" {r.last_byte_to_screen_ms:>7.0f} {r.last_byte_to_tmux_ms:>7.0f} {r.peak_mb:>7.1f}"
            f" {_cell(r.screens_per_s, 5, 1)} {_cell(r.still_ms, 8)} {_cell(r.frames_per_s, 7, 1)}"
            f" {_cell(r.lag.get('lag_p95_ms'), 7, 1)} {_cell(r.lag.get('lag_max_ms'), 6)}"
            f" {_cell(r.cost_early_us, 9)} {_cell(r.cost_late_us, 6)}"
        )


def parse_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--rates", default="0,200", help="tokens/s, comma separated; 0 = full")
    parser.add_argument(
        "--sizes", default="160x48,200x50", help="terminal sizes, comma separated (WxH)"
    )
    parser.add_argument("--short", type=int, default=60, help="tokens of the short answer")
    parser.add_argument("--repeat", type=int, default=1, help="runs per row (medians shown)")
    parser.add_argument(
        "--wrap", default="", help='command prefix for the app, e.g. "py-spy record -o p.svg --"'
    )
    parser.add_argument("--no-floor", action="store_true", help="measure the app only")
    parser.add_argument(
        "--textual-period",
        type=float,
        default=0.25,
        help="seconds between the Textual floor's writes",
    )
    parser.add_argument("--no-app", action="store_true", help="measure the floors only")
    parser.add_argument(
        "--wrap-floor", default="", help="command prefix for the floors (a profiler, as --wrap)"
    )
    parser.add_argument("--skip", default="", help="floors to leave out: textual,client")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="also measure the app of another checkout (e.g. before=/tmp/base), same run",
    )
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
    trees = [("app", TREE)] + [
        (name, Path(path).resolve())
        for name, _, path in (item.partition("=") for item in args.tree)
    ]
    for _, tree in trees:  # as an install does: no module compiled from source at each start
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "app")], check=True)
    sizes = [parse_size(size) for size in args.sizes.split(",")]
    runs: dict[str, list[Result]] = {}

    def note(result: Result, group: str) -> None:
        result.group = group
        runs.setdefault(result.name, []).append(result)

    def measure(tokens: tuple[str, ...], rate: float, size: tuple[int, int]) -> None:
        speed = "full speed" if not rate else f"{rate:g} tok/s"
        group = f"{size[0]}x{size[1]} {len(tokens)} tok, {speed}"
        for name, tree in [] if args.no_app else trees:
            note(run_app(tokens, rate, f"{name:<7} {group}", work, wrap, size, tree), group)
        if not args.no_floor:
            for kind in ("plain", "textual", "client"):
                if kind not in args.skip.split(","):
                    label = f"{kind:<7} {group}"
                    period = args.textual_period
                    floor_wrap = shlex.split(args.wrap_floor)
                    result = run_floor(tokens, rate, label, work, size, kind, period, floor_wrap)
                    note(result, group)

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tokens = (
            code_file_tokens(args.code_lines) if args.code_lines else answer_tokens(args.tokens)
        )
        for _ in range(args.repeat):  # rounds interleaved: the machine's load drifts
            for size in sizes:
                for rate in (float(r) for r in args.rates.split(",")):
                    measure(tokens, rate, size)
            if args.short:
                measure(answer_tokens(args.short), 200, sizes[0])
    load = os.getloadavg()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load[0]:.1f}"
        f" {load[1]:.1f} {load[2]:.1f}, {args.repeat} run(s) per row (medians)"
    )
    show([median_result(results) for results in runs.values()])


if __name__ == "__main__":
    main()
