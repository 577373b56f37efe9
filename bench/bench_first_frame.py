"""First-frame benchmark: how long `triptych` takes to show its prompt, against a bare Textual app.

    python bench/bench_first_frame.py                    # 9 rounds, 160x48
    python bench/bench_first_frame.py --runs 15 --conversations 2000
    python bench/bench_first_frame.py --tree before=/tmp/base   # another checkout, same run

Each row is spawned in a fresh tmux terminal and timed from the `new-session` call until
`tmux capture-pane` (polled every 5 ms) shows a known string: the prompt's placeholder "Ask
anything". What is measured is what a user waits for: interpreter start, imports, the app's
setup, Textual's first layout and paint, and the terminal receiving it. Rows:

- `bare`: a Textual app of three widgets (Header, Input with that placeholder, Footer), the
  least a Textual app with a prompt costs: the reference (bench/first_frame_bare.py, a file of
  its own so that it loads nothing of this script's).
- `triptych`: `python -m app` from this checkout on the offline demo (no config file), with an
  empty data dir.
- `triptych, N conversations`: the same with a history of N conversations (a prompt and a
  settled answer each), written beforehand through the app's own store API into a throwaway
  TRIPTYCH_DATA_DIR.
- `triptych, config, 2 MCP servers`: the demo with an empty history and a config of two
  `[mcp.*]` stdio servers, the tests' own (tests/fakes/mcp_server.py), one of them slow to start
  (`--start-delay`, 5 s), against `triptych, config, no MCP servers`: the same with a config
  file that has none (the last line gives the ratio; `--no-mcp` leaves both rows out). What a
  row leaves running (the servers run in sessions of their own) is ended before the next row.

Rounds are interleaved (one run of every row per round; the machine's load drifts) and the
medians compared. Not part of the test run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

TREE = Path(__file__).resolve().parents[1]
KNOWN = "Ask anything"
POLL = 0.005


def build_history(data_dir: Path, count: int, tree: Path) -> None:
    """`count` conversations through the app's store (in a child process, so that the
    checkout measured is the one whose store writes them)."""
    script = f"""
import sys
from pathlib import Path
from app.store.db import Store, history_path
from app.wire.turn import Turn
store = Store.open(history_path({{"TRIPTYCH_DATA_DIR": {str(data_dir)!r}}}))
for n in range({count}):
    conv = store.create_conversation(title=f"conversation {{n}} about topic {{n % 37}}")
    store.add_user_message(conv, f"question {{n}}: how does thing {{n % 91}} work?")
    turn_id = store.start_turn(conv, provider="demo", model="demo", api="chat")
    turn = Turn()
    turn.text_parts.append(f"Answer {{n}}: " + "some words of an answer " * 20)
    turn.end()
    store.save_turn(turn_id, turn, final=True)
store.close()
"""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=tree)


def compile_tree(tree: Path) -> None:
    """Byte-compile the checkout first, as an install does (pip compiles what it installs):
    a process started with PYTHONDONTWRITEBYTECODE=1 (this VM's shells) would otherwise compile
    every module of the app from source at each start, which the bare app, loading only
    site-packages, never pays (that alone was ~0.4 s of the gap)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "app")], check=True)


