"""Batch benchmark: `triptych batch` over 100 prompts x 3 providers against `ask --json`.

    python bench/bench_batch.py                 # 100 prompts, 3 providers, concurrency 8
    python bench/bench_batch.py --prompts 30 --tokens 500 --asks 5

A loopback server in its own process (the tests' HTTP core, app/demo/loopback.py, with the
demo's frames) answers every request at full speed with the same ~500-token answer, in the
format its path asks for: provider `a` speaks Chat Completions, `b` Messages, `c` Responses.

1. ask: a fresh process imports the app, asks once to warm up, then runs `triptych ask --json`
   (app.cli.main, in-process) `--asks` times per provider; CPU (user + system, every thread)
   is measured around each call, so interpreter start-up and imports are excluded. The
   reference is the mean over the three formats of each one's median.
2. batch: another fresh process does the same warm-up, then runs `triptych batch PROMPTS
   --compare a,b,c --concurrency 8 --out results.jsonl` (in-process) with the history in a
   temporary data dir, measured the same way; CPU per answer is that CPU / answers. Its peak
   memory is the process's maximum resident set size (start-up included).

Targets: CPU per answer at most 1.5x ask's, peak memory under 150 MB. Not part of
the test run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROVIDERS = {"a": "chat", "b": "messages", "c": "responses"}


def serve(tokens: int) -> None:
    """Answer every request with the same answer, at full speed, until stdin closes."""
    sys.path.insert(0, str(ROOT))
    from app.demo.frames import Answer, frames
    from app.demo.loopback import LoopbackServer, Reply, SeenRequest, Send
    from app.wire.engine import Api

    answer = Answer(text=tuple(f"word{i} " for i in range(tokens)), input_tokens=20)
    bodies = {api: b"".join(frames(api, answer)) for api in Api}
    paths = {"/v1/chat/completions": Api.CHAT, "/v1/messages": Api.MESSAGES,
             "/v1/responses": Api.RESPONSES}  # fmt: skip

    def route(request: SeenRequest) -> Reply:
        api = paths.get(request.path.split("?")[0], Api.CHAT)
        request.body = b""  # the server keeps every request: keep them small
        return Reply(200, (("Content-Type", "text/event-stream"),), (Send(bodies[api]),))

    server = LoopbackServer(route)
    print(server.url, flush=True)
    sys.stdin.read()
    server.close()


def cpu() -> float:
    """CPU seconds of this process, every thread (CLOCK_PROCESS_CPUTIME_ID: fine-grained)."""
    return time.process_time()


def measure(mode: str, conf: Path, workdir: Path, asks: int) -> None:
    """In a fresh process: warm up with one ask, then measure `mode` (ask or batch)."""
    sys.path.insert(0, str(ROOT))
    from app import cli

    def run(*argv: str) -> int:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return cli.main(["--config", str(conf), *argv])

    assert run("ask", "--provider", "a", "--json", "warm up") == 0
    result: dict[str, object] = {}
    if mode == "ask":
        for name in PROVIDERS:
            spent = []
            for _ in range(asks):
                before = cpu()
                assert run("ask", "--provider", name, "--json", "one question") == 0
                spent.append(cpu() - before)
            result[name] = statistics.median(spent)
    else:
        os.chdir(workdir)
        before, wall = cpu(), time.monotonic()
        code = run("batch", "prompts.txt", "--compare", ",".join(PROVIDERS),
                   "--concurrency", "8", "--out", "results.jsonl")  # fmt: skip
        result["cpu"], result["wall"] = cpu() - before, time.monotonic() - wall
        result["code"] = code
        lines = (workdir / "results.jsonl").read_text().splitlines()
        result["answers"] = len(lines)
        result["complete"] = sum(json.loads(line)["status"] == "complete" for line in lines)
        result["tokens"] = statistics.median(
            json.loads(line)["usage"]["output_tokens"] for line in lines
        )
        result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result), flush=True)


def child(mode: str, conf: Path, workdir: Path, asks: int, env: dict[str, str]) -> dict[str, float]:
    argv = [sys.executable, __file__, "--measure", mode, "--conf", str(conf),
            "--workdir", str(workdir), "--asks", str(asks)]  # fmt: skip
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=100)
    parser.add_argument("--tokens", type=int, default=500)
    parser.add_argument("--asks", type=int, default=7, help="asks per provider (median)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--measure", choices=("ask", "batch"), help=argparse.SUPPRESS)
    parser.add_argument("--conf", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.tokens)
        return
    if args.measure:
        measure(args.measure, args.conf, args.workdir, args.asks)
        return

    server = subprocess.Popen([sys.executable, __file__, "--serve", "--tokens", str(args.tokens)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert server.stdout is not None
    url = server.stdout.readline().strip() + "/v1"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            conf = work / "config.toml"
            conf.write_text("".join(
                f'[providers.{name}]\napi = "{api}"\nbase_url = "{url}"\nmodel = "m-{name}"\n'
                for name, api in PROVIDERS.items()
            ))  # fmt: skip
            (work / "prompts.txt").write_text(
                "".join(f"question number {i}\n" for i in range(args.prompts))
            )
            env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
            env.update(TRIPTYCH_DATA_DIR=str(work / "data"), XDG_CONFIG_HOME=str(work / "ch"))
            asked = child("ask", conf, work, args.asks, env)
            batch = child("batch", conf, work, args.asks, env)
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)

    reference = statistics.fmean(asked[name] for name in PROVIDERS)
    per_answer = batch["cpu"] / batch["answers"]
    ratio = per_answer / reference
    print(f"answers: {batch['answers']:.0f} ({batch['complete']:.0f} complete, "
          f"{batch['tokens']:.0f} output tokens each), exit {batch['code']:.0f}")  # fmt: skip
    for name, api in PROVIDERS.items():
        print(f"ask --json ({api:9}) {asked[name] * 1000:7.1f} ms CPU (median of {args.asks})")
    print(f"ask --json reference   {reference * 1000:7.1f} ms CPU per answer")
    print(f"batch                  {per_answer * 1000:7.1f} ms CPU per answer "
          f"({batch['cpu']:.2f} s CPU, {batch['wall']:.2f} s wall)")  # fmt: skip
    met = "met" if ratio <= 1.5 else "NOT met"
    print(f"batch / ask            {ratio:7.2f}x   (target <= 1.5x: {met})")
    peak = batch["peak_mb"]
    met = "met" if peak < 150 else "NOT met"
    print(f"batch peak memory      {peak:7.1f} MB  (target < 150 MB: {met})")


if __name__ == "__main__":
    main()
