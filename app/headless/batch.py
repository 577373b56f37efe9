"""`triptych batch FILE --compare A,B[,...]`: every prompt of a file to every provider, K times.

Concurrency. At most `concurrency` requests are in flight (default 4), and at most a provider's
`max_concurrency` to that provider (default: `concurrency`): each provider has that many
workers taking its answers in file order, and every request also takes one of the shared
slots, so a slow or rate-limited provider holds no other back. One client per provider keeps
its connections alive across answers.

Retries. A 429 or 503 answer is asked again, up to MAX_RETRIES times: after its Retry-After
(seconds or an HTTP date; one longer than MAX_RETRY_WAIT is not waited for: the answer is
failed, and its error and the progress say why), else after a jittered exponential backoff
(uniformly up to 1, 2, 4 s). A retry waits without holding a slot. Every other failure is
recorded as a failed answer; none stops the run.

History. Each prompt is one conversation of kind "batch" (every repeat of the prompt stored as
a prompt in it, before any request; each provider answers in its own pane), tied to one
`batches` row for the run (file, --tag, providers). Writes go through one writer thread.

Ctrl+C cancels every stream (each client closes its connection and marks its answer stopped,
which the history keeps), keeps every line already written to --out (a stopped answer is not
written, so a resumed run asks it again), and exits 130.

Exit status: 0 when every answer is complete (this run's and those resumed from --out), 130
after Ctrl+C, else 1. Bad input (the file, the flags, an --out that is not ours) is found before
anything is written: exit 2, in app/cli.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, TextIO

from app.compare.stats import PaneTimes, pane_stats, turn_cost
from app.display.speed import tokens_per_second
from app.headless.ask import EXIT_COMPLETE, EXIT_FAILED, EXIT_STOPPED, answer_json, serve_demo
from app.headless.batch_file import BatchPrompt
from app.headless.batch_progress import REDRAW_EVERY, Progress, Tally, summary_table
from app.headless.batch_results import Kept, ResultsFileError, ResultsWriter
from app.providers.client import ProviderClient, Timing
from app.settings.config import ProviderConfig
from app.settings.redaction import provider_secrets, scrub, unique
from app.store import Store, StoreError
from app.store.writer import StoreWriter
from app.wire.conversation import Conversation
from app.wire.events import Usage
from app.wire.turn import Turn, TurnStatus

DEFAULT_CONCURRENCY = 4
EXIT_USAGE = 2  # an --out that cannot be written, found before any request
MAX_RETRIES = 3
RETRY_STATUSES = frozenset({429, 503})
MAX_RETRY_WAIT = 300.0  # seconds: a Retry-After longer than this fails the answer instead
BACKOFF_BASE = 1.0  # seconds: the first backoff without a Retry-After is up to this long


@dataclass(frozen=True, slots=True)
class BatchJob:
    source: Path
    prompts: tuple[BatchPrompt, ...]
    providers: tuple[ProviderConfig, ...]
    api_keys: tuple[str | None, ...]
    concurrency: int = DEFAULT_CONCURRENCY
    repeat: int = 1
    system: str | None = None  # --system, else the config's; a JSONL line's own wins
    out: Path | None = None
    out_format: str = "jsonl"
    kept: Kept = field(default_factory=lambda: Kept(frozenset(), ()))  # resumed from --out
    tag: str | None = None
    idle_timeout: float = 150.0
    connect_timeout: float = 10.0
    demo_pace: float = 1.0
    blind: bool = False  # --blind: stored so that opening it votes prompt by prompt, names hidden


@dataclass(frozen=True, slots=True)
class BatchNews:
    """An answer started (`status` None) or finished, for a live view of the run (--ui)."""

    line: int  # the prompt's line in the file
    pane: int  # the provider's place in --compare
    status: TurnStatus | None = None
    ttft_ms: int | None = None
    tok_s: float | None = None
    tokens: int | None = None
    cost: float | None = None


@dataclass(slots=True)
class _Answer:
    """One answer to ask: a prompt's repeat, for one provider."""

    prompt: BatchPrompt
    repeat: int
    pane: int


