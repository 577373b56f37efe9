"""Screens ask the app for what lies beyond them by posting messages declared on themselves
("attributes down, messages up"): a comparison works inside any Textual app, which
hears what it asks for; and Ctrl+R on a comparison goes up, the app keeps the setting and hands
it down to every pane, so its new turns follow."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.command import CommandPalette
from textual.message import Message

from app.settings.config import Config
from app.ui.flows.connect import ClientMaker
from app.ui.render_clock import RenderClock
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.compare_panes import PaneMaker
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.compare_helpers import all_drawn, ask, compare_screen, config_for
from tests.ui.helpers import make_app, wait_until


class BareApp(App[None]):
    """A plain Textual app, not Triptych's: it shows one comparison and keeps what it hears."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config
        self.heard: list[Message] = []

    def on_mount(self) -> None:
        maker = PaneMaker(ClientMaker(self.config).connect, RenderClock(self, manage_gc=False))
        choices = [(p, p.model) for p in self.config.providers.values()]
        self.push_screen(CompareScreen(maker, choices, self.config.providers))

    def on_compare_screen_continue_alone(self, message: CompareScreen.ContinueAlone) -> None:
        self.heard.append(message)

    def on_compare_screen_export_requested(self, message: CompareScreen.ExportRequested) -> None:
        self.heard.append(message)


async def test_a_comparison_asks_any_app_by_message(fakes: dict[Api, FakeProvider]) -> None:
    app = BareApp(config_for(fakes))
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="compare")
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        await pilot.press("alt+right", "ctrl+g")  # continue the second pane alone
        await wait_until(pilot, lambda: len(app.heard) == 1, what="ContinueAlone")
        alone = app.heard[0]
        assert isinstance(alone, CompareScreen.ContinueAlone)
        assert alone.pane is screen.panes[1]
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        await pilot.press(*"Export comparison as JSON")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.heard) == 2, what="ExportRequested")
        export = app.heard[1]
        assert isinstance(export, CompareScreen.ExportRequested)
        assert (export.fmt, export.record) == ("json", None)  # this comparison has no history


async def test_ctrl_r_on_a_comparison_goes_up_and_its_panes_new_turns_follow(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api, server in fakes.items():
        server.push(fake.stream(api, ANSWER), fake.stream(api, ANSWER))
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=(160, 48)) as pilot:
        screen = compare_screen(app)
        await ask(pilot, "think first")
        await all_drawn(pilot)
        for pane in screen.panes:
            assert pane.current is not None
            assert pane.current.reasoning.collapsed  # closed, as the config says
        assert not app.reasoning_open
        assert not any(pane.keep_reasoning_open for pane in screen.panes)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.reasoning_open, what="the app's setting")
        assert all(pane.keep_reasoning_open for pane in screen.panes)
        await ask(pilot, "and again")
        await wait_until(
            pilot,
            lambda: all(len(p.conversation.messages) == 4 for p in screen.panes),
            what="the second answers",
        )
        await all_drawn(pilot)
        for pane in screen.panes:
            assert pane.current is not None
            assert not pane.current.reasoning.collapsed  # a new turn follows the setting
