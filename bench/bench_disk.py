"""Disk benchmark: the bytes the app writes under its data directory while an answer streams.

    python bench/bench_disk.py                          # 20,000 and 40,000 tokens at 200 tok/s
    python bench/bench_disk.py --runs 5000@400          # one answer: tokens@tok/s
    python bench/bench_disk.py --tree before=/tmp/base  # another checkout beside this one

bench_render.py's answer (Markdown, one token per Chat Completions event, real chunked SSE from
a loopback server) is streamed to the app (`python -m app` from the checkout, in tmux) running
under `strace -f -y -ttt`, which logs every write, pwrite and writev of every thread with the
file each descriptor names. The bench adds up the bytes written to files under the data
directory (the history, its -wal and -shm) from the moment it presses Enter until the answer
has settled: its final text and "complete" on screen, its final save (with timings and its raw
stream) in the file, as a read-only connection polling every 0.25 s sees it, then SETTLE
seconds more for what follows that save (the checkpoint); then Ctrl+Q (not counted). The
terminal's output goes to a tty, not under the data dir, so it never counts.

The reference is what the history has to keep of the answer: its text (UTF-8) plus its raw
stream compressed with zlib level 6 (the SSE body as served; the history keeps its recording
compressed the same way, about as big). Targets: at most 10x the reference, and doubling the
answer at most doubles the bytes. Also shown: the -wal file's size left behind at the end, and
the stored answer checked against what was served (a run that saved nothing would be cheap).
Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.frames import Answer, frames
from app.wire.engine import Api
from bench.bench_render import (
    END_MARK,
    TREE,
    ScreenWatch,
    Tmux,
    answer_tokens,
    base_env,
    env_command,
    serve,
)

SETTLE = 1.0  # seconds after the final save is seen, for what follows it (the checkpoint)
_CALL = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(\w+)\((\d+)<([^>]*)>")
_RESUMED = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+<\.\.\. (\w+) resumed>.*=\s+(-?\d+)")
_RESULT = re.compile(r"=\s+(-?\d+)(?:\s+\w+.*)?$")
WRITES = "write,pwrite64,writev,pwritev,pwritev2"


@dataclass
class Written:
    at: float
    path: str
    size: int


def parse_trace(text: str, under: str) -> list[Written]:
    """Every successful write to a file under `under`, from an `strace -f -y -ttt` log
    (a call another thread interrupted is `<unfinished ...>`, then `<... resumed>`)."""
    found: list[Written] = []
    pending: dict[str, tuple[float, str]] = {}
    for line in text.splitlines():
        call = _CALL.match(line)
        if call:
            pid, at, _name, _fd, path = call.groups()
            if line.endswith("<unfinished ...>"):
                pending[pid] = (float(at), path)
                continue
            result = _RESULT.search(line)
            if result and path.startswith(under) and int(result.group(1)) > 0:
                found.append(Written(float(at), path, int(result.group(1))))
            continue
        resumed = _RESUMED.match(line)
        if resumed and resumed.group(1) in pending:
            at_start, path = pending.pop(resumed.group(1))
            if path.startswith(under) and int(resumed.group(4)) > 0:
                found.append(Written(at_start, path, int(resumed.group(4))))
    return found


@dataclass
class Run:
    name: str
    tokens: int
    rate: float
    text_bytes: int
    stream_z: int  # the SSE body as served, zlib level 6
    written: int  # bytes written under the data dir, Enter -> settled
    by_file: dict[str, int]
    calls: int
    wal_left: int  # the -wal file's size at the end
    kept: bool  # the stored answer is the one served, complete
    kept_stream: int  # the raw stream as the history keeps it (its recording, compressed)
    seconds: float  # Enter -> counting stopped (the answer settled, SETTLE more seconds)

    @property
    def reference(self) -> int:
        return self.text_bytes + self.stream_z

    @property
    def ratio(self) -> float:
        return self.written / self.reference


def run_one(tokens: tuple[str, ...], rate: float, name: str, tree: Path, work: Path) -> Run:
    home = work / f"home-{uuid.uuid4().hex[:6]}"
    data = home / "data"
    home.mkdir()
    server = serve(tokens, rate)
    config = home / "config.toml"
    config.write_text(
        f'default = "bench"\n[providers.bench]\napi = "chat"\nbase_url = "{server.url}/v1"\n'
        'model = "bench-model"\n',
        encoding="utf-8",
    )
    trace = home / "trace.txt"
    env = {**base_env(home, tree), "TRIPTYCH_CONFIG": str(config)}
    strace = ["strace", "-f", "-y", "-ttt", "-qq", "-s", "0", "-e", f"trace={WRITES}"]
    argv = [*strace, "-o", str(trace), sys.executable, "-m", "app"]
    tmux = Tmux()
    watch = ScreenWatch(tmux, lambda s: END_MARK in s and "complete" in s)
    try:
        tmux.start(env_command(env, argv), (160, 48), tree)
        tmux.wait(lambda s: "Ask anything" in s, 60)
        opened = time.monotonic() + 30  # the app opens its history after the first frame
        while not (data / "history.sqlite3-wal").exists() and time.monotonic() < opened:
            time.sleep(0.05)
        time.sleep(1.0)  # its migration and recovery are not the answer's writes
        watch.start()
        enter = time.time()
        tmux.keys("go", "Enter")
        watch.wait_done(1200)
        settled = time.monotonic() + 600
        while not final_saved(data / "history.sqlite3") and time.monotonic() < settled:
            time.sleep(0.25)
        time.sleep(SETTLE)
        end = time.time()
        wal = data / "history.sqlite3-wal"
        wal_left = wal.stat().st_size if wal.exists() else 0
        tmux.keys("C-q")
        deadline = time.monotonic() + 30
        while tmux.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        watch.stop()
        tmux.close()
        server.close()
    writes = [
        w for w in parse_trace(trace.read_text(errors="replace"), str(data)) if enter <= w.at <= end
    ]
    if keep := os.environ.get("BENCH_KEEP_LOGS"):  # a folder: each write, to read
        lines = (f"{w.at - enter:9.3f} {Path(w.path).name} {w.size}" for w in writes)
        (Path(keep) / f"disk-{name}-{len(tokens)}.txt").write_text("\n".join(lines) + "\n")
    by_file: dict[str, int] = {}
    for w in writes:
        by_file[Path(w.path).name] = by_file.get(Path(w.path).name, 0) + w.size
    text = "".join(tokens)
    body = b"".join(frames(Api.CHAT, Answer(text=tokens)))
    stored, kept_stream = stored_answer(data / "history.sqlite3")
    return Run(
        name=name,
        tokens=len(tokens),
        rate=rate,
        text_bytes=len(text.encode()),
        stream_z=len(zlib.compress(body, 6)),
        written=sum(w.size for w in writes),
        by_file=by_file,
        calls=len(writes),
        wal_left=wal_left,
        kept=stored == text,
        kept_stream=kept_stream,
        seconds=end - enter,
    )


def final_saved(path: Path) -> bool:
    """Whether the answer's final save, with its timings and raw stream, is in the file (a
    final save with a large stream can land seconds after the screen settles on a busy
    machine: compressing its recording comes first)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error:
        return False
    try:
        row = conn.execute(
            "SELECT 1 FROM messages m JOIN streams s ON s.message_id = m.id "
            "WHERE m.role = 'assistant' AND m.duration_ms IS NOT NULL"
        ).fetchone()
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return row is not None