@dataclass(slots=True)
class _Conversation:
    """A prompt's conversation in the history; ids are set by the writer thread."""

    conv_id: int | None = None
    prompt_ids: list[int] = field(default_factory=list)


def retry_after(header: str | None) -> float | None:
    """A Retry-After in seconds from now: whole seconds of any length, or an HTTP date (one
    past is 0); None when there is none or it is neither."""
    value = (header or "").strip()
    if value.isascii() and value.isdigit():
        digits = value.lstrip("0") or "0"
        return float(digits) if len(digits) <= 15 else math.inf  # longer: as good as forever
    if value:
        with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
            when = parsedate_to_datetime(value)
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            return max(0.0, (when - datetime.now(UTC)).total_seconds())
    return None


def retry_delay(header: str | None, attempt: int, rng: random.Random) -> float | None:
    """Seconds to wait before retry number `attempt` (1-based): the Retry-After when it is one
    (None when it asks for longer than MAX_RETRY_WAIT), else a jittered backoff."""
    wait = retry_after(header)
    if wait is not None:
        return wait if wait <= MAX_RETRY_WAIT else None
    return rng.uniform(0, BACKOFF_BASE * 2 ** (attempt - 1))


def too_long_to_wait(wait: float) -> str:
    """What a failed answer adds to its error when its Retry-After was not waited for."""
    asked = "longer than any wait" if math.isinf(wait) else f"{wait:,.0f} s"
    return (
        f" (Retry-After asks for {asked}; a batch waits at most {MAX_RETRY_WAIT:g} s, "
        "so it was not asked again: run the batch again later to ask it)"
    )


