"""Names from outside on the screen: a file name in the folder the `@` completion reads, a model
name in a recording `replay --ui` opens. Each is drawn literally (ESC as ␛) and never reaches the
terminal as an escape: a name holding an OSC 52 must not write the clipboard the moment `@` and
its first letter are typed, nor on every repaint of the header.

Pilot for what the screen holds; the real app in tmux (its own server, clipboard writes on) for
what reaches the terminal.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from app import cli
from app.demo.replay_server import ReplayServer
from app.headless.replay_plan import replay_plan
from app.providers.record import read_recording
from app.settings.config import Config
from app.ui.app import TriptychApp
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.prompt import PromptInput
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, wait_until
from tests.ui.test_tmux_e2e import Terminal, console_script

OSC52 = "\x1b]52;c;SGFja2Vk\x07"  # "Hacked" into the clipboard
SHOWN = "␛]52;c;SGFja2Vk␇"
OSC0 = "\x1b]0;pwned\x07"  # the window title
HOSTILE_FILE = f"n{OSC52}{OSC0}otes.md"
HOSTILE_MODEL = f"m-{OSC52}{OSC0}1"


def no_escape(text: str) -> bool:
    return not any(ord(c) < 0x20 and c != "\n" for c in text)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory the app is started in, with a file whose name holds escapes."""
    work = tmp_path / "work"
    work.mkdir()
    (work / HOSTILE_FILE).write_text("hi\n", encoding="utf-8")
    monkeypatch.chdir(work)
    return work


# -- the `@` completion ----------------------------------------------------------------------


async def type_in(pilot: Pilot[Any], text: str) -> None:
    pilot.app.screen.query_one("#prompt").focus()
    await pilot.press(*text)
    await pilot.pause()


async def test_the_at_completion_draws_a_file_name_literally(
    folder: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "look at @n")
        prompt = app.screen.query_one(PromptInput)
        assert no_escape(prompt.suggestion), repr(prompt.suggestion)
        text = screen_text(app)
        assert no_escape(text), repr(text)
        assert f"@ n{SHOWN}" in text  # the candidate under the prompt, literally
        await pilot.press("right")  # takes what the ghost text offered: nothing unsafe
        assert no_escape(prompt.text), repr(prompt.text)
        assert no_escape(screen_text(app))
    assert fake_provider.requests == []


async def test_a_plain_completion_still_completes(
    folder: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    (folder / "notes-plain.md").write_text("x", encoding="utf-8")
    (folder / "zebra.txt").write_text("x", encoding="utf-8")
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "@z")
        prompt = app.screen.query_one(PromptInput)
        assert prompt.suggestion == "ebra.txt"
        await pilot.press("right")
        assert prompt.text == "@zebra.txt"


# -- replay --ui -----------------------------------------------------------------------------


def record(tmp_path: Path, *models: str) -> Path:
    """A recording of one answer per model (a comparison for two), as `ask --record` writes."""
    path = tmp_path / "r.jsonl"
    with FakeProvider() as server:
        server.push(*[fake.stream(Api.CHAT) for _ in models])
        if len(models) == 1:
            base = ["ask", "--api", "chat", "--base-url", server.url, "--model", models[0]]
        else:
            config = tmp_path / "c.toml"
            config.write_text(
                "".join(
                    f'[providers.p{n}]\napi = "chat"\nbase_url = "{server.url}"\n'
                    f"model = {json_string(model)}\n"
                    for n, model in enumerate(models)
                ),
                encoding="utf-8",
            )
            names = ",".join(f"p{n}" for n in range(len(models)))
            base = ["ask", "--compare", names, "--config", str(config)]
        assert cli.main([*base, "--json", "--record", str(path), "say hello"]) == 0
    return path


def json_string(text: str) -> str:
    import json

    return json.dumps(text)


def turns(app: TriptychApp) -> list[Any]:
    screen = app.screen
    if isinstance(screen, CompareScreen):
        return [pane.turn for pane in screen.panes]
    return [app.pane.turn]


@pytest.mark.parametrize("panes", [1, 2], ids=["chat", "compare"])
async def test_replay_ui_draws_a_recorded_model_name_literally(tmp_path: Path, panes: int) -> None:
    models = [HOSTILE_MODEL, "m-plain"][:panes]
    recorded = read_recording(await asyncio.to_thread(record, tmp_path, *models))
    with ReplayServer(recorded, speed=None) as server:
        providers = [server.provider_for(n) for n in range(len(recorded))]
        plan = replay_plan(recorded, [p.name for p in providers])
        first = plan.steps[0][1]
        app = TriptychApp(
            Config(path=None, default=first[0], providers={p.name: p for p in providers}),
            state_file=tmp_path / "state.toml",
            themes_dir=tmp_path / "themes",
            compare=list(first) if plan.side_by_side else None,
            replay=plan,
        )
        async with app.run_test(size=(160, 40)) as pilot:
            if panes == 2:
                await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
            await wait_until(
                pilot,
                lambda: all(t is not None and t.done for t in turns(app)),
                what="the replayed answers",
            )
            await pilot.pause(0.3)
            assert no_escape(app.sub_title), repr(app.sub_title)
            assert no_escape(app.screen.sub_title or ""), repr(app.screen.sub_title)
            text = screen_text(app)
            assert no_escape(text), repr(text)
            assert f"m-{SHOWN}" in text  # the header (and status line) name it, literally


