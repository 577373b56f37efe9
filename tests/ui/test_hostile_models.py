"""What `GET /models` sends is untrusted text: an error body with
terminal escapes (OSC 52 writes the clipboard, OSC 0 retitles the window) or Rich markup, and
model ids carrying either. They are shown literally and never reach the terminal raw; a model
id with control characters is never picked, shown in the header or stored in state.toml.

Over loopback with the project's fake provider: Pilot for what the screen shows, and the real
app in tmux (its own server, clipboard writes on) for what reaches the terminal."""

from __future__ import annotations

import os
import shlex
import shutil
import time
import tomllib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot

from app.ui.app import TriptychApp
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, wait_until
from tests.ui.test_tmux_e2e import Terminal, console_script

OSC52 = "\x1b]52;c;SGFja2Vk\x07"  # "Hacked" into the clipboard
OSC0 = "\x1b]0;pwned\x07"  # the window title
MARKUP = "[bold]markup[/]"
HOSTILE_ERROR = f"{OSC52} no models {OSC0} {MARKUP}"
ESC_ID = f"{OSC0}evil-model"


def models_error() -> fake.Reply:
    return fake.json_answer({"error": {"message": HOSTILE_ERROR}}, status=500)


def model_list() -> fake.Reply:
    return fake.json_answer({"data": [{"id": "good-1"}, {"id": ESC_ID}, {"id": MARKUP}]})


def notices(app: TriptychApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def open_model_picker(
    pilot: Pilot[Any], app: TriptychApp, fake_provider: FakeProvider
) -> None:
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*"switch model")
    await pilot.pause(0.4)
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(fake_provider.requests) == 1, what="GET /models")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the picker")
    await pilot.pause(0.3)


async def test_a_models_error_is_shown_literally(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(models_error())
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_model_picker(pilot, app, fake_provider)
        await wait_until(pilot, lambda: any("no models" in n for n in notices(app)))
        notice = next(n for n in notices(app) if "no models" in n)
        assert "\x1b" not in notice
        assert "\x07" not in notice
        assert "␛]52;c;SGFja2Vk␇" in notice
        assert MARKUP in notice
        await pilot.pause(0.2)
        text = screen_text(app)  # the picker, under the notice
        assert "no models" in text
        assert MARKUP in text  # not parsed as markup: the brackets are on screen
        assert "\x1b" not in text
        assert "\x07" not in text


async def test_model_ids_are_shown_literally_and_one_with_escapes_is_refused(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(model_list())
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_model_picker(pilot, app, fake_provider)
        text = screen_text(app)
        assert MARKUP in text
        assert "good-1" in text
        assert "evil-model" not in text  # not offered
        assert "\x1b" not in text
        assert any("control characters" in n for n in notices(app))
        assert all("\x1b" not in n for n in notices(app))
        await pilot.press(*"markup")
        await pilot.pause(0.4)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.pane.model == MARKUP, what="the markup model")
        await pilot.pause(0.1)
        assert f"fake · {MARKUP}" in screen_text(app)  # the header, literally
        await pilot.press("ctrl+p")  # the palette's help text names it: literally too
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"switch model")
        await pilot.pause(0.4)
        assert f"now: {MARKUP}" in screen_text(app)
        await pilot.press("escape")
    state = (tmp_path / "state.toml").read_text(encoding="utf-8")
    assert tomllib.loads(state)["model"] == MARKUP
    assert not any(ord(c) < 0x20 and c != "\n" for c in state)


# -- in a real terminal ------------------------------------------------------------------------


@pytest.fixture
def hostile_terminal(tmp_path: Path, fake_provider: FakeProvider) -> Iterator[Terminal]:
    assert shutil.which("tmux"), "tmux is required (.ci/run installs it)"
    config = tmp_path / "config.toml"
    config.write_text(
        'default = "fake"\n[providers.fake]\napi = "chat"\n'
        f'base_url = "{fake_provider.url}"\nmodel = "m-1"\n',
        encoding="utf-8",
    )
    env = {
        "TRIPTYCH_CONFIG": str(config),
        "TRIPTYCH_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    command = "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command += " " + shlex.quote(console_script())
    term = Terminal(f"triptych-hostile-{uuid.uuid4().hex[:8]}")
    term.tmux("new-session", "-d", "-s", "app", "-x", "100", "-y", "30", command)
    term.tmux("set-option", "-g", "set-clipboard", "on")  # an OSC 52 would write the buffer
    term.tmux("set-buffer", "-b", "before", "untouched")
    try:
        yield term
    finally:
        term.tmux("kill-server")


def pane_title(terminal: Terminal) -> str:
    return terminal.tmux("display-message", "-p", "-t", "app", "#{pane_title}").strip()


def buffers(terminal: Terminal) -> str:
    return terminal.tmux("list-buffers", "-F", "#{buffer_name}=#{buffer_sample}")


@pytest.mark.tmux
def test_nothing_a_models_server_sends_reaches_the_terminal(
    hostile_terminal: Terminal, fake_provider: FakeProvider
) -> None:
    terminal = hostile_terminal
    fake_provider.push(models_error(), model_list())
    terminal.wait_for("Ask anything")
    title = pane_title(terminal)
    for asked in (1, 2):  # the error, then the list of ids
        terminal.keys("C-p")
        terminal.wait_for("Search")
        terminal.keys("switch model")
        time.sleep(0.5)
        terminal.keys("Enter")
        deadline = time.monotonic() + 10
        while len(fake_provider.requests) < asked and time.monotonic() < deadline:
            time.sleep(0.05)
        if asked == 1:  # the picker, under the notice
            screen = terminal.wait_for("Switch model (fake)", "m-1", "no models")
        else:
            screen = terminal.wait_for("Switch model (fake)", "m-1", "good-1")
            assert "evil-model" not in screen
        assert MARKUP in screen
        terminal.keys("Escape")
        time.sleep(0.3)
    time.sleep(0.5)
    assert pane_title(terminal) == title, "the window title was changed"
    assert pane_title(terminal) != "pwned"
    assert buffers(terminal).strip() == "before=untouched", "the clipboard was written"
    assert terminal.alive()