class BatchRun:
    """One run: its clients, slots, history writes, --out file and progress."""

    def __init__(
        self,
        job: BatchJob,
        providers: list[ProviderConfig],
        store: Store | None,
        results: ResultsWriter | None,
        progress: Progress,
        tallies: list[Tally],
    ) -> None:
        self.job = job
        self.providers = providers
        self.store = store
        self.writer = StoreWriter("batch-history") if store is not None else None
        self.results = results
        self.progress = progress
        self.tallies = tallies
        self.secrets = unique(
            s
            for provider, key in zip(job.providers, job.api_keys, strict=True)
            for s in provider_secrets(provider, key)
        )
        self.rng = random.Random()
        self.batch_id: int | None = None
        self.conversations: dict[int, _Conversation] = {}  # by prompt line
        self.interrupted = False
        self.history_problem: str | None = None
        self.incomplete = 0  # answers of this run that did not complete
        self.queues = self._queues()
        self.on_news: Callable[[BatchNews], None] | None = None  # a live view's (--ui)
        for queue, tally in zip(self.queues, tallies, strict=True):
            tally.total = tally.resumed + len(queue)

    # -- the run ---------------------------------------------------------------------------------

    async def run(self) -> None:
        slots = asyncio.Semaphore(self.job.concurrency)
        queues = self.queues
        clients = [
            ProviderClient(
                provider,
                key,
                idle_timeout=self.job.idle_timeout,
                connect_timeout=self.job.connect_timeout,
            )
            for provider, key in zip(self.providers, self.job.api_keys, strict=True)
        ]
        self._write_history(self._start_batch)
        workers = [
            asyncio.create_task(self._worker(queues[pane], clients[pane], slots))
            for pane, provider in enumerate(self.providers)
            for _ in range(
                min(provider.max_concurrency or self.job.concurrency, self.job.concurrency)
            )
        ]
        drawing = asyncio.create_task(self._draw()) if self.progress.tty else None
        try:
            await asyncio.gather(*workers)
        except asyncio.CancelledError:
            # Ctrl+C: asyncio.run cancelled us; each client closes its stream, marks it stopped.
            self.interrupted = True
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
        finally:
            if drawing is not None:
                drawing.cancel()
                await asyncio.gather(drawing, return_exceptions=True)
            self.progress.draw(time.monotonic())
            for client in clients:
                await client.aclose()

    def _queues(self) -> list[deque[_Answer]]:
        """Each provider's answers still to ask, prompt by prompt (its repeats together)."""
        kept = self.job.kept.keys
        queues: list[deque[_Answer]] = [deque() for _ in self.providers]
        for prompt in self.job.prompts:
            for repeat in range(1, self.job.repeat + 1):
                for pane, provider in enumerate(self.providers):
                    if (str(prompt.id), provider.name, provider.model, repeat) not in kept:
                        queues[pane].append(_Answer(prompt, repeat, pane))
        return queues

    async def _worker(
        self, queue: deque[_Answer], client: ProviderClient, slots: asyncio.Semaphore
    ) -> None:
        while queue:
            await self._answer(queue.popleft(), client, slots)

    async def _answer(
        self, answer: _Answer, client: ProviderClient, slots: asyncio.Semaphore
    ) -> None:
        tally = self.tallies[answer.pane]
        what = f"prompt {answer.prompt.id} #{answer.repeat}"
        turn_row = await self._start_turn(answer)
        conversation = Conversation(system=answer.prompt.system or self.job.system)
        conversation.add_user(answer.prompt.prompt)
        retries = 0
        turn, timing = Turn(), Timing(time.monotonic())
        try:
            while True:
                turn, timing = Turn(), Timing(time.monotonic())
                head: dict[str, Any] = {}

                def seen(
                    status: int, headers: Mapping[str, str], head: dict[str, Any] = head
                ) -> None:
                    head["status"], head["retry_after"] = status, headers.get("retry-after")

                async with slots:
                    tally.in_flight += 1
                    if self.on_news is not None:
                        self.on_news(BatchNews(answer.prompt.line, answer.pane))
                    timing.started = time.monotonic()
                    try:
                        await client.stream(conversation, turn, timing, on_response=seen)
                    finally:
                        tally.in_flight -= 1
                if turn.status is not TurnStatus.FAILED or head.get("status") not in RETRY_STATUSES:
                    break
                if retries == MAX_RETRIES:
                    break
                delay = retry_delay(head.get("retry_after"), retries + 1, self.rng)
                if delay is None:
                    self._not_waited(turn, head.get("retry_after"), tally, what)
                    break
                retries += 1
                tally.retries += 1
                self.progress.retry(tally, what, retries, MAX_RETRIES, delay)
                await asyncio.sleep(delay)
        except asyncio.CancelledError:
            if not turn.done:
                turn.end(stopped=True)
            self._finish(answer, turn, timing, retries, turn_row)
            raise
        self._finish(answer, turn, timing, retries, turn_row)

    def _not_waited(self, turn: Turn, header: str | None, tally: Tally, what: str) -> None:
        """Say, on the answer's error and in the progress, that its Retry-After was too long."""
        note = too_long_to_wait(retry_after(header) or math.inf)
        if turn.error is not None:
            turn.error = replace(turn.error, message=turn.error.message + note)
        self.progress.gave_up(tally, what, note.strip(" ()"))

    def _finish(
        self, answer: _Answer, turn: Turn, timing: Timing, retries: int, turn_row: _Row
    ) -> None:
        provider, tally = self.providers[answer.pane], self.tallies[answer.pane]
        stats = pane_stats(
            tally.label,
            provider,
            turn,
            PaneTimes(timing.started, timing.first_token, None, timing.ended),
        )
        complete = turn.status is TurnStatus.COMPLETE
        tok_s = None if stats.rate is None else stats.rate.tokens_per_second
        cost = turn_cost(provider, turn.usage) if complete else None
        tally.finish(
            turn.status,
            ttft_ms=timing.ttft_ms,
            tok_s=tok_s,
            output_tokens=stats.output_tokens,
            cost=cost,
        )
        if self.on_news is not None:
            news = BatchNews(answer.prompt.line, answer.pane, turn.status, timing.ttft_ms)
            self.on_news(replace(news, tok_s=tok_s, tokens=stats.output_tokens, cost=cost))
        if not complete:
            self.incomplete += 1
        seconds = None if timing.duration_ms is None else timing.duration_ms / 1000
        self.progress.finished(
            tally, f"prompt {answer.prompt.id} #{answer.repeat}", turn.status, seconds
        )
        self._write_history(lambda store: _save(store, turn_row, turn, timing))
        if self.results is not None and turn.status is not TurnStatus.STOPPED:
            document = answer_json(provider, turn, timing)
            document.update(
                prompt_id=answer.prompt.id,
                prompt=answer.prompt.prompt,
                repeat=answer.repeat,
                retries=retries,
            )
            self.results.write(_scrubbed(document, self.secrets))

    # -- history -----------------------------------------------------------------------------

    def _start_batch(self, store: Store) -> None:
        self.batch_id = store.create_batch(
            source=str(self.job.source),
            tag=self.job.tag,
            providers=[f"{p.name}:{p.model}" for p in self.providers],
            blind=self.job.blind,
        )

    async def _start_turn(self, answer: _Answer) -> _Row:
        """The answer's row in the history, once its prompt is stored (before any request)."""
        row = _Row()
        if self.writer is None:
            return row
        record = self.conversations.get(answer.prompt.line)
        if record is None:
            record = self.conversations[answer.prompt.line] = _Conversation()
            self._write_history(lambda store: self._store_prompt(store, answer.prompt, record))
        provider = self.providers[answer.pane]

        def start(store: Store) -> None:
            if record.conv_id is None or len(record.prompt_ids) < answer.repeat:
                return
            row.turn_id = store.start_turn(
                record.conv_id,
                provider=provider.name,
                model=provider.model,
                api=provider.api.value,
                pane=answer.pane,
                reply_to=record.prompt_ids[answer.repeat - 1],
            )

        await asyncio.wrap_future(self._write_history(start))
        return row

    def conversation_id(self, line: int) -> int | None:
        """The history's conversation of the prompt on `line`, once the writer stored it."""
        record = self.conversations.get(line)
        return None if record is None else record.conv_id

    def _store_prompt(self, store: Store, prompt: BatchPrompt, record: _Conversation) -> None:
        record.conv_id = store.create_conversation(
            kind="batch",
            system=prompt.system or self.job.system,
            batch_id=self.batch_id,
            blind=self.job.blind,
        )
        for _ in range(self.job.repeat):
            record.prompt_ids.append(store.add_user_message(record.conv_id, prompt.prompt))

    def _write_history(self, write: Callable[[Store], None]) -> Future[None]:
        """Queue a write on the writer thread. The first one that fails (a full disk) is kept
        to be said once at the end, and the run goes on without history."""
        done: Future[None] = Future()
        if self.writer is None or self.store is None:
            done.set_result(None)
            return done
        store = self.store

        def guarded() -> None:
            if self.history_problem is not None:
                return
            try:
                write(store)
            except StoreError as exc:
                self.history_problem = exc.for_command()

        return self.writer.submit(guarded)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    async def _draw(self) -> None:
        while True:
            self.progress.draw(time.monotonic())
            await asyncio.sleep(REDRAW_EVERY)


