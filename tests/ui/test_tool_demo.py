"""The offline demo with a `[tools]` tool: its tool call answered in the card, then the demo
answers the results with text quoting them (in each format), so the loop ends after one round."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.demo.server import DemoServer, Pacing, with_demo_providers
from app.settings.config import Config, ToolConfig
from tests.ui.helpers import SIZE, make_app, screen_text, send
from tests.ui.tool_helpers import SCHEMA, ToolTextEditor, cards, reach, wait_for, wait_idle

WEATHER = ToolConfig("get_weather", "Weather now", SCHEMA)


@pytest.mark.parametrize("provider", ["demo", "demo-messages", "demo-responses"])
async def test_the_demo_answers_a_tool_result_with_text_that_quotes_it(
    tmp_path: Path, provider: str
) -> None:
    with DemoServer(Pacing.instant()) as demo:
        config = demo.attach(with_demo_providers(Config(path=None)))
        config = replace(config, default=provider, tools={WEATHER.name: WEATHER})
        app = make_app(config, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "weather in Paris?")
            editor = await wait_for(pilot, ToolTextEditor, "the result editor")
            await reach(pilot, editor)
            editor.insert('{"temp": 21}')
            await pilot.press("enter")
            await wait_idle(pilot)
            assert len(cards(app)) == 1  # no second call: the loop ended
            turn = app.pane.turn
            assert turn is not None
            assert not turn.tool_calls
            assert '{"temp": 21}' in turn.text
            assert "get_weather" in turn.text
            assert "complete" in screen_text(app)
