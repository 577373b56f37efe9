"""Retry after an unfinished turn, edit-and-resend of the last prompt, and export from the
palette, over the fake provider with the history file in a temp dir."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.settings.config import Config, UiSettings
from app.ui.app import TriptychApp
from app.ui.screens.branching import STILL_ANSWERING
from app.ui.screens.chat import ChatScreen
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.user_message import UserMessage
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import (
    SIZE,
    fake_config,
    footer_text,
    make_app,
    screen_text,
    send,
    wait_drawn,
    wait_until,
)

PLAIN = replace(ANSWER, reasoning=(), tool=None)
SECRET = "sk-test-0123456789abcdef"


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return list(conn.execute(sql))


def user_texts(body: dict[str, object]) -> list[object]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["role"] == "user"]


async def test_retry_sends_the_same_prompt_again_after_a_failure(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(
        fake.stream(Api.CHAT, PLAIN),
        fake.cut_mid_event(Api.CHAT, PLAIN),
        fake.stream(Api.CHAT, PLAIN),
    )
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "warm up")
        await wait_drawn(pilot)
        assert "retry" not in footer_text(app)  # nothing to retry after a complete answer
        await send(pilot, "try this")
        await wait_drawn(pilot)
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.INTERRUPTED
        partial = app.pane.turn.text
        assert "retry" in footer_text(app)  # shown in the footer only now
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3, what="the retry")
        await wait_drawn(pilot)
        assert app.pane.turn.status is TurnStatus.COMPLETE
        body = fake_provider.requests[-1].json
        assert user_texts(body) == ["warm up", "try this"]  # the same prompt, once
        assert body["messages"][-1] == {"role": "user", "content": "try this"}
        assert partial not in [m.get("content") for m in body["messages"]]
        transcript = app.pane.transcript
        assert [m.text for m in transcript.query(UserMessage)] == ["warm up", "try this"]
        statuses = [view.turn.status for view in transcript.query(AssistantTurn)]
        assert statuses == [TurnStatus.COMPLETE, TurnStatus.INTERRUPTED, TurnStatus.COMPLETE]
        labels = [view.label for view in transcript.query(AssistantTurn)]
        assert labels == ["fake · m-1", "fake · m-1", "fake · m-1 · retry 2"]
        assert "retry 2" in screen_text(app)
        assert "retry" not in footer_text(app)
        await pilot.press("ctrl+t")  # nothing to retry now: no request
        await pilot.pause(0.2)
        assert len(fake_provider.requests) == 3
    saved = rows(db, "SELECT role, status FROM messages ORDER BY id")
    assert saved == [
        ("user", None),
        ("assistant", "complete"),
        ("user", None),
        ("assistant", "interrupted"),  # the unfinished answer is kept
        ("assistant", "complete"),
    ]


async def test_edit_the_last_prompt_and_resend_replaces_the_last_exchange(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(*(fake.stream(Api.CHAT, PLAIN) for _ in range(3)))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_drawn(pilot)
        await send(pilot, "teh typo")
        await wait_drawn(pilot)
        prompt = app.screen.query_one("#prompt", PromptInput)
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert prompt.text == "teh typo"
        assert "Esc cancels" in screen_text(app)
        await pilot.press("escape")  # cancel: nothing changes
        await pilot.pause()
        assert prompt.text == ""
        await pilot.press("ctrl+p", *"edit the last")  # the palette offers it too
        await wait_until(pilot, lambda: "Edit the last prompt" in screen_text(app))
        await pilot.press("enter")
        await wait_until(pilot, lambda: prompt.text == "teh typo", what="the palette's edit")
        prompt.load_text("the fix")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3, what="the resend")
        await wait_drawn(pilot)
        body = fake_provider.requests[-1].json
        assert user_texts(body) == ["first", "the fix"]
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
        transcript = app.pane.transcript
        assert [m.text for m in transcript.query(UserMessage)] == ["first", "the fix"]
        assert len(transcript.query(AssistantTurn)) == 2
        assert "teh typo" not in screen_text(app)
    saved = rows(db, "SELECT role, text FROM messages ORDER BY id")
    assert [text for role, text in saved if role == "user"] == ["first", "the fix"]
    assert len(saved) == 4


async def edit_over_a_draft(pilot: Pilot[Any], app: TriptychApp) -> PromptInput:
    """One exchange ("teh typo"), a half-written prompt in the input, then ctrl+l."""
    await send(pilot, "teh typo")
    await wait_drawn(pilot)
    prompt = app.screen.query_one("#prompt", PromptInput)
    prompt.load_text("a half-written thought")
    await pilot.press("ctrl+l")
    await pilot.pause()
    return prompt


async def test_editing_the_last_prompt_keeps_a_draft_for_after(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """ctrl+l over a half-written prompt: the draft is not lost; it comes back when the edit is
    cancelled, and again once the edited prompt is sent (as a branch's edit does)."""
    fake_provider.push(*(fake.stream(Api.CHAT, PLAIN) for _ in range(2)))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = await edit_over_a_draft(pilot, app)
        assert prompt.text == "teh typo"
        await pilot.press("escape")
        await pilot.pause()
        assert prompt.text == "a half-written thought"

        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.press("ctrl+l")  # again: the draft is still the one from before
        await pilot.pause()
        prompt.load_text("the fix")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, what="the resend")
        await wait_drawn(pilot)
        assert user_texts(fake_provider.requests[-1].json) == ["the fix"]
        assert prompt.text == "a half-written thought"
        assert "Esc cancels" not in screen_text(app)


