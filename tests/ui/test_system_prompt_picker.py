"""The system prompt picker: the palette's "System prompt…" lists the
`[prompts.NAME]` presets, none, and editing the text for this conversation; the header names
the current one; each request then carries it in the format's own field (the exact JSON the
fake server received); the history keeps it with the conversation, reopened too; a preset
that does not exist says so with the configured ones."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from app.settings.config import Config, SystemPreset
from app.store import Store
from app.ui.app import TriptychApp
from app.ui.screens.system_prompt import SystemPromptEditor
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until
from tests.ui.test_model_picker import choose, open_command

PRESETS = {
    "terse": SystemPreset("terse", "Answer in one line."),
    "pirate": SystemPreset("pirate", "Talk like a pirate."),
}


def config(server: FakeProvider, api: Api = Api.CHAT, system: str | None = None) -> Config:
    return replace(fake_config(server, api), prompts=PRESETS, system=system)


def system_sent(api: Api, body: dict[str, Any]) -> Any:
    """The system prompt as the format carries it (None when the body has none)."""
    if api is Api.CHAT:
        first = body["messages"][0]
        return first["content"] if first["role"] == "system" else None
    return body.get("system" if api is Api.MESSAGES else "instructions")


def notices(app: TriptychApp) -> list[tuple[str, str]]:
    return [(str(n.message), n.severity) for n in app._notifications]


async def pick(pilot: Pilot[Any], typed: str) -> None:
    await open_command(pilot, "system prompt")
    await choose(pilot, typed)
    await pilot.pause()


@pytest.mark.parametrize("api", list(Api))
async def test_a_preset_is_chosen_shown_and_sent_in_the_formats_field(
    api: Api, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(api), fake.stream(api))
    app = make_app(config(fake_provider, api), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_command(pilot, "system prompt")
        text = screen_text(app)
        for offered in ("terse", "Answer in one line.", "pirate", "No system prompt", "Edit for"):
            assert offered in text
        await choose(pilot, "pirate")
        await wait_until(pilot, lambda: "system: pirate" in app.sub_title, what="the header")
        assert "fake · m-1 · system: pirate" in screen_text(app)
        await send(pilot, "q")
        await wait_drawn(pilot)
        body = fake_provider.requests[-1].json
        assert system_sent(api, body) == "Talk like a pirate."
        if api is Api.CHAT:
            assert body["messages"] == [
                {"role": "system", "content": "Talk like a pirate."},
                {"role": "user", "content": "q"},
            ]
        await pick(pilot, "No system prompt")
        assert "system:" not in app.sub_title
        await send(pilot, "again")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2)
        assert system_sent(api, fake_provider.requests[-1].json) is None


async def test_the_text_is_edited_for_this_conversation_and_kept_by_the_history(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Started with --system-preset terse (the CLI makes it the config's system prompt), the
    text is edited mid-conversation: the next request carries it, the header says `custom`,
    and the conversation reopens with it."""
    history = tmp_path / "h.sqlite3"
    fake_provider.push(*(fake.stream(Api.CHAT) for _ in range(3)))
    start = config(fake_provider, system=PRESETS["terse"].system)
    app = make_app(start, tmp_path, history_file=history)
    async with app.run_test(size=SIZE) as pilot:
        assert "system: terse" in app.sub_title
        await send(pilot, "first")
        await wait_drawn(pilot)
        assert system_sent(Api.CHAT, fake_provider.requests[-1].json) == "Answer in one line."
        await pick(pilot, "edit for")
        await wait_until(pilot, lambda: isinstance(app.screen, SystemPromptEditor))
        area = app.screen.query_one(TextArea)
        assert area.text == "Answer in one line."
        await pilot.press(*" Use British spelling.")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, SystemPromptEditor))
        assert "system: custom" in app.sub_title
        await send(pilot, "second")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2)
        await wait_drawn(pilot)
        edited = "Answer in one line. Use British spelling."
        sent = fake_provider.requests[-1].json["messages"]
        assert sent[0] == {"role": "system", "content": edited}
        assert sent[1] == {"role": "user", "content": "first"}
        assert sent[-1] == {"role": "user", "content": "second"}
    store = Store.open(history)
    try:
        (summary,) = store.list_conversations()
        assert store.load(summary.id).system == edited
    finally:
        store.close()
    # Reopened (with no system prompt configured), it carries on with its own.
    again = make_app(config(fake_provider), tmp_path, history_file=history)
    async with again.run_test(size=SIZE) as pilot:
        assert "system:" not in again.sub_title
        again.action_show_history()
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: "system: custom" in again.sub_title, what="the header")
        await send(pilot, "third")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 3)
        assert fake_provider.requests[-1].json["messages"][0] == {
            "role": "system",
            "content": edited,
        }


async def test_esc_leaves_the_system_prompt_as_it_was(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(config(fake_provider, system=PRESETS["pirate"].system), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pick(pilot, "edit for")
        await wait_until(pilot, lambda: isinstance(app.screen, SystemPromptEditor))
        await pilot.press(*"something else")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SystemPromptEditor))
        assert app.pane.conversation.system == "Talk like a pirate."
        assert "system: pirate" in app.sub_title


async def test_a_preset_that_does_not_exist_says_which_do(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(config(fake_provider, system=PRESETS["terse"].system), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pick(pilot, "zzz-nothing")
        await wait_until(pilot, lambda: notices(app), what="the message")
        assert notices(app) == [
            (
                "No system prompt changed: unknown system preset 'zzz-nothing'; "
                "configured: terse, pirate",
                "error",
            )
        ]
        assert app.pane.conversation.system == "Answer in one line."  # unchanged
        assert "system: terse" in app.sub_title
    assert fake_provider.requests == []
