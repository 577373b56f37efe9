"""Pilot tests of tool calls: a config with `[tools]` and the tests' own MCP server
(tests/fakes/mcp_server.py over stdio), the fake provider over loopback, and waiting for a card's
state instead of sleeping."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.demo.frames import Answer, ToolUse
from app.settings.config import Config, McpServerConfig, ToolConfig
from app.ui.app import TriptychApp
from app.ui.widgets.tool_approval import ApprovalRow, ProblemRow
from app.ui.widgets.tool_call import ToolCallCard
from app.ui.widgets.tool_result_editor import ToolTextEditor
from app.wire.engine import Api
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import fake_config, send, wait_until

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "weather in Paris?"
SCHEMA = {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}
LOCAL = ToolConfig("get_weather", "Weather now", SCHEMA)
FINAL = Answer(text=("It is ", "21 °C."), input_tokens=30)


def server(name: str = "fake", *extra: str, timeout: float | None = None) -> McpServerConfig:
    command = (sys.executable, "-m", "tests.fakes.mcp_server", "stdio", *extra)
    return McpServerConfig(name, command=command, cwd=ROOT, timeout=timeout)


def tools_config(
    fake: FakeProvider,
    api: Api = Api.CHAT,
    *,
    local: tuple[ToolConfig, ...] = (LOCAL,),
    servers: tuple[McpServerConfig, ...] = (),
    **settings: Any,
) -> Config:
    config = fake_config(fake, api)
    return replace(
        config,
        tools={t.name: t for t in local},
        mcp={s.name: s for s in servers},
        **settings,
    )


def calling(name: str, arguments: str = '{"city": "Paris"}', call_id: str = "call_1") -> Answer:
    return Answer(
        text=("Let me check.",),
        reasoning=("Thinking", " briefly."),
        tool=ToolUse(name, (arguments,), id=call_id),
        input_tokens=11,
    )


def cards(app: TriptychApp) -> list[ToolCallCard]:
    return list(app.screen.query(ToolCallCard))


async def wait_for(pilot: Pilot[Any], kind: type, what: str, timeout: float = 10.0) -> Any:
    """The first widget of `kind` on screen (an approval row, an editor), once it is there."""
    await wait_until(pilot, lambda: pilot.app.screen.query(kind), timeout, what)
    await pilot.pause()
    return pilot.app.screen.query(kind).first()


async def reach(pilot: Pilot[Any], widget: Any) -> None:
    """Move to a waiting row or editor as a user does (it never takes the focus itself):
    shift+tab from the prompt."""
    assert pilot.app.focused is pilot.app.screen.query_one("#prompt")
    await pilot.press("shift+tab")
    await pilot.pause()
    assert pilot.app.focused is widget


async def answer_by_hand(pilot: Pilot[Any], result: str) -> None:
    """Send PROMPT, and answer its tool call by typing `result` into the result editor, as a
    user reaches it (shift+tab) and sends it (Enter)."""
    await send(pilot, PROMPT)
    editor = await wait_for(pilot, ToolTextEditor, "the result editor")
    await reach(pilot, editor)
    editor.insert(result)
    await pilot.press("enter")


async def wait_answered(pilot: Pilot[Any], card: ToolCallCard, timeout: float = 10.0) -> None:
    await wait_until(pilot, lambda: card.outcome.answered, timeout, "the card's result")


async def wait_idle(pilot: Pilot[Any], timeout: float = 10.0) -> None:
    """The prompt's whole tool loop is over and drawn."""
    app = pilot.app
    assert isinstance(app, TriptychApp)
    await wait_until(pilot, lambda: not app.pane.streaming, timeout, "the loop to end")
    await pilot.pause()


__all__ = [
    "FINAL",
    "LOCAL",
    "PROMPT",
    "SCHEMA",
    "ApprovalRow",
    "ProblemRow",
    "ToolTextEditor",
    "answer_by_hand",
    "calling",
    "cards",
    "reach",
    "server",
    "tools_config",
    "wait_answered",
    "wait_for",
    "wait_idle",
]
