"""The batch table: `triptych batch … --ui` runs under a live table of prompts x
providers; a batch opened from the history is that table again (not a chat); Enter opens a
prompt's answers side by side and Esc comes back; a blind batch is voted on prompt by prompt;
Esc on a running table stops it. Over three fake providers on loopback with a history file."""

from __future__ import annotations

import asyncio
import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.headless.batch import BatchJob, run_batch
from app.headless.batch_file import read_prompts
from app.store import Store
from app.ui.app import TriptychApp
from app.ui.screens.batch import BatchScreen
from app.ui.screens.batch_answers import BatchAnswers
from app.ui.screens.chat import ChatScreen
from app.ui.screens.history import HistoryScreen
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import answer
from tests.ui.helpers import make_app, screen_text, wait_until
from tests.ui.test_compare_blind import WHO, blind_config, leaks, read_votes

WIDE = (200, 30)
PROMPTS = "first prompt\n# skipped\nsecond prompt\n"


def job_for(fakes: dict[Api, FakeProvider], tmp_path: Path, **changes: Any) -> BatchJob:
    source = tmp_path / "prompts.txt"
    source.write_text(PROMPTS)
    # One request at a time per provider: each asks the prompts in file order, so its
    # replies go in push order.
    providers = tuple(replace(p, max_concurrency=1) for p in blind_config(fakes).providers.values())
    return BatchJob(
        source=source,
        prompts=tuple(read_prompts(source)),
        providers=providers,
        api_keys=(None,) * len(providers),
        concurrency=3,
        **changes,
    )


def push_two(fakes: dict[Api, FakeProvider]) -> None:
    """Two answers per provider; okapi fails the second prompt."""
    for n, api in enumerate(WHO, 1):
        fakes[api].push(fake.stream(api, answer(*(["one "] * n))))
        if api is Api.RESPONSES:
            fakes[api].push(fake.http_error(api, 500, "server_error", "overloaded"))
        else:
            fakes[api].push(fake.stream(api, answer(*(["two "] * n))))


def app_for(fakes: dict[Api, FakeProvider], tmp_path: Path, **kwargs: Any) -> TriptychApp:
    return make_app(blind_config(fakes), tmp_path, history_file=tmp_path / "history.db", **kwargs)


async def run_headless(job: BatchJob, db: Path) -> int:
    """`triptych batch` without --ui, into the same history file."""
    store = Store.open(db)
    try:
        return await asyncio.to_thread(
            run_batch, job, io.StringIO(), io.StringIO(), store=store, tty=False
        )
    finally:
        store.close()


def batch_screen(app: TriptychApp) -> BatchScreen:
    screen = app.screen
    assert isinstance(screen, BatchScreen), screen
    return screen


def row_text(screen: BatchScreen, index: int) -> list[str]:
    return [str(cell) for cell in screen.grid.get_row_at(index)]


async def test_batch_ui_shows_a_live_table_and_enter_opens_a_prompt_side_by_side(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    push_two(fakes)
    app = app_for(fakes, tmp_path, batch=job_for(fakes, tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BatchScreen), what="the table")
        screen = batch_screen(app)
        await wait_until(pilot, lambda: not screen.running, what="the run's end")
        await pilot.pause()
        text = screen_text(app)
        assert "2 prompts × 3 providers · 6 of 6 answers · done" in text
        for name in WHO.values():
            assert f"{name}:{name}-model" in text  # a column per provider:model
        first, second = row_text(screen, 0), row_text(screen, 1)
        assert first[:2] == ["1", "first prompt"]
        assert second[:2] == ["3", "second prompt"]  # its line in the file
        assert all(cell.startswith("✓ ") and " tok/s" in cell for cell in first[2:])
        assert [cell.split(" · ")[2] for cell in first[2:]] == ["1 tok", "2 tok", "3 tok"]
        assert all("$" in cell for cell in first[2:])  # priced: each cell's cost
        assert second[4].startswith("✖ failed")  # okapi's
        assert app.focused is screen.grid

        await pilot.press("down", "enter")  # the second prompt, side by side
        await wait_until(pilot, lambda: isinstance(app.screen, BatchAnswers), what="answers")
        answers = app.screen
        assert isinstance(answers, BatchAnswers)
        await wait_until(
            pilot, lambda: all(p.current is not None for p in answers.panes), what="stored"
        )
        await pilot.pause()
        shown = screen_text(app)
        assert "second prompt" in shown
        assert "two" in shown
        assert [p.provider.name for p in answers.panes] == list(WHO.values())
        await pilot.press("escape")  # nothing streams: back to the table
        await wait_until(pilot, lambda: app.screen is screen, what="back to the table")


async def test_a_batch_opened_from_the_history_is_its_table_not_a_chat(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    push_two(fakes)
    assert await run_headless(job_for(fakes, tmp_path), tmp_path / "history.db") == 1
    app = app_for(fakes, tmp_path, continue_last=True)  # the last prompt's conversation
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BatchScreen), what="the table")
        screen = batch_screen(app)
        await pilot.pause()
        assert not isinstance(app.screen, ChatScreen)
        assert "2 prompts × 3 providers · 6 of 6 answers · done" in screen_text(app)
        assert screen.grid.cursor_row == 1  # on the prompt that was opened
        second = row_text(screen, 1)
        assert second[1] == "second prompt"
        assert all(cell.startswith("✓ ") for cell in second[2:4])
        assert second[4].startswith("✖ failed")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, BatchAnswers), what="answers")


