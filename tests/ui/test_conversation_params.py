"""The parameters panel's values are the conversation's: stored with it,
shown again and sent again when it is reopened, and a New chat starts from the provider's
params (the exact JSON the fake server received each time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from app.store import Store
from app.ui.screens.parameters import ParametersScreen
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn, wait_until
from tests.ui.test_parameters_panel import fill, open_panel

USAGE = {"stream_options": {"include_usage": True}}
SET = {"temperature": 0.2, "max_tokens": 256}


def said(text: str) -> Any:
    return fake.stream(Api.CHAT, fake.Answer(text=(text,)))


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


async def apply(pilot: Pilot[Any], values: dict[str, str]) -> None:
    panel = await open_panel(pilot)
    await fill(pilot, panel, values, "")
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, ParametersScreen))


async def panel_values(pilot: Pilot[Any]) -> dict[str, str]:
    panel = await open_panel(pilot)
    values = {field.id or "": field.value for field in panel.query(Input) if field.value}
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, ParametersScreen))
    return values


async def test_a_reopened_conversation_shows_and_sends_its_own_parameters(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    history = tmp_path / "h.sqlite3"
    fake_provider.push(said("A1."), said("A2."), said("A3."), said("N1."))
    config = fake_config(fake_provider)
    app = make_app(config, tmp_path, history_file=history)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_drawn(pilot)
        await apply(pilot, {"temperature": "0.2", "max_output_tokens": "256"})  # once stored
        await send(pilot, "second")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2)
        await wait_drawn(pilot)
        assert fake_provider.requests[-1].json["temperature"] == 0.2
    store = Store.open(history)
    try:
        (summary,) = store.list_conversations()
        assert store.load(summary.id).params == {"temperature": 0.2, "max_output_tokens": 256}
    finally:
        store.close()
    # Another session starts with none set; reopened, the conversation has its own again.
    again = make_app(config, tmp_path, history_file=history)
    async with again.run_test(size=SIZE) as pilot:
        assert again.pane.params is None
        again.action_show_history()
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: again.pane.conversation.messages != [], what="reopened")
        assert await panel_values(pilot) == {"temperature": "0.2", "max_output_tokens": "256"}
        await send(pilot, "third")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3)
        await wait_drawn(pilot)
        messages = [user("first"), assistant("A1."), user("second"), assistant("A2.")]
        assert fake_provider.requests[-1].json == {
            "model": "m-1",
            "messages": [*messages, user("third")],
            **SET,
            "stream": True,
            **USAGE,
        }
        # A New chat starts from the provider's params (it has none): nothing set, none sent.
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: again.pane.conversation.messages == [])
        assert again.pane.params is None
        assert await panel_values(pilot) == {}
        await send(pilot, "new")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 4)
        assert fake_provider.requests[-1].json == {
            "model": "m-1",
            "messages": [user("new")],
            "stream": True,
            **USAGE,
        }


async def test_values_set_before_the_first_prompt_are_stored_with_the_conversation(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    history = tmp_path / "h.sqlite3"
    fake_provider.push(said("A1."))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=history)
    async with app.run_test(size=SIZE) as pilot:
        await apply(pilot, {"seed": "7"})
        await send(pilot, "first")
        await wait_drawn(pilot)
    store = Store.open(history)
    try:
        (summary,) = store.list_conversations()
        assert store.load(summary.id).params == {"seed": 7}
    finally:
        store.close()