async def test_a_model_name_with_escapes_is_drawn_literally_in_the_header_and_welcome(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    config = fake_config(fake_provider)
    provider = replace(config.providers["fake"], model=HOSTILE_MODEL)
    config = replace(config, providers={"fake": provider})
    app = make_app(config, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert no_escape(app.sub_title), repr(app.sub_title)
        text = screen_text(app)
        assert no_escape(text), repr(text)
        assert f"Chatting with fake · m-{SHOWN}" in text  # the welcome
        assert f"fake · m-{SHOWN}" in text.splitlines()[0]  # the header


# -- in a real terminal ------------------------------------------------------------------------


@pytest.fixture
def hostile_terminal(tmp_path: Path) -> Iterator[Terminal]:
    assert shutil.which("tmux"), "tmux is required (.ci/run installs it)"
    term = Terminal(f"triptych-names-{uuid.uuid4().hex[:8]}")
    yield term
    term.tmux("kill-server")


def start(terminal: Terminal, tmp_path: Path, where: Path, *args: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text('default = "demo"\n', encoding="utf-8")
    env = {
        "TRIPTYCH_CONFIG": str(config),
        "TRIPTYCH_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    command = f"cd {shlex.quote(str(where))} && env -i "
    command += " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command += " " + " ".join(shlex.quote(a) for a in (console_script(), *args))
    terminal.tmux("new-session", "-d", "-s", "app", "-x", "120", "-y", "36", command)
    terminal.tmux("set-option", "-g", "set-clipboard", "on")  # an OSC 52 would write the buffer
    terminal.tmux("set-buffer", "-b", "before", "untouched")


def pane_title(terminal: Terminal) -> str:
    return terminal.tmux("display-message", "-p", "-t", "app", "#{pane_title}").strip()


def assert_untouched(terminal: Terminal, title: str | None) -> None:
    time.sleep(0.5)
    buffers = terminal.tmux("list-buffers", "-F", "#{buffer_name}=#{buffer_sample}")
    assert buffers.strip() == "before=untouched", "the clipboard was written"
    if title is not None:
        assert pane_title(terminal) == title, "the window title was changed"
    assert "pwned" not in pane_title(terminal)
    assert terminal.alive()


@pytest.mark.tmux
def test_typing_at_and_a_letter_writes_nothing_to_the_terminal(
    hostile_terminal: Terminal, tmp_path: Path, folder: Path
) -> None:
    start(hostile_terminal, tmp_path, folder)
    hostile_terminal.wait_for("Ask anything")
    title = pane_title(hostile_terminal)
    hostile_terminal.keys("@n")
    screen = hostile_terminal.wait_for(f"@ n{SHOWN}")
    assert "\x1b" not in screen
    hostile_terminal.keys("Right")
    time.sleep(0.5)
    assert_untouched(hostile_terminal, title)


@pytest.mark.tmux
def test_replay_ui_of_a_hostile_model_name_writes_nothing_to_the_terminal(
    hostile_terminal: Terminal, tmp_path: Path
) -> None:
    path = record(tmp_path, HOSTILE_MODEL)
    start(hostile_terminal, tmp_path, tmp_path, "replay", str(path), "--ui")
    screen = hostile_terminal.wait_for(f"m-{SHOWN}", "Replay done")
    assert "\x1b" not in screen
    assert_untouched(hostile_terminal, None)  # the title before the first repaint is unknown


async def test_every_notice_is_drawn_as_written(tmp_path: Path) -> None:
    """A notice carries outside text (a path, a server's words): markup in it is not read,
    whoever raises it (a widget's `notify` turns markup on by default), and an escape shows as
    its picture."""
    app = make_app(fake_config(FakeProvider()), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        path = f"/tmp/[bold red]x[/] {OSC52}.json"
        app.notify(f"Saved the exchange to {path}")
        app.screen.notify(f"Could not save {path}", title=f"[b]t{OSC0}")
        app.query_one(PromptInput).notify("[reverse]owned[/reverse]")
        await pilot.pause()
        notices = list(app._notifications)
        assert [n.markup for n in notices] == [False, False, False]
        assert notices[0].message == f"Saved the exchange to /tmp/[bold red]x[/] {SHOWN}.json"
        assert notices[1].title == "[b]t␛]0;pwned␇"
        assert notices[2].message == "[reverse]owned[/reverse]"
        await wait_until(pilot, lambda: "[reverse]owned" in screen_text(app), what="the notice")
        assert no_escape(screen_text(app))
