"""MCP tools in the chat, over the tests' own MCP server (stdio): the approval row and its keys,
"always" remembered for the session, deny, edited arguments, Esc while a tool runs, and the
faults a server can have (an error, a hang past the timeout, an exit mid-call, 5 MB)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from app.demo.frames import Answer
from app.ui.app import TriptychApp
from app.ui.widgets.tool_approval import ALT_HINT, KEYS_HINT, ROW_TEXT
from app.ui.widgets.tool_call import DRAFTING
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, footer_text, make_app, screen_text, send, wait_until
from tests.ui.tool_helpers import (
    FINAL,
    PROMPT,
    ApprovalRow,
    ToolTextEditor,
    calling,
    cards,
    server,
    tools_config,
    wait_for,
    wait_idle,
)

WEATHER = '{"city": "Paris", "temp": 21}'


def mcp_app(
    fake_provider: FakeProvider, tmp_path: Path, history_file: Path | None = None, **settings: Any
) -> TriptychApp:
    servers = settings.pop("servers", (server(),))
    config = tools_config(fake_provider, local=(), servers=servers, **settings)
    return make_app(config, tmp_path, history_file=history_file)


def tool_message(request_json: dict[str, Any]) -> dict[str, Any]:
    """The last Chat Completions `tool` message of a follow-up request."""
    messages = [m for m in request_json["messages"] if m["role"] == "tool"]
    return messages[-1]  # type: ignore[no-any-return]


async def approve(pilot: Pilot[Any], key: str) -> None:
    """Answer the row from the prompt, which keeps the focus: the row's Alt chord."""
    await wait_for(pilot, ApprovalRow, "the approval row")
    assert pilot.app.focused is pilot.app.screen.query_one("#prompt")
    await pilot.press(f"alt+{key}")