async def test_a_new_chat_during_the_edit_sends_it_there_and_gives_the_draft_back(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """ctrl+l over a draft, then ctrl+n: the edited prompt is the new chat's first prompt, and
    the draft set aside for the edit comes back once it is sent (it was lost before)."""
    fake_provider.push(*(fake.stream(Api.CHAT, PLAIN) for _ in range(2)))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = await edit_over_a_draft(pilot, app)
        prompt.load_text("the fix")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not app.pane.transcript.query(UserMessage), what="new")
        assert prompt.text == "the fix"
        assert "sends it in this new chat" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, what="the send")
        await wait_drawn(pilot)
        body = fake_provider.requests[-1].json
        assert user_texts(body) == ["the fix"]
        assert [m["role"] for m in body["messages"]] == ["user"]  # a new chat: nothing before
        assert prompt.text == "a half-written thought"
        assert "Esc cancels" not in screen_text(app)


async def test_ctrl_l_while_an_answer_streams_says_why_and_changes_nothing(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """The edit needs the answer stopped first: ctrl+l says so (it did nothing, silently), and
    the draft, the prompt and the stream are left as they were."""
    fake_provider.push(fake.stream(Api.CHAT, PLAIN), fake.paced_forever(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await send(pilot, "first")
        await wait_drawn(pilot)
        await send(pilot, "a long one")
        await wait_until(pilot, lambda: app.pane.turn is not None and "word3" in app.pane.turn.text)
        prompt = app.screen.query_one("#prompt", PromptInput)
        prompt.load_text("typed meanwhile")
        await pilot.press("ctrl+l")
        refused = STILL_ANSWERING.format(what="edit the last prompt")
        await wait_until(pilot, lambda: refused in [n.message for n in app._notifications])
        assert refused.startswith("Still answering — press Esc to stop it first")
        assert prompt.text == "typed meanwhile"
        assert isinstance(app.screen, ChatScreen)
        assert app.screen.editing is None
        assert app.pane.streaming
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.pane.streaming, what="the stop")
        await pilot.press("ctrl+l")  # stopped: now the edit starts
        await wait_until(pilot, lambda: prompt.text == "a long one", what="the edit")


async def test_export_from_the_palette_writes_files_without_the_key(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "data" / "history.sqlite3"
    provider = fake_provider.provider(Api.CHAT, name="fake", model="m-1", api_key=SECRET)
    config = Config(path=None, default="fake", providers={"fake": provider}, ui=UiSettings())
    fake_provider.push(
        fake.http_error(Api.CHAT, 401, "invalid_api_key", f"Incorrect API key provided: {SECRET}"),
        fake.stream(Api.CHAT),
    )
    app = make_app(config, tmp_path, history_file=db)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await send(pilot, "who am I")
        await wait_drawn(pilot)
        await send(pilot, "and now?")
        await wait_drawn(pilot)
        assert fake_provider.requests[0].headers["authorization"] == f"Bearer {SECRET}"
        exports = tmp_path / "data" / "exports"

        async def export_with_the_palette(words: str, files: int) -> None:
            await pilot.press("ctrl+p", *words)
            await wait_until(pilot, lambda: "conversation as" in screen_text(app), what="a hit")
            await pilot.press("enter")
            await wait_until(pilot, lambda: len(list(exports.glob("*"))) == files, what="export")
            await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))

        await export_with_the_palette("markdown", 1)
        await export_with_the_palette("as json", 2)
        assert "Exported to" in screen_text(app)
    markdown = next(exports.glob("*.md")).read_text()
    document = json.loads(next(exports.glob("*.json")).read_text())
    assert "who am I" in markdown
    assert "Hello, world." in markdown
    assert "Incorrect API key provided" in markdown  # the error is kept, the key is not
    assert [m["role"] for m in document["messages"]] == ["user", "assistant"] * 2
    written = [markdown, json.dumps(document)]
    files = [f for f in db.parent.rglob("*") if f.is_file()]
    assert db in files
    written += [f.read_bytes().decode("utf-8", "replace") for f in files]
    for text in written:
        assert SECRET not in text


async def test_an_edit_does_not_follow_into_another_conversation(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(*(fake.stream(Api.CHAT, PLAIN) for _ in range(3)))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "in the first chat")
        await wait_drawn(pilot)
        first = app.pane.history.record.conv_id
        await pilot.press("ctrl+n")
        await send(pilot, "in the second chat")
        await wait_drawn(pilot)
        second = app.pane.history.record.conv_id
        await pilot.press("ctrl+l")  # editing the second chat's last prompt...
        await pilot.press("ctrl+o")  # ...then reopening the first one
        await wait_until(pilot, lambda: len(app.screen.query("HistoryList")) == 1)
        await pilot.press("down", "down", "enter")
        await wait_until(pilot, lambda: app.pane.history.record.conv_id == first)
        await pilot.pause()
        await pilot.press("enter")  # sent as a new prompt here; nothing replaced anywhere
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3, what="the send")
        await wait_drawn(pilot)
    prompts = "SELECT conversation_id, role, text FROM messages WHERE role = 'user' ORDER BY id"
    saved = rows(db, prompts)
    assert saved == [
        (first, "user", "in the first chat"),
        (second, "user", "in the second chat"),
        (first, "user", "in the second chat"),
    ]
