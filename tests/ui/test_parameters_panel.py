"""The parameters panel (the screen's part): F3 or the palette's
"Parameters…" opens a form of the knobs the chat's format takes; applied values go out with the
next requests in the format's own fields (the exact JSON the fake server received), over the
provider's params, and each answer's header says what it was sent with, reopened too. A bad
value is said under the form and loses nothing typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, TextArea

from app.settings.config import Config, UiSettings
from app.ui.app import TriptychApp
from app.ui.screens.parameters import ParametersScreen
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.prompt import PromptInput
from app.wire.engine import Api
from app.wire.events import EndOfStream, Finish, TextDelta, Usage
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until
from tests.ui.scripted import Step, scripted_app

QUESTION = {
    Api.CHAT: {"messages": [{"role": "user", "content": "q"}]},
    Api.MESSAGES: {"messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]},
    Api.RESPONSES: {"input": [{"type": "message", "role": "user", "content": "q"}]},
}
USAGE = {"stream_options": {"include_usage": True}}
SNAP_ANSWER = (
    Step(0.5, (TextDelta("Split on whitespace, then join the words in reverse order."),)),
    Step(0.8, (Usage(20, 12), Finish("stop"), EndOfStream())),
)

# What is typed in each format's form, the fields the server must receive, and the header.
FORMS: dict[Api, tuple[dict[str, str], str, dict[str, Any], str]] = {
    Api.CHAT: (
        {
            "temperature": "0.2",
            "top_p": "0.9",
            "max_output_tokens": "256",
            "stop": '["END", "###"]',
            "seed": "7",
            "reasoning_effort": "high",
        },
        '{"logprobs": true}',
        {
            "temperature": 0.2,
            "top_p": 0.9,
            "max_tokens": 256,
            "stop": ["END", "###"],
            "seed": 7,
            "reasoning_effort": "high",
            "logprobs": True,
            **USAGE,
        },
        "fake · m-1 · temp 0.2 · top_p 0.9 · max 256 · stop ×2 · seed 7 · effort high · "
        "logprobs true",
    ),
    Api.MESSAGES: (
        {
            "temperature": "0.5",
            "top_p": "0.8",
            "max_output_tokens": "2048",
            "stop": "END",
            "thinking_budget": "1024",
        },
        '{"metadata": {"user_id": "u-1"}}',
        {
            "temperature": 0.5,
            "top_p": 0.8,
            "max_tokens": 2048,
            "stop_sequences": ["END"],
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "metadata": {"user_id": "u-1"},
        },
        'fake · m-1 · max 2048 · temp 0.5 · top_p 0.8 · stop "END" · think 1024 · '
        'metadata {"user_id":"u-1"}',
    ),
    Api.RESPONSES: (
        {
            "temperature": "1.5",
            "top_p": "1",
            "max_output_tokens": "300",
            "reasoning_effort": "low",
        },
        '{"store": false}',
        {
            "temperature": 1.5,
            "top_p": 1,
            "max_output_tokens": 300,
            "reasoning": {"effort": "low"},
            "store": False,
        },
        "fake · m-1 · temp 1.5 · top_p 1 · max 300 · effort low · store false",
    ),
}


async def open_panel(pilot: Pilot[Any]) -> ParametersScreen:
    await pilot.press("f3")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ParametersScreen), what="panel")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ParametersScreen)
    return screen


async def fill(
    pilot: Pilot[Any], panel: ParametersScreen, values: dict[str, str], raw: str
) -> None:
    """Types each value into its field as a user would (the effort is chosen in its list)."""
    for name, text in values.items():
        if name == "reasoning_effort":
            panel.query_one(f"#{name}", Select).value = text
            continue
        field = panel.query_one(f"#{name}", Input)
        field.focus()
        await pilot.press(*text)
    area = panel.query_one("#extra", TextArea)
    area.focus()
    area.insert(raw)
    await pilot.pause()


def squeezed(text: str) -> str:
    return " ".join(text.split())


def dialog_text(app: TriptychApp) -> str:
    """The words inside the panel's frame, lines joined (a long message wraps in it)."""
    inside = [line.split("█")[1] for line in screen_text(app).splitlines() if line.count("█") >= 2]
    return squeezed(" ".join(inside))


