"""`triptych ask --compare A,B`: one prompt to several providers at once, no UI.

Every provider streams concurrently (one client each); a slow or failing one holds no other
back. Output:

- `--json`: one JSON list at the end, one object per provider in `--compare` order, each exactly
  the object `ask --json` prints for one provider.
- otherwise each answer is printed as a labelled block, in `--compare` order, as soon as it and
  every block before it are done (so a fast first provider shows at once, and the output reads
  the same however the streams interleaved). The block's header and answer go to stdout; its
  reasoning (`--reasoning`), tool calls and summary line go to stderr, as with `ask`. A ranking
  line (first token, total, output tokens, cost; ties as `=`; the same text as the TUI's)
  closes the output on stderr.

Exit status: 0 when every answer is complete, 130 when Ctrl+C stopped them (the streams are
closed first and everything received is still printed), else 1.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TextIO

from app.compare.spec import pane_labels
from app.compare.stats import PaneStats, PaneTimes, format_cost, pane_stats, ranking_line
from app.display.sanitize import clean, clean_line
from app.headless.ask import (
    EXIT_COMPLETE,
    EXIT_FAILED,
    EXIT_STOPPED,
    Question,
    answer_json,
    report_recording,
    serve_demo,
    stream_answer,
    summary_line,
    write_notices,
    write_tool_calls,
)
from app.providers.client import Timing
from app.providers.record import Recorder
from app.settings.config import ProviderConfig
from app.settings.redaction import param_secrets, provider_secrets, scrub, unique
from app.wire.turn import Turn, TurnStatus


@dataclass(frozen=True, slots=True)
class CompareJob:
    providers: tuple[ProviderConfig, ...]  # in pane order; each asks its provider.model
    api_keys: tuple[str | None, ...]  # one per provider
    question: Question


@dataclass(slots=True)
class PaneRun:
    provider: ProviderConfig
    api_key: str | None
    label: str
    turn: Turn
    timing: Timing | None = None


def run_compare(job: CompareJob, stdout: TextIO, stderr: TextIO) -> int:
    """Ask every provider at once, print, and return the exit status."""
    with ExitStack() as stack:
        providers = serve_demo(job.providers, job.question.demo_pace, stack, stderr)
        record = job.question.record
        recorder = Recorder(record) if record is not None else None
        if recorder is not None:
            stack.callback(recorder.close)
        labels = pane_labels(list(job.providers))
        runs = [
            PaneRun(p, key, label, Turn())
            for p, key, label in zip(providers, job.api_keys, labels, strict=True)
        ]
        printer = _BlockPrinter(runs, job, stdout, stderr)
        asyncio.run(_ask_all(runs, job, recorder, printer))
        printer.finish()
        if recorder is not None:
            recorder.close()
            report_recording(recorder, stderr)
    statuses = {run.turn.status for run in runs}
    if statuses == {TurnStatus.COMPLETE}:
        return EXIT_COMPLETE
    return EXIT_STOPPED if TurnStatus.STOPPED in statuses else EXIT_FAILED


async def _ask_all(
    runs: list[PaneRun], job: CompareJob, recorder: Recorder | None, printer: _BlockPrinter
) -> None:
    tasks = [asyncio.create_task(_ask_one(run, job, recorder, printer)) for run in runs]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        # Ctrl+C: asyncio.run cancelled us; each client closes its stream and marks it stopped.
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()


async def _ask_one(
    run: PaneRun, job: CompareJob, recorder: Recorder | None, printer: _BlockPrinter
) -> None:
    run.timing = Timing(time.monotonic())
    try:
        await stream_answer(run.provider, run.api_key, job.question, run.turn, run.timing, recorder)
    finally:
        if not run.turn.done:
            run.turn.end(stopped=True)
        printer.done(run)


def stats_of(run: PaneRun) -> PaneStats:
    timing = run.timing or Timing(0.0)
    times = PaneTimes(timing.started, timing.first_token, None, timing.ended)
    return pane_stats(run.label, run.provider, run.turn, times)


class _BlockPrinter:
    """Prints each pane's block once it and all before it are done (human mode)."""

    def __init__(self, runs: list[PaneRun], job: CompareJob, stdout: TextIO, stderr: TextIO):
        self.runs = runs
        self.job = job
        self.stdout = stdout
        self.stderr = stderr
        params = job.question.params
        self.secrets = unique(
            [
                *(
                    s
                    for provider, key in zip(job.providers, job.api_keys, strict=True)
                    for s in provider_secrets(provider, key)
                ),
                *(param_secrets(params.extra) if params is not None else ()),
            ]
        )
        self._finished: set[int] = set()
        self._printed = 0

    def done(self, run: PaneRun) -> None:
        self._finished.add(id(run))
        if self.job.question.json_output:
            return
        while self._printed < len(self.runs) and id(self.runs[self._printed]) in self._finished:
            self._block(self._printed + 1, self.runs[self._printed])
            self._printed += 1

    def finish(self) -> None:
        if self.job.question.json_output:
            documents = [
                answer_json(run.provider, run.turn, run.timing or Timing(0.0)) for run in self.runs
            ]
            self.stdout.write(scrub(json.dumps(documents), self.secrets) + "\n")
            self.stdout.flush()
            return
        for number, run in enumerate(self.runs[self._printed :], self._printed + 1):
            self._block(number, run)  # cancelled before it ran: still say what happened
        self._printed = len(self.runs)
        stats = [stats_of(run) for run in self.runs]
        self.stderr.write(scrub(clean_line("ranking · " + ranking_line(stats)), self.secrets))
        self.stderr.write("\n")
        self.stderr.flush()

    def _block(self, number: int, run: PaneRun) -> None:
        provider, turn = run.provider, run.turn
        head = f"── {number} · {provider.name} · {provider.model} · {provider.api.value} ──"
        self.stdout.write(clean_line(head) + "\n")
        self.stdout.flush()
        if self.job.question.show_reasoning and turn.reasoning:
            reasoning = scrub(clean(turn.reasoning), self.secrets)
            self.stderr.write(reasoning + ("" if reasoning.endswith("\n") else "\n"))
            self.stderr.flush()
        text = scrub(clean(turn.text), self.secrets)
        if text:
            self.stdout.write(text + ("" if text.endswith("\n") else "\n"))
        self.stdout.flush()
        write_tool_calls(turn, self.stderr, self.secrets)
        write_notices(turn, self.stderr, self.secrets)
        line = summary_line(provider, turn, run.timing or Timing(0.0))
        cost = stats_of(run).cost
        if cost is not None:
            first, _, rest = line.partition("\n")
            line = f"{first} · {format_cost(cost)}" + (f"\n{rest}" if rest else "")
        self.stderr.write(scrub(clean(line), self.secrets) + "\n\n")
        self.stderr.flush()


__all__ = ["CompareJob", "run_compare"]