def cpu_seconds(pid: str) -> float:
    """CPU time the process has run, every thread of it (Linux schedstat: nanoseconds on a
    CPU, per thread; threads that already ended are not counted)."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with open(task / "schedstat") as stat:
                total += int(stat.read().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")
    return total / 1e9


def first_frame(command: str, size: tuple[int, int], cwd: Path) -> tuple[float, float]:
    """Seconds from spawning `command` in a new tmux terminal until it shows KNOWN, and the
    CPU seconds the process had used by then (less swayed by the machine's load than the wall
    time: on a busy 2-core VM the wall time mostly measures the others)."""
    socket = f"ff-{uuid.uuid4().hex[:8]}"

    def tmux(*args: str) -> str:
        done = subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True)
        return done.stdout

    width, height = size
    pane = ""
    try:
        started = time.monotonic()
        tmux(
            "new-session",
            "-d",
            "-s",
            "b",
            "-c",
            str(cwd),
            "-x",
            str(width),
            "-y",
            str(height),
            command,
        )
        while time.monotonic() - started < 30:
            if KNOWN in tmux("capture-pane", "-p", "-t", "b"):
                wall = time.monotonic() - started
                pane = tmux("display", "-p", "-t", "b", "#{pane_pid}").strip()
                return wall, cpu_seconds(pane)
            time.sleep(POLL)
        raise TimeoutError(tmux("capture-pane", "-p", "-t", "b"))
    finally:
        children = descendants(pane) if pane else []
        tmux("kill-server")
        end_all(children)


def descendants(pid: str) -> list[int]:
    """Every process started under `pid` (MCP servers run in sessions of their own, which the
    terminal's hang-up does not reach)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [int(pid)]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def end_all(pids: list[int]) -> None:
    """Stop what a row left running before the next row is timed (a server still importing
    its SDK would load the machine under the next row)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(running(pid) for pid in pids):
        time.sleep(0.02)


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


SLOW_START = 5.0  # seconds the slow MCP server takes before it answers
MCP_ROW = "2 MCP servers (1 slow)"


def mcp_config(path: Path, *, servers: bool) -> Path:
    """A config of two stdio MCP servers, one slow to start, or of none; the demo stays the
    provider. The servers are this checkout's fake (also for another `--tree`)."""
    server = [sys.executable, "-m", "tests.fakes.mcp_server", "stdio"]
    slow = [*server, "--start-delay", str(SLOW_START), "--prefix", "slow_"]
    text = "# no MCP servers\n"
    if servers:
        text = (
            f"[mcp.fast]\ncommand = {json.dumps(server)}\ncwd = {json.dumps(str(TREE))}\n"
            f"[mcp.slow]\ncommand = {json.dumps(slow)}\ncwd = {json.dumps(str(TREE))}\n"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def command_for(home: Path, tree: Path | None, data: Path, config: Path | None = None) -> str:
    env = {
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TRIPTYCH_DATA_DIR": str(data),
    }
    if config is not None:
        env["TRIPTYCH_CONFIG"] = str(config)
    if tree is None:
        argv = [sys.executable, str(Path(__file__).resolve().with_name("first_frame_bare.py"))]
    else:
        env["PYTHONPATH"] = str(tree)
        argv = [sys.executable, "-m", "app"]
    pairs = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"env {pairs} " + " ".join(shlex.quote(a) for a in argv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="rounds (medians shown)")
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--size", default="160x48")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--no-mcp", action="store_true", help="leave out the MCP rows")
    args = parser.parse_args()
    if not shutil.which("tmux"):
        sys.exit("tmux is needed")
    width, _, height = args.size.partition("x")
    size = (int(width), int(height))
    trees = [("triptych", TREE)] + [
        (name, Path(path).resolve())
        for name, _, path in (item.partition("=") for item in args.tree)
    ]
    for _, tree in trees:
        compile_tree(tree)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rows: list[tuple[str, str, Path]] = [("bare Textual (Header, Input, Footer)", "", TREE)]
        for name, tree in trees:
            home = work / f"home-{name}"
            empty = home / "empty"
            rows.append((f"{name}, demo, empty history", command_for(home, tree, empty), tree))
            if not args.no_mcp:
                for servers, label in ((False, "no MCP servers"), (True, MCP_ROW)):
                    folder = home / ("mcp" if servers else "no-mcp")
                    config = mcp_config(folder / "config.toml", servers=servers)
                    command = command_for(home, tree, folder / "data", config)
                    rows.append((f"{name}, config, {label}", command, tree))
            if args.conversations:
                full = home / "full"
                build_history(full, args.conversations, tree)
                label = f"{name}, demo, {args.conversations} conversations"
                rows.append((label, command_for(home, tree, full), tree))
        rows[0] = (rows[0][0], command_for(work, None, work / "bare"), TREE)
        for _, command, cwd in rows:  # a warm-up round: the OS caches the files once for all
            first_frame(command, size, cwd)
        times: dict[str, list[float]] = {label: [] for label, _, _ in rows}
        cpu: dict[str, list[float]] = {label: [] for label, _, _ in rows}
        for _ in range(args.runs):
            for label, command, cwd in rows:
                wall, used = first_frame(command, size, cwd)
                times[label].append(wall)
                cpu[label].append(used)
    load = os.getloadavg()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load[0]:.1f}"
        f" {load[1]:.1f} {load[2]:.1f}, {args.runs} rounds, {args.size}"
    )
    bare = statistics.median(times[rows[0][0]])
    bare_cpu = statistics.median(cpu[rows[0][0]])
    print(
        f"{'row':<44} {'median s':>8} {'min s':>7} {'max s':>7} {'x bare':>7}"
        f" {'cpu s':>7} {'x bare':>7}"
    )
    for label, values in times.items():
        median = statistics.median(values)
        used = statistics.median(cpu[label])
        print(
            f"{label:<44} {median:>8.3f} {min(values):>7.3f} {max(values):>7.3f}"
            f" {median / bare:>7.2f} {used:>7.3f} {used / bare_cpu:>7.2f}"
        )
    for name, _ in trees:
        with_servers = f"{name}, config, {MCP_ROW}"
        if with_servers not in times:
            continue
        without = f"{name}, config, no MCP servers"
        wall = statistics.median(times[with_servers]) / statistics.median(times[without])
        used = statistics.median(cpu[with_servers]) / statistics.median(cpu[without])
        print(f"{name}: {MCP_ROW} / no MCP servers: wall {wall:.2f}x, cpu {used:.2f}x")


if __name__ == "__main__":
    main()