async def test_a_blind_batch_is_voted_on_prompt_by_prompt(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.db"
    for n, api in enumerate(WHO, 1):
        for word in ("one ", "two "):
            fakes[api].push(fake.stream(api, answer(*([word] * n))))
    assert await run_headless(job_for(fakes, tmp_path, blind=True, tag="nightly"), db) == 0
    app = app_for(fakes, tmp_path, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BatchScreen), what="the table")
        screen = batch_screen(app)
        await pilot.pause()
        assert row_text(screen, 0)[2:] == ["vote ⏎", "·", "·", "·"]  # no figure says who
        assert "0 of 2 voted" in screen_text(app)
        screen.grid.move_cursor(row=0)
        for prompt, key in (("first prompt", "alt+1"), ("second prompt", "alt+equals_sign")):
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, BatchAnswers), what="it")
            answers = app.screen
            assert isinstance(answers, BatchAnswers)
            bar = answers.vote_bar
            await wait_until(pilot, lambda: bar.asking, what="the vote bar")  # noqa: B023
            await pilot.pause()
            before = screen_text(app)
            assert prompt in before
            assert leaks(before) == []
            await pilot.press(key)
            await pilot.pause()
            assert all(name in screen_text(app) for name in WHO.values())
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is screen, what="back to the table")
            await pilot.pause()
        assert [row_text(screen, i)[2] for i in range(2)] == ["voted", "voted"]
        assert row_text(screen, 0)[3].startswith("✓ ")  # voted: its figures show
        assert "2 of 2 voted" in screen_text(app)
    votes = read_votes(db)
    assert [(v.prompt, v.outcome) for v in votes] == [
        ("first prompt", "winner"),
        ("second prompt", "tie"),
    ]
    assert all(v.conversation_id is not None for v in votes)
    assert [v.tag for v in votes] == ["nightly", "nightly"]  # leaderboard --tag counts them


async def test_esc_on_a_running_table_stops_the_batch(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api in WHO:
        fakes[api].push(fake.paced_forever(api), fake.paced_forever(api))
    app = app_for(fakes, tmp_path, batch=job_for(fakes, tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BatchScreen), what="the table")
        screen = batch_screen(app)
        await wait_until(
            pilot,
            lambda: screen.grid.row_count and all("asking" in c for c in row_text(screen, 0)[2:]),
            what="asking",
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.running, what="the run to stop")
        await pilot.pause()
        assert all(cell.startswith("■ stopped") for cell in row_text(screen, 0)[2:])
        assert "· done" in screen_text(app)
        await pilot.press("escape")  # ended: back to the chat
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat")


def test_batch_ui_runs_the_job_in_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "p.txt").write_text("one\ntwo\n")
    calls: list[dict[str, Any]] = []

    def run_tui(config: object, **flags: Any) -> int:
        calls.append(flags)
        return 0

    monkeypatch.setattr(cli, "_import_run_tui", lambda: run_tui)
    argv = ["batch", str(tmp_path / "p.txt"), "--compare", "demo,demo-messages", "--ui", "--blind"]
    assert cli.main(argv) == 0
    job = calls[0]["batch"]
    assert isinstance(job, BatchJob)
    assert [p.prompt for p in job.prompts] == ["one", "two"]
    assert [p.name for p in job.providers] == ["demo", "demo-messages"]
    assert job.blind
    assert capsys.readouterr().out == ""  # no table on stdout: the app shows it


async def test_quitting_during_a_batch_stops_its_streams_and_keeps_them_stopped(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api in WHO:
        fakes[api].push(fake.paced_forever(api), fake.paced_forever(api))
    app = app_for(fakes, tmp_path, batch=job_for(fakes, tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BatchScreen), what="the table")
        screen = batch_screen(app)
        await wait_until(
            pilot,
            lambda: screen.grid.row_count and all("asking" in c for c in row_text(screen, 0)[2:]),
            what="asking",
        )
        await pilot.press("ctrl+q")
    store = Store.open(tmp_path / "history.db")
    try:
        conv_id = store.last_conversation_id()
        assert conv_id is not None
        statuses = {
            str(m.turn.status)
            for c in store.batch_conversations(store.load(conv_id).batch_id or 0)
            for m in store.load(c).messages
            if m.turn is not None
        }
    finally:
        store.close()
    assert statuses == {"stopped"}  # none left 'streaming' for the next start to recover


async def test_the_history_list_labels_a_batchs_prompts_as_a_batch(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """A batch run is one entry of the list (its prompts are conversations of their own, one
    line each once made it a hundred lines for five runs): the list says it is a batch, and
    how many providers it asked, as it says a comparison is one."""
    push_two(fakes)
    assert await run_headless(job_for(fakes, tmp_path), tmp_path / "history.db") == 1
    app = app_for(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="history")
        await pilot.pause()
        rows = [line for line in screen_text(app).splitlines() if "#" in line]
        assert len(rows) == 1
        assert all("· 8 messages · batch · 3 providers" in row for row in rows), rows
        assert all("comparison" not in row for row in rows)