def labels(app: TriptychApp) -> list[str]:
    return [view.label_text for view in app.query(AssistantTurn)]


@pytest.mark.parametrize("api", list(Api))
async def test_the_panels_values_go_out_in_the_formats_own_fields(
    api: Api, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    typed, raw, fields, header = FORMS[api]
    fake_provider.push(fake.stream(api), fake.stream(api))
    history = tmp_path / "h.sqlite3"
    app = make_app(fake_config(fake_provider, api), tmp_path, history_file=history)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_panel(pilot)
        assert [w.id for w in panel.query("Input, Select")] == list(typed)  # this format's knobs
        await fill(pilot, panel, typed, raw)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, ParametersScreen))
        await send(pilot, "q")
        await wait_drawn(pilot)
        sent = fake_provider.requests[-1].json
        assert sent == {"model": "m-1", **QUESTION[api], **fields, "stream": True}
        assert labels(app) == [header]
        assert squeezed(header) in squeezed(screen_text(app))  # wrapped at the pane's width
    # Reopened from the history, the answer's header says the same.
    again = make_app(fake_config(fake_provider, api), tmp_path, history_file=history)
    async with again.run_test(size=SIZE) as pilot:
        again.action_show_history()
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(labels(again)), what="the reopened answer")
        assert labels(again) == [header]


async def test_the_values_override_the_providers_params_and_clear_back_to_them(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    provider = fake_provider.provider(
        Api.RESPONSES,
        name="fake",
        params={"temperature": 1.0, "reasoning": {"summary": "auto", "effort": "high"}},
    )
    config = Config(path=None, default="fake", providers={"fake": provider}, ui=UiSettings())
    fake_provider.push(fake.stream(Api.RESPONSES), fake.stream(Api.RESPONSES))
    app = make_app(config, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_panel(pilot)
        assert "Over the provider's params: temp 1 · effort high · summary auto" in screen_text(app)
        await fill(pilot, panel, {"temperature": "0.3", "reasoning_effort": "medium"}, "")
        await pilot.click("#params-apply")
        await wait_until(pilot, lambda: not isinstance(app.screen, ParametersScreen))
        await send(pilot, "q")
        await wait_drawn(pilot)
        sent = fake_provider.requests[-1].json
        assert sent["temperature"] == 0.3
        assert sent["reasoning"] == {"summary": "auto", "effort": "medium"}
        panel = await open_panel(pilot)
        assert panel.query_one("#temperature", Input).value == "0.3"  # the values stay
        await pilot.click("#params-clear")
        assert panel.query_one("#temperature", Input).value == ""
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, ParametersScreen))
        assert app.pane.params is None
        await send(pilot, "q")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2)
        sent = fake_provider.requests[-1].json
        assert sent["temperature"] == 1.0
        assert sent["reasoning"] == {"summary": "auto", "effort": "high"}


BAD = [  # format, what is typed, raw JSON, the message, the field it marks
    (Api.CHAT, {"temperature": "3"}, "", "temperature: must be from 0 to 2, not 3", "temperature"),
    (
        Api.CHAT,
        {"temperature": "warm"},
        "",
        'temperature: must be a number from 0 to 2, not "warm"',
        "temperature",
    ),
    (
        Api.CHAT,
        {"max_output_tokens": "2.5"},
        "",
        "max_output_tokens: must be a whole number (tokens), not 2.5",
        "max_output_tokens",
    ),
    (
        Api.CHAT,
        {"stop": '["a", "b", "c", "d", "e"]'},
        "",
        "stop: Chat Completions takes at most 4 stop sequences",
        "stop",
    ),
    (Api.CHAT, {"seed": "x"}, "", 'seed: must be a whole number (an integer), not "x"', "seed"),
    (
        Api.MESSAGES,
        {"temperature": "1.5"},
        "",
        "temperature: Messages takes 0 to 1, not 1.5",
        "temperature",
    ),
    (
        Api.MESSAGES,
        {"thinking_budget": "100"},
        "",
        "thinking_budget: must be from 1024 to 10000000, not 100",
        "thinking_budget",
    ),
    (
        Api.MESSAGES,
        {"thinking_budget": "5000"},
        "",
        "thinking_budget: must be less than max_tokens (4096); "
        "raise max_tokens or lower the budget",
        "thinking_budget",
    ),
    (Api.RESPONSES, {"top_p": "-1"}, "", "top_p: must be from 0 to 1, not -1", "top_p"),
    (
        Api.RESPONSES,
        {},
        "{bad",
        "raw JSON: not valid JSON "
        "(Expecting property name enclosed in double quotes at line 1 column 2)",
        "extra",
    ),
    (Api.RESPONSES, {}, "[1, 2]", 'raw JSON: must be an object, e.g. {"logprobs": true}', "extra"),
]


