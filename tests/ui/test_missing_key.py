"""A provider whose key is missing says so before anything is sent or stored: at once on
switching, in the status bar, and Enter refuses with that line, keeping the draft. The palette's
"Set a key until you quit…" takes one in a masked field, kept in memory only and scrubbed from
whatever is shown like any key."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input

from app.demo.server import with_demo_providers
from app.settings.config import Config
from app.ui.app import TriptychApp
from app.ui.crash_report import crash_report
from app.ui.screens.api_key import ApiKeyScreen
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, make_app, screen_text, send, wait_drawn, wait_until

VARIABLE = "TRIPTYCH_TEST_UNSET_KEY"
LINE = f"key missing: set ${VARIABLE}"
KEY = "sk-typed-in-the-app-SECRET-0815"


def config(fake_provider: FakeProvider) -> Config:
    keyed = fake_provider.provider(Api.CHAT, name="keyed", api_key_env=VARIABLE)
    return with_demo_providers(Config(path=None, default="demo", providers={"keyed": keyed}))


def notices(app: TriptychApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def stored_messages(history: Path) -> int:
    if not history.exists():
        return 0
    with closing(sqlite3.connect(history)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if "messages" not in tables:
            return 0
        return int(db.execute("SELECT count(*) FROM messages").fetchone()[0])


async def switch_to_keyed(pilot: Pilot[Any], app: TriptychApp) -> None:
    keyed = app.config.providers["keyed"]
    app.switch_to(keyed, keyed.model)
    await wait_until(pilot, lambda: app.pane.provider.name == "keyed", what="the switch")
    await pilot.pause()


async def test_switching_says_so_and_enter_refuses_keeping_the_draft(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    history = tmp_path / "history.db"
    app = make_app(config(fake_provider), tmp_path, history_file=history)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert "ready" in app.pane.status_bar.plain  # the demo needs no key
        await switch_to_keyed(pilot, app)
        assert any(LINE in note for note in notices(app))  # at once, on switching
        assert app.pane.status_bar.plain == f"keyed · m-1 · {LINE}"
        before = len(notices(app))
        await send(pilot, "my carefully typed question")
        await pilot.pause()
        assert notices(app)[before:] == [LINE]
        assert app.screen.query_one("#prompt").text == "my carefully typed question"
        assert app.pane.conversation.messages == []
        assert app.pane.current is None  # no turn started, none failed
        app.history.wait(5)
    assert fake_provider.requests == []  # nothing sent
    assert stored_messages(history) == 0  # nothing stored


async def test_a_key_set_until_you_quit_is_used_masked_and_scrubbed(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await switch_to_keyed(pilot, app)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"set a key")
        await pilot.pause(0.4)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApiKeyScreen), what="the field")
        field = app.screen.query_one(Input)
        assert field.password  # masked as it is typed
        await pilot.press(*KEY)
        await pilot.pause()
        assert KEY not in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, ApiKeyScreen))
        await wait_until(pilot, lambda: "ready" in app.pane.status_bar.plain, what="ready")
        assert f"Key set for ${VARIABLE} until you quit." in notices(app)
        await send(pilot, "hi")
        await wait_drawn(pilot)
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.COMPLETE
        assert fake_provider.last_request().headers["authorization"] == f"Bearer {KEY}"
        assert KEY not in screen_text(app)
        try:
            raise RuntimeError(f"a crash quoting the key {KEY}")
        except RuntimeError:
            report = crash_report(app.config, app._maker.session_keys.values()).plain
        assert KEY not in report
        assert "[redacted]" in report
    for written in tmp_path.rglob("*"):  # memory only: not in the state file or anywhere
        if written.is_file():
            assert KEY.encode() not in written.read_bytes(), written


async def test_a_provider_with_its_key_set_is_ready(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv(VARIABLE, KEY)
    app = make_app(replace(config(fake_provider), default="keyed"), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert app.pane.status_bar.plain == "keyed · m-1 · ready"