@dataclass(slots=True)
class _Row:
    turn_id: int | None = None


def _save(store: Store, row: _Row, turn: Turn, timing: Timing) -> None:
    if row.turn_id is not None:
        store.save_turn(
            row.turn_id, turn, ttft_ms=timing.ttft_ms, duration_ms=timing.duration_ms, final=True
        )


def _scrubbed(document: dict[str, Any], secrets: tuple[str, ...]) -> dict[str, Any]:
    """The record with every secret of every provider taken out of its strings."""
    if not secrets:
        return document
    out: dict[str, Any] = json.loads(scrub(json.dumps(document), secrets))
    return out


def run_batch(
    job: BatchJob,
    stdout: TextIO,
    stderr: TextIO,
    *,
    store: Store | None,
    tty: bool,
) -> int:
    """Ask everything, print the table, and return the exit status."""
    with ExitStack() as stack:
        providers = serve_demo(job.providers, job.demo_pace, stack, stderr)
        results = None
        if job.out is not None:
            try:
                results = ResultsWriter(job.out, job.out_format, job.kept)
            except ResultsFileError as exc:
                stderr.write(f"triptych: {exc}\n")
                return EXIT_USAGE
            stack.callback(results.close)
        if job.kept.keys:
            count = len(job.kept.keys)
            stderr.write(f"batch: {count} answers already complete in {job.out}: not asked again\n")
        tallies = [Tally(f"{p.name}:{p.model}", 0) for p in providers]
        count_kept(job.kept, providers, tallies)
        run = BatchRun(
            job,
            providers,
            store,
            results,
            Progress(stderr, tallies, tty=tty, started=time.monotonic()),
            tallies,
        )
        stack.callback(run.close)
        asyncio.run(run.run())
    stdout.write(summary_table(tallies))
    stdout.flush()
    if run.history_problem is not None:
        stderr.write(f"triptych: warning: {run.history_problem} Later answers were not saved.\n")
    if results is not None and results.problem is not None:
        stderr.write(f"triptych: {results.problem}; later answers are not in it\n")
    if run.interrupted:
        left = sum(t.total - t.done for t in tallies)
        stderr.write(f"batch: stopped on Ctrl+C; {left} answers not finished\n")
    return exit_status(run)


