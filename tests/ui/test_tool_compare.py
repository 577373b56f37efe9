"""Tool calls in a comparison: each pane runs its own calls and asks its own approval, over
the tests' own MCP server; each provider's follow-up is in its own format."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from app.settings.config import ToolConfig
from app.ui.widgets.chat_pane import TOOL_CALL
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import ask, compare_screen, config_for
from tests.ui.helpers import make_app, screen_text, wait_until
from tests.ui.test_tool_chat import pick
from tests.ui.tool_helpers import FINAL, LOCAL, ApprovalRow, calling, server

WIDE = (160, 48)
WEATHER = '{"city": "Paris", "temp": 21}'
TIME = ToolConfig("get_time", "The time now")


async def test_each_pane_asks_its_own_approval_and_runs_its_own_call(
    tmp_path: Path, fakes: dict[Api, FakeProvider]
) -> None:
    for api in (Api.CHAT, Api.MESSAGES):
        fakes[api].push(fake.stream(api, calling("get_weather")), fake.stream(api, FINAL))
    config = replace(config_for(fakes), mcp={"fake": server()})
    app = make_app(config, tmp_path, compare=["cc", "am"])
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: len(compare_screen(app).panes) == 2, what="two panes")
        await ask(pilot, "weather in Paris?")
        screen = compare_screen(app)
        await wait_until(
            pilot, lambda: len(screen.query(ApprovalRow)) == 2, 15, "a row in each pane"
        )
        await pilot.pause()
        cc, am = screen.panes
        rows: dict[Any, ApprovalRow] = {pane: pane.query_one(ApprovalRow) for pane in (cc, am)}
        assert app.focused is screen.prompt  # neither row takes the keyboard from the prompt
        assert cc.state == am.state == TOOL_CALL  # the status line and the tab say so
        await pilot.press("alt+r")  # the first row waiting on screen: the left pane's
        answered, waiting = cc, am
        await wait_until(pilot, lambda: rows[cc].answer.done(), 15, "cc's row answered")
        assert not rows[am].answer.done()
        assert app.focused is screen.prompt
        await pilot.press("alt+d")
        await wait_until(
            pilot, lambda: len(fakes[Api.MESSAGES].requests) == 2, 15, "am's follow-up"
        )
        await wait_until(pilot, lambda: not cc.streaming and not am.streaming, 15, "both done")
        assert cc.state == am.state == "complete"
        ran, denied = (WEATHER, False), ("the user denied this call", True)
        got = {answered: ran, waiting: denied}
        content, is_error = got[cc]
        chat_follow_up = fakes[Api.CHAT].requests[1].json["messages"]
        assert chat_follow_up[-1] == {"role": "tool", "tool_call_id": "call_1", "content": content}
        content, is_error = got[am]
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": "call_1", "content": content}
        if is_error:
            block["is_error"] = True
        messages_follow_up = fakes[Api.MESSAGES].requests[1].json["messages"]
        assert messages_follow_up[-1] == {"role": "user", "content": [block]}
        assert app.tools.approvals is not None
        assert app.tools.approvals.tools == set()


async def test_choose_tools_in_the_comparison_palette_applies_to_every_pane(
    tmp_path: Path, fakes: dict[Api, FakeProvider]
) -> None:
    for api in (Api.CHAT, Api.MESSAGES):
        fakes[api].push(fake.stream(api, FINAL))
    config = replace(config_for(fakes), tools={LOCAL.name: LOCAL, "get_time": TIME})
    app = make_app(config, tmp_path, compare=["cc", "am"])
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: len(compare_screen(app).panes) == 2, what="two panes")
        await pilot.press("ctrl+p")
        await pick(pilot, "Choose tools")
        await pick(pilot, "get_weather")
        assert app.tools.off == {"get_weather"}
        await ask(pilot, "what time is it?")
        screen = compare_screen(app)
        await wait_until(
            pilot, lambda: all(not p.streaming and p.turn for p in screen.panes), 15, "answers"
        )
        chat_tools = fakes[Api.CHAT].requests[0].json["tools"]
        assert [t["function"]["name"] for t in chat_tools] == ["get_time"]
        assert [t["name"] for t in fakes[Api.MESSAGES].requests[0].json["tools"]] == ["get_time"]


async def test_a_blind_comparison_offers_choose_tools_and_it_names_no_pane(
    tmp_path: Path, fakes: dict[Api, FakeProvider]
) -> None:
    for api in (Api.CHAT, Api.MESSAGES):
        fakes[api].push(fake.stream(api, FINAL))
    config = replace(config_for(fakes), tools={LOCAL.name: LOCAL, "get_time": TIME})
    app = make_app(config, tmp_path, compare=["cc", "am"], blind=True)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: len(compare_screen(app).panes) == 2, what="two panes")
        screen = compare_screen(app)
        assert screen.hidden
        await pilot.press("ctrl+p")
        await pick(pilot, "Choose tools")
        await wait_until(pilot, lambda: "get_time" in screen_text(app), what="the tool list")
        listed = screen_text(app)
        assert not [name for name in ("cc-model", "am-model", "Chat", "Messages") if name in listed]
        await pick(pilot, "get_weather")
        assert app.tools.off == {"get_weather"}
        await ask(pilot, "what time is it?")
        await wait_until(
            pilot, lambda: all(not p.streaming and p.turn for p in screen.panes), 15, "answers"
        )
        assert sorted(p.label for p in screen.panes) == ["A", "B"]  # still hidden
        chat_tools = fakes[Api.CHAT].requests[0].json["tools"]
        assert [t["function"]["name"] for t in chat_tools] == ["get_time"]
        assert [t["name"] for t in fakes[Api.MESSAGES].requests[0].json["tools"]] == ["get_time"]