def stored_answer(path: Path) -> tuple[str | None, int]:
    """The last answer's text as the next start reads it, if it was saved complete, and the
    size of the raw stream kept with it (its recording, zlib level 6)."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            "SELECT m.text, length(s.data) FROM messages m LEFT JOIN streams s "
            "ON s.message_id = m.id WHERE m.role = 'assistant' AND m.status = 'complete' "
            "ORDER BY m.id DESC LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    return (None, 0) if row is None else (str(row[0]), int(row[1] or 0))


def show(runs: list[Run]) -> None:
    print(
        f"{'run':<26} {'s':>5} {'text KB':>7} {'zstream KB':>10} {'ref KB':>7} {'written KB':>10}"
        f" {'x ref':>6} {'calls':>6} {'WAL left KB':>11} {'kept':>5} {'kept stream KB':>14}"
        "  by file (KB)"
    )
    for r in runs:
        files = ", ".join(f"{name} {size / 1024:.0f}" for name, size in sorted(r.by_file.items()))
        label = f"{r.name} {r.tokens} tok @{r.rate:g}"
        print(
            f"{label:<26} {r.seconds:>5.0f} {r.text_bytes / 1024:>7.1f} {r.stream_z / 1024:>10.1f}"
            f" {r.reference / 1024:>7.1f} {r.written / 1024:>10.1f} {r.ratio:>6.2f}"
            f" {r.calls:>6} {r.wal_left / 1024:>11.1f} {'yes' if r.kept else 'NO':>5}"
            f" {r.kept_stream / 1024:>14.1f}  {files}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--runs", default="20000@200,40000@200", help="answers as tokens@tok/s, comma separated"
    )
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="also measure the app of another checkout (e.g. before=/tmp/base), same run",
    )
    args = parser.parse_args()
    for tool in ("tmux", "strace"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is needed (apt-get install -y {tool})")
    trees = [("app", TREE)] + [
        (name, Path(path).resolve())
        for name, _, path in (item.partition("=") for item in args.tree)
    ]
    for _, tree in trees:  # as an install does: no module compiled from source at each start
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "app")], check=True)
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.runs.split(","):
            count, _, rate = spec.partition("@")
            tokens = answer_tokens(int(count))
            for name, tree in trees:
                runs.append(run_one(tokens, float(rate or 200), name, tree, Path(tmp)))
                show(runs[-1:])
    print()
    show(runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