def count_kept(kept: Kept, providers: Sequence[ProviderConfig], tallies: Sequence[Tally]) -> None:
    """A resumed run's table and summary cover the whole --out file: the answers kept from it
    count as complete, with their figures as written (TTFT, tok/s over the first token to the
    end, tokens, cost at the config's prices), though they are not asked again."""
    by_name = {(p.name, p.model): n for n, p in enumerate(providers)}
    for row in kept.rows:
        pane = by_name.get((row["provider"], row["model"]))
        if pane is None:
            continue
        provider, tally = providers[pane], tallies[pane]
        ttft, duration = _int(row.get("ttft_ms")), _int(row.get("duration_ms"))
        output, usage = _int(row.get("output_tokens")), None
        if output is not None or _int(row.get("input_tokens")) is not None:
            usage = Usage(_int(row.get("input_tokens")), output, _int(row.get("cached_tokens")))
        rate = None
        if ttft is not None and duration is not None:
            found = tokens_per_second(output, 0, ttft / 1000, duration / 1000)
            rate = None if found is None else found.tokens_per_second
        tally.resumed += 1
        tally.finish(
            TurnStatus.COMPLETE,
            ttft_ms=ttft,
            tok_s=rate,
            output_tokens=output,
            cost=turn_cost(provider, usage),
        )


def _int(value: str | None) -> int | None:
    try:
        return None if not value else int(value)
    except ValueError:
        return None


def exit_status(run: BatchRun) -> int:
    """How a run ended, as `triptych batch` (and `batch --ui`) exits: 130 stopped, 1 when an
    answer did not complete or --out stopped taking lines, else 0."""
    if run.interrupted:
        return EXIT_STOPPED
    if run.results is not None and run.results.problem is not None:
        return EXIT_FAILED
    return EXIT_FAILED if run.incomplete else EXIT_COMPLETE


__all__ = [
    "DEFAULT_CONCURRENCY",
    "MAX_RETRIES",
    "BatchJob",
    "BatchNews",
    "BatchRun",
    "count_kept",
    "exit_status",
    "retry_after",
    "retry_delay",
    "run_batch",
]
