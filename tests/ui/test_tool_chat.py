"""Tool calls in the chat: a `[tools]` call answered in the card's editor, an MCP call run after
its approval row, the follow-up request each format sends (exact JSON the fake provider got),
and the round limit."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot

from app.settings.config import ToolConfig
from app.store.session import continued_conversation
from app.ui.widgets.chat_pane import TOOL_CALL
from app.ui.widgets.tool_approval import PROBLEM_TEXT
from app.wire.engine import Api
from app.wire.tools import ResultOrigin, ToolResult
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.integration.test_tool_loop import expected_follow_up
from tests.ui.helpers import SIZE, footer_text, make_app, screen_text, send, wait_until
from tests.ui.tool_helpers import (
    FINAL,
    LOCAL,
    PROMPT,
    ProblemRow,
    ToolTextEditor,
    answer_by_hand,
    calling,
    cards,
    reach,
    tools_config,
    wait_for,
    wait_idle,
)

RESULT = '{"temp": 21}'


@pytest.mark.parametrize("api", list(Api))
async def test_a_result_typed_in_the_card_goes_back_in_the_formats_own_shape(
    tmp_path: Path, fake_provider: FakeProvider, api: Api
) -> None:
    fake_provider.push(fake.stream(api, calling("get_weather")), fake.stream(api, FINAL))
    app = make_app(tools_config(fake_provider, api), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        editor = await wait_for(pilot, ToolTextEditor, "the result editor")
        assert app.focused is app.screen.query_one("#prompt")  # it takes no focus by itself
        await reach(pilot, editor)
        editor.insert(RESULT)
        await pilot.press("enter")
        await wait_idle(pilot)
        (card,) = cards(app)
        assert card.outcome.answered
        assert card.outcome.result_text == RESULT
        assert len(fake_provider.requests) == 2
        assert fake_provider.requests[1].json == expected_follow_up(api, RESULT)
        assert "It is 21 °C." in screen_text(app)
        assert app.focused is app.screen.query_one("#prompt")


async def test_ctrl_e_marks_the_typed_result_as_an_error(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    api = Api.MESSAGES
    fake_provider.push(fake.stream(api, calling("get_weather")), fake.stream(api, FINAL))
    app = make_app(tools_config(fake_provider, api), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        editor = await wait_for(pilot, ToolTextEditor, "the result editor")
        await reach(pilot, editor)
        editor.insert("no such city")
        await pilot.press("ctrl+e")
        assert "error result" in str(editor.border_title)
        await pilot.press("enter")
        await wait_idle(pilot)
        assert fake_provider.requests[1].json == expected_follow_up(
            api, "no such city", is_error=True
        )
        (card,) = cards(app)
        assert card.has_class("-failed")
        assert "✖ error result" in screen_text(app)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (
            '{"town": "Paris"}',
            "the arguments do not match the tool's schema: $: missing required property 'city'",
        ),
        ('{"city": ', 'the arguments are not valid JSON: {"city": '),
    ],
)
async def test_bad_arguments_are_said_on_the_card_and_sent_back_when_chosen(
    tmp_path: Path, fake_provider: FakeProvider, arguments: str, says: str
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather", arguments)), fake.stream(Api.CHAT, FINAL)
    )
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await wait_for(pilot, ProblemRow, "the problem row")
        assert app.focused is app.screen.query_one("#prompt")  # it takes no focus by itself
        assert f"⚠ {says}" in screen_text(app)
        assert PROBLEM_TEXT in screen_text(app)
        await pilot.press("alt+b")
        await wait_idle(pilot)
        (message,) = [m for m in fake_provider.requests[1].json["messages"] if m["role"] == "tool"]
        assert message == {"role": "tool", "tool_call_id": "call_1", "content": says}
        (card,) = cards(app)
        assert card.has_class("-failed")


async def test_a_call_of_a_tool_not_offered_is_the_providers_own_and_chat_goes_on(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    # A name the request did not offer is a tool the provider ran itself (xAI's searches):
    # listed with the server tools, never answered, and nothing more is sent for it.
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_wether")),
        fake.stream(Api.CHAT, FINAL),
    )
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await wait_idle(pilot)
        turn = app.pane.turn
        assert turn is not None
        assert turn.tool_calls == []
        assert [tool.name for tool in turn.server_tools] == ["get_wether"]
        assert len(fake_provider.requests) == 1
        assert "there is no tool named" not in screen_text(app)
        await send(pilot, "go on")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, 10, "the next prompt")
        await wait_idle(pilot)
        messages = fake_provider.requests[1].json["messages"]
        assert messages[-1] == {"role": "user", "content": "go on"}
        assert all(message["role"] != "tool" for message in messages)


async def test_the_loop_stops_at_the_round_limit(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather")),
        fake.stream(Api.CHAT, calling("get_weather", '{"city": "Rome"}', "call_2")),
        fake.stream(Api.CHAT, FINAL),
    )
    app = make_app(tools_config(fake_provider, tool_rounds=2), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await answer_by_hand(pilot, RESULT)
        await wait_until(pilot, lambda: len(cards(app)) == 2, 10, "the second round")
        await wait_idle(pilot)
        assert len(fake_provider.requests) == 2
        first, second = cards(app)
        assert first.outcome.answered
        assert not second.outcome.answered
        assert "not run: the round limit (tool_rounds = 2) was reached" in screen_text(app)
        assert not app.screen.query(ToolTextEditor)


async def test_esc_in_the_follow_up_stream_keeps_the_result_and_the_chat_goes_on(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather")),
        fake.paced_forever(Api.CHAT),
        fake.stream(Api.CHAT, FINAL),
    )
    app = make_app(tools_config(fake_provider), tmp_path, history_file=tmp_path / "h.db")
    async with app.run_test(size=SIZE) as pilot:
        await answer_by_hand(pilot, RESULT)
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, 10, "the follow-up")
        await wait_until(pilot, lambda: app.pane.turn and app.pane.turn.text, 10, "its text")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert "■ stopped — by you; the partial answer is kept" in screen_text(app)
        (card,) = cards(app)
        assert card.outcome.result_text == RESULT
        await send(pilot, "go on")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3, 10, "the next prompt")
        await wait_idle(pilot)
        messages = fake_provider.requests[2].json["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "user"]
        assert messages[2]["content"] == RESULT


async def test_results_are_stored_with_their_calls_and_replayed_after_reopening(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = make_app(tools_config(fake_provider), tmp_path, history_file=tmp_path / "h.db")
    async with app.run_test(size=SIZE) as pilot:
        await answer_by_hand(pilot, RESULT)
        await wait_idle(pilot)
        assert app.history.wait(5)
        conv_id = app.history.last_conversation_id()
        assert conv_id is not None
        stored = app.history.load(conv_id)
    assert stored is not None
    answers = [m for m in stored.messages if m.role == "assistant"]
    assert len(answers) == 2
    assert answers[0].turn is not None
    (call,) = answers[0].turn.tool_calls
    assert call.result == ToolResult(RESULT, False, ResultOrigin.MANUAL)
    replayed = continued_conversation(stored)
    assert [m.role for m in replayed.messages] == ["user", "assistant", "assistant"]
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    again = make_app(
        tools_config(fake_provider), tmp_path, history_file=tmp_path / "h.db", continue_last=True
    )
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: cards(again), 10, "the reopened card")
        await pilot.pause()
        (card,) = cards(again)
        assert card.outcome.result_text == RESULT  # shown with its call
        await send(pilot, "and tomorrow?")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3, 10, "the next prompt")
        messages = fake_provider.requests[2].json["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "user"]
        assert messages[2]["content"] == RESULT  # replayed on the follow-up


async def pick(pilot: Pilot[Any], text: str) -> None:
    """Type into the open palette and take the first match once it is listed."""
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), what="palette")
    await pilot.press(*text)
    palette = pilot.app.screen
    await wait_until(pilot, lambda: palette.query_one(CommandList).option_count > 0, what="a match")
    await pilot.pause(0.2)
    await pilot.press("enter")
    await wait_until(pilot, lambda: pilot.app.screen is not palette, what="the palette closed")


async def test_choose_tools_turns_a_tool_off_for_the_next_prompt(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    other = ToolConfig("get_time", "The time now")
    fake_provider.push(fake.stream(Api.CHAT, FINAL), fake.stream(Api.CHAT, FINAL))
    app = make_app(tools_config(fake_provider, local=(LOCAL, other)), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pick(pilot, "Choose tools")
        await pick(pilot, "get_weather")
        assert app.tools.off == {"get_weather"}
        await send(pilot, PROMPT)
        await wait_until(pilot, lambda: len(fake_provider.requests) == 1, 10, "the request")
        await wait_idle(pilot)
        offered = [t["function"]["name"] for t in fake_provider.requests[0].json["tools"]]
        assert offered == ["get_time"]
        await pilot.press("ctrl+p")
        await pick(pilot, "Choose tools")
        await pick(pilot, "All tools off")
        await send(pilot, "again")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, 10, "the request")
        await wait_idle(pilot)
        assert "tools" not in fake_provider.requests[1].json


async def test_a_schema_the_provider_rejects_says_how_to_leave_the_tool_out(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    message = "Invalid schema for function 'get_weather': 'object' is not valid"
    fake_provider.push(
        fake.http_error(Api.CHAT, 400, "invalid_function_parameters", message),
        fake.stream(Api.CHAT, FINAL),
    )
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await wait_idle(pilot)
        shown = " ".join(screen_text(app).split())
        assert "Invalid schema for function 'get_weather'" in shown
        notes = [str(n.message) for n in app._notifications]
        assert any(n.startswith("The request offered tools (get_weather)") for n in notes)
        await pilot.press("ctrl+p")
        await pick(pilot, "Choose tools")
        await pick(pilot, "get_weather")
        await send(pilot, "again")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, 10, "the retry")
        await wait_idle(pilot)
        assert "tools" not in fake_provider.requests[1].json
        assert "It is 21 °C." in screen_text(app)


async def test_a_result_is_literal_text_on_the_card(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await answer_by_hand(pilot, "[bold red]hot[/] \x1b[31mred\x1b[0m")
        await wait_idle(pilot)
        (card,) = cards(app)
        assert "[bold red]hot[/]" in screen_text(app)
        assert "\x1b" not in card.outcome.result_text
        sent = fake_provider.requests[1].json["messages"][-1]["content"]
        assert sent == "[bold red]hot[/] \x1b[31mred\x1b[0m"  # the model gets it as typed


async def test_a_prompt_sent_while_a_call_waits_is_kept_and_says_why(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await wait_for(pilot, ToolTextEditor, "the result editor")
        await send(pilot, "hurry up")
        prompt = app.screen.query_one("#prompt")
        assert prompt.text == "hurry up"  # kept, not sent
        notes = [str(n.message) for n in app._notifications]
        assert "A tool call waits — press Esc to stop it first." in notes
        assert len(fake_provider.requests) == 1


async def test_esc_in_the_result_editor_stops_the_loop_and_the_chat_goes_on(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        editor = await wait_for(pilot, ToolTextEditor, "the result editor")
        await reach(pilot, editor)
        editor.insert("half typ")
        await pilot.press("escape")
        await wait_idle(pilot)
        (card,) = cards(app)
        assert card.outcome.result_text == "the call was cancelled before it answered"
        assert not [e for e in app.screen.query(ToolTextEditor) if e.display]
        assert app.focused is app.screen.query_one("#prompt")
        await send(pilot, "skip it")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, 10, "the next prompt")
        await wait_idle(pilot)
        messages = fake_provider.requests[1].json["messages"]
        assert messages[-2:] == [
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": "the call was cancelled before it answered",
            },
            {"role": "user", "content": "skip it"},
        ]


async def test_a_retry_after_a_failed_follow_up_asks_again_from_the_results(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather")),
        fake.http_error(Api.CHAT, 500, "server_error", "upstream fell over"),
        fake.stream(Api.CHAT, FINAL),
    )
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await answer_by_hand(pilot, RESULT)
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, 10, "the follow-up")
        await wait_idle(pilot)
        assert "upstream fell over" in screen_text(app)
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3, 10, "the retry")
        await wait_idle(pilot)
        assert (
            fake_provider.requests[2].json["messages"]
            == (fake_provider.requests[1].json["messages"])
        )  # the results again, not the failed answer
        assert "fake · m-1 · retry 2" in screen_text(app)
        assert "It is 21 °C." in screen_text(app)


def state_word(app: Any) -> str:
    """The chat status bar's state (after provider and model)."""
    return str(app.pane.status_bar.segments[2][0])


