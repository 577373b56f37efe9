"""What the app does with batch runs: run one live under its table (`triptych batch … --ui`),
open a stored one from the history as that table, and open a row's prompt with its answers side
by side (a blind batch's voted on there, prompt by prompt), then back to the table.

The live run is the headless `BatchRun` itself, on the app's loop: its history goes through its
own connection and writer thread (as `triptych batch` without --ui), its progress lines to
nowhere (the table says it all), and its news redraws the row of each answer that starts or
ends. Esc on the table stops it as Ctrl+C stops `triptych batch`: finished answers are kept.
"""

from __future__ import annotations

import asyncio
import io
import time
from contextlib import ExitStack
from pathlib import Path

from app.compare.batch_table import BatchCell, BatchRow, BatchTable, stored_table
from app.headless.ask import serve_demo
from app.headless.batch import EXIT_USAGE, BatchJob, BatchNews, BatchRun, exit_status
from app.headless.batch_progress import Progress, Tally
from app.headless.batch_results import ResultsFileError, ResultsWriter
from app.store import Store, StoredConversation, StoreError
from app.ui.flows.comparing import open_stored_comparison
from app.ui.flows.host import ChatHost
from app.ui.screens.batch import BatchScreen
from app.ui.screens.batch_answers import BatchAnswers


def live_table(job: BatchJob) -> BatchTable:
    providers = [f"{p.name}:{p.model}" for p in job.providers]
    rows = [
        BatchRow(str(prompt.id), prompt.prompt, [BatchCell() for _ in providers])
        for prompt in job.prompts
    ]
    table = BatchTable(
        providers, rows, repeat=job.repeat, blind=job.blind, title=job.source.name, tag=job.tag
    )
    table.by_line = {prompt.line: index for index, prompt in enumerate(job.prompts)}
    return table


async def run_live_batch(app: ChatHost, job: BatchJob) -> None:
    """`triptych batch … --ui`: the run, under its table, until it ends or Esc stops it."""
    table = live_table(job)
    with ExitStack() as stack:
        store = _open_store(app)
        if store is not None:
            stack.callback(store.close)
        providers = serve_demo(job.providers, job.demo_pace, stack, io.StringIO())
        results = None
        if job.out is not None:
            try:
                results = ResultsWriter(job.out, job.out_format, job.kept)
            except ResultsFileError as exc:
                app.notify(str(exc), severity="error", markup=False)
                app.batch_status = EXIT_USAGE
                return
            stack.callback(results.close)
        tallies = [Tally(f"{p.name}:{p.model}", 0) for p in providers]
        progress = Progress(io.StringIO(), tallies, tty=False, started=time.monotonic())
        run = BatchRun(job, providers, store, results, progress, tallies)
        stack.callback(run.close)
        task = asyncio.create_task(run.run())
        screen = BatchScreen(table, stop=lambda: _stop(task))
        run.on_news = lambda news: _news(screen, run, news)
        screen.conversation_of = lambda row: _conversation_of(table, run, row)
        await app.push_screen(screen)
        try:
            await asyncio.wait([task])
        finally:  # the app quitting cancels this: the run stops its streams as on Ctrl+C
            if not task.done():
                task.cancel()
                await asyncio.wait([task])
            app.batch_status = exit_status(run)  # the app exits with it, as `batch` does
        screen.run_ended()
    done, total = table.counts()
    failed = run.incomplete
    said = f"Batch {'stopped' if run.interrupted else 'done'}: {done} of {total} answers"
    app.notify(f"{said}, {failed} not complete." if failed else f"{said}.", markup=False)


def _stop(task: asyncio.Task[None]) -> None:
    task.cancel()  # the run stops every stream, as on Ctrl+C


def _open_store(app: ChatHost) -> Store | None:
    """The run's own connection to the app's history file (None: history is off)."""
    store = app.history.store
    if store is None:
        return None
    try:
        return Store.open(store.path)
    except StoreError as exc:
        app.notify(f"{exc} The batch runs without history.", severity="warning", markup=False)
        return None


def _news(screen: BatchScreen, run: BatchRun, news: BatchNews) -> None:
    table = screen.table
    row = table.by_line.get(news.line)
    if row is None:
        return
    if news.status is None:
        table.started(row, news.pane)
    else:
        table.finished(
            row,
            news.pane,
            news.status,
            ttft_ms=news.ttft_ms,
            tok_s=news.tok_s,
            tokens=news.tokens,
            cost=news.cost,
        )
    screen.refresh_row(row)


def _conversation_of(table: BatchTable, run: BatchRun, row: int) -> int | None:
    line = next((line for line, index in table.by_line.items() if index == row), None)
    return None if line is None else run.conversation_id(line)


async def open_stored_batch(app: ChatHost, stored: StoredConversation) -> None:
    """A batch conversation from the history: its run's table, the cursor on its prompt."""
    history = app.history
    store = history.store
    if stored.batch_id is None or store is None:  # its run is gone: the prompt alone
        await open_stored_comparison(app, stored, make=BatchAnswers)
        return
    history.wait(0.5)
    try:
        info = store.batch(stored.batch_id)
        ids = store.batch_conversations(stored.batch_id)
    except LookupError:
        await open_stored_comparison(app, stored, make=BatchAnswers)
        return
    except StoreError as exc:
        history.fail(exc)
        return
    conversations = [c for conv_id in ids if (c := history.load(conv_id)) is not None]
    votes = {c.id: history.votes(c.id) for c in conversations} if info.blind else {}
    table = stored_table(
        info.providers,
        conversations,
        app.config.providers,
        votes,
        blind=info.blind,
        title=Path(info.source).name,
        tag=info.tag,
    )
    screen = BatchScreen(table)
    await app.push_screen(screen)
    here = next((i for i, row in enumerate(table.rows) if row.conv_id == stored.id), 0)
    screen.grid.move_cursor(row=here)


async def open_prompt(app: ChatHost, screen: BatchScreen, index: int) -> None:
    """Enter on a row: that prompt's answers side by side, over the table."""
    row = screen.table.rows[index]
    conv_id = row.conv_id if row.conv_id is not None else screen.conversation_of(index)
    stored = None if conv_id is None else app.history.load(conv_id)
    if stored is None:
        app.notify("This prompt is not in the history yet: wait for its answers.")
        return
    row.conv_id = stored.id
    answers = await open_stored_comparison(app, stored, make=BatchAnswers)
    if isinstance(answers, BatchAnswers):
        answers.batch_row = index
        answers.vote_tag = screen.table.tag


async def back_to_table(app: ChatHost, answers: BatchAnswers) -> None:
    """Esc on a prompt's answers: back to the table, its row redrawn (voted, perhaps), the
    cursor on the next prompt to vote on."""
    await answers.aclose()
    await app.pop_screen()
    screen = app.screen
    if not isinstance(screen, BatchScreen) or answers.batch_row is None:
        return
    index = answers.batch_row
    row = screen.table.rows[index]
    if screen.table.blind and row.conv_id is not None:
        row.voted = bool(app.history.votes(row.conv_id))
    screen.refresh_row(index)
    if screen.table.blind and row.voted:
        screen.select_next(index)


__all__ = ["back_to_table", "live_table", "open_prompt", "open_stored_batch", "run_live_batch"]