@pytest.mark.parametrize(("api", "typed", "raw", "message", "field"), BAD)
async def test_a_bad_value_is_said_and_loses_nothing_typed(
    api: Api,
    typed: dict[str, str],
    raw: str,
    message: str,
    field: str,
    fake_provider: FakeProvider,
    tmp_path: Path,
) -> None:
    app = make_app(fake_config(fake_provider, api), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_panel(pilot)
        await fill(pilot, panel, typed, raw)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is panel  # still open
        assert panel.error_text == message
        assert squeezed(message) in dialog_text(app)
        marked = panel.query_one(f"#{field}")
        assert marked.has_class("-invalid")
        assert marked.has_focus
        for name, text in typed.items():
            assert panel.query_one(f"#{name}", Input).value == text
        assert panel.query_one("#extra", TextArea).text == raw
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is not panel)
        assert app.pane.params is None
    assert fake_provider.requests == []


async def test_a_knob_the_new_format_lacks_fails_the_next_answer_with_a_clear_message(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """The seed was set on Chat Completions; after switching to a Messages provider, the next
    answer fails, unsent, saying Messages takes no seed (the panel there offers no seed)."""
    chat = fakes[Api.CHAT].provider(Api.CHAT, name="cc")
    messages = fakes[Api.MESSAGES].provider(Api.MESSAGES, name="am")
    config = Config(
        path=None, default="cc", providers={"cc": chat, "am": messages}, ui=UiSettings()
    )
    app = make_app(config, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_panel(pilot)
        await fill(pilot, panel, {"seed": "7"}, "")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, ParametersScreen))
        await app.use_provider(messages, "m-1")
        await send(pilot, "q")
        await wait_drawn(pilot)
        assert "✖ failed — Seed: Messages takes no seed (bad_params)" in screen_text(app)
        panel = await open_panel(pilot)
        assert not panel.query("#seed")
    assert fakes[Api.MESSAGES].requests == []


def test_snapshot_of_the_panel_over_an_answer_sent_with_its_values(
    snap_compare: Any, tmp_path: Path
) -> None:
    """The panel as a user sees it: the values the last answer was sent with (its header says
    `temp 0.2 · max 256 · seed 7`), a stop sequence being typed that is refused, its message."""
    app, streamer = scripted_app(tmp_path, SNAP_ANSWER)

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(PromptInput).cursor_blink = False
        panel = await open_panel(pilot)
        await fill(
            pilot, panel, {"temperature": "0.2", "max_output_tokens": "256", "seed": "7"}, ""
        )
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, ParametersScreen))
        await send(pilot, "reverse words")
        await wait_until(pilot, streamer.played.is_set, what="the script")
        await wait_until(pilot, lambda: not pilot.app.render_clock.live)
        panel = await open_panel(pilot)
        await fill(pilot, panel, {"top_p": "1.5"}, '{"logprobs": true}')
        await pilot.press("ctrl+s")
        for widget in panel.query("Input, TextArea"):
            widget.cursor_blink = False  # type: ignore[attr-defined]
        await pilot.pause(0.15)

    assert snap_compare(app, terminal_size=(100, 34), run_before=run_before)