async def test_the_approval_row_runs_the_call_on_r(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = mcp_app(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await wait_for(pilot, ApprovalRow, "the approval row")
        shown = screen_text(app)
        assert (
            ROW_TEXT
            == "Run  ·  Always for this tool  ·  Always for this server  ·  Deny  ·  Edit arguments"
        )
        assert ROW_TEXT in shown
        assert all(line in shown for line in ALT_HINT.splitlines())  # keys from the prompt
        assert KEYS_HINT not in shown
        assert "always: tool" in footer_text(app)
        assert len(fake_provider.requests) == 1  # nothing runs or is sent before the answer
        await approve(pilot, "r")
        await wait_idle(pilot)
        (card,) = cards(app)
        assert card.outcome.result_text == WEATHER
        assert "↳ result  ·  mcp  ·  JSON  ·  29 B" in screen_text(app)
        follow_up = fake_provider.requests[1].json
        assert tool_message(follow_up) == {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": WEATHER,
        }
        assert ROW_TEXT not in screen_text(app)
        assert app.tools.approvals.tools == set()  # "Run" is for this call only


@pytest.mark.parametrize(("key", "remembered"), [("t", "tools"), ("s", "servers")])
async def test_always_is_remembered_for_the_session(
    tmp_path: Path, fake_provider: FakeProvider, key: str, remembered: str
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather")),
        fake.stream(Api.CHAT, FINAL),
        fake.stream(Api.CHAT, calling("get_weather", '{"city": "Rome"}', "call_2")),
        fake.stream(Api.CHAT, FINAL),
    )
    app = mcp_app(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await approve(pilot, key)
        await wait_idle(pilot)
        assert (
            getattr(app.tools.approvals, remembered)
            == {
                "tools": {("fake", "get_weather")},  # what runs: (server, its own name)
                "servers": {"fake"},
            }[remembered]
        )
        await send(pilot, "and Rome?")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 4, 10, "4 requests")
        await wait_idle(pilot)
        assert not app.screen.query(ApprovalRow)  # not asked again
        assert tool_message(fake_provider.requests[3].json)["content"] == (
            '{"city": "Rome", "temp": 21}'
        )


async def test_deny_sends_back_that_the_user_denied_it(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = mcp_app(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await approve(pilot, "d")
        await wait_idle(pilot)
        assert tool_message(fake_provider.requests[1].json)["content"] == (
            "the user denied this call"
        )
        (card,) = cards(app)
        assert card.has_class("-failed")
        assert "✖ error result  ·  triptych" in screen_text(app)


async def test_edit_arguments_runs_with_the_edited_ones(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = mcp_app(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await approve(pilot, "e")
        editor = await wait_for(pilot, ToolTextEditor, "the arguments editor")
        assert editor.text == '{\n  "city": "Paris"\n}'
        assert "error result" not in footer_text(app)  # ctrl+e is for results only
        editor.load_text('{"city": "Oslo"}')
        await pilot.press("enter")
        await wait_idle(pilot)
        (card,) = cards(app)
        assert card.outcome.result_text == '{"city": "Oslo", "temp": 21}'
        assert card.call.result is not None
        assert card.call.result.arguments == '{"city": "Oslo"}'
        assert "run with edited arguments" in screen_text(app)


def shown_editors(app: TriptychApp) -> list[ToolTextEditor]:
    return [e for e in app.screen.query(ToolTextEditor) if e.display]


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ('{"city": ', "the edited arguments are not JSON: Expecting value: line 1 column 10"),
        ('["Oslo"]', "the edited arguments are not a JSON object"),
    ],
)
async def test_edited_arguments_that_are_not_a_json_object_reopen_the_editor(
    tmp_path: Path, fake_provider: FakeProvider, typed: str, says: str
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = mcp_app(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await approve(pilot, "e")
        editor = await wait_for(pilot, ToolTextEditor, "the arguments editor")
        editor.load_text(typed)
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: [e for e in shown_editors(app) if e is not editor], 10, "it reopens"
        )
        await pilot.pause()
        (again,) = shown_editors(app)
        assert again.text == typed  # kept, to fix
        assert app.focused is again
        assert f"⚠ {says}" in screen_text(app)
        (card,) = cards(app)
        assert card.call.result is None  # nothing was sent back
        assert len(fake_provider.requests) == 1
        again.load_text('{"city": "Oslo"}')
        await pilot.press("enter")
        await wait_idle(pilot)
        assert card.outcome.result_text == '{"city": "Oslo", "temp": 21}'
        assert f"⚠ {says}" not in screen_text(app)
        assert tool_message(fake_provider.requests[1].json)["content"] == (
            '{"city": "Oslo", "temp": 21}'
        )


async def test_esc_while_a_tool_runs_cancels_it_and_the_chat_goes_on(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("hang", "{}")),
        fake.stream(Api.CHAT, calling("get_weather", call_id="call_2")),
        fake.stream(Api.CHAT, FINAL),
    )
    app = mcp_app(fake_provider, tmp_path, history_file=tmp_path / "h.db")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await approve(pilot, "r")
        (card,) = cards(app)
        await wait_until(pilot, lambda: "Esc cancels" in screen_text(app), 10, "the spinner")
        assert "running on fake…" in screen_text(app)
        await pilot.press("escape")
        await wait_idle(pilot)
        assert card.outcome.answered
        assert card.outcome.result_text == "the call was cancelled before it answered"
        assert len(fake_provider.requests) == 1  # the loop stopped there
        await send(pilot, "never mind")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, 10, "the next prompt")
        messages = fake_provider.requests[1].json["messages"]
        assert tool_message(fake_provider.requests[1].json)["content"] == (
            "the call was cancelled before it answered"
        )
        assert messages[-1] == {"role": "user", "content": "never mind"}
        await approve(pilot, "r")  # the server took the cancel and answers the next call
        await wait_idle(pilot)
        assert tool_message(fake_provider.requests[2].json)["content"] == WEATHER
        assert app.history.wait(5)
        conv_id = app.history.last_conversation_id()
        assert conv_id is not None
        stored = app.history.load(conv_id)
        assert stored is not None
        first = next(m for m in stored.messages if m.turn is not None)
        assert first.turn is not None
        (call,) = first.turn.tool_calls
        assert call.result is not None
        assert call.result.content == "the call was cancelled before it answered"


@pytest.mark.parametrize(
    ("tool", "says"),
    [
        ("fail", "Error executing tool fail: the weather station is offline"),
        ("die", "the MCP server 'fake' stopped during the call"),
        ("hang", "no answer from 'fake' within 1 s (tool_timeout); the call was cancelled"),
    ],
)
async def test_a_failing_server_is_an_error_result_on_the_card(
    tmp_path: Path, fake_provider: FakeProvider, tool: str, says: str
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling(tool, "{}")), fake.stream(Api.CHAT, FINAL))
    app = mcp_app(fake_provider, tmp_path, servers=(server(timeout=1.0),))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await approve(pilot, "r")
        await wait_idle(pilot, 20)
        (card,) = cards(app)
        assert card.outcome.result_text == says
        assert card.has_class("-failed")
        assert tool_message(fake_provider.requests[1].json)["content"] == says
        assert "It is 21 °C." in screen_text(app)  # the model answered; the chat goes on


async def test_a_five_megabyte_result_is_cut_and_shown_collapsed_with_its_size(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("big", "{}")), fake.stream(Api.CHAT, FINAL))
    app = mcp_app(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await approve(pilot, "r")
        await wait_idle(pilot, 20)
        (card,) = cards(app)
        assert (
            "↳ result  ·  mcp  ·  text  ·  5.0 MiB  ·  2 lines  ·  Enter or click: show more"
            in (screen_text(app))
        )
        assert len(card.outcome.result_text) <= 1201
        await pilot.click(card.outcome.query_one(".tool-outcome--head"))
        await pilot.pause()
        assert card.outcome.expanded
        assert card.outcome.result_text.endswith(
            "… 192.1 KiB more, not drawn (the model got all of it)"
        )
        assert card.outcome.head_text.endswith("Enter or click: collapse")
        sent = tool_message(fake_provider.requests[1].json)["content"]
        assert sent.startswith("x" * 1000)
        assert sent.endswith("[Triptych: the result was cut at 256 KiB of 5.0 MiB]")


async def test_always_in_one_answer_is_not_asked_again_in_the_next_round(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather")),
        fake.stream(Api.CHAT, calling("get_weather", '{"city": "Rome"}', "call_2")),
        fake.stream(Api.CHAT, Answer(text=("Both done.",))),
    )
    app = mcp_app(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await approve(pilot, "t")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3, 10, "3 requests")
        await wait_idle(pilot)
        first, second = cards(app)
        assert (first.outcome.result_text, second.outcome.result_text) == (
            WEATHER,
            '{"city": "Rome", "temp": 21}',
        )
        assert "Both done." in screen_text(app)


async def test_a_server_that_fails_to_start_is_reported_and_skipped(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    servers = (server("bad", "--exit-at-start"), server())
    app = mcp_app(fake_provider, tmp_path, servers=servers)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await wait_until(pilot, lambda: len(fake_provider.requests) == 1, 60, "the request")
        await wait_idle(pilot)
        (note,) = [str(n.message) for n in app._notifications]
        assert note.startswith("MCP server 'bad' failed to start: ")
        assert note.endswith("; its tools are skipped")
        assert "cannot open the database" in note  # its last words, cleaned
        assert "\x1b" not in note
        offered = [t["function"]["name"] for t in fake_provider.requests[0].json["tools"]]
        assert "get_weather" in offered  # the other server's tools are offered


async def test_a_draft_being_typed_keeps_the_focus_and_shift_tab_reaches_the_row(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather"), delay=0.2), fake.stream(Api.CHAT, FINAL)
    )
    app = mcp_app(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        prompt = app.screen.query_one("#prompt")
        await pilot.press(*"draft")  # typed while the answer streams
        await wait_for(pilot, ApprovalRow, "the approval row")
        assert app.focused is prompt  # a key meant for the draft does not answer the row
        assert DRAFTING in [str(n.message) for n in app._notifications]
        await pilot.press("d")
        assert app.screen.query(ApprovalRow)
        await pilot.press("shift+tab")
        assert isinstance(app.focused, ApprovalRow)
        await pilot.press("r")
        await wait_idle(pilot)
        assert tool_message(fake_provider.requests[1].json)["content"] == WEATHER
        assert app.focused is prompt
        assert prompt.text == "draftd"  # nothing typed was lost