async def test_the_chat_status_says_tool_call_while_a_call_waits_then_the_real_state(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        editor = await wait_for(pilot, ToolTextEditor, "the result editor")
        await wait_until(pilot, lambda: state_word(app) == TOOL_CALL, 10, "the tool call state")
        await reach(pilot, editor)
        editor.insert(RESULT)
        await pilot.press("enter")
        await wait_idle(pilot)
        assert state_word(app) == "complete"


async def test_a_long_result_opens_and_closes_with_enter_once_shift_tab_reaches_it(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = make_app(tools_config(fake_provider), tmp_path)
    long = "\n".join(f"line {n}" for n in range(1, 21))
    async with app.run_test(size=SIZE) as pilot:
        await answer_by_hand(pilot, long)
        await wait_idle(pilot)
        (card,) = cards(app)
        outcome = card.outcome
        assert outcome.head_text.endswith("Enter or click: show more")
        assert "line 20" not in outcome.result_text
        await pilot.press("shift+tab")
        head = outcome.query_one(".tool-outcome--head")
        assert app.focused is head
        assert "show more" in footer_text(app)
        await pilot.press("enter")
        assert outcome.expanded
        assert outcome.result_text == long
        assert outcome.head_text.endswith("Enter or click: collapse")
        await pilot.press("enter")
        assert not outcome.expanded
        assert "line 20" not in outcome.result_text
        await pilot.press("tab")
        assert app.focused is app.screen.query_one("#prompt")


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            fake.http_error(Api.CHAT, 401, "invalid_api_key", "No API key."),
            "provider 'fake' sends no API key; set `api_key_env` in",
        ),
        (
            fake.http_error(Api.CHAT, 404, "model_not_found", "The model `m-1` does not exist."),
            "The model `m-1` does not exist.",
        ),
        (fake.stream(Api.CHAT, replace(FINAL, error_after=1)), "interrupted the response"),
    ],
    ids=["401", "404-model", "mid-stream"],
)
async def test_a_failure_the_tools_did_not_cause_says_nothing_of_their_schemas(
    tmp_path: Path, fake_provider: FakeProvider, reply: Any, said: str
) -> None:
    fake_provider.push(reply)
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        await wait_idle(pilot)
        assert said in " ".join(screen_text(app).split())
        notes = [str(n.message) for n in app._notifications]
        assert not any("offered tools" in n for n in notes), notes
