"""Huge single constructs: a 20,000-row table, a 1 MiB list, 3 MiB of paragraphs, streamed at
full speed through the real app in tmux (bench_render.py's server and terminal harness);
`--kinds one-paragraph,one-line` adds a single paragraph of many lines, or one long line.

    python bench/bench_big_markdown.py                       # all three
    python bench/bench_big_markdown.py --kinds table --table-rows 5000
    python bench/bench_big_markdown.py --kinds list --wrap "py-spy record -o p.svg --"

Reported per answer: CPU seconds of the whole run, CPU seconds from the last byte sent to the
app's settled frame (what it cost to catch up), wall time from the last byte to the settled
frame and to tmux showing the end mark, and the event loop's lag (TRIPTYCH_LAG_LOG: p95 and the
longest stall). The answer is sent in events of `--chunk` characters. Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

# the sibling script (run as `python bench/...`, this folder is on the path)
from bench_render import (
    END_MARK,
    Tmux,
    base_env,
    env_command,
    last_byte_wall,
    serve,
)

MIB = 1024 * 1024


def table_text(rows: int) -> str:
    head = "| # | name | value | note |\n|---:|---|---:|---|\n"
    body = "".join(f"| {n} | item {n} | {n * 0.37:.2f} | note for row {n} |\n" for n in range(rows))
    return f"Here is the table:\n\n{head}{body}\n"


def list_text(size: int) -> str:
    lines: list[str] = []
    total = n = 0
    while total < size:
        line = f"- point {n}: a list item with a few words in it, **some bold** and `code`\n"
        if n % 10 == 9:
            line += f"  - nested detail {n}\n"
        lines.append(line)
        total += len(line)
        n += 1
    return "Here is the list:\n\n" + "".join(lines) + "\n"


def paragraphs_text(size: int) -> str:
    parts: list[str] = []
    total = n = 0
    while total < size:
        words = " ".join(f"word{(n * 7 + i) % 97}" for i in range(60))
        part = f"Paragraph {n}: {words} with *emphasis* and `code`.\n\n"
        parts.append(part)
        total += len(part)
        n += 1
    return "".join(parts)


def one_paragraph_text(size: int, line_end: str) -> str:
    """One paragraph: lines joined by `line_end` ("\n": soft breaks, " ": one long line)."""
    words = " ".join(f"word{i % 97}" for i in range(12))
    count = size // (len(words) + 1) + 1
    return "Here it is:\n\n" + line_end.join(f"{words} {n}" for n in range(count)) + "\n"


def chunks(text: str, size: int) -> tuple[str, ...]:
    return tuple(text[i : i + size] for i in range(0, len(text), size))


@dataclass
class Measured:
    name: str
    chars: int
    cpu: float
    settle_cpu: float
    end_ms: float
    tmux_ms: float
    lag_p95: float
    lag_max: float
    peak_mb: float


def run(name: str, text: str, chunk: int, work: Path, wrap: list[str]) -> Measured:
    tokens = chunks(text + f"\n\nThat is all.\n\n{END_MARK}\n", chunk)
    server = serve(tokens, 0.0)
    config = work / "config.toml"
    config.write_text(
        f'default = "bench"\n[providers.bench]\napi = "chat"\nbase_url = "{server.url}/v1"\n'
        'model = "bench-model"\n',
        encoding="utf-8",
    )
    lag_log = work / f"lag-{uuid.uuid4().hex[:6]}.json"
    env = {**base_env(work), "TRIPTYCH_CONFIG": str(config), "TRIPTYCH_LAG_LOG": str(lag_log)}
    tmux = Tmux()
    try:
        tmux.start(env_command(env, [*wrap, sys.executable, "-m", "app"]))
        tmux.wait(lambda s: "Ask anything" in s, 20)
        tmux.keys("go", "Enter")
        while not server.requests:
            time.sleep(0.01)
        last_byte = last_byte_wall(server.requests[-1])
        on_screen = tmux.wait(lambda s: END_MARK in s and "complete" in s, 900, poll=0.05)
        time.sleep(1.0)
        tmux.keys("C-q")
        deadline = time.monotonic() + 60
        while not lag_log.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        report = json.loads(lag_log.read_text())
        while wrap and tmux.alive() and time.monotonic() < deadline:  # let a profiler write
            time.sleep(0.1)
    finally:
        tmux.close()
        server.close()
    samples = report["samples"]
    settled = report["final_frames"][-1]
    before = [s for s in samples if s[0] <= last_byte] or samples[:1]
    after = [s for s in samples if s[0] >= settled] or samples[-1:]
    return Measured(
        name,
        len(text),
        report["cpu_seconds"],
        after[0][1] - before[-1][1],
        (settled - last_byte) * 1000,
        (on_screen - last_byte) * 1000,
        report["lag_p95_ms"],
        report["lag_max_ms"],
        report["peak_rss_mb"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", default="table,list,paragraphs")
    parser.add_argument("--table-rows", type=int, default=20_000)
    parser.add_argument("--list-bytes", type=int, default=MIB)
    parser.add_argument("--paragraph-bytes", type=int, default=3 * MIB)
    parser.add_argument("--one-bytes", type=int, default=MIB // 4, help="one-paragraph, one-line")
    parser.add_argument("--chunk", type=int, default=64, help="characters per event")
    parser.add_argument("--wrap", default="", help="command prefix for the app (a profiler)")
    args = parser.parse_args()
    texts = {
        "table": lambda: (f"table, {args.table_rows:,} rows", table_text(args.table_rows)),
        "list": lambda: (f"list, {args.list_bytes / MIB:g} MiB", list_text(args.list_bytes)),
        "paragraphs": lambda: (
            f"paragraphs, {args.paragraph_bytes / MIB:g} MiB",
            paragraphs_text(args.paragraph_bytes),
        ),
        "one-paragraph": lambda: (
            f"1 paragraph, {args.one_bytes / MIB:g} MiB",
            one_paragraph_text(args.one_bytes, "\n"),
        ),
        "one-line": lambda: (
            f"1 line, {args.one_bytes / MIB:g} MiB",
            one_paragraph_text(args.one_bytes, " "),
        ),
    }
    results: list[Measured] = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds.split(","):
            name, text = texts[kind]()
            results.append(run(name, text, args.chunk, Path(tmp), args.wrap.split()))
            print(results[-1], flush=True)
    print(
        f"{'answer':<24} {'chars':>9} {'cpu s':>7} {'settle cpu':>10} {'end ms':>8}"
        f" {'tmux ms':>8} {'lag p95':>8} {'lag max':>8} {'peak MB':>8}"
    )
    for r in results:
        print(
            f"{r.name:<24} {r.chars:>9,} {r.cpu:>7.2f} {r.settle_cpu:>10.2f} {r.end_ms:>8.0f}"
            f" {r.tmux_ms:>8.0f} {r.lag_p95:>8.1f} {r.lag_max:>8.0f} {r.peak_mb:>8.1f}"
        )


if __name__ == "__main__":
    main()
