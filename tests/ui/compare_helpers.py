"""Driving the comparison screen in Pilot tests: three fake providers named by format (the
`fakes` fixture in tests/fakes/fixtures.py gives one server per Api), a config for them, and
waiting for every pane. Screen sizes stay in each test file: snapshots and layouts depend on them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.pilot import Pilot

from app.demo.frames import Answer
from app.settings.config import Config, ProviderConfig
from app.store import Store, StoredConversation
from app.ui.app import TriptychApp
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.compare_pane import ComparePane
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import wait_until

PLAIN = replace(ANSWER, reasoning=(), tool=None)
NAMES = {Api.CHAT: "cc", Api.MESSAGES: "am", Api.RESPONSES: "rs"}


def config_for(fakes: dict[Api, FakeProvider], **extra: Any) -> Config:
    """One provider per format, named as in NAMES; `extra` (prices) goes to every provider."""
    providers: dict[str, ProviderConfig] = {
        name: fakes[api].provider(api, name=name, model=f"{name}-model", **extra)
        for api, name in NAMES.items()
    }
    return Config(path=None, default="cc", providers=providers)


def answer(*pieces: str) -> Answer:
    """One output token per piece (a single piece is the whole answer in one token): answers
    of different lengths rank in a known order."""
    return replace(PLAIN, text=pieces)


def push_each(fakes: dict[Api, FakeProvider], text: str) -> None:
    """Queues one answer on every pane's server, named by its provider: "cc says one."."""
    for api, name in NAMES.items():
        fakes[api].push(fake.stream(api, answer(f"{name} {text}")))


def compare_screen(app: TriptychApp) -> CompareScreen:
    screen = app.screen
    assert isinstance(screen, CompareScreen)
    return screen


async def ask(pilot: Pilot[Any], text: str) -> None:
    """Types into the prompt of whichever screen is up: a comparison or a chat left from one."""
    pilot.app.screen.query_one("#prompt").focus()
    await pilot.press(*text, "enter")


async def all_drawn(pilot: Pilot[Any], timeout: float = 15.0) -> None:
    screen = compare_screen(pilot.app)  # type: ignore[arg-type]
    await wait_until(
        pilot,
        lambda: all(p.current is not None and p.current.drawn for p in screen.panes),
        timeout,
        "every pane drawn",
    )
    await pilot.pause()


async def reached(pilot: Pilot[Any], pane: ComparePane, word: str) -> None:
    """Until a paced answer shows `word` in the pane: it is partway, still answering."""
    await wait_until(
        pilot,
        lambda: pane.current is not None and word in pane.current.answer.source,
        what=f"{word} in {pane.provider.name}",
    )


async def run_palette(pilot: Pilot[Any], command: str, choice: str) -> None:
    """Runs a palette command that opens a picker, then picks `choice` in it."""
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    await pilot.press(*command)
    await pilot.pause(0.3)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), what="picker")
    await pilot.pause(0.2)
    await pilot.press(*choice)
    await pilot.pause(0.3)
    await pilot.press("enter")


def load_last(db: Path) -> StoredConversation:
    store = Store.open(db)
    try:
        conv_id = store.last_conversation_id()
        assert conv_id is not None
        return store.load(conv_id)
    finally:
        store.close()


__all__ = [
    "NAMES",
    "PLAIN",
    "all_drawn",
    "answer",
    "ask",
    "compare_screen",
    "config_for",
    "load_last",
    "push_each",
    "reached",
    "run_palette",
]
